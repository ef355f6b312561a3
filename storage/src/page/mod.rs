//! Pages: their sources ([`source`]), the images writes change ([`image`]), ciphers ([`crypt`]).

pub mod crypt;
pub mod image;
pub mod source;

pub use source::{FilePageSource, MemPageSource, MmapPageSource, Page, PageSource, rc4_apply};
