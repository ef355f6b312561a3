//! Usage maps: the set of pages a table owns, decoded through the
//! usage-map kernel.

use crate::error::{FormatError, corrupt};
use crate::format::{Layout, page_type};
use crate::page::PageSource;
use crate::read::data_page::DataPage;
use jet_kernels::Refusal;
use jet_kernels::bytes::u32_at;
use jet_kernels::row_slot::unpack_row_pointer;
use jet_kernels::usage_map::{inline_page, next_set_bit, reference_page};

/// Map type byte: bitmap stored in the row.
pub const MAP_INLINE: u8 = 0x00;
/// Map type byte: list of usage-map pages.
pub const MAP_REFERENCE: u8 = 0x01;

/// Reads the usage map whose row pointer is `pointer` and returns its
/// member pages in increasing order, clipped to the pages of the file.
pub fn read_pages(
    src: &dyn PageSource,
    layout: &Layout,
    pointer: u32,
) -> Result<Vec<u32>, FormatError> {
    let (page, row) = unpack_row_pointer(pointer);
    let dp = DataPage::read(src, layout, page)?;
    let map = dp.row(usize::from(row))?;
    // the whole row is the map, as Access, mdbtools, mdb-reader and Jackcess
    // read it (nwind.mdb's MSysACEs map row is 145 bytes, and its bits past
    // the 133 a new Jet3 map takes list 12 of the table's rows); a listed
    // page another table owns is skipped by the scan's owner check
    let file_pages = src.page_count();
    let mut out = Vec::new();
    match map.first() {
        Some(&MAP_INLINE) => {
            let start = u32_at(map, 1)
                .ok_or_else(|| corrupt(page, 0, "usage map start", Refusal::OutOfBounds))?;
            let bits = &map[5.min(map.len())..];
            let mut from = 0;
            while let Some(b) = next_set_bit(bits, from) {
                match inline_page(start, b) {
                    Some(p) if p < file_pages => out.push(p),
                    _ => break,
                }
                from = b + 1;
            }
        }
        Some(&MAP_REFERENCE) => {
            let ps = src.page_size();
            for (k, chunk) in map[1..].chunks_exact(4).enumerate() {
                let mp = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                if mp == 0 {
                    continue;
                }
                let bm = src.read_page(mp)?;
                if bm[0] != page_type::USAGE_MAP {
                    return Err(FormatError::PageType {
                        page: mp,
                        expected: "usage map",
                        found: bm[0],
                    });
                }
                let bits = &bm[4..];
                let mut from = 0;
                while let Some(b) = next_set_bit(bits, from) {
                    match reference_page(k, b, ps) {
                        Some(p) if p < file_pages => out.push(p),
                        _ => break,
                    }
                    from = b + 1;
                }
            }
            out.sort_unstable();
            out.dedup();
        }
        Some(&t) => {
            return Err(FormatError::PageType {
                page,
                expected: "usage map (type 0 or 1)",
                found: t,
            });
        }
        None => return Err(corrupt(page, 0, "empty usage map", Refusal::EmptyRow)),
    }
    Ok(out)
}
