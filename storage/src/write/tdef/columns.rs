//! Column descriptors of an existing Jet4/ACE table definition changed in
//! place: one column cut out ([`with_dropped_column`]), renamed
//! ([`with_renamed_column`]) or given a new type, length and position
//! ([`with_changed_column`]). Every other byte — the other columns'
//! descriptors, including the bytes this crate does not interpret, the
//! index sections, the long-value map list — stays as Access wrote it.
//!
//! Format facts relied on (mdbtools `HACKING.md`, "Jet4 Table Definition
//! Block"): column descriptors (25 bytes each) follow the real-index
//! row-count entries; the column names (u16 byte length + UCS-2) follow
//! them in the same order. A column's number "includes deleted columns"
//! and the header's `max_cols` is the "max columns a row will have
//! (deletions)": dropping a column leaves the other columns' numbers, fixed
//! offsets and variable-table indexes as they are, so rows written before
//! the drop read the same without being rewritten. The header's `num_cols`
//! counts the columns the definition lists; `num_var_cols` is, like
//! `max_cols`, a maximum that includes deleted columns (Jackcess reads it
//! as `_maxVarColumnCount`, "max number of variable columns in the
//! table", and tests that a count too small for a row's offset table is
//! corrupt), so a drop keeps it.

use super::encode::{TdefFormat, column_entry, name_bytes, type_byte};
use super::splice::{pointer_offsets, stated_len};
use crate::error::{WResult, WriteError};
use crate::format::JetVersion;
use crate::format::types::JetType;
use crate::schema::tdef::{Column, TableDef};

/// Offsets of the column section of a definition.
struct Columns {
    /// Start of the first descriptor.
    start: usize,
    /// Column number of each stored descriptor, in stored order.
    numbers: Vec<u16>,
    /// Each stored name: (start, end), in stored order.
    names: Vec<(usize, usize)>,
}

fn columns(def: &TableDef, b: &[u8], version: JetVersion) -> Option<Columns> {
    let l = version.layout();
    let start = l.tdef_block_end + def.real_indexes.len() * l.real_idx_count_entry;
    let mut numbers = Vec::with_capacity(def.columns.len());
    for k in 0..def.columns.len() {
        let at = start + k * l.col_entry + l.col_num;
        numbers.push(u16::from_le_bytes([*b.get(at)?, *b.get(at + 1)?]));
    }
    let mut pos = start + def.columns.len() * l.col_entry;
    let mut names = Vec::with_capacity(def.columns.len());
    for _ in 0..def.columns.len() {
        // a one-byte (Jet3) or two-byte length, then the name
        let n = if l.name_len_size == 1 {
            usize::from(*b.get(pos)?)
        } else {
            usize::from(u16::from_le_bytes([*b.get(pos)?, *b.get(pos + 1)?]))
        };
        names.push((pos, pos + l.name_len_size + n));
        pos += l.name_len_size + n;
    }
    (pos <= b.len()).then_some(Columns {
        start,
        numbers,
        names,
    })
}

fn bad(table: &str, why: &str) -> WriteError {
    WriteError::Unsupported(format!("changing the definition of table {table:?}: {why}"))
}

/// The definition bytes, its column section and the stored position of
/// column `col_num`.
fn locate(
    version: JetVersion,
    table: &str,
    old: &TableDef,
    chain: &[u8],
    col_num: u16,
) -> WResult<(Vec<u8>, Columns, usize)> {
    let len = stated_len(chain).ok_or_else(|| bad(table, "its length field is out of range"))?;
    let b = chain[..len].to_vec();
    let s = columns(old, &b, version)
        .ok_or_else(|| bad(table, "its column section cannot be located"))?;
    let k = s
        .numbers
        .iter()
        .position(|&n| n == col_num)
        .ok_or_else(|| bad(table, "the column's descriptor is missing"))?;
    Ok((b, s, k))
}

/// The definition bytes `chain` (of `old`) without column `col_num`: its
/// descriptor, its name and its long-value map entry are cut out,
/// `num_cols` goes down by one, `max_cols` and `num_var_cols` stay. `new` is `old` without the column; the result must
/// parse back to it.
pub fn with_dropped_column(
    f: TdefFormat,
    table: &str,
    old: &TableDef,
    chain: &[u8],
    new: &TableDef,
    col_num: u16,
) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    let (mut b, s, k) = locate(version, table, old, chain, col_num)?;
    // the long-value map entry (after every other section) goes first
    if let Some(p) = pointer_offsets(old, &b, version)
        && let Some(&(_, _, _, at)) = p.lval_maps.iter().find(|m| m.0 == col_num)
    {
        b.drain(at - 2..at + 8);
    }
    let (ns, ne) = s.names[k];
    b.drain(ns..ne);
    let ds = s.start + k * l.col_entry;
    b.drain(ds..ds + l.col_entry);
    finish(f, table, b, new)
}

/// The definition bytes `chain` (of `old`) with column `col_num` named
/// `name` (every other byte kept). `new` is `old` with the new name.
pub fn with_renamed_column(
    f: TdefFormat,
    table: &str,
    old: &TableDef,
    chain: &[u8],
    new: &TableDef,
    col_num: u16,
    name: &str,
) -> WResult<Vec<u8>> {
    let version = f.version;
    let (mut b, s, k) = locate(version, table, old, chain, col_num)?;
    let (ns, ne) = s.names[k];
    let mut bytes = Vec::new();
    name_bytes(&mut bytes, name, f)?;
    b.splice(ns..ne, bytes);
    finish(f, table, b, new)
}

