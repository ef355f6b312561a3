//! Long values (MEMO, OLE) on the write side: inline in the row, in one
//! LVAL row, or in a chain of LVAL rows (each opening with the pointer to
//! the next). LVAL pages are data pages whose owner field reads `LVAL`; they
//! are registered in the column's own usage maps (owned and free-space),
//! never in the table's, so scans do not visit them.

use super::{alloc, data_page};
use crate::error::{WResult, WriteError};
use crate::format::Layout;
use crate::page::image::PageStore;
use crate::write::overlay::PageOverlay;
use jet_kernels::lval::{
    DESCRIPTOR_LEN, LvalDescriptor, LvalKind, decode_descriptor, encode_descriptor,
};
use jet_kernels::row_slot::{pack_row_pointer, unpack_row_pointer};

/// Largest long value (the descriptor's 30-bit length).
pub const MAX_LONG_VALUE: usize = jet_kernels::lval::MAX_LEN as usize;
/// Longest value kept inline in the row.
pub const MAX_INLINE: usize = 64;
/// A page stays in a free-space map while it can take a row this long.
pub const MIN_ROOM: usize = 16;

/// Where one long-value column's LVAL rows go: its usage maps and the page
/// it last wrote to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LvalTarget {
    /// Owned-pages map of the column.
    pub owned: u32,
    /// Free-space map of the column.
    pub free: u32,
    /// Page written last (tried first).
    pub current: Option<u32>,
}

/// Whether a data page belongs in a free-space map.
pub fn has_room(layout: &Layout, p: &[u8]) -> bool {
    data_page::fits_new(layout, p, MIN_ROOM)
}

/// Writes `row` into page `n` through `f` and keeps the page's membership in
/// the free-space map `free` exact.
pub fn edit_page<T>(
    ov: &mut PageOverlay,
    layout: &Layout,
    free: u32,
    n: u32,
    f: impl FnOnce(&mut [u8]) -> T,
) -> WResult<T> {
    let (before, out, after) = ov.edit(n, |p| {
        let before = has_room(layout, p);
        let out = f(p);
        (before, out, has_room(layout, p))
    })?;
    if before != after {
        alloc::set_member(ov, layout, free, n, after)?;
    }
    Ok(out)
}

/// Appends a new data page owned by `owner`, registered in `owned` and
/// `free`.
pub fn new_page(
    ov: &mut PageOverlay,
    layout: &Layout,
    owner: u32,
    owned: u32,
    free: u32,
) -> WResult<u32> {
    let n = alloc::append_page(ov)?;
    ov.write(n, &data_page::new_page(layout, owner))?;
    alloc::set_member(ov, layout, owned, n, true)?;
    alloc::set_member(ov, layout, free, n, true)?;
    Ok(n)
}

fn put_row(
    ov: &mut PageOverlay,
    layout: &Layout,
    t: &mut LvalTarget,
    row: &[u8],
) -> WResult<(u32, u8)> {
    if let Some(cur) = t.current {
        let p = ov.read_page(cur)?;
        if data_page::fits_new(layout, &p, row.len()) {
            let slot = edit_page(ov, layout, t.free, cur, |p| {
                data_page::insert(layout, p, row, 0)
            })?;
            if let Some(s) = slot {
                return Ok((cur, s));
            }
        }
    }
    let n = new_page(ov, layout, data_page::LVAL_OWNER, t.owned, t.free)?;
    t.current = Some(n);
    let slot = edit_page(ov, layout, t.free, n, |p| {
        data_page::insert(layout, p, row, 0)
    })?;
    slot.map(|s| (n, s))
        .ok_or_else(|| WriteError::Unsupported("LVAL row larger than a page".into()))
}

fn descriptor(length: usize, kind: LvalKind, page: u32, row: u8) -> WResult<[u8; DESCRIPTOR_LEN]> {
    let d = LvalDescriptor {
        length: u32::try_from(length).map_err(|_| WriteError::DatabaseFull(page))?,
        kind,
        page,
        row,
    };
    encode_descriptor(&d).ok_or(WriteError::DatabaseFull(page))
}

