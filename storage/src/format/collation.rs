//! The text sort orders index keys are encoded in: [`TextCollation`] (the
//! encoders are in `index::key::text`).

/// The sort orders this encoder knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextCollation {
    /// Jet3 "General" (Access 97), Windows-1252 text.
    General97,
    /// Jet4 / ACE 12 "General Legacy" (sort order 1033, version 0).
    GeneralLegacy,
    /// ACE 14+ "General" (sort order 1033, version 1).
    General,
}
