//! The TDEF encoder for every format: a [`TableDef`] (and its long-value
//! map list) as the definition bytes Access writes, laid out by the
//! version's [`crate::format::Layout`].
//!
//! Format facts (mdbtools `HACKING.md` "Table Definition Pages"; Jackcess
//! `JetFormat` V3/V4 offsets; checked against the definitions of the
//! corpus's Access 97 files, e.g. nwind.mdb's Categories and Orders):
//!
//! * Jet3 (Access 97): the page starts `02 01 'V' 'C'` (continuation pages
//!   too); the header is 43 bytes (row count at 12, no magic number);
//!   real-index count entries are 8 bytes; a column descriptor is 18 bytes
//!   (type, number, variable index, number again, two bytes 0, sort order
//!   1033, code page, flags, fixed offset, length); names are a one-byte
//!   length and the name in the database's code page; a real index is 39
//!   bytes (no prefix, no padding), a logical index 20 bytes; the
//!   long-value map list and the closing `FF FF` are as in Jet4. (Access
//!   97 leaves `04 04` in the cascade bytes of indexes that belong to no
//!   relationship; the encoder writes zeros there, as for Jet4.)
//! * Jet4/ACE: a 63-byte header with the magic number 1625 at 12, 12-byte
//!   count entries, 25-byte column descriptors, UTF-16LE names with a
//!   two-byte length, 52-byte real and 28-byte logical indexes.

use super::spec::{MAGIC_INDEX, MAGIC_TABLE, MAX_INDEX_COLUMNS, SORT_GENERAL, TdefExtra};
use crate::error::{WResult, WriteError};
use crate::format::types::JetType;
use crate::format::{JetVersion, page_type};
use crate::schema::tdef::{Column, Direction, IndexKind, LogicalIndex, RealIndex, TableDef};
use encoding_rs::Encoding;

/// The two bytes after the page type of a Jet3 TDEF page (`VC`).
pub const JET3_TDEF_TAG: [u8; 2] = *b"VC";

/// The file a definition is written for: its version and, for Jet3 names
/// and column code pages, the database's code page.
#[derive(Debug, Clone, Copy)]
pub struct TdefFormat {
    /// Format version.
    pub version: JetVersion,
    /// The database's code page (Jet3 names are stored in it).
    pub encoding: &'static Encoding,
}

impl TdefFormat {
    /// A Jet4/ACE format (names are UTF-16LE; the code page is unused).
    pub fn unicode(version: JetVersion) -> TdefFormat {
        TdefFormat {
            version,
            encoding: encoding_rs::WINDOWS_1252,
        }
    }
}

/// Appends `name` as a definition of format `f` stores it: a two-byte byte
/// length and UTF-16LE (Jet4/ACE), or a one-byte length and the name in
/// the code page (Jet3). Refuses a Jet3 name with a character outside the
/// code page or longer than 255 bytes there.
pub fn name_bytes(b: &mut Vec<u8>, name: &str, f: TdefFormat) -> WResult<()> {
    if f.version.is_jet3() {
        let bytes = crate::write::row_jet3::encode_codepage(name, f.encoding)
            .map_err(|why| WriteError::Unsupported(format!("the name {name:?}: {why}")))?;
        let n = u8::try_from(bytes.len()).map_err(|_| {
            WriteError::Unsupported(format!("the name {name:?} is longer than 255 bytes"))
        })?;
        b.push(n);
        b.extend_from_slice(&bytes);
        return Ok(());
    }
    let units: Vec<u16> = name.encode_utf16().collect();
    b.extend_from_slice(&((units.len() * 2) as u16).to_le_bytes());
    for u in units {
        b.extend_from_slice(&u.to_le_bytes());
    }
    Ok(())
}

/// Appends the descriptor of real index `r` in `version`'s layout (Jet4/ACE
/// 52 bytes: a magic number, ten key column slots, usage map, root page,
/// flags; Jet3 39 bytes: the slots, usage map, root page, flags).
pub fn real_index_entry(b: &mut Vec<u8>, r: &RealIndex, version: JetVersion) {
    let jet3 = version.is_jet3();
    if !jet3 {
        b.extend_from_slice(&MAGIC_INDEX.to_le_bytes());
    }
    for k in 0..MAX_INDEX_COLUMNS {
        match r.key.get(k) {
            Some((col, dir)) => {
                b.extend_from_slice(&col.to_le_bytes());
                b.push(u8::from(*dir == Direction::Ascending));
            }
            None => b.extend_from_slice(&[0xFF, 0xFF, 0x00]),
        }
    }
    b.extend_from_slice(&r.usage_map.to_le_bytes());
    b.extend_from_slice(&r.root_page.to_le_bytes());
    if !jet3 {
        b.extend_from_slice(&0u32.to_le_bytes());
    }
    b.push(r.flags);
    if !jet3 {
        b.extend_from_slice(&[0u8; 5]);
    }
}

