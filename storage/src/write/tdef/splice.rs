//! Existing Jet4/ACE table definitions changed in place: where their page
//! pointers are ([`pointer_offsets`]), and index descriptors added to or
//! removed from them ([`with_added_index`], [`with_dropped_index`]) so that
//! every other byte of the definition — including the bytes this crate
//! does not interpret, as Access wrote them — stays as it was (re-encoding
//! a definition from its parsed form would zero them).
//!
//! A definition holds, after its header block: one 12-byte row-count entry
//! per real index, the column descriptors, the column names, the real index
//! descriptors, the logical index descriptors, the logical index names, then
//! the long-value column map list. Adding an index inserts a logical
//! descriptor and name (and, for a new B-tree, a zeroed row-count entry, as
//! Access and Jackcess write them, and a real descriptor) at the end of
//! their sections; dropping one cuts them out. The header's counts and
//! length are updated; the result is parsed back and must equal the
//! intended definition, else nothing is returned.

use super::encode::{TdefFormat, logical_index_entry, name_bytes, real_index_entry};
use crate::error::{WResult, WriteError};
use crate::format::JetVersion;
use crate::schema::tdef::TableDef;

/// Section boundaries of a definition, as offsets into its bytes.
struct Sections {
    /// End of the row-count entries.
    counts_end: usize,
    /// Start of the real index descriptors.
    real_start: usize,
    /// End of the logical index descriptors (start of their names).
    logical_end: usize,
    /// Each logical index name: (start, end).
    names: Vec<(usize, usize)>,
}

fn sections(def: &TableDef, bytes: &[u8], version: JetVersion) -> Option<Sections> {
    let l = version.layout();
    let counts_end = l.tdef_block_end + def.real_indexes.len() * l.real_idx_count_entry;
    let mut pos = counts_end + def.columns.len() * l.col_entry;
    // a one-byte (Jet3) or two-byte length, then the name
    let name_len = |pos: usize| -> Option<usize> {
        let n = if l.name_len_size == 1 {
            u16::from(*bytes.get(pos)?)
        } else {
            u16::from_le_bytes([*bytes.get(pos)?, *bytes.get(pos + 1)?])
        };
        Some(l.name_len_size + usize::from(n))
    };
    for _ in 0..def.columns.len() {
        pos += name_len(pos)?;
    }
    let real_start = pos;
    let logical_end = real_start
        + def.real_indexes.len() * l.real_idx_entry
        + def.indexes.len() * l.logical_idx_entry;
    let mut names = Vec::with_capacity(def.indexes.len());
    let mut pos = logical_end;
    for _ in 0..def.indexes.len() {
        let n = name_len(pos)?;
        names.push((pos, pos + n));
        pos += n;
    }
    (pos <= bytes.len()).then_some(Sections {
        counts_end,
        real_start,
        logical_end,
        names,
    })
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The definition bytes `chain` (of `old`) with the indexes of `new`: `new`
/// is `old` with one logical index appended and, when `fresh`, one real
/// index appended (as [`super::index_def::add_index`] makes it). Refuses
/// (typed, naming the table) a definition whose sections cannot be
/// located or whose result does not parse back to `new`'s indexes.
pub fn with_added_index(
    f: TdefFormat,
    table: &str,
    old: &TableDef,
    chain: &[u8],
    new: &TableDef,
    fresh: bool,
) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    let bad = |why: &str| {
        WriteError::Unsupported(format!("changing the definition of table {table:?}: {why}"))
    };
    let len = stated_len(chain).ok_or_else(|| bad("its length field is out of range"))?;
    let mut b = chain[..len].to_vec();
    let s =
        sections(old, &b, version).ok_or_else(|| bad("its index sections cannot be located"))?;
    let li = new.indexes.last().ok_or_else(|| bad("no index to add"))?;
    let mut name = Vec::new();
    name_bytes(&mut name, &li.name, f)?;
    let names_end = s.names.last().map_or(s.logical_end, |n| n.1);
    b.splice(names_end..names_end, name);
    let mut entry = Vec::new();
    logical_index_entry(&mut entry, li, version);
    b.splice(s.logical_end..s.logical_end, entry);
    if fresh {
        let ri = new
            .real_indexes
            .last()
            .ok_or_else(|| bad("no real index to add"))?;
        let real_end = s.real_start + old.real_indexes.len() * l.real_idx_entry;
        let mut entry = Vec::new();
        real_index_entry(&mut entry, ri, version);
        b.splice(real_end..real_end, entry);
        b.splice(
            s.counts_end..s.counts_end,
            vec![0u8; l.real_idx_count_entry],
        );
    }
    finish(f, table, b, new)
}

/// The definition bytes `chain` (of `old`) without logical index `pos`
/// and, when `real` is given, without real index `real` (the remaining
/// logical indexes' real index numbers above it go down by one). `new` is
/// the intended definition; the result must parse back to its indexes.
pub fn with_dropped_index(
    f: TdefFormat,
    table: &str,
    old: &TableDef,
    chain: &[u8],
    new: &TableDef,
    pos: usize,
    real: Option<usize>,
) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    let bad = |why: &str| {
        WriteError::Unsupported(format!("changing the definition of table {table:?}: {why}"))
    };
    let len = stated_len(chain).ok_or_else(|| bad("its length field is out of range"))?;
    let mut b = chain[..len].to_vec();
    let s =
        sections(old, &b, version).ok_or_else(|| bad("its index sections cannot be located"))?;
    let (ns, ne) = *s
        .names
        .get(pos)
        .ok_or_else(|| bad("no such logical index"))?;
    b.drain(ns..ne);
    let logical_start = s.real_start + old.real_indexes.len() * l.real_idx_entry;
    let ls = logical_start + pos * l.logical_idx_entry;
    b.drain(ls..ls + l.logical_idx_entry);
    if let Some(r) = real {
        // renumber the remaining logical indexes' real index field
        for k in 0..old.indexes.len() - 1 {
            let at = logical_start + k * l.logical_idx_entry + l.logical_idx_prefix + 4;
            let v = u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
            if v as usize > r {
                put_u32(&mut b, at, v - 1);
            }
        }
        let rs = s.real_start + r * l.real_idx_entry;
        b.drain(rs..rs + l.real_idx_entry);
        let cs = l.tdef_block_end + r * l.real_idx_count_entry;
        b.drain(cs..cs + l.real_idx_count_entry);
    }
    finish(f, table, b, new)
}

