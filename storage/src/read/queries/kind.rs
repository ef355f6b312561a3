//! The kinds of saved queries ([`QueryKind`]): from the `MSysObjects` flags
//! or the type row of `MSysQueries`, and back, and their names.

/// The kind of a saved query, from its `MSysObjects` flags (bits 4–7), or,
/// where those say "select", from the type its `MSysQueries` type row
/// records (as Jackcess decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryKind {
    /// `SELECT …`.
    Select,
    /// `… UNION [ALL] …`.
    Union,
    /// `TRANSFORM … SELECT … PIVOT …`.
    Crosstab,
    /// `INSERT INTO … SELECT …` or `INSERT INTO … VALUES (…)`.
    Append,
    /// `UPDATE … SET …`.
    Update,
    /// `DELETE … FROM …`.
    Delete,
    /// `SELECT … INTO …`.
    MakeTable,
    /// `CREATE TABLE`, `ALTER TABLE`, … stored as text.
    DataDefinition,
    /// SQL sent unchanged to an ODBC source, stored as text.
    PassThrough,
    /// A type this reader does not rebuild (SQL-specific bulk, compound or
    /// procedure queries): the value of the `MSysObjects` flags bits 4–7.
    Unknown(u8),
}

impl QueryKind {
    /// Whether the query returns rows (select, union, crosstab) rather
    /// than changing data or the schema.
    pub fn is_select_like(self) -> bool {
        matches!(
            self,
            QueryKind::Select | QueryKind::Union | QueryKind::Crosstab
        )
    }

    /// The kind whose `MSysObjects` flags bits 4–7 are `bits` (`flags & 0xF0`).
    pub fn from_object_flag(bits: u8) -> QueryKind {
        match bits {
            0 => QueryKind::Select,
            16 => QueryKind::Crosstab,
            32 => QueryKind::Delete,
            48 => QueryKind::Update,
            64 => QueryKind::Append,
            80 => QueryKind::MakeTable,
            96 => QueryKind::DataDefinition,
            112 => QueryKind::PassThrough,
            128 => QueryKind::Union,
            other => QueryKind::Unknown(other),
        }
    }

    /// The value of `MSysObjects` flags bits 4–7 for this kind.
    pub fn object_flag(self) -> u8 {
        match self {
            QueryKind::Select => 0,
            QueryKind::Crosstab => 16,
            QueryKind::Delete => 32,
            QueryKind::Update => 48,
            QueryKind::Append => 64,
            QueryKind::MakeTable => 80,
            QueryKind::DataDefinition => 96,
            QueryKind::PassThrough => 112,
            QueryKind::Union => 128,
            QueryKind::Unknown(bits) => bits,
        }
    }

    /// The kind whose type row (attribute 1) carries `flag`, if any.
    pub fn from_row_type(flag: i16) -> Option<QueryKind> {
        Some(match flag {
            1 => QueryKind::Select,
            2 => QueryKind::MakeTable,
            3 => QueryKind::Append,
            4 => QueryKind::Update,
            5 => QueryKind::Delete,
            6 => QueryKind::Crosstab,
            7 => QueryKind::DataDefinition,
            8 => QueryKind::PassThrough,
            9 => QueryKind::Union,
            _ => return None,
        })
    }

    /// The `Flag` of this kind's type row (attribute 1); `None` for
    /// [`QueryKind::Unknown`].
    pub fn row_type(self) -> Option<i16> {
        Some(match self {
            QueryKind::Select => 1,
            QueryKind::MakeTable => 2,
            QueryKind::Append => 3,
            QueryKind::Update => 4,
            QueryKind::Delete => 5,
            QueryKind::Crosstab => 6,
            QueryKind::DataDefinition => 7,
            QueryKind::PassThrough => 8,
            QueryKind::Union => 9,
            QueryKind::Unknown(_) => return None,
        })
    }
}

impl std::fmt::Display for QueryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryKind::Select => f.write_str("select"),
            QueryKind::Union => f.write_str("union"),
            QueryKind::Crosstab => f.write_str("crosstab"),
            QueryKind::Append => f.write_str("append"),
            QueryKind::Update => f.write_str("update"),
            QueryKind::Delete => f.write_str("delete"),
            QueryKind::MakeTable => f.write_str("make-table"),
            QueryKind::DataDefinition => f.write_str("data-definition"),
            QueryKind::PassThrough => f.write_str("pass-through"),
            QueryKind::Unknown(bits) => write!(f, "unknown (type flags {bits})"),
        }
    }
}
