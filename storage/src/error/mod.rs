//! Every error payload type of storage, at the bottom of the crate: it names nothing above it.
//!
//! Exports: [`Error`] and [`Result`]; the payloads [`FormatError`],
//! [`SchemaError`], [`CryptError`], [`JournalError`], [`ComplexError`],
//! [`WriteError`] (with [`WResult`]), [`QueryError`] and [`KeyError`];
//! [`printable`].
//!
//! One enum per layer, each carrying where the problem lies (page number,
//! offset, table). The read path's are here; the writer's
//! ([`WriteError`]), saved queries' ([`QueryError`]) and index keys'
//! ([`KeyError`]) sit beside them.

mod key;
mod query;
mod write;

pub use key::KeyError;
pub use query::QueryError;
pub use write::{WResult, WriteError};

use jet_kernels::Refusal;
use std::path::PathBuf;

/// `text` read from a file (a name, a link target) made safe to print
/// inside a one-line message: control characters (NUL, newline, …) and
/// U+FFFD (an undecodable byte) are written as `\u{…}` escapes; other
/// text is unchanged.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| c.is_control() || c == '\u{fffd}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() || c == '\u{fffd}' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A problem with the file's bytes: its header, a page, a row, a value.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The operating system refused a read.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The path names something other than a regular file (a directory,
    /// a FIFO, a device, a socket): it is not opened, so opening never
    /// blocks on a FIFO or reads a device.
    #[error("{} is {kind}, not an Access database file", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is: "a directory", "a FIFO", "a device", "a socket".
        kind: &'static str,
    },
    /// Page 0 does not carry a Jet or ACE signature.
    #[error("not a Jet/ACE database: {0}")]
    NotJet(String),
    /// A version byte this reader does not know.
    #[error("unsupported Jet version byte {0:#04x}")]
    UnsupportedVersion(u8),
    /// The file is encrypted with a scheme this reader does not decode.
    #[error("database is encrypted ({0}); this reader cannot decrypt it")]
    Encrypted(&'static str),
    /// A page number past the end of the file.
    #[error("page {page} is past the end of the file ({pages} pages)")]
    PageOutOfRange {
        /// Requested page.
        page: u32,
        /// Pages in the file.
        pages: u32,
    },
    /// A page of the wrong type where a specific type is required.
    #[error("page {page}: expected a {expected} page, found page type {found:#04x}")]
    PageType {
        /// Page number.
        page: u32,
        /// What was expected.
        expected: &'static str,
        /// The page type byte found.
        found: u8,
    },
    /// A column value's bytes do not decode as its type.
    #[error("page {page}, row at offset {offset}, column {column:?}: {what}")]
    BadValue {
        /// Page number.
        page: u32,
        /// Offset of the row in the page.
        offset: usize,
        /// Column name.
        column: String,
        /// What is wrong.
        what: &'static str,
    },
    /// A structure on a page is inconsistent; a kernel refused it.
    #[error("page {page}, offset {offset}: {what}: {refusal}")]
    Corrupt {
        /// Page number.
        page: u32,
        /// Byte offset in the page (or in the row, where `what` says so).
        offset: usize,
        /// What was being read.
        what: &'static str,
        /// Why it was refused.
        refusal: Refusal,
    },
}

/// Why an encrypted or password-protected database was not opened. The
/// messages name the protection (scheme, cipher, hash), never the password
/// given or a key.
#[derive(Debug, thiserror::Error)]
pub enum CryptError {
    /// The file has a password and none was given.
    #[error(
        "this database is protected by a password ({protection}); give its password to open it"
    )]
    PasswordRequired {
        /// What protects the file.
        protection: crate::format::Protection,
    },
    /// The password given is not the file's (checked against the header's
    /// verifier before any page was decoded).
    #[error("the password given is not this database's password ({protection})")]
    WrongPassword {
        /// What protects the file.
        protection: crate::format::Protection,
    },
    /// The encryption header in page 0 is out of bounds or inconsistent.
    #[error("the encryption header of this database is damaged at byte {offset} of page 0: {what}")]
    DamagedHeader {
        /// Byte offset in page 0.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A well-formed header naming a scheme this reader does not decrypt.
    #[error("this database is encrypted with {scheme}, which this reader does not support")]
    Unsupported {
        /// The scheme, as the header names it.
        scheme: String,
    },
    /// An image [`crate::write::convert`] does not encrypt or decrypt.
    #[error("this database was not converted: {why}")]
    NotConvertible {
        /// Why.
        why: &'static str,
    },
}