/// Appends the descriptor of logical index `l` in `version`'s layout
/// (Jet4/ACE 28 bytes, Jet3 20 bytes).
pub fn logical_index_entry(b: &mut Vec<u8>, l: &LogicalIndex, version: JetVersion) {
    let jet3 = version.is_jet3();
    if !jet3 {
        b.extend_from_slice(&MAGIC_TABLE.to_le_bytes());
    }
    b.extend_from_slice(&l.number.to_le_bytes());
    b.extend_from_slice(&l.real_index.to_le_bytes());
    // the other table's role: 1 primary, 2 referencing (Jackcess
    // `IndexImpl.FK_PRIMARY_TABLE_TYPE` / `FK_SECONDARY_TABLE_TYPE`)
    b.push(match (l.kind, l.rel_primary) {
        (_, true) => 1,
        (IndexKind::ForeignKey, false) => 2,
        _ => 0,
    });
    b.extend_from_slice(&l.rel_index.unwrap_or(u32::MAX).to_le_bytes());
    b.extend_from_slice(&l.rel_table_page.to_le_bytes());
    b.push(u8::from(l.cascade_updates));
    b.push(if l.cascade_null {
        2
    } else {
        u8::from(l.cascade_deletes)
    });
    b.push(match l.kind {
        IndexKind::Normal => 0,
        IndexKind::PrimaryKey => 1,
        IndexKind::ForeignKey => 2,
        IndexKind::Other(k) => k,
    });
    if !jet3 {
        b.extend_from_slice(&[0u8; 4]);
    }
}

/// The TDEF type byte of `t`.
pub fn type_byte(t: JetType) -> Option<u8> {
    Some(match t {
        JetType::Boolean => 0x01,
        JetType::Byte => 0x02,
        JetType::Integer => 0x03,
        JetType::Long => 0x04,
        JetType::Currency => 0x05,
        JetType::Single => 0x06,
        JetType::Double => 0x07,
        JetType::DateTime => 0x08,
        JetType::Binary => 0x09,
        JetType::Text => 0x0A,
        JetType::Ole => 0x0B,
        JetType::Memo => 0x0C,
        JetType::Guid => 0x0F,
        JetType::Numeric => 0x10,
        JetType::BigInt => 0x13,
        _ => return None,
    })
}

/// The type byte of `c` (every type, the complex and extended ones too).
fn column_type_byte(t: JetType) -> u8 {
    match t {
        JetType::Complex => 0x12,
        JetType::ExtDateTime => 0x14,
        JetType::Unknown(b) => b,
        t => type_byte(t).unwrap_or(0),
    }
}