/// The definition bytes `chain` (of `old`) with the descriptor of column
/// `col_num` holding `new`'s type, variable index, fixed offset, length,
/// flags and sort order / precision bytes (its unknown bytes kept). `new`
/// is `old` with that column changed.
pub fn with_changed_column(
    f: TdefFormat,
    table: &str,
    old: &TableDef,
    chain: &[u8],
    new: &TableDef,
    col_num: u16,
) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    let (mut b, s, k) = locate(version, table, old, chain, col_num)?;
    let c = new
        .columns
        .iter()
        .find(|c| c.col_num == col_num)
        .ok_or_else(|| bad(table, "the changed column is missing"))?;
    let d = s.start + k * l.col_entry;
    let put16 =
        |b: &mut Vec<u8>, at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_le_bytes());
    b[d + l.col_type] = type_byte(c.jet_type).ok_or_else(|| bad(table, "unknown column type"))?;
    put16(&mut b, d + l.col_var_index, c.var_index);
    put16(
        &mut b,
        d + l.col_fixed_offset,
        if c.is_fixed() { c.fixed_offset } else { 0 },
    );
    put16(&mut b, d + l.col_len, c.length);
    b[d + l.col_flags] = c.flags;
    if let Some(o) = l.col_ext_flags {
        b[d + o] = c.ext_flags;
    }
    // sort order (text) or precision and scale (numeric), else zeros
    if matches!(c.jet_type, JetType::Text | JetType::Memo) {
        put16(&mut b, d + l.col_sort_order, c.sort_order);
        if let Some(o) = l.col_sort_version {
            b[d + o] = c.sort_order_version;
        }
    } else if !version.is_jet3() {
        // (Jet3 keeps its code page there; it has no Numeric type)
        b[d + l.col_precision] = c.precision;
        b[d + l.col_scale] = c.scale;
        if let Some(o) = l.col_sort_version {
            b[d + o] = 0;
        }
    }
    finish(f, table, b, new)
}

/// The definition bytes `chain` (of `old`) with `new`'s last column
/// added: its descriptor after the other descriptors, its name after the
/// other names and, for a long-value column, its map entry `lval` (owned
/// and free usage-map pointers) before the list's closing `FF FF`. Every
/// other byte stays as it was (Access 97's included, which a re-encoding
/// would zero). `new` is `old` with the column appended; the result must
/// parse back to it.
pub fn with_added_column(
    f: TdefFormat,
    table: &str,
    old: &TableDef,
    chain: &[u8],
    new: &TableDef,
    lval: Option<(u32, u32)>,
) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    let len = stated_len(chain).ok_or_else(|| bad(table, "its length field is out of range"))?;
    let mut b = chain[..len].to_vec();
    let s = columns(old, &b, version)
        .ok_or_else(|| bad(table, "its column section cannot be located"))?;
    let c = new
        .columns
        .iter()
        .max_by_key(|c| c.col_num)
        .filter(|_| new.columns.len() == old.columns.len() + 1)
        .ok_or_else(|| bad(table, "no column to add"))?;
    if let Some((owned, free)) = lval {
        // the list ends the definition with `FF FF`
        pointer_offsets(old, &b, version)
            .filter(|_| b.ends_with(&[0xFF, 0xFF]))
            .ok_or_else(|| bad(table, "its long-value map list cannot be located"))?;
        let mut e = c.col_num.to_le_bytes().to_vec();
        e.extend_from_slice(&owned.to_le_bytes());
        e.extend_from_slice(&free.to_le_bytes());
        let at = b.len() - 2;
        b.splice(at..at, e);
    }
    let names_end = s
        .names
        .last()
        .map_or(s.start + old.columns.len() * l.col_entry, |n| n.1);
    let mut name = Vec::new();
    name_bytes(&mut name, &c.name, f)?;
    b.splice(names_end..names_end, name);
    let mut d = Vec::new();
    column_entry(&mut d, c, f)?;
    let ds = s.start + old.columns.len() * l.col_entry;
    b.splice(ds..ds, d);
    finish(f, table, b, new)
}

/// Sets the column counts and length of `b` from `new` and checks that
/// `b` parses back to `new`'s columns (every stored field) and indexes.
fn finish(f: TdefFormat, table: &str, mut b: Vec<u8>, new: &TableDef) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    let put16 =
        |b: &mut Vec<u8>, at: usize, v: u16| b[at..at + 2].copy_from_slice(&v.to_le_bytes());
    put16(&mut b, l.tdef_max_cols, new.max_cols);
    put16(&mut b, l.tdef_num_var_cols, new.num_var_cols);
    put16(&mut b, l.tdef_num_cols, new.columns.len() as u16);
    let len = b.len() as u32;
    b[8..12].copy_from_slice(&len.to_le_bytes());
    let back = crate::schema::tdef::parse(version, new.page, &b, table, f.encoding)
        .map_err(|e| WriteError::from(crate::Error::from(e)))?;
    let stored = |c: &Column| {
        (
            c.name.clone(),
            c.col_num,
            c.jet_type,
            c.var_index,
            c.is_fixed().then_some(c.fixed_offset),
            c.length,
            c.flags,
        )
    };
    let same = back.columns.len() == new.columns.len()
        && back
            .columns
            .iter()
            .zip(&new.columns)
            .all(|(a, c)| stored(a) == stored(c));
    if !same
        || back.indexes != new.indexes
        || back.real_indexes != new.real_indexes
        || back.max_cols != new.max_cols
        || back.num_var_cols != new.num_var_cols
    {
        return Err(bad(
            table,
            "the changed definition does not read back as intended",
        ));
    }
    Ok(b)
}
