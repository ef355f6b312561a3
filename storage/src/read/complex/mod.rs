//! Complex columns of ACCDB files: attachments, multi-value lists and the
//! version history of append-only memos.
//!
//! Exports: [`ComplexColumn`], [`ComplexKind`], [`ComplexValues`],
//! [`Attachment`], [`Version`], [`ListExpander`], [`list_schema`],
//! [`hidden_tables`] and the attachment codec ([`encode_file_data`],
//! [`decode_file_data`], [`file_type_of`]).
//!
//! A complex column (type 0x12) stores one 32-bit *complex id* per row; its
//! values live in hidden tables, which [`Database::complex_columns`] finds:
//!
//! * `MSysComplexColumns` has one row per complex column: `ColumnName`,
//!   `ComplexID` (also stored at offset 11 of the column's TDEF
//!   descriptor, see [`crate::schema::tdef::Column::complex_id`]),
//!   `ConceptualTableID` (the owning table's object id, whose
//!   low 24 bits are its TDEF page), `ComplexTypeObjectID` (a template
//!   table `MSysComplexType_*`) and `FlatTableID` (the hidden flat table,
//!   named `f_<GUID>_<column>`).
//! * The template table's columns say the kind (as Jackcess's
//!   `ComplexColumnSupport` decides): one column of a simple type is a
//!   multi-value list; a Memo, two Texts, an OLE, a Date/Time and a Long
//!   are attachments; a Memo and a Date/Time are a version history.
//! * The flat table holds the template's columns plus an auto-number (each
//!   value's own id) and a Long that is not an auto-number: the complex id
//!   of the parent row.
//!
//! [`Database::complex_values`] reads the values of one column lazily (see
//! [`ComplexValues`]): nothing is read until values are asked for, then the
//! flat table is scanned once to index complex id → rows, and each lookup
//! decodes only that id's rows.
//!
//! ```no_run
//! use jet_storage::{Database, OpenOptions};
//! let db = Database::open("complex.accdb", OpenOptions::default())?;
//! let table = db.table("Table1")?;
//! for column in db.complex_columns(&table)? {
//!     let mut values = db.complex_values(&column);
//!     println!("{}: {:?}, id 1 has {} values", column.column, column.kind, values.count(1)?);
//! }
//! # Ok::<(), jet_storage::Error>(())
//! ```

mod attachment;
mod lists;
mod values;

pub use attachment::{
    MAX_ATTACHMENT_LEN, RAW_FILE_TYPES, decode_file_data, encode_file_data, file_type_of,
};
pub use lists::{
    COMPLEX_METADATA_KEY, ListExpander, attachment_fields, list_schema, version_fields,
};
pub use values::{Attachment, ComplexValues, Version};

use crate::error::{ComplexError, Error, Result};
use crate::format::types::JetType;
use crate::read::database::Database;
use crate::read::scan::ScanOptions;
use crate::read::table::Table;
use crate::schema::catalog::ObjectKind;
use crate::schema::tdef::Column;
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

/// The system table mapping complex columns to their hidden tables.
pub const COMPLEX_COLUMNS_TABLE: &str = "MSysComplexColumns";

/// What a complex column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComplexKind {
    /// Files: name, type (extension), data, URL, time stamp and flags.
    Attachment,
    /// A list of values of one simple type (the template's one column).
    MultiValue(JetType),
    /// Earlier values of the append-only Memo column named here (the
    /// template's Memo column has the versioned column's name).
    VersionHistory {
        /// The versioned Memo column of the same table.
        versioned_column: String,
    },
    /// A template this reader does not recognise (named here); its values
    /// are not decoded.
    Unsupported(String),
}

impl ComplexKind {
    /// A short name of the kind for messages.
    pub fn name(&self) -> &'static str {
        match self {
            ComplexKind::Attachment => "attachments",
            ComplexKind::MultiValue(_) => "multiple values",
            ComplexKind::VersionHistory { .. } => "a version history",
            ComplexKind::Unsupported(_) => "values of an unsupported kind",
        }
    }
}

