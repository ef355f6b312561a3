//! Page allocation and usage maps on the write side.
//!
//! A usage map is a row (on a data page), written 69 bytes long in
//! Jet4/ACE and 133 in Jet3 (`Layout::usage_map_row_len`; rows Access
//! wrote may be longer, and all of such a row is the map): either inline — type 0, a u32 start
//! page and a 64-byte (Jet3: 128-byte) bitmap — or reference — type 1 and
//! u32 pointers to usage-map pages (type 0x05), each a bitmap of
//! `(page_size - 4) * 8` pages. [`set_member`] adds or removes a page,
//! re-basing an empty inline map and promoting a full inline map to a
//! reference map of the same row length, so the map's row never moves.
//! Members are always exact: a page is listed iff it was added and not
//! removed since.

use crate::error::{WResult, WriteError};
use crate::format::{Layout, page_type};
use crate::page::image::PageStore;
use crate::read::usage_map::{MAP_INLINE, MAP_REFERENCE};
use crate::write::data_page;
use crate::write::overlay::PageOverlay;
use jet_kernels::row_slot::unpack_row_pointer;
use jet_kernels::usage_map::{
    bits_per_map_page, inline_bit, next_set_bit, reference_page, reference_position, set_bit,
};

/// A new, empty inline map row starting at page `start`, as long as
/// `layout`'s usage-map rows (69 bytes in Jet4/ACE, 133 in Jet3).
pub fn empty_inline(layout: &Layout, start: u32) -> Vec<u8> {
    let mut r = vec![0u8; layout.usage_map_row_len];
    r[0] = MAP_INLINE;
    r[1..5].copy_from_slice(&start.to_le_bytes());
    r
}

/// A new, empty reference map row, as long as `layout`'s usage-map rows.
pub fn empty_reference(layout: &Layout) -> Vec<u8> {
    let mut r = vec![0u8; layout.usage_map_row_len];
    r[0] = MAP_REFERENCE;
    r
}

/// A new, empty usage-map page (type 0x05).
fn new_map_page(page_size: usize) -> Vec<u8> {
    let mut p = vec![0u8; page_size];
    p[0] = page_type::USAGE_MAP;
    p[1] = 0x01;
    p
}

fn map_row(ov: &PageOverlay, layout: &Layout, pointer: u32) -> WResult<(u32, usize, Vec<u8>)> {
    let (page, row) = unpack_row_pointer(pointer);
    let bytes = ov.read_vec(page)?;
    if bytes[0] != page_type::DATA || usize::from(row) >= data_page::row_count(layout, &bytes) {
        return Err(WriteError::Format(crate::error::FormatError::PageType {
            page,
            expected: "data page holding a usage map",
            found: bytes[0],
        }));
    }
    let (s, e) = data_page::extent(layout, &bytes, usize::from(row)).ok_or_else(|| {
        crate::error::corrupt(page, 0, "usage map row", jet_kernels::Refusal::OutOfBounds)
    })?;
    // the whole row is the map, as Access, mdbtools, mdb-reader and Jackcess
    // read it: Access's own rows may be longer than the ones written here
    // (nwind.mdb's MSysACEs: 145 bytes, its last bits list real pages)
    Ok((page, s, bytes[s..e].to_vec()))
}

/// Whether page `page` is a data page of the table whose definition is at
/// `tdef_page` (its header names that page as owner).
pub fn owned_data_page(
    ov: &PageOverlay,
    layout: &Layout,
    page: u32,
    tdef_page: u32,
) -> WResult<bool> {
    let p = ov.read_page(page)?;
    let at = layout.data_tdef_page;
    Ok(p.first() == Some(&page_type::DATA)
        && p.get(at..at + 4)
            .is_some_and(|o| o == tdef_page.to_le_bytes()))
}

/// Member pages of the map at `pointer`, in increasing order (unclipped).
pub fn members(ov: &PageOverlay, layout: &Layout, pointer: u32) -> WResult<Vec<u32>> {
    let (_, _, row) = map_row(ov, layout, pointer)?;
    members_of_row(ov, &row)
}

fn members_of_row(ov: &PageOverlay, row: &[u8]) -> WResult<Vec<u32>> {
    let mut out = Vec::new();
    match row.first() {
        Some(&MAP_INLINE) if row.len() >= 5 => {
            let start = u32::from_le_bytes([row[1], row[2], row[3], row[4]]);
            let bits = &row[5..];
            let mut from = 0;
            while let Some(b) = next_set_bit(bits, from) {
                out.push(start.saturating_add(b as u32));
                from = b + 1;
            }
        }
        Some(&MAP_REFERENCE) => {
            let ps = ov.page_size();
            for (k, c) in row[1..].chunks_exact(4).enumerate() {
                let mp = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                if mp == 0 {
                    continue;
                }
                let bm = ov.read_page(mp)?;
                let bits = &bm[4..];
                let mut from = 0;
                while let Some(b) = next_set_bit(bits, from) {
                    if let Some(p) = reference_page(k, b, ps) {
                        out.push(p);
                    }
                    from = b + 1;
                }
            }
        }
        _ => {
            return Err(crate::error::corrupt(
                0,
                0,
                "usage map type",
                jet_kernels::Refusal::BadCount,
            )
            .into());
        }
    }
    Ok(out)
}

