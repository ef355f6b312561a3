//! Table definitions: the TDEF page chain, its columns, indexes and usage
//! map pointers.

use crate::error::{FormatError, Result, SchemaError};
use crate::format::types::JetType;
use crate::format::{JetVersion, Layout, page_type, text};
use crate::page::PageSource;
use encoding_rs::Encoding;
use jet_kernels::bytes::{u8_at, u16_at, u32_at};
use jet_kernels::row_slot::unpack_row_pointer;
use std::collections::HashSet;

/// Column flag: fixed-length column.
pub const COL_FIXED: u8 = 0x01;
/// Column flag: auto-number (Long).
pub const COL_AUTO_LONG: u8 = 0x04;
/// Column flag: auto-number (GUID).
pub const COL_AUTO_GUID: u8 = 0x40;
/// Column flag: hyperlink (on a Memo column).
pub const COL_HYPERLINK: u8 = 0x80;
/// Extended column flag: compressed Unicode allowed.
pub const EXT_COMPRESSED_UNICODE: u8 = 0x01;
/// Extended column flags: calculated column (ACE 14+).
pub const EXT_CALCULATED: u8 = 0xC0;

/// One column of a table definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Name as Access spells it.
    pub name: String,
    /// The column type.
    pub jet_type: JetType,
    /// Column number (includes deleted columns): the null-mask bit.
    pub col_num: u16,
    /// Position in the variable-offset table (variable columns).
    pub var_index: u16,
    /// Offset in the fixed area (fixed columns).
    pub fixed_offset: u16,
    /// Declared length in bytes (0 for long values).
    pub length: u16,
    /// Flags byte ([`COL_FIXED`], …).
    pub flags: u8,
    /// Extended flags byte (Jet4+; 0 in Jet3).
    pub ext_flags: u8,
    /// Numeric precision.
    pub precision: u8,
    /// Numeric scale.
    pub scale: u8,
    /// Text sort order (locale id), text columns.
    pub sort_order: u16,
    /// Code page of Jet3 text columns (0 = database default).
    pub code_page: u16,
    /// Version of the text sort order (Jet4+ text columns: 0 = General
    /// Legacy, 1 = General 2010+; always 0 in Jet3, whose only general
    /// order is Access 97's).
    pub sort_order_version: u8,
    /// The column refuses NULL: its `Required` property (from the table's
    /// property map in MSysObjects, not the TDEF; false until applied with
    /// [`crate::schema::props::apply_column_rules`]).
    pub required: bool,
    /// The column's `DefaultValue` expression text as stored (from the
    /// property map, like [`Column::required`]).
    pub default_value: Option<String>,
    /// The complex id of a Complex column (Jet4 and later: the `i32` at
    /// offset 11 of its descriptor, the `ComplexID` of its row in
    /// `MSysComplexColumns`); `None` for every other column.
    pub complex_id: Option<i32>,
}

impl Column {
    /// Whether the value lives in the fixed area of the row.
    pub fn is_fixed(&self) -> bool {
        self.flags & COL_FIXED != 0
    }
    /// Whether this is an auto-number column: a Long with the auto-number
    /// flag, or a GUID with the GUID auto-number flag. The GUID flag alone
    /// does not make a column auto-number: Access 97 sets that bit (0x40)
    /// on ordinary columns (nwind.mdb's Orders: every column but OrderID
    /// has flags 0x42 or 0x43; mdbtools' schema export, which looks at
    /// 0x04 for counters, makes only OrderID a counter).
    pub fn is_auto_number(&self) -> bool {
        (self.jet_type == JetType::Long && self.flags & COL_AUTO_LONG != 0)
            || (self.jet_type == JetType::Guid && self.flags & COL_AUTO_GUID != 0)
    }
    /// Whether this is a hyperlink Memo.
    pub fn is_hyperlink(&self) -> bool {
        self.jet_type == JetType::Memo && self.flags & COL_HYPERLINK != 0
    }
    /// Whether this is a calculated column (its stored value is wrapped).
    pub fn is_calculated(&self) -> bool {
        self.ext_flags & EXT_CALCULATED != 0
    }