/// One complex column of a table and where its values are. Built by
/// [`Database::complex_columns`]; every position is checked against the
/// flat table's definition as read then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComplexColumn {
    /// The owning table.
    pub table: String,
    /// The column's name.
    pub column: String,
    /// The column's position in the owning table's columns.
    pub position: usize,
    /// `ComplexID` of the column in `MSysComplexColumns`.
    pub complex_id: i32,
    /// What it holds.
    pub kind: ComplexKind,
    /// The template table (`MSysComplexType_*`).
    pub type_table: String,
    /// The hidden flat table holding the values.
    pub flat_table: String,
    /// First TDEF page of the flat table.
    pub flat_table_page: u32,
    /// Where the parts are in the flat table's columns.
    pub(crate) layout: FlatLayout,
}

/// Positions (into the flat table's columns) of the parts a kind reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlatLayout {
    /// The parent's complex id (a Long, not an auto-number).
    pub fk: usize,
    /// Each value's own id (the auto-number), when present.
    pub pk: Option<usize>,
    /// The columns the kind reads, in the order its reader expects:
    /// multi-value `[value]`; version history `[value, modified]`;
    /// attachment `[url, name, type, data, timestamp, flags]` (any may be
    /// absent in a damaged template); unsupported `[]`.
    pub parts: Vec<Option<usize>>,
    /// The Arrow type of a multi-value column's value (as a scan of the
    /// flat table gives it); `None` for the other kinds.
    pub value_type: Option<DataType>,
}

/// The hidden tables that hold the values of `columns`: each flat table
/// once (names compared ASCII case-insensitively), in the order given.
/// These are the tables deleting rows of the owning table must also
/// touch (their rows whose complex id is the deleted row's). Template
/// tables (`MSysComplexType_*`), shared by every column of a kind, and
/// `MSysComplexColumns` are never listed. Pure: reads nothing.
pub fn hidden_tables(columns: &[ComplexColumn]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in columns {
        if !out.iter().any(|t| t.eq_ignore_ascii_case(&c.flat_table)) {
            out.push(c.flat_table.clone());
        }
    }
    out
}

/// One row of `MSysComplexColumns`.
#[derive(Debug, Clone)]
struct Registration {
    column: String,
    complex_id: Option<i32>,
    type_object: Option<i32>,
    table: Option<i32>,
    flat: Option<i32>,
}

