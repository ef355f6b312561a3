//! Pages: their sources (`source.rs`), the images writes change ([`image`]), ciphers ([`crypt`]).
//!
//! Exports: modules [`image`] and [`crypt`]; the page sources [`PageSource`],
//! [`Page`], [`FilePageSource`], [`MmapPageSource`], [`MemPageSource`] and
//! [`rc4_apply`].

pub mod crypt;
pub mod image;
mod source;

pub use source::{FilePageSource, MemPageSource, MmapPageSource, Page, PageSource, rc4_apply};
