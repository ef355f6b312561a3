//! # jet-storage
//!
//! Reads Microsoft Access / Jet database files — Jet3 (Access 97), Jet4
//! (Access 2000–2003) and ACE 12–17 (`.accdb`) — and streams their tables as
//! Arrow [`RecordBatch`](arrow_array::RecordBatch)es, decoding pages straight
//! into Arrow builders.
//!
//! ```no_run
//! use jet_storage::{Database, OpenOptions, ScanOptions};
//! let db = Database::open("nwind.mdb", OpenOptions::default())?;
//! for name in db.table_names() {
//!     let rows: usize = db.table(&name)?.scan(ScanOptions::default())?
//!         .map(|b| b.map(|b| b.num_rows()))
//!         .sum::<Result<usize, _>>()?;
//!     println!("{name}: {rows}");
//! }
//! # Ok::<(), jet_storage::Error>(())
//! ```
//!
//! Encrypted and password-protected files (ACCDB Agile, Standard and RC4
//! encryption, Microsoft Money files, Jet database passwords) open with
//! [`OpenOptions::password`]; [`Database::protection`] says what protects a
//! file (see [`page::crypt`]; [`write::convert`] encrypts and decrypts
//! whole files).
//!
//! Complex columns of ACCDB files (attachments, multi-value lists, version
//! history) are found by [`Database::complex_columns`] and read lazily from
//! their hidden tables by [`Database::complex_values`] (see [`read::complex`]).
//!
//! Saved queries are rebuilt into Access SQL text from `MSysQueries` by
//! [`Database::queries`] (see [`read::queries`]).
//!
//! Every decision that guards a read (ranges, row slots, row geometry, usage
//! map bits, long-value descriptors and chains) is made by `jet-kernels`.
//! Bad input yields a typed [`Error`] naming the page and table; never a
//! panic, an endless loop, or an allocation larger than the file justifies.

pub mod error;
pub mod format;
pub mod index;
pub mod journal;
pub mod page;
pub mod read;
pub mod schema;
pub mod write;

pub use error::{
    ComplexError, CryptError, Error, FormatError, JournalError, QueryError, Result, SchemaError,
    WriteError,
};
pub use format::types::JetType;
pub use format::{JetVersion, Protection, Scheme as ProtectionScheme};
pub use page::crypt::Password;
pub use page::image::{CommitTarget, ImageChanges, MemImage, PageStore};
pub use read::complex::{Attachment, ComplexColumn, ComplexKind, ComplexValues, Version};
pub use read::database::{Backend, Database, FileStamp, OpenOptions};
pub use read::queries::{QueryKind, QueryRow, SavedQuery};
pub use read::scan::{ScanOptions, TableScan};
pub use read::table::Table;
pub use schema::catalog::{CatalogEntry, ObjectKind};
pub use write::{Transaction, WriteTarget, Writer};