/// A problem with a table definition or the catalog.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The TDEF of a table is inconsistent.
    #[error("table {table:?} (TDEF page {page}): {what}")]
    BadTdef {
        /// Table name (empty while reading the catalog itself).
        table: String,
        /// First TDEF page.
        page: u32,
        /// What is wrong.
        what: String,
    },
    /// No table of that name.
    #[error("no table named {0:?}")]
    NoSuchTable(String),
    /// No column of that name.
    #[error("table {table:?} has no column {column:?}")]
    NoSuchColumn {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
    },
    /// A linked table: its rows live in another database.
    #[error(
        "table {table:?} is linked to {}; open that database instead",
        printable(target)
    )]
    Linked {
        /// Table name.
        table: String,
        /// Where it points.
        target: String,
    },
}

/// A problem of the undo journal: committing a transaction, recovering
/// after a crash, or locking the database.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The operating system refused an operation on the database or its
    /// journal.
    #[error("I/O error ({op}) on {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The database file is marked read-only (no write permission bit
    /// set); it is not opened for writing, whoever the process runs as.
    #[error("{path} is read-only; it was not opened for writing")]
    ReadOnly {
        /// The database.
        path: PathBuf,
    },
    /// Another holder of the database prevents this lock.
    #[error("{path} is in use by {holder}; try again when it is closed")]
    Locked {
        /// The database.
        path: PathBuf,
        /// Who holds it.
        holder: &'static str,
    },
    /// The journal's bytes cannot come from a crash of the writer (damaged,
    /// truncated, or of an unknown format): the database may hold a
    /// half-written transaction, so it is not opened. Both files are left
    /// byte for byte as they were.
    #[error(
        "database {database} was not opened: its journal {path} is damaged at byte {offset} ({refusal}), \
         so the database may hold a half-written transaction; both files were left untouched. \
         Keep a copy of both, then `jetsql recover --discard-journal {database}` keeps the database as it is"
    )]
    Corrupt {
        /// The journal.
        path: PathBuf,
        /// The database.
        database: PathBuf,
        /// Offset of the damaged record.
        offset: u64,
        /// Why it was refused.
        refusal: Refusal,
    },
    /// The journal does not belong to the database beside it (another
    /// file, another copy, another transaction): it is not applied and the
    /// database is not opened. Both files are left as they were.
    #[error(
        "database {database} was not opened: the journal {path} beside it belongs to another database or transaction ({what}); \
         both files were left untouched. Keep a copy of both, then `jetsql recover --discard-journal {database}` \
         keeps the database as it is"
    )]
    Foreign {
        /// The journal.
        path: PathBuf,
        /// The database.
        database: PathBuf,
        /// Which identity check failed.
        what: &'static str,
    },
    /// The journal holds a commit record but the database does not match
    /// the committed image; nothing was changed.
    #[error(
        "database {path} was not opened: it does not match the commit recorded in its journal {journal}; \
         both files were left untouched. Keep a copy of both, then `jetsql recover --discard-journal {path}` \
         keeps the database as it is"
    )]
    CommitmentMismatch {
        /// The database.
        path: PathBuf,
        /// The journal.
        journal: PathBuf,
    },
    /// An I/O error at or after the commit point of a transaction: the
    /// commit record may or may not be durable. The journal is kept; the
    /// next open of the database decides (it holds either the whole
    /// transaction or none of it).
    #[error(
        "I/O error ({op}) on {path} at the commit point: {source}; the outcome of the transaction is uncertain: \
         it is either wholly committed or not at all, and reopening the database decides which (its journal was kept)"
    )]
    Uncertain {
        /// The file.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An I/O error before the commit point: the transaction did not
    /// happen (the database holds the image before it, or its journal
    /// rolls it back at the next open).
    #[error("I/O error ({op}) on {path}: {source}; the transaction was not committed{rollback}")]
    NotCommitted {
        /// The file.
        path: PathBuf,
        /// What was being done.
        op: &'static str,
        /// The underlying error.
        #[source]
        source: std::io::Error,
        /// What happened to the partial work (empty, or "; … rolled back").
        rollback: String,
    },
    /// The database path names a directory, FIFO, device or socket.
    #[error("{} is {kind}, not an Access database file", path.display())]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is: "a directory", "a FIFO", "a device", "a socket".
        kind: &'static str,
    },
    /// A journal exists but its database does not.
    #[error("journal {path} exists but its database is missing")]
    MissingDatabase {
        /// The journal.
        path: PathBuf,
    },
    /// The changes do not fit the database as it is on disk.
    #[error("database {path}: {what}")]
    ImageMismatch {
        /// The database.
        path: PathBuf,
        /// What does not fit.
        what: String,
    },
}

