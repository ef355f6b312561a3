//! Data pages: the header, the row slot table and row extents (through the
//! row-slot kernel), and overflow-row resolution.

use crate::error::{FormatError, corrupt};
use crate::format::{Layout, page_type};
use crate::page::{Page, PageSource};
use jet_kernels::Refusal;
use jet_kernels::bytes::{u8_at, u16_at, u24_at, u32_at};
use jet_kernels::row_slot::{Slot, SlotTable};
use std::ops::Range;

/// Most overflow pointers followed for one row before refusing.
pub const MAX_OVERFLOW_HOPS: usize = 8;

/// A data page with its admitted slot table.
#[derive(Clone)]
pub struct DataPage {
    /// Page number.
    pub number: u32,
    /// Page bytes.
    pub bytes: Page,
    slots: SlotTable,
    /// Every slot's row extent (or its refusal), decided once per page by
    /// the row-slot kernel: extents in O(1) per row.
    bounds: std::sync::Arc<[Result<(usize, usize), Refusal>]>,
}

impl DataPage {
    /// Reads page `n` and admits it as a data page: type 0x01 and a slot
    /// table that fits the page.
    pub fn read(src: &dyn PageSource, layout: &Layout, n: u32) -> Result<DataPage, FormatError> {
        let bytes = src.read_page(n)?;
        DataPage::from_page(layout, n, bytes)
    }

    /// Admits already-read bytes as data page `n`.
    pub fn from_page(layout: &Layout, n: u32, bytes: Page) -> Result<DataPage, FormatError> {
        if bytes.first() != Some(&page_type::DATA) {
            return Err(FormatError::PageType {
                page: n,
                expected: "data",
                found: bytes.first().copied().unwrap_or(0xFF),
            });
        }
        let count = u16_at(&bytes, layout.data_row_count)
            .ok_or_else(|| corrupt(n, layout.data_row_count, "row count", Refusal::OutOfBounds))?;
        let slots = SlotTable::admit(layout.data_row_count + 2, usize::from(count), bytes.len())
            .ok_or_else(|| {
                corrupt(
                    n,
                    layout.data_row_count,
                    "row slot table",
                    Refusal::BadCount,
                )
            })?;
        let mut order = vec![0u32; slots.count];
        let mut bounds = vec![Err(Refusal::BadCount); slots.count];
        slots
            .row_bounds_all(&bytes, &mut order, &mut bounds)
            .map_err(|r| corrupt(n, layout.data_row_count, "row slot table", r))?;
        Ok(DataPage {
            number: n,
            bytes,
            slots,
            bounds: bounds.into(),
        })
    }

    /// The TDEF page that owns this page (or the bytes `LVAL` for long values).
    pub fn owner(&self) -> u32 {
        u32_at(&self.bytes, 4).unwrap_or(0)
    }

    /// Number of row slots.
    pub fn row_count(&self) -> usize {
        self.slots.count
    }

    /// Slot `i` (flags and offset).
    pub fn slot(&self, i: usize) -> Option<Slot> {
        self.slots.slot(&self.bytes, i)
    }

    /// Extent of row `i` in the page, as the kernel admits it.
    pub fn row_range(&self, i: usize) -> Result<Range<usize>, FormatError> {
        self.bounds
            .get(i)
            .copied()
            .unwrap_or(Err(Refusal::BadCount))
            .map(|(s, e)| s..e)
            .map_err(|r| corrupt(self.number, self.slots.table_start + 2 * i, "row slot", r))
    }

    /// Bytes of row `i`.
    pub fn row(&self, i: usize) -> Result<&[u8], FormatError> {
        let r = self.row_range(i)?;
        Ok(&self.bytes[r])
    }
}

/// Where the live content of one slot lies.
#[derive(Clone)]
pub enum SlotRow {
    /// The slot is deleted.
    Deleted,
    /// The row is in the page that was asked about, at this byte range.
    Here(Range<usize>),
    /// The row was moved: it lies on this other page, at this byte range
    /// (after following overflow pointers).
    Moved(DataPage, Range<usize>),
}

/// Where the live content of slot `i` of `page` lies, following overflow
/// pointers (at most [`MAX_OVERFLOW_HOPS`]). Unlike [`resolve_row`] it does
/// not clone `page` for the common case of a row stored in place, which is
/// what keeps full scans free of per-row reference counting.
pub fn locate_row(
    src: &dyn PageSource,
    layout: &Layout,
    page: &DataPage,
    i: usize,
) -> Result<SlotRow, FormatError> {
    let slot = page
        .slot(i)
        .ok_or_else(|| corrupt(page.number, 0, "row slot", Refusal::BadCount))?;
    if slot.deleted {
        return Ok(SlotRow::Deleted);
    }
    let range = page.row_range(i)?;
    if !slot.overflow {
        return Ok(SlotRow::Here(range));
    }
    let mut cur: Option<DataPage> = None;
    let mut range = range;
    for _ in 0..MAX_OVERFLOW_HOPS {
        let here = cur.as_ref().unwrap_or(page);
        let row = &here.bytes[range.clone()];
        let (Some(r), Some(p)) = (u8_at(row, 0), u24_at(row, 1)) else {
            return Err(corrupt(
                here.number,
                range.start,
                "overflow row pointer",
                Refusal::OutOfBounds,
            ));
        };
        let next = DataPage::read(src, layout, p)?;
        let s = next
            .slot(usize::from(r))
            .ok_or_else(|| corrupt(p, 0, "overflow target slot", Refusal::BadCount))?;
        range = next.row_range(usize::from(r))?;
        if !s.overflow {
            return Ok(SlotRow::Moved(next, range));
        }
        cur = Some(next);
    }
    Err(corrupt(
        page.number,
        0,
        "overflow chain too long",
        Refusal::Budget,
    ))
}

/// The live content of one slot: `None` for a deleted row, otherwise the
/// page and byte range holding the row's data after following overflow
/// pointers (at most [`MAX_OVERFLOW_HOPS`]).
pub fn resolve_row(
    src: &dyn PageSource,
    layout: &Layout,
    page: &DataPage,
    i: usize,
) -> Result<Option<(DataPage, Range<usize>)>, FormatError> {
    Ok(match locate_row(src, layout, page, i)? {
        SlotRow::Deleted => None,
        SlotRow::Here(r) => Some((page.clone(), r)),
        SlotRow::Moved(p, r) => Some((p, r)),
    })
}