/// Appends the descriptor of column `c` in `f`'s layout.
pub(crate) fn column_entry(b: &mut Vec<u8>, c: &Column, f: TdefFormat) -> WResult<()> {
    let fixed_offset = if c.is_fixed() { c.fixed_offset } else { 0 };
    if f.version.is_jet3() {
        let code_page = codepage::from_encoding(f.encoding).ok_or_else(|| {
            WriteError::Unsupported(format!(
                "Access 97 columns in code page {}",
                f.encoding.name()
            ))
        })?;
        b.push(column_type_byte(c.jet_type));
        b.extend_from_slice(&c.col_num.to_le_bytes());
        b.extend_from_slice(&c.var_index.to_le_bytes());
        b.extend_from_slice(&c.col_num.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
        // Access 97 gives every column the sort order and the code page
        b.extend_from_slice(&SORT_GENERAL.to_le_bytes());
        b.extend_from_slice(&code_page.to_le_bytes());
        b.push(c.flags);
        b.extend_from_slice(&fixed_offset.to_le_bytes());
        b.extend_from_slice(&c.length.to_le_bytes());
        return Ok(());
    }
    b.push(column_type_byte(c.jet_type));
    b.extend_from_slice(&MAGIC_TABLE.to_le_bytes());
    b.extend_from_slice(&c.col_num.to_le_bytes());
    b.extend_from_slice(&c.var_index.to_le_bytes());
    b.extend_from_slice(&c.col_num.to_le_bytes());
    if matches!(c.jet_type, JetType::Text | JetType::Memo) {
        b.extend_from_slice(&c.sort_order.to_le_bytes());
        b.extend_from_slice(&[0, 0]);
    } else if let (JetType::Complex, Some(id)) = (c.jet_type, c.complex_id) {
        // the complex id fills the 4 bytes (precision and scale are 0)
        b.extend_from_slice(&id.to_le_bytes());
    } else {
        b.extend_from_slice(&[c.precision, c.scale, 0, 0]);
    }
    b.push(c.flags);
    b.push(c.ext_flags);
    b.extend_from_slice(&[0u8; 4]);
    b.extend_from_slice(&fixed_offset.to_le_bytes());
    b.extend_from_slice(&c.length.to_le_bytes());
    Ok(())
}

/// Encodes the definition bytes of `def` in `f`'s layout: the whole chain
/// content, first page header included, as [`crate::schema::tdef::read_chain`]
/// returns it. [`crate::schema::tdef::parse`] of the result gives back `def`'s
/// columns and indexes.
pub fn encode(f: TdefFormat, def: &TableDef, extra: &TdefExtra) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    let jet3 = version.is_jet3();
    let mut b = Vec::with_capacity(1024);
    b.push(page_type::TDEF);
    b.push(0x01);
    b.extend_from_slice(if jet3 { &JET3_TDEF_TAG } else { &[0, 0] });
    b.extend_from_slice(&0u32.to_le_bytes()); // next TDEF page
    b.extend_from_slice(&0u32.to_le_bytes()); // length, patched below
    if !jet3 {
        b.extend_from_slice(&MAGIC_TABLE.to_le_bytes());
    }
    b.extend_from_slice(&def.stated_rows.to_le_bytes());
    b.extend_from_slice(&def.autonumber.to_le_bytes());
    if !jet3 {
        b.push(1); // auto-numbering enabled
        b.extend_from_slice(&[0u8; 15]);
    }
    if version.is_ace() {
        // the complex-id counter survives a rewritten definition
        let at = l.tdef_complex_autonumber;
        b[at..at + 4].copy_from_slice(&def.complex_autonumber.to_le_bytes());
    }
    debug_assert_eq!(b.len(), l.tdef_table_type);
    b.push(def.table_type);
    b.extend_from_slice(&def.max_cols.to_le_bytes());
    b.extend_from_slice(&def.num_var_cols.to_le_bytes());
    b.extend_from_slice(&(def.columns.len() as u16).to_le_bytes());
    b.extend_from_slice(&(def.indexes.len() as u32).to_le_bytes());
    b.extend_from_slice(&(def.real_indexes.len() as u32).to_le_bytes());
    b.extend_from_slice(&def.usage_map.to_le_bytes());
    b.extend_from_slice(&def.free_map.to_le_bytes());
    debug_assert_eq!(b.len(), l.tdef_block_end);
    for _ in &def.real_indexes {
        b.extend(std::iter::repeat_n(0u8, l.real_idx_count_entry));
    }
    let mut cols: Vec<&Column> = def.columns.iter().collect();
    cols.sort_by_key(|c| c.col_num);
    for c in &cols {
        column_entry(&mut b, c, f)?;
    }
    for c in &cols {
        name_bytes(&mut b, &c.name, f)?;
    }
    for r in &def.real_indexes {
        real_index_entry(&mut b, r, version);
    }
    for li in &def.indexes {
        logical_index_entry(&mut b, li, version);
    }
    for li in &def.indexes {
        name_bytes(&mut b, &li.name, f)?;
    }
    for (col, owned, free) in &extra.lval_maps {
        b.extend_from_slice(&col.to_le_bytes());
        b.extend_from_slice(&owned.to_le_bytes());
        b.extend_from_slice(&free.to_le_bytes());
    }
    b.extend_from_slice(&[0xFF, 0xFF]);
    let len = b.len() as u32;
    b[8..12].copy_from_slice(&len.to_le_bytes());
    Ok(b)
}
