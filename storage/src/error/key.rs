//! Why a value cannot be encoded as an index key: [`KeyError`].

use crate::format::TextCollation;

/// Why a value cannot be encoded as an index key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The column's type (or its sort order) has no established encoding.
    #[error("column {column:?}: no established index key encoding for {jet_type} ({reason})")]
    Unsupported {
        /// Column name.
        column: String,
        /// Jet type name.
        jet_type: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// A text value holds a character the column's sort order tables do not
    /// cover (the key Access wrote for it is unknown).
    #[error(
        "column {column:?}: no index code for character U+{unit:04X} in sort order {collation:?}"
    )]
    UnknownChar {
        /// Column name.
        column: String,
        /// The UTF-16 code unit (or, in Jet3, the code-page byte).
        unit: u16,
        /// The sort order.
        collation: TextCollation,
    },
    /// The stored value is too short for its type.
    #[error("column {column:?}: stored value of {len} bytes is too short for {jet_type}")]
    BadValue {
        /// Column name.
        column: String,
        /// Jet type name.
        jet_type: &'static str,
        /// Bytes found.
        len: usize,
    },
}
