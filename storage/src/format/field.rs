//! One column's content in a row as stored, before it is decoded:
//! [`RawField`] (borrowed from the page) and [`OwnedField`].

/// One column's raw content in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawField<'a> {
    /// The null-mask bit is clear (or the row predates the column).
    Null,
    /// A Boolean column's value (stored in the null mask).
    Bool(bool),
    /// The column's bytes as stored (fixed area or variable area).
    Bytes(&'a [u8]),
}

/// An owned [`RawField`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedField {
    /// Null.
    Null,
    /// A Boolean.
    Bool(bool),
    /// Stored bytes.
    Bytes(Vec<u8>),
}