impl Database {
    /// The complex columns of `table`, in column order, each with its kind
    /// and flat table. Empty, reading nothing, when the table has no
    /// column of type Complex. Otherwise reads `MSysComplexColumns` and the
    /// definitions (not the rows) of the template and flat tables; a column
    /// they do not describe is a [`ComplexError::Unresolved`] naming it.
    pub fn complex_columns(&self, table: &Table) -> Result<Vec<ComplexColumn>> {
        let complex: Vec<(usize, &Column)> = table
            .def()
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.jet_type == JetType::Complex)
            .collect();
        if complex.is_empty() {
            return Ok(Vec::new());
        }
        let registrations = self.complex_registrations()?;
        let mut out = Vec::with_capacity(complex.len());
        for (position, column) in complex {
            let unresolved = |what: String| {
                Error::from(ComplexError::Unresolved {
                    table: table.name().to_string(),
                    column: column.name.clone(),
                    what,
                })
            };
            let page = table.def().page;
            // by the descriptor's complex id (as Jackcess), else by name
            let reg = match column.complex_id {
                Some(id) => registrations.iter().find(|r| r.complex_id == Some(id)),
                None => registrations.iter().find(|r| {
                    r.table.map(tdef_page) == Some(page)
                        && r.column.eq_ignore_ascii_case(&column.name)
                }),
            };
            let reg = reg.ok_or_else(|| {
                unresolved(format!(
                    "{COMPLEX_COLUMNS_TABLE} has no row for it (complex id {:?}, table page {page})",
                    column.complex_id
                ))
            })?;
            if reg.table.map(tdef_page) != Some(page) {
                return Err(unresolved(format!(
                    "its {COMPLEX_COLUMNS_TABLE} row (complex id {:?}) belongs to table page {:?}, not {page}",
                    reg.complex_id,
                    reg.table.map(tdef_page)
                )));
            }
            let type_table = self
                .table_at(reg.type_object)
                .map_err(|what| unresolved(format!("template table: {what}")))?;
            let flat = self
                .table_at(reg.flat)
                .map_err(|what| unresolved(format!("flat table: {what}")))?;
            let (kind, layout) = classify(&type_table, &flat).map_err(unresolved)?;
            out.push(ComplexColumn {
                table: table.name().to_string(),
                column: column.name.clone(),
                position,
                complex_id: reg.complex_id.or(column.complex_id).unwrap_or(0),
                kind,
                type_table: type_table.name().to_string(),
                flat_table: flat.name().to_string(),
                flat_table_page: flat.def().page,
                layout,
            });
        }
        Ok(out)
    }

    /// The table whose object id is `id` (low 24 bits: its TDEF page).
    fn table_at(&self, id: Option<i32>) -> Result<Table, String> {
        let id = id.ok_or("its id is NULL")?;
        let page = tdef_page(id);
        let entry = self
            .catalog()
            .iter()
            .find(|e| matches!(e.kind, ObjectKind::Table) && e.tdef_page() == page)
            .ok_or_else(|| format!("no table has TDEF page {page}"))?;
        self.table(&entry.name).map_err(|e| e.to_string())
    }

    /// Every row of `MSysComplexColumns`.
    fn complex_registrations(&self) -> Result<Vec<Registration>> {
        let t = self.table(COMPLEX_COLUMNS_TABLE)?;
        let find = |name: &str| {
            t.def()
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    Error::from(crate::error::SchemaError::NoSuchColumn {
                        table: COMPLEX_COLUMNS_TABLE.into(),
                        column: name.into(),
                    })
                })
        };
        let names = [
            "ColumnName",
            "ComplexID",
            "ComplexTypeObjectID",
            "ConceptualTableID",
            "FlatTableID",
        ];
        let projection = names.iter().map(|n| find(n)).collect::<Result<Vec<_>>>()?;
        let scan = t
            .scan(ScanOptions {
                projection: Some(projection),
                ..ScanOptions::default()
            })
            .map_err(|e| e.in_table(COMPLEX_COLUMNS_TABLE))?;
        let mut out = Vec::new();
        for batch in scan {
            let batch = batch.map_err(|e| e.in_table(COMPLEX_COLUMNS_TABLE))?;
            for r in 0..batch.num_rows() {
                let Some(column) = text_at(batch.column(0), r) else {
                    continue;
                };
                out.push(Registration {
                    column,
                    complex_id: int_at(batch.column(1), r),
                    type_object: int_at(batch.column(2), r),
                    table: int_at(batch.column(3), r),
                    flat: int_at(batch.column(4), r),
                });
            }
        }
        Ok(out)
    }
}

/// The TDEF page an object id names.
fn tdef_page(id: i32) -> u32 {
    id.to_le_bytes()
        .iter()
        .take(3)
        .rev()
        .fold(0u32, |acc, b| (acc << 8) | u32::from(*b))
}

/// The Int32 at row `r`, `None` when NULL or not an Int32 column.
pub(crate) fn int_at(a: &ArrayRef, r: usize) -> Option<i32> {
    (a.data_type() == &DataType::Int32 && r < a.len() && !a.is_null(r))
        .then(|| a.as_primitive::<Int32Type>().value(r))
}

/// The text at row `r`, `None` when NULL or not a text column.
pub(crate) fn text_at(a: &ArrayRef, r: usize) -> Option<String> {
    (a.data_type() == &DataType::Utf8 && r < a.len() && !a.is_null(r))
        .then(|| a.as_string::<i32>().value(r).to_string())
}

