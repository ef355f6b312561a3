//! What the parts of the table-definition writer share, so that none of
//! them imports another's: the specs a caller declares ([`ColumnSpec`],
//! [`IndexSpec`], [`TableSpec`]), the long-value map list written beside a
//! definition ([`TdefExtra`]), the TDEF magic numbers, table types, column
//! and index flags, the General sort order and the key-column limit, and
//! Access's name rules ([`check_name`]).

use crate::error::{WResult, WriteError};
use crate::format::types::JetType;
use crate::schema::tdef::Direction;

/// Constant found in TDEF headers, column and logical-index definitions.
pub const MAGIC_TABLE: u32 = 1625;
/// Constant that opens a real-index definition.
pub const MAGIC_INDEX: u32 = 1923;
/// TDEF table type of user tables.
pub const TABLE_USER: u8 = 0x4e;
/// TDEF table type of system tables.
pub const TABLE_SYSTEM: u8 = 0x53;
/// Column flag: updatable (set on every column Access or Jackcess writes).
pub const COL_UPDATABLE: u8 = 0x02;
/// Real-index flag: unique.
pub const INDEX_UNIQUE: u8 = 0x01;
/// Real-index flag: ignore nulls.
pub const INDEX_IGNORE_NULLS: u8 = 0x02;
/// Real-index flag: required (no nulls).
pub const INDEX_REQUIRED: u8 = 0x08;
/// Text sort order "General" (locale 1033) as the column stores it.
pub const SORT_GENERAL: u16 = 1033;
/// Most key columns of a real index.
pub const MAX_INDEX_COLUMNS: usize = 10;

/// One column as a caller declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    /// Column name.
    pub name: String,
    /// Jet type.
    pub jet_type: JetType,
    /// Text: maximum characters (1–255); Binary: maximum bytes (1–255);
    /// ignored for other types.
    pub size: u16,
    /// Numeric precision (1–28).
    pub precision: u8,
    /// Numeric scale (0–precision).
    pub scale: u8,
    /// NULL refused on insert and update.
    pub not_null: bool,
    /// Auto-number (Long: counter; GUID: generated).
    pub auto_number: bool,
    /// Hyperlink (Memo only).
    pub hyperlink: bool,
    /// The column's default as Access expression text (its `DefaultValue`
    /// property), applied to rows inserted without a value for the column.
    /// Only expressions the writer evaluates are accepted (see
    /// [`crate::write::default`]); others are refused at CREATE TABLE.
    pub default_value: Option<String>,
}

impl ColumnSpec {
    /// A column of `jet_type` with defaults: Text 255 characters, Binary 255
    /// bytes, Numeric(18, 0), nullable, not auto-number.
    pub fn new(name: &str, jet_type: JetType) -> ColumnSpec {
        ColumnSpec {
            name: name.to_string(),
            jet_type,
            size: 255,
            precision: 18,
            scale: 0,
            not_null: false,
            auto_number: false,
            hyperlink: false,
            default_value: None,
        }
    }
    /// Text of at most `chars` characters.
    pub fn text(name: &str, chars: u16) -> ColumnSpec {
        ColumnSpec {
            size: chars,
            ..ColumnSpec::new(name, JetType::Text)
        }
    }
    /// Numeric(precision, scale).
    pub fn numeric(name: &str, precision: u8, scale: u8) -> ColumnSpec {
        ColumnSpec {
            precision,
            scale,
            ..ColumnSpec::new(name, JetType::Numeric)
        }
    }
    /// Marks the column NOT NULL.
    pub fn not_null(mut self) -> ColumnSpec {
        self.not_null = true;
        self
    }
    /// Gives the column a default (Access expression text, e.g. `0`,
    /// `"abc"`, `#2024-01-31#`, `Yes`, `Now()`).
    pub fn default_value(mut self, expr: &str) -> ColumnSpec {
        self.default_value = Some(expr.to_string());
        self
    }
    /// Marks the column auto-number.
    pub fn auto_number(mut self) -> ColumnSpec {
        self.auto_number = true;
        self
    }
}

/// One index as a caller declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSpec {
    /// Index name.
    pub name: String,
    /// Key columns (by name) and their directions.
    pub columns: Vec<(String, Direction)>,
    /// The primary key (implies unique and required).
    pub primary: bool,
    /// Unique.
    pub unique: bool,
    /// Rows whose key is all NULL are not indexed.
    pub ignore_nulls: bool,
}

impl IndexSpec {
    /// A plain ascending index on `columns`.
    pub fn new(name: &str, columns: &[&str]) -> IndexSpec {
        IndexSpec {
            name: name.to_string(),
            columns: columns
                .iter()
                .map(|c| (c.to_string(), Direction::Ascending))
                .collect(),
            primary: false,
            unique: false,
            ignore_nulls: false,
        }
    }
    /// The primary key on `columns` (ascending).
    pub fn primary(name: &str, columns: &[&str]) -> IndexSpec {
        IndexSpec {
            primary: true,
            unique: true,
            ..IndexSpec::new(name, columns)
        }
    }
    /// Marks the index unique.
    pub fn unique(mut self) -> IndexSpec {
        self.unique = true;
        self
    }
}

/// A table as a caller declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSpec {
    /// Table name.
    pub name: String,
    /// Columns in order.
    pub columns: Vec<ColumnSpec>,
    /// Indexes.
    pub indexes: Vec<IndexSpec>,
}

impl TableSpec {
    /// A table named `name` with `columns` and no indexes.
    pub fn new(name: &str, columns: Vec<ColumnSpec>) -> TableSpec {
        TableSpec {
            name: name.to_string(),
            columns,
            indexes: Vec::new(),
        }
    }
    /// Adds an index.
    pub fn index(mut self, idx: IndexSpec) -> TableSpec {
        self.indexes.push(idx);
        self
    }
}

/// What the encoder needs beyond [`TableDef`]: the long-value column usage
/// maps (column number, owned-pages map pointer, free-space map pointer).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TdefExtra {
    /// Per long-value column: (column number, owned map, free map).
    pub lval_maps: Vec<(u16, u32, u32)>,
}

pub(crate) fn bad(table: &str, why: impl Into<String>) -> WriteError {
    WriteError::BadDefinition {
        table: table.to_string(),
        why: why.into(),
    }
}

/// Checks a name as Access does: 1–64 characters, no leading space, none
/// of `. ! [ ]` or control characters.
pub fn check_name(table: &str, what: &str, name: &str) -> WResult<()> {
    let n = name.chars().count();
    if n == 0 || n > 64 {
        return Err(bad(
            table,
            format!("{what} name {name:?} must have 1 to 64 characters"),
        ));
    }
    if name.starts_with(' ') || name.chars().any(|c| c.is_control() || ".![]`".contains(c)) {
        return Err(bad(
            table,
            format!(
                "{what} name {name:?} has a leading space or one of . ! [ ] ` or a control character"
            ),
        ));
    }
    Ok(())
}