/// Stores `data` and returns the row field: the descriptor (with the data
/// after it when `inline_ok` and the value is at most [`MAX_INLINE`] bytes).
pub fn write(
    ov: &mut PageOverlay,
    layout: &Layout,
    t: &mut LvalTarget,
    data: &[u8],
    inline_ok: bool,
) -> WResult<Vec<u8>> {
    if inline_ok && data.len() <= MAX_INLINE {
        let mut f = descriptor(data.len(), LvalKind::Inline, 0, 0)?.to_vec();
        f.extend_from_slice(data);
        return Ok(f);
    }
    let max = data_page::max_row_len(layout);
    if data.len() <= max {
        let (p, r) = put_row(ov, layout, t, data)?;
        return Ok(descriptor(data.len(), LvalKind::SinglePage, p, r)?.to_vec());
    }
    // a chain: segments fill the current page, then whole new pages; each
    // segment's next pointer is patched once the next one is placed
    let mut first: Option<(u32, u8)> = None;
    let mut prev: Option<(u32, u8)> = None;
    let mut rest = data;
    while !rest.is_empty() {
        let room = match t.current {
            Some(cur) => {
                let p = ov.read_page(cur)?;
                if data_page::row_count(layout, &p) < data_page::MAX_ROWS {
                    data_page::free_space(layout, &p).saturating_sub(2 + 4)
                } else {
                    0
                }
            }
            None => 0,
        };
        let room = if room >= 64 {
            room
        } else {
            let n = new_page(ov, layout, data_page::LVAL_OWNER, t.owned, t.free)?;
            t.current = Some(n);
            max - 4
        };
        let take = rest.len().min(room);
        let mut seg = vec![0u8; 4];
        seg.extend_from_slice(&rest[..take]);
        rest = &rest[take..];
        let here = put_row(ov, layout, t, &seg)?;
        if let Some((pp, pr)) = prev {
            let ptr = pack_row_pointer(here.0, here.1).ok_or(WriteError::DatabaseFull(here.0))?;
            let mut b = ov.read_vec(pp)?;
            let (s, _) = data_page::extent(layout, &b, usize::from(pr)).ok_or_else(|| {
                crate::error::corrupt(pp, 0, "LVAL row", jet_kernels::Refusal::OutOfBounds)
            })?;
            b[s..s + 4].copy_from_slice(&ptr.to_le_bytes());
            ov.write(pp, &b)?;
        }
        first.get_or_insert(here);
        prev = Some(here);
    }
    let (p, r) = first.ok_or_else(|| WriteError::Unsupported("empty chained long value".into()))?;
    Ok(descriptor(data.len(), LvalKind::Chained, p, r)?.to_vec())
}

/// Deletes the LVAL rows of the long value whose row field is `field` (no
/// effect for inline values); their space is reclaimed when the pages are
/// rewritten. Stops after as many rows as the chain's length allows.
pub fn free(ov: &mut PageOverlay, layout: &Layout, t: &LvalTarget, field: &[u8]) -> WResult<()> {
    let Ok(d) = decode_descriptor(field) else {
        return Ok(());
    };
    let (mut p, mut r) = match d.kind {
        LvalKind::Inline => return Ok(()),
        _ => (d.page, d.row),
    };
    let mut budget = jet_kernels::lval::ChainBudget::new(d.length, ov.page_count());
    loop {
        let b = ov.read_page(p)?;
        if b.first() != Some(&crate::format::page_type::DATA)
            || usize::from(r) >= data_page::row_count(layout, &b)
        {
            return Ok(());
        }
        let Some((s, e)) = data_page::extent(layout, &b, usize::from(r)) else {
            return Ok(());
        };
        let next = if d.kind == LvalKind::Chained && e - s >= 4 {
            u32::from_le_bytes([b[s], b[s + 1], b[s + 2], b[s + 3]])
        } else {
            0
        };
        let here = pack_row_pointer(p, r).unwrap_or(0);
        let seg = (e - s).saturating_sub(4);
        edit_page(ov, layout, t.free, p, |pg| {
            data_page::delete(layout, pg, usize::from(r))
        })?;
        if d.kind != LvalKind::Chained
            || next == 0
            || budget.step(seg.max(1), here, next).is_err()
            || budget.remaining_bytes() == 0
        {
            return Ok(());
        }
        (p, r) = unpack_row_pointer(next);
    }
}