/// The kind of a complex column from its template table, and where its
/// parts are in the flat table (Jackcess's rules: `ComplexColumnSupport`,
/// `ComplexColumnInfoImpl.diffFlatColumns`, `AttachmentColumnInfoImpl`,
/// `VersionHistoryColumnInfoImpl`).
fn classify(template: &Table, flat: &Table) -> Result<(ComplexKind, FlatLayout), String> {
    let tcols = &template.def().columns;
    let fcols = &flat.def().columns;
    let in_template = |c: &Column| tcols.iter().any(|t| t.name.eq_ignore_ascii_case(&c.name));
    let pk = fcols
        .iter()
        .position(|c| !in_template(c) && c.is_auto_number());
    let fk = fcols
        .iter()
        .position(|c| !in_template(c) && !c.is_auto_number() && c.jet_type == JetType::Long)
        .ok_or_else(|| {
            format!(
                "flat table {:?} has no Long column holding the complex id",
                flat.name()
            )
        })?;
    // the flat table's column carrying each template column
    let flat_of = |t: &Column| {
        fcols
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(&t.name))
    };
    let count = |ty: JetType| tcols.iter().filter(|c| c.jet_type == ty).count();
    let first = |ty: JetType| tcols.iter().find(|c| c.jet_type == ty);
    let multi_types = [
        JetType::Byte,
        JetType::Integer,
        JetType::Long,
        JetType::Single,
        JetType::Double,
        JetType::Guid,
        JetType::Numeric,
        JetType::Text,
    ];
    let (kind, parts) = match tcols.as_slice() {
        [only] if multi_types.contains(&only.jet_type) => {
            (ComplexKind::MultiValue(only.jet_type), vec![flat_of(only)])
        }
        _ if tcols.len() >= 6
            && count(JetType::Memo) >= 1
            && count(JetType::Text) >= 2
            && count(JetType::Ole) >= 1
            && count(JetType::DateTime) >= 1
            && count(JetType::Long) >= 1 =>
        {
            // texts by name, else in order: name, then type
            let texts: Vec<&Column> = tcols
                .iter()
                .filter(|c| c.jet_type == JetType::Text)
                .collect();
            let named = |n: &str| texts.iter().find(|c| c.name.eq_ignore_ascii_case(n));
            let mut rest = texts.iter().filter(|c| {
                !["FileName", "FileType"]
                    .iter()
                    .any(|n| c.name.eq_ignore_ascii_case(n))
            });
            let name = named("FileName").or_else(|| rest.next());
            let ty = named("FileType").or_else(|| rest.next());
            let last = |ty: JetType| tcols.iter().rev().find(|c| c.jet_type == ty);
            let parts = vec![
                last(JetType::Memo).and_then(flat_of),
                name.and_then(|c| flat_of(c)),
                ty.and_then(|c| flat_of(c)),
                last(JetType::Ole).and_then(flat_of),
                last(JetType::DateTime).and_then(flat_of),
                last(JetType::Long).and_then(flat_of),
            ];
            (ComplexKind::Attachment, parts)
        }
        _ if tcols.len() >= 2 && count(JetType::Memo) >= 1 && count(JetType::DateTime) >= 1 => {
            let value = first(JetType::Memo).ok_or("no Memo column")?;
            let modified = first(JetType::DateTime).ok_or("no Date/Time column")?;
            (
                ComplexKind::VersionHistory {
                    versioned_column: value.name.clone(),
                },
                vec![flat_of(value), flat_of(modified)],
            )
        }
        _ => (
            ComplexKind::Unsupported(template.name().to_string()),
            Vec::new(),
        ),
    };
    if let ComplexKind::MultiValue(_) | ComplexKind::VersionHistory { .. } = kind
        && parts.iter().any(Option::is_none)
    {
        return Err(format!(
            "flat table {:?} lacks a column of template {:?}",
            flat.name(),
            template.name()
        ));
    }
    let value_type = match (&kind, parts.first().copied().flatten()) {
        (ComplexKind::MultiValue(_), Some(p)) => Some(flat.schema().field(p).data_type().clone()),
        _ => None,
    };
    Ok((
        kind,
        FlatLayout {
            fk,
            pk,
            parts,
            value_type,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, flat: &str) -> ComplexColumn {
        ComplexColumn {
            table: "T".into(),
            column: name.into(),
            position: 0,
            complex_id: 1,
            kind: ComplexKind::Attachment,
            type_table: "MSysComplexType_Attachment".into(),
            flat_table: flat.into(),
            flat_table_page: 7,
            layout: FlatLayout {
                fk: 0,
                pk: None,
                parts: Vec::new(),
                value_type: None,
            },
        }
    }

    #[test]
    fn hidden_tables_lists_each_flat_table_once() {
        assert!(hidden_tables(&[]).is_empty());
        let cols = [
            column("a", "f_1_a"),
            column("b", "f_2_b"),
            column("a2", "F_1_A"),
        ];
        assert_eq!(hidden_tables(&cols), vec!["f_1_a", "f_2_b"]);
    }

    #[test]
    fn tdef_page_is_the_low_24_bits() {
        assert_eq!(tdef_page(0x0100_0ABC), 0xABC);
        assert_eq!(tdef_page(-1), 0x00FF_FFFF);
        assert_eq!(tdef_page(42), 42);
    }
}