    /// The Arrow type of this column's values: [`JetType::arrow_type`],
    /// except that calculated Numeric columns, whose values each carry their
    /// own scale, are `Decimal256(57, 28)` so that every value fits exactly.
    pub fn arrow_type(&self) -> arrow_schema::DataType {
        if self.is_calculated() && self.jet_type == JetType::Numeric {
            return arrow_schema::DataType::Decimal256(
                crate::format::values::CALC_NUMERIC_PRECISION,
                crate::format::values::CALC_NUMERIC_SCALE,
            );
        }
        self.jet_type.arrow_type(self.precision, self.scale)
    }
}

/// Sort direction of an index key column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Ascending.
    Ascending,
    /// Descending.
    Descending,
}

/// A real (physical) index: one B-tree.
#[derive(Debug, Clone, PartialEq)]
pub struct RealIndex {
    /// Key columns in key order: (column number, direction).
    pub key: Vec<(u16, Direction)>,
    /// Row pointer of the index's usage map.
    pub usage_map: u32,
    /// Root page of the B-tree.
    pub root_page: u32,
    /// Flags: 0x01 unique, 0x02 ignore nulls, 0x08 required.
    pub flags: u8,
}

/// Kind of a logical index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// Plain index.
    Normal,
    /// The primary key.
    PrimaryKey,
    /// Foreign-key (relationship) index.
    ForeignKey,
    /// Another kind byte.
    Other(u8),
}

/// A logical index: what Access shows; several may share one real index.
#[derive(Debug, Clone, PartialEq)]
pub struct LogicalIndex {
    /// Index name.
    pub name: String,
    /// Index number.
    pub number: u32,
    /// Position of the real index that backs it.
    pub real_index: u32,
    /// Kind.
    pub kind: IndexKind,
    /// Foreign key: index number in the other table, if any.
    pub rel_index: Option<u32>,
    /// Foreign key: this table is the relationship's primary ("one") side,
    /// whose key the other table's rows reference; `false` on the side that
    /// holds the references (the byte before the other index's number).
    pub rel_primary: bool,
    /// Foreign key: TDEF page of the other table.
    pub rel_table_page: u32,
    /// Foreign key: cascade updates.
    pub cascade_updates: bool,
    /// Foreign key: cascade deletes (the delete byte is 1).
    pub cascade_deletes: bool,
    /// Foreign key: deleting a referenced row sets the references to NULL
    /// (the delete byte is 2; Jackcess `IndexImpl.CASCADE_NULL_FLAG`).
    pub cascade_null: bool,
}

/// A parsed table definition.
#[derive(Debug, Clone)]
pub struct TableDef {
    /// First TDEF page (the table's identity).
    pub page: u32,
    /// Row count as the TDEF states it (can be wrong in real files).
    pub stated_rows: u32,
    /// Next auto-number value.
    pub autonumber: u32,
    /// The last complex id given to a row (ACE files; 0 before ACE): each
    /// new row of a table with complex columns takes the next one, shared
    /// by all its complex columns.
    pub complex_autonumber: u32,
    /// 0x4e user table, 0x53 system table.
    pub table_type: u8,
    /// Most columns a row of this table can have.
    pub max_cols: u16,
    /// Number of variable-length columns.
    pub num_var_cols: u16,
    /// Columns in the order Access lists them (by column number).
    pub columns: Vec<Column>,
    /// Real indexes.
    pub real_indexes: Vec<RealIndex>,
    /// Logical indexes.
    pub indexes: Vec<LogicalIndex>,
    /// Row pointer of the owned-pages usage map.
    pub usage_map: u32,
    /// Row pointer of the free-space usage map.
    pub free_map: u32,
}

