//! Data pages on the write side: a new page, row insertion into a page with
//! free space, the deleted flag, in-place replacement and overflow pointers.
//! Space of deleted rows is reclaimed when the page is rewritten
//! (compaction keeps every slot number, so bookmarks stay valid).

use crate::format::{Layout, page_type};
use jet_kernels::row_slot::{DELETED_FLAG, OFFSET_MASK, OVERFLOW_FLAG};

/// Most row slots on one data page (row numbers are one byte).
pub const MAX_ROWS: usize = 255;

/// Owner field of pages holding long-value (LVAL) rows.
pub const LVAL_OWNER: u32 = u32::from_le_bytes(*b"LVAL");

/// Slot flags of a deleted row, as Access writes them (both bits: readers
/// that test either bit skip it; mdbtools tests 0x4000).
pub const DELETED_ROW: u16 = DELETED_FLAG | OVERFLOW_FLAG;
/// Slot flag of the target row of an overflow pointer (hidden from scans,
/// read through the pointer).
pub const OVERFLOW_TARGET: u16 = DELETED_FLAG;

/// Offset of the free-space field of data and TDEF pages.
pub const FREE_SPACE: usize = 2;

/// A new, empty data page owned by the TDEF at `owner` (or [`LVAL_OWNER`]).
pub fn new_page(layout: &Layout, owner: u32) -> Vec<u8> {
    let mut p = vec![0u8; layout.page_size];
    p[0] = page_type::DATA;
    p[1] = 0x01;
    p[layout.data_tdef_page..layout.data_tdef_page + 4].copy_from_slice(&owner.to_le_bytes());
    update_free_space(layout, &mut p);
    p
}

/// Largest row one page holds (the whole page minus header and one slot).
pub fn max_row_len(layout: &Layout) -> usize {
    layout.page_size - layout.data_row_count - 2 - 2
}

/// Number of slots on the page.
pub fn row_count(layout: &Layout, p: &[u8]) -> usize {
    usize::from(u16::from_le_bytes([
        p[layout.data_row_count],
        p[layout.data_row_count + 1],
    ]))
}

fn table_start(layout: &Layout) -> usize {
    layout.data_row_count + 2
}

fn raw_slot(layout: &Layout, p: &[u8], i: usize) -> u16 {
    let o = table_start(layout) + 2 * i;
    u16::from_le_bytes([p[o], p[o + 1]])
}

fn set_raw_slot(layout: &Layout, p: &mut [u8], i: usize, v: u16) {
    let o = table_start(layout) + 2 * i;
    p[o..o + 2].copy_from_slice(&v.to_le_bytes());
}

/// Lowest row start on the page (the page end when it has no rows).
fn lowest_start(layout: &Layout, p: &[u8]) -> usize {
    (0..row_count(layout, p))
        .map(|i| usize::from(raw_slot(layout, p, i) & OFFSET_MASK))
        .min()
        .unwrap_or(p.len())
}

/// Free bytes between the slot table and the lowest row.
pub fn free_space(layout: &Layout, p: &[u8]) -> usize {
    let end = table_start(layout) + 2 * row_count(layout, p);
    lowest_start(layout, p).saturating_sub(end)
}

fn update_free_space(layout: &Layout, p: &mut [u8]) {
    let f = u16::try_from(free_space(layout, p)).unwrap_or(u16::MAX);
    p[FREE_SPACE..FREE_SPACE + 2].copy_from_slice(&f.to_le_bytes());
}

/// Extent of slot `i` (start, end) by the rule Access, Jackcess and
/// mdbtools share: row `i` ends where row `i - 1` starts (row 0 at the page
/// end). Every page this writer produces keeps rows in slot order from the
/// page end, so the reader's "next greater offset" rule agrees.
pub fn extent(layout: &Layout, p: &[u8], i: usize) -> Option<(usize, usize)> {
    if i >= row_count(layout, p) {
        return None;
    }
    let start = usize::from(raw_slot(layout, p, i) & OFFSET_MASK);
    let end = if i == 0 {
        p.len()
    } else {
        usize::from(raw_slot(layout, p, i - 1) & OFFSET_MASK)
    };
    let head = table_start(layout) + 2 * row_count(layout, p);
    (start >= head && start <= end && end <= p.len()).then_some((start, end))
}

