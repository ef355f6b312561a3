//! The exceptions of the module and the mapping from engine errors to them.
//!
//! Every error reaches Python as `jetsql.Error` or one of its subclasses,
//! with the storage error's own message (the table, page and value it
//! names) and without DataFusion's category prefixes or Rust type names:
//!
//! - `WrongPassword`: the file needs a password and none, or another, was
//!   given;
//! - `CorruptFile`: the file's bytes (header, page, table definition,
//!   journal, encryption header) are damaged or not an Access database;
//! - `ConstraintViolation`: a write refused by a NOT NULL column, a unique
//!   index or an enforced relationship (nothing was changed).

use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;
use jet_storage::error::WriteError;
use jet_storage::{CryptError, Error as JetError, FormatError, JournalError, SchemaError};
use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::PyException;

create_exception!(
    jetsql,
    Error,
    PyException,
    "Any error of jetsql: opening, reading, querying or writing a database."
);
create_exception!(
    jetsql,
    WrongPassword,
    Error,
    "The database is protected: no password, or not its password, was given."
);
create_exception!(
    jetsql,
    CorruptFile,
    Error,
    "The file is not an Access database, or its bytes are damaged."
);
create_exception!(
    jetsql,
    ConstraintViolation,
    Error,
    "A write refused by a NOT NULL column, a unique index or an enforced relationship; nothing changed."
);

/// Which exception class an error belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `jetsql.Error` itself.
    Other,
    /// `jetsql.WrongPassword`.
    Password,
    /// `jetsql.CorruptFile`.
    Corrupt,
    /// `jetsql.ConstraintViolation`.
    Constraint,
}

impl Kind {
    /// The Python exception of this kind with `message`.
    pub fn to_py(self, message: String) -> PyErr {
        match self {
            Kind::Other => Error::new_err(message),
            Kind::Password => WrongPassword::new_err(message),
            Kind::Corrupt => CorruptFile::new_err(message),
            Kind::Constraint => ConstraintViolation::new_err(message),
        }
    }
}

/// The kind of a storage error.
pub fn storage_kind(e: &JetError) -> Kind {
    match e {
        JetError::InTable { source, .. } => storage_kind(source),
        JetError::Crypt(CryptError::WrongPassword { .. } | CryptError::PasswordRequired { .. }) => {
            Kind::Password
        }
        JetError::Crypt(CryptError::DamagedHeader { .. }) => Kind::Corrupt,
        JetError::Format(f) => format_kind(f),
        JetError::Schema(SchemaError::BadTdef { .. }) => Kind::Corrupt,
        JetError::Journal(
            JournalError::Corrupt { .. }
            | JournalError::Foreign { .. }
            | JournalError::CommitmentMismatch { .. },
        ) => Kind::Corrupt,
        JetError::Write(w) => write_kind(w),
        _ => Kind::Other,
    }
}

fn format_kind(f: &FormatError) -> Kind {
    match f {
        FormatError::Io { .. } | FormatError::NotAFile { .. } | FormatError::Encrypted(_) => {
            Kind::Other
        }
        _ => Kind::Corrupt,
    }
}

fn write_kind(w: &WriteError) -> Kind {
    match w {
        WriteError::NullRefused { .. }
        | WriteError::ForeignKey { .. }
        | WriteError::Index { .. } => Kind::Constraint,
        WriteError::Read(e) => storage_kind(e),
        WriteError::Format(f) => format_kind(f),
        _ => Kind::Other,
    }
}

/// The storage error inside a DataFusion error, if one caused it.
fn storage_cause(e: &DataFusionError) -> Option<&JetError> {
    let mut cur: &(dyn std::error::Error + 'static) = e;
    loop {
        if let Some(j) = cur.downcast_ref::<JetError>() {
            return Some(j);
        }
        if let Some(ArrowError::ExternalError(inner)) = cur.downcast_ref::<ArrowError>()
            && let Some(j) = inner.downcast_ref::<JetError>()
        {
            return Some(j);
        }
        cur = cur.source()?;
    }
}

/// The Python exception for a storage error.
pub fn from_storage(e: &JetError) -> PyErr {
    storage_kind(e).to_py(e.to_string())
}

/// The Python exception for a DataFusion error: the storage error that
/// caused it when there is one (its message and class), otherwise the
/// innermost message as `jetsql.Error`.
pub fn from_df(e: &DataFusionError) -> PyErr {
    if let Some(j) = storage_cause(e) {
        return from_storage(j);
    }
    Kind::Other.to_py(jet_provider::messages::plain(&e.find_root().to_string()))
}
