//! Why a write was refused: [`WriteError`], and [`WResult`], the result of
//! the write path.

use super::{Error, FormatError, KeyError};

/// Why a write was refused. Every variant names the table (and column or
/// value) involved; a refused write leaves the committed image unchanged.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A value does not fit its column's type, range or width; it is
    /// refused, never clipped or wrapped.
    #[error("table {table:?}, column {column:?}: value {value} refused: {why}")]
    ValueOutOfRange {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
        /// The value as given (shortened when long).
        value: String,
        /// Why it does not fit.
        why: String,
    },
    /// A NULL for a column that requires a value.
    #[error("table {table:?}, column {column:?}: NULL refused (the column is NOT NULL)")]
    NullRefused {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
    },
    /// The input's Arrow type cannot be stored in the column's Jet type.
    #[error("table {table:?}, column {column:?}: Arrow type {arrow} cannot be stored as {jet}")]
    TypeMismatch {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
        /// The Arrow type given.
        arrow: String,
        /// The column's Jet type.
        jet: &'static str,
    },
    /// The input names a column the table does not have.
    #[error("table {table:?} has no column {column:?}")]
    NoSuchColumn {
        /// Table name.
        table: String,
        /// Column name.
        column: String,
    },
    /// No table of that name.
    #[error("no table named {0:?}")]
    NoSuchTable(String),
    /// The table has no index of that name.
    #[error("table {table:?} has no index {index:?}")]
    NoSuchIndex {
        /// Table name.
        table: String,
        /// Index name as given.
        index: String,
    },
    /// A table (or other object) of that name exists already.
    #[error("an object named {0:?} exists already")]
    TableExists(String),
    /// The table definition asked for is not valid.
    #[error("table {table:?}: invalid definition: {why}")]
    BadDefinition {
        /// Table name.
        table: String,
        /// What is wrong.
        why: String,
    },
    /// The table has real indexes and no index maintainer is installed.
    #[error(
        "table {table:?} has {indexes} real index(es); rows cannot be written without an index maintainer (install one with Writer::set_index_maintainer)"
    )]
    IndexMaintenanceUnavailable {
        /// Table name.
        table: String,
        /// Number of real indexes.
        indexes: usize,
    },
    /// An index key could not be computed for a row.
    #[error("table {table:?}: index key: {source}")]
    IndexKey {
        /// Table name.
        table: String,
        /// Why.
        #[source]
        source: KeyError,
    },
    /// An enforced relationship refuses the change: a row would reference
    /// a key its primary table does not hold, or a referenced row would be
    /// deleted or re-keyed and the relationship has no referential action
    /// for it (the change is refused before anything is written).
    #[error(
        "table {table:?}: relationship {relationship:?} with table {other:?}: {why} (key {key})"
    )]
    ForeignKey {
        /// Table being written.
        table: String,
        /// Name of the relationship's index in `table`.
        relationship: String,
        /// The other table of the relationship.
        other: String,
        /// The key's columns and values.
        key: String,
        /// What was refused.
        why: String,
    },
    /// The index maintainer refused (for example a duplicate unique key).
    #[error("table {table:?}: index maintenance: {why}")]
    Index {
        /// Table name.
        table: String,
        /// What the maintainer said.
        why: String,
    },
    /// A row, after encoding, is larger than a data page can hold.
    #[error("table {table:?}: row of {len} bytes exceeds the largest row a page holds ({max})")]
    RowTooLarge {
        /// Table name.
        table: String,
        /// Encoded row length.
        len: usize,
        /// Largest row.
        max: usize,
    },
    /// A bookmark names no live row of the table.
    #[error("table {table:?}: no live row at page {page}, row {row}")]
    NoSuchRow {
        /// Table name.
        table: String,
        /// Data page.
        page: u32,
        /// Row slot.
        row: u8,
    },
    /// The format or version cannot be written by this writer.
    #[error("cannot write {0}")]
    Unsupported(String),
    /// The file grew past what 24-bit page pointers can address.
    #[error("database is full: page {0} cannot be addressed by a row pointer")]
    DatabaseFull(u32),
    /// The committed image (or a page this transaction wrote) is damaged.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// Reading the committed image failed.
    #[error("{0}")]
    Read(Box<Error>),
}

impl From<Error> for WriteError {
    fn from(e: Error) -> Self {
        match e {
            Error::Format(f) => WriteError::Format(f),
            e => WriteError::Read(Box::new(e)),
        }
    }
}

/// Result of the write path.
pub type WResult<T> = std::result::Result<T, WriteError>;