/// Whether slot `i` is deleted.
pub fn is_deleted(layout: &Layout, p: &[u8], i: usize) -> bool {
    raw_slot(layout, p, i) & DELETED_FLAG != 0
}

/// Each slot's flags and bytes; a deleted slot whose bytes this writer
/// zeroed (or that is empty) comes back empty: its space is reclaimable.
/// Deleted rows with content (overflow targets, rows deleted by other
/// writers) keep their bytes.
fn contents(layout: &Layout, p: &[u8]) -> Option<Vec<(u16, Vec<u8>)>> {
    let n = row_count(layout, p);
    let mut out = Vec::with_capacity(n + 1);
    for i in 0..n {
        let raw = raw_slot(layout, p, i);
        let (s, e) = extent(layout, p, i)?;
        let bytes = &p[s..e];
        let dead = raw & DELETED_ROW == DELETED_ROW && bytes.iter().all(|&b| b == 0);
        out.push((
            raw & !OFFSET_MASK,
            if dead { Vec::new() } else { bytes.to_vec() },
        ));
    }
    Some(out)
}

fn used(contents: &[(u16, Vec<u8>)]) -> usize {
    contents.iter().map(|(_, b)| b.len() + 2).sum()
}

/// Lays out `contents` in slot order from the page end, keeping the page
/// header; false (page unchanged) when they do not fit.
fn rebuild(layout: &Layout, p: &mut [u8], contents: &[(u16, Vec<u8>)]) -> bool {
    // Readers take a row's end from the slot before it (Access, Jackcess,
    // mdbtools), so slot 0, when dropped, keeps one zero byte at the page
    // end: an offset inside the page that is not also the last byte of the
    // row after it.
    let owned: Vec<(u16, Vec<u8>)>;
    let contents = match contents.first() {
        Some((flags, b)) if b.is_empty() => {
            owned = std::iter::once((*flags, vec![0]))
                .chain(contents[1..].iter().cloned())
                .collect();
            &owned[..]
        }
        _ => contents,
    };
    let head = table_start(layout);
    if contents.len() > MAX_ROWS || head + used(contents) > p.len() {
        return false;
    }
    for b in &mut p[layout.data_row_count..] {
        *b = 0;
    }
    let count = contents.len() as u16;
    p[layout.data_row_count..layout.data_row_count + 2].copy_from_slice(&count.to_le_bytes());
    let mut top = p.len();
    for (i, (flags, bytes)) in contents.iter().enumerate() {
        top -= bytes.len();
        p[top..top + bytes.len()].copy_from_slice(bytes);
        set_raw_slot(layout, p, i, flags | top as u16);
    }
    update_free_space(layout, p);
    true
}

/// Rewrites the page dropping the bytes of deleted, zeroed rows; every
/// slot keeps its number and flags.
pub fn compact(layout: &Layout, p: &mut [u8]) {
    if let Some(c) = contents(layout, p) {
        rebuild(layout, p, &c);
    }
}

/// Whether a row of `len` bytes can be added to the page (compacting it
/// if needed) as a new slot.
pub fn fits_new(layout: &Layout, p: &[u8], len: usize) -> bool {
    let n = row_count(layout, p);
    if n >= MAX_ROWS {
        return false;
    }
    if free_space(layout, p) >= len + 2 {
        return true;
    }
    contents(layout, p).is_some_and(|c| table_start(layout) + used(&c) + len + 2 <= p.len())
}

/// Adds `row` as a new slot (flags `flags`), compacting the page first when
/// needed. Returns the slot number, or `None` when the page cannot hold it.
pub fn insert(layout: &Layout, p: &mut [u8], row: &[u8], flags: u16) -> Option<u8> {
    let n = row_count(layout, p);
    if n >= MAX_ROWS || row.is_empty() {
        return None;
    }
    if free_space(layout, p) >= row.len() + 2 {
        let start = lowest_start(layout, p) - row.len();
        p[start..start + row.len()].copy_from_slice(row);
        let count = u16::try_from(n + 1).ok()?;
        p[layout.data_row_count..layout.data_row_count + 2].copy_from_slice(&count.to_le_bytes());
        set_raw_slot(layout, p, n, flags | start as u16);
        update_free_space(layout, p);
        return u8::try_from(n).ok();
    }
    let mut c = contents(layout, p)?;
    c.push((flags, row.to_vec()));
    if rebuild(layout, p, &c) {
        u8::try_from(n).ok()
    } else {
        None
    }
}