/// Reads the TDEF chain starting at `first` and returns its bytes: the whole
/// first page, then each following page without its 8-byte header.
/// Refuses non-TDEF pages and cycles.
pub fn read_chain(src: &dyn PageSource, first: u32) -> Result<Vec<u8>, FormatError> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut page = first;
    loop {
        if !seen.insert(page) {
            return Err(crate::error::corrupt(
                page,
                4,
                "TDEF chain loops",
                jet_kernels::Refusal::Budget,
            ));
        }
        let p = src.read_page(page)?;
        if p[0] != page_type::TDEF {
            return Err(FormatError::PageType {
                page,
                expected: "table definition",
                found: p[0],
            });
        }
        let next = u32_at(&p, 4).unwrap_or(0);
        if out.is_empty() {
            out.extend_from_slice(&p);
        } else {
            out.extend_from_slice(&p[8..]);
        }
        if next == 0 {
            return Ok(out);
        }
        page = next;
    }
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    table: &'a str,
    page: u32,
}

impl<'a> Cursor<'a> {
    fn err(&self, what: &str) -> SchemaError {
        SchemaError::BadTdef {
            table: self.table.to_string(),
            page: self.page,
            what: format!(
                "{what} at TDEF offset {} (definition is {} bytes)",
                self.pos,
                self.buf.len()
            ),
        }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], SchemaError> {
        match jet_kernels::range::slice(self.buf, self.pos, n) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.err("definition ends early")),
        }
    }
}

fn read_name(
    c: &mut Cursor<'_>,
    layout: &Layout,
    encoding: &'static Encoding,
) -> Result<String, SchemaError> {
    let len = if layout.name_len_size == 1 {
        usize::from(c.take(1)?[0])
    } else {
        let b = c.take(2)?;
        usize::from(u16::from_le_bytes([b[0], b[1]]))
    };
    let bytes = c.take(len)?;
    let mut s = String::new();
    if layout.name_len_size == 1 {
        text::decode_codepage(bytes, encoding, &mut s);
    } else {
        text::decode_ucs2(bytes, &mut s);
    }
    Ok(s)
}