/// The stated length of a definition (header offset 8), when it fits its
/// chain bytes.
pub(crate) fn stated_len(chain: &[u8]) -> Option<usize> {
    let len = u32::from_le_bytes([
        *chain.get(8)?,
        *chain.get(9)?,
        *chain.get(10)?,
        *chain.get(11)?,
    ]);
    let len = usize::try_from(len).ok()?;
    (len >= 12 && len <= chain.len()).then_some(len)
}

/// Sets the counts and length of `b` from `new` and checks that `b` parses
/// back to `new`'s columns and indexes.
fn finish(f: TdefFormat, table: &str, mut b: Vec<u8>, new: &TableDef) -> WResult<Vec<u8>> {
    let version = f.version;
    let l = version.layout();
    put_u32(&mut b, l.tdef_num_idx, new.indexes.len() as u32);
    put_u32(&mut b, l.tdef_num_real_idx, new.real_indexes.len() as u32);
    let len = b.len() as u32;
    put_u32(&mut b, 8, len);
    let back = crate::schema::tdef::parse(version, new.page, &b, table, f.encoding)
        .map_err(|e| WriteError::from(crate::Error::from(e)))?;
    let same_columns =
        back.columns.len() == new.columns.len()
            && back.columns.iter().zip(&new.columns).all(|(a, c)| {
                a.name == c.name && a.col_num == c.col_num && a.jet_type == c.jet_type
            });
    if !same_columns || back.indexes != new.indexes || back.real_indexes != new.real_indexes {
        return Err(WriteError::Unsupported(format!(
            "changing the definition of table {table:?}: the changed definition does not read back as intended"
        )));
    }
    Ok(b)
}

/// Where the page pointers of a definition (any version) are, as offsets into
/// its chain bytes (as [`crate::schema::tdef::read_chain`] returns them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TdefPointers {
    /// The row count (u32).
    pub rows: usize,
    /// The owned-pages usage map pointer.
    pub usage_map: usize,
    /// The free-space usage map pointer.
    pub free_map: usize,
    /// Per real index, in order: (usage map pointer, root page).
    pub real_indexes: Vec<(usize, usize)>,
    /// Per long-value column map entry: (column number, owned map, free
    /// map, offset of the entry's owned-map pointer; the free-map pointer
    /// follows it).
    pub lval_maps: Vec<(u16, u32, u32, usize)>,
}

/// The offsets of every page pointer in the definition bytes `chain` of
/// `def` (parsed from them), walking the names as the parser does. The
/// long-value map list is empty when the definition has none; `None` when
/// the definition ends before its names or index descriptors do.
pub fn pointer_offsets(def: &TableDef, chain: &[u8], version: JetVersion) -> Option<TdefPointers> {
    let l = version.layout();
    let mut pos = l.tdef_block_end
        + def.real_indexes.len() * l.real_idx_count_entry
        + def.columns.len() * l.col_entry;
    // names: a one-byte (Jet3) or two-byte length, then the name
    let skip_name = |pos: &mut usize| -> Option<()> {
        let n = if l.name_len_size == 1 {
            u16::from(*chain.get(*pos)?)
        } else {
            u16::from_le_bytes([*chain.get(*pos)?, *chain.get(*pos + 1)?])
        };
        *pos += l.name_len_size + usize::from(n);
        Some(())
    };
    for _ in 0..def.columns.len() {
        skip_name(&mut pos)?;
    }
    let mut real_indexes = Vec::with_capacity(def.real_indexes.len());
    for _ in 0..def.real_indexes.len() {
        let d = pos + l.real_idx_prefix;
        real_indexes.push((d + 30, d + 34));
        pos += l.real_idx_entry;
    }
    pos += def.indexes.len() * l.logical_idx_entry;
    for _ in 0..def.indexes.len() {
        skip_name(&mut pos)?;
    }
    if chain.len() < pos {
        return None;
    }
    let g = |o: usize| -> Option<u32> {
        Some(u32::from_le_bytes([
            *chain.get(o)?,
            *chain.get(o + 1)?,
            *chain.get(o + 2)?,
            *chain.get(o + 3)?,
        ]))
    };
    let mut lval_maps = Vec::new();
    let walked = (|| -> Option<()> {
        loop {
            let col = u16::from_le_bytes([*chain.get(pos)?, *chain.get(pos + 1)?]);
            if col == 0xFFFF {
                return Some(());
            }
            lval_maps.push((col, g(pos + 2)?, g(pos + 6)?, pos + 2));
            pos += 10;
        }
    })();
    if walked.is_none() {
        lval_maps.clear();
    }
    Some(TdefPointers {
        rows: l.tdef_num_rows,
        usage_map: l.tdef_usage_map,
        free_map: l.tdef_free_map,
        real_indexes,
        lval_maps,
    })
}