/// Marks slot `i` deleted and zeroes its bytes; the space is reclaimed
/// when the page is next rewritten.
pub fn delete(layout: &Layout, p: &mut [u8], i: usize) {
    if let Some((s, e)) = extent(layout, p, i) {
        p[s..e].fill(0);
    }
    let raw = raw_slot(layout, p, i);
    set_raw_slot(layout, p, i, (raw & OFFSET_MASK) | DELETED_ROW);
}

/// Replaces the content of slot `i` with `row` and its flags with `flags`
/// (0, [`OVERFLOW`] for a pointer, or [`OVERFLOW_TARGET`] for a hidden
/// overflow target),
/// rewriting the page. Returns false, leaving the page unchanged, when the
/// page cannot hold it.
pub fn replace(layout: &Layout, p: &mut [u8], i: usize, row: &[u8], flags: u16) -> bool {
    if let Some((s, e)) = extent(layout, p, i)
        && e - s == row.len()
    {
        p[s..e].copy_from_slice(row);
        set_raw_slot(layout, p, i, flags | s as u16);
        return true;
    }
    let Some(mut c) = contents(layout, p) else {
        return false;
    };
    let Some(slot) = c.get_mut(i) else {
        return false;
    };
    *slot = (flags, row.to_vec());
    rebuild(layout, p, &c)
}

/// The overflow-pointer row: row byte then the 3-byte page.
pub fn overflow_row(page: u32, row: u8) -> [u8; 4] {
    let b = page.to_le_bytes();
    [row, b[0], b[1], b[2]]
}

/// Flag of a slot whose row is an overflow pointer.
pub const OVERFLOW: u16 = OVERFLOW_FLAG;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::JetVersion;
    use crate::read::data_page::DataPage;
    use std::sync::Arc;

    #[test]
    fn insert_delete_compact_replace_read_back() {
        let l = JetVersion::Jet4.layout();
        let mut p = new_page(l, 7);
        let a = insert(l, &mut p, &[1u8; 100], 0).unwrap();
        let b = insert(l, &mut p, &[2u8; 200], 0).unwrap();
        let c = insert(l, &mut p, &[3u8; 50], 0).unwrap();
        assert_eq!((a, b, c), (0, 1, 2));
        delete(l, &mut p, 1);
        assert!(replace(l, &mut p, 2, &[4u8; 20], 0));
        assert!(replace(l, &mut p, 0, &[5u8; 300], 0));
        // rows stay in slot order from the page end (the Jet rule)
        assert_eq!(extent(l, &p, 0).unwrap().1, 4096);
        compact(l, &mut p);
        // the deleted row's 200 bytes and the shrunk row's 30 are reclaimed
        assert_eq!(free_space(l, &p), 4096 - 14 - 6 - 300 - 20);
        let dp = DataPage::from_page(l, 9, Arc::from(p.clone())).unwrap();
        assert_eq!(dp.owner(), 7);
        assert_eq!(dp.row(0).unwrap(), &[5u8; 300][..]);
        assert!(dp.slot(1).unwrap().deleted);
        assert_eq!(dp.row(2).unwrap(), &[4u8; 20][..]);
        // fill the page: inserts stop when it is full, never overwrite
        let mut n = 0;
        while insert(l, &mut p, &[9u8; 500], 0).is_some() {
            n += 1;
        }
        assert!(n >= 6);
        let dp = DataPage::from_page(l, 9, Arc::from(p)).unwrap();
        assert_eq!(dp.row(0).unwrap(), &[5u8; 300][..]);
        assert_eq!(dp.row(3).unwrap(), &[9u8; 500][..]);
    }
}