/// A problem reading a complex column (attachments, multi-value lists,
/// version history) from the hidden tables that hold its values. Every
/// variant names the table and the column.
#[derive(Debug, thiserror::Error)]
pub enum ComplexError {
    /// The column is not of type Complex.
    #[error("table {table:?}: column {column:?} is not a complex column")]
    NotComplex {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
    },
    /// `MSysComplexColumns` or the hidden tables it names do not describe
    /// the column (no row for it, a missing type or flat table, a flat
    /// table without its key columns).
    #[error("table {table:?}, complex column {column:?}: {what}")]
    Unresolved {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
        /// What is missing or inconsistent.
        what: String,
    },
    /// The values were asked for as another kind than the column holds
    /// (attachments of a multi-value column, …).
    #[error("table {table:?}, complex column {column:?} holds {holds}, not {asked}")]
    WrongKind {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
        /// The kind it holds.
        holds: &'static str,
        /// The kind asked for.
        asked: &'static str,
    },
    /// Two parent rows read together hold the same complex id, which has
    /// values: Access gives every row its own id, so the file is damaged
    /// (reading both would decode the same hidden rows twice).
    #[error(
        "table {table:?}, complex column {column:?}: complex id {complex_id} is held by two rows (rows {} and {} of one batch); every row owns its own values, so the file is damaged",
        rows.0,
        rows.1
    )]
    SharedId {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
        /// The shared complex id.
        complex_id: i32,
        /// The two rows, as positions in the batch.
        rows: (usize, usize),
    },
    /// An attachment's stored `FileData` does not decode: a bad wrapper or
    /// header, a damaged zlib stream, or content longer or shorter than its
    /// header states.
    #[error(
        "table {table:?}, attachment column {column:?}, complex id {complex_id}, \
         attachment id {attachment_id:?} (row {row} of page {page} of {flat_table:?}): {what}"
    )]
    DamagedAttachment {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
        /// The complex id (the parent row's value of the column).
        complex_id: i32,
        /// The attachment's own id (the flat table's auto-number), when set.
        attachment_id: Option<i32>,
        /// The hidden flat table.
        flat_table: String,
        /// Data page of the attachment's row.
        page: u32,
        /// Row number on that page.
        row: u8,
        /// What is wrong.
        what: String,
    },
}

/// Any error of the storage read path.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// File or page level.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Schema or catalog level.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A failure while reading a named table.
    #[error("table {table:?}: {source}")]
    InTable {
        /// Table name.
        table: String,
        /// The error.
        #[source]
        source: Box<Error>,
    },
    /// Arrow refused to build a batch.
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// A write was refused or failed; the committed image is unchanged.
    #[error(transparent)]
    Write(Box<WriteError>),
    /// Committing, recovering or locking through the undo journal.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// An encrypted or password-protected file that was not opened: a
    /// missing or wrong password, a damaged or unsupported encryption header.
    #[error(transparent)]
    Crypt(#[from] CryptError),
    /// A saved query that does not exist or whose `MSysQueries` rows do
    /// not describe a query: names the query and what is wrong.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// A complex column whose hidden tables do not describe it, or whose
    /// stored values do not decode: names the table, column and complex id.
    #[error(transparent)]
    Complex(#[from] ComplexError),
}

impl Error {
    /// Wraps this error with the name of the table being read (once).
    pub fn in_table(self, table: &str) -> Error {
        match self {
            e @ Error::InTable { .. } => e,
            e => Error::InTable {
                table: table.to_string(),
                source: Box::new(e),
            },
        }
    }
}

/// Result of the storage read path.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Builds a [`FormatError::Corrupt`].
pub(crate) fn corrupt(
    page: u32,
    offset: usize,
    what: &'static str,
    refusal: Refusal,
) -> FormatError {
    FormatError::Corrupt {
        page,
        offset,
        what,
        refusal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_files_print_on_one_line() {
        let e = SchemaError::Linked {
            table: "a\nb\0".into(),
            target: "x\n\0\u{ff}\u{fffd}y in c:\\db.mdb".into(),
        };
        let m = e.to_string();
        assert_eq!(m.lines().count(), 1, "{m}");
        assert!(!m.contains('\0'), "{m}");
        assert_eq!(
            m,
            "table \"a\\nb\\0\" is linked to x\\u{a}\\u{0}\u{ff}\\u{fffd}y in c:\\db.mdb; open that database instead"
        );
    }
}