/// Parses a table definition from its chain bytes.
///
/// `table` names the table in errors; `encoding` decodes Jet3 names.
pub fn parse(
    version: JetVersion,
    page: u32,
    buf: &[u8],
    table: &str,
    encoding: &'static Encoding,
) -> Result<TableDef, SchemaError> {
    let l = version.layout();
    let bad = |what: &str| SchemaError::BadTdef {
        table: table.to_string(),
        page,
        what: what.to_string(),
    };
    let u16f = |o: usize| u16_at(buf, o).ok_or_else(|| bad("header ends early"));
    let u32f = |o: usize| u32_at(buf, o).ok_or_else(|| bad("header ends early"));
    let stated_rows = u32f(l.tdef_num_rows)?;
    let autonumber = u32f(l.tdef_autonumber)?;
    let complex_autonumber = if version.is_ace() {
        u32f(l.tdef_complex_autonumber)?
    } else {
        0
    };
    let table_type = u8_at(buf, l.tdef_table_type).ok_or_else(|| bad("header ends early"))?;
    let max_cols = u16f(l.tdef_max_cols)?;
    let num_var_cols = u16f(l.tdef_num_var_cols)?;
    let num_cols = usize::from(u16f(l.tdef_num_cols)?);
    let num_idx = u32f(l.tdef_num_idx)? as usize;
    let num_real_idx = u32f(l.tdef_num_real_idx)? as usize;
    let usage_map = u32f(l.tdef_usage_map)?;
    let free_map = u32f(l.tdef_free_map)?;
    // every index definition takes at least 20 bytes: counts larger than the
    // definition could hold are garbage, refuse before allocating
    if num_idx.saturating_mul(20) > buf.len() || num_real_idx.saturating_mul(20) > buf.len() {
        return Err(bad("index count larger than the definition"));
    }
    let mut c = Cursor {
        buf,
        pos: l.tdef_block_end,
        table,
        page,
    };
    c.take(num_real_idx * l.real_idx_count_entry)?;
    let mut columns = Vec::with_capacity(num_cols);
    for _ in 0..num_cols {
        let d = c.take(l.col_entry)?;
        let g16 = |o: usize| u16::from_le_bytes([d[o], d[o + 1]]);
        columns.push(Column {
            name: String::new(),
            jet_type: JetType::from_byte(d[l.col_type]),
            col_num: g16(l.col_num),
            var_index: g16(l.col_var_index),
            fixed_offset: g16(l.col_fixed_offset),
            length: g16(l.col_len),
            flags: d[l.col_flags],
            ext_flags: l.col_ext_flags.map(|o| d[o]).unwrap_or(0),
            precision: d[l.col_precision],
            scale: d[l.col_scale],
            sort_order: g16(l.col_sort_order),
            code_page: l.col_code_page.map(g16).unwrap_or(0),
            sort_order_version: l.col_sort_version.map(|o| d[o]).unwrap_or(0),
            required: false,
            default_value: None,
            complex_id: match (JetType::from_byte(d[l.col_type]), l.col_ext_flags) {
                (JetType::Complex, Some(_)) => d
                    .get(l.col_precision..l.col_precision + 4)
                    .and_then(|b| <[u8; 4]>::try_from(b).ok())
                    .map(i32::from_le_bytes),
                _ => None,
            },
        });
    }
    for col in columns.iter_mut() {
        col.name = read_name(&mut c, l, encoding)?;
    }
    let mut real_indexes = Vec::with_capacity(num_real_idx);
    for _ in 0..num_real_idx {
        let d = c.take(l.real_idx_entry)?;
        let d = &d[l.real_idx_prefix..];
        let mut key = Vec::new();
        for k in 0..10 {
            let col = u16::from_le_bytes([d[3 * k], d[3 * k + 1]]);
            if col != 0xFFFF {
                let dir = if d[3 * k + 2] == 0x01 {
                    Direction::Ascending
                } else {
                    Direction::Descending
                };
                key.push((col, dir));
            }
        }
        let usage_map = u32::from_le_bytes([d[30], d[31], d[32], d[33]]);
        let root_page = u32::from_le_bytes([d[34], d[35], d[36], d[37]]);
        real_indexes.push(RealIndex {
            key,
            usage_map,
            root_page,
            flags: d[38 + l.real_idx_flags_skip],
        });
    }
    let mut indexes = Vec::with_capacity(num_idx);
    for _ in 0..num_idx {
        let d = c.take(l.logical_idx_entry)?;
        let d = &d[l.logical_idx_prefix..];
        let g32 = |o: usize| u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]]);
        let rel = g32(9);
        indexes.push(LogicalIndex {
            name: String::new(),
            number: g32(0),
            real_index: g32(4),
            rel_index: if rel == u32::MAX { None } else { Some(rel) },
            rel_primary: d[8] == 1,
            rel_table_page: g32(13),
            cascade_updates: d[17] != 0,
            cascade_deletes: d[18] == 1,
            cascade_null: d[18] == 2,
            kind: match d[19] {
                0 => IndexKind::Normal,
                1 => IndexKind::PrimaryKey,
                2 => IndexKind::ForeignKey,
                k => IndexKind::Other(k),
            },
        });
    }
    for idx in indexes.iter_mut() {
        idx.name = read_name(&mut c, l, encoding)?;
    }
    columns.sort_by_key(|c| c.col_num);
    Ok(TableDef {
        page,
        stated_rows,
        autonumber,
        complex_autonumber,
        table_type,
        max_cols,
        num_var_cols,
        columns,
        real_indexes,
        indexes,
        usage_map,
        free_map,
    })
}

impl TableDef {
    /// The (page, row) of the owned-pages usage map row.
    pub fn usage_map_pointer(&self) -> (u32, u8) {
        unpack_row_pointer(self.usage_map)
    }
}