/// Adds (`on`) or removes page `page` in the usage map at `pointer`.
pub fn set_member(
    ov: &mut PageOverlay,
    layout: &Layout,
    pointer: u32,
    page: u32,
    on: bool,
) -> WResult<()> {
    let (map_page, start, mut row) = map_row(ov, layout, pointer)?;
    let ps = ov.page_size();
    if row[0] == MAP_INLINE {
        let first = u32::from_le_bytes([row[1], row[2], row[3], row[4]]);
        let bits_len = row.len() - 5;
        if let Some(bit) = inline_bit(first, page, bits_len) {
            set_bit(&mut row[5..], bit, on);
        } else if !on {
            return Ok(());
        } else if row[5..].iter().all(|&b| b == 0) {
            row[1..5].copy_from_slice(&page.to_le_bytes());
            row[5..].fill(0);
            set_bit(&mut row[5..], 0, true);
        } else {
            // promote to a reference map of the same row length
            let mut pages = members_of_row(ov, &row)?;
            pages.push(page);
            // every byte of the row rewritten: a Jet3 row (133 bytes) is
            // longer than `empty_reference`, and stale bitmap bytes must
            // not read as page pointers
            let mut r = vec![0u8; row.len()];
            r[0] = MAP_REFERENCE;
            for p in pages {
                reference_set(ov, &mut r, p, true, ps)?;
            }
            row = r;
        }
    } else {
        reference_set(ov, &mut row, page, on, ps)?;
    }
    let mut bytes = ov.read_vec(map_page)?;
    bytes[start..start + row.len()].copy_from_slice(&row);
    ov.write(map_page, &bytes)?;
    Ok(())
}

fn reference_set(
    ov: &mut PageOverlay,
    row: &mut [u8],
    page: u32,
    on: bool,
    ps: usize,
) -> WResult<()> {
    let (k, bit) = reference_position(page, ps).ok_or(WriteError::DatabaseFull(page))?;
    let slot = 1 + 4 * k;
    if slot + 4 > row.len() {
        return Err(WriteError::DatabaseFull(page));
    }
    let mut mp = u32::from_le_bytes([row[slot], row[slot + 1], row[slot + 2], row[slot + 3]]);
    if mp == 0 {
        if !on {
            return Ok(());
        }
        mp = ov.append()?;
        ov.write(mp, &new_map_page(ps))?;
        row[slot..slot + 4].copy_from_slice(&mp.to_le_bytes());
    }
    let mut bm = ov.read_vec(mp)?;
    if bm[0] != page_type::USAGE_MAP || bits_per_map_page(ps).is_none_or(|b| bit >= b) {
        return Err(WriteError::Format(crate::error::FormatError::PageType {
            page: mp,
            expected: "usage map",
            found: bm[0],
        }));
    }
    set_bit(&mut bm[4..], bit, on);
    ov.write(mp, &bm)?;
    Ok(())
}

/// Appends a page and returns its number, refusing pages that a 24-bit row
/// pointer could not address.
pub fn append_page(ov: &mut PageOverlay) -> WResult<u32> {
    let n = ov.append()?;
    if n > 0x00FF_FFFF {
        return Err(WriteError::DatabaseFull(n));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::JetVersion;
    use crate::page::{MemPageSource, PageSource};
    use std::sync::Arc;

    #[test]
    fn inline_rebases_promotes_and_stays_exact() {
        let l = JetVersion::Jet4.layout();
        let mut img = vec![0u8; 4096];
        let mut p = data_page::new_page(l, 0);
        data_page::insert(l, &mut p, &empty_inline(l, 0), 0).unwrap();
        img.extend_from_slice(&p);
        let base: Arc<dyn PageSource> = Arc::new(MemPageSource::new(img, 4096));
        let mut ov = PageOverlay::new(base);
        let ptr = 1 << 8; // page 1, row 0
        for _ in 0..3 {
            append_page(&mut ov).unwrap();
        }
        set_member(&mut ov, l, ptr, 700, true).unwrap(); // empty: re-base
        set_member(&mut ov, l, ptr, 703, true).unwrap();
        assert_eq!(members(&ov, l, ptr).unwrap(), vec![700, 703]);
        set_member(&mut ov, l, ptr, 3, true).unwrap(); // outside: promote
        assert_eq!(members(&ov, l, ptr).unwrap(), vec![3, 700, 703]);
        set_member(&mut ov, l, ptr, 700, false).unwrap();
        set_member(&mut ov, l, ptr, 40_000, true).unwrap();
        assert_eq!(members(&ov, l, ptr).unwrap(), vec![3, 703, 40_000]);
        // the reader agrees
        let got = crate::read::usage_map::read_pages(&ov, l, ptr).unwrap();
        assert_eq!(got, vec![3]); // the reader clips pages past the image's end
    }
}
