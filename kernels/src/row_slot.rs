//! Data-page row slots: the row offset table that follows a data page header.
//!
//! Each slot is a little-endian `u16`: the low 13 bits are the row's start
//! offset in the page, bit 15 marks a deleted row and bit 14 an overflow row
//! (its bytes are a pointer to the row's real location). A row runs from its
//! start to the next greater start offset of any slot on the page, or to the
//! end of the page.

use crate::Refusal;
use crate::bytes::u16_at;

/// Mask of the offset bits of a row slot.
pub const OFFSET_MASK: u16 = 0x1FFF;
/// Flag bit: the row is deleted.
pub const DELETED_FLAG: u16 = 0x8000;
/// Flag bit: the row's bytes are a pointer to an overflow row.
pub const OVERFLOW_FLAG: u16 = 0x4000;

/// One decoded row slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Start offset of the row in the page (flags masked off).
    pub offset: u16,
    /// Bit 15 was set.
    pub deleted: bool,
    /// Bit 14 was set.
    pub overflow: bool,
}

/// Decodes a raw slot value. Total: every `u16` is a slot.
#[must_use]
#[inline]
pub fn decode_slot(raw: u16) -> Slot {
    Slot {
        offset: raw & OFFSET_MASK,
        deleted: raw & DELETED_FLAG != 0,
        overflow: raw & OVERFLOW_FLAG != 0,
    }
}

/// Geometry of a data page's slot table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotTable {
    /// Offset of the first slot in the page.
    pub table_start: usize,
    /// Number of slots.
    pub count: usize,
    /// Page size in bytes.
    pub page_size: usize,
}

impl SlotTable {
    /// Admits a slot table of `count` slots starting at `table_start` inside a
    /// page of `page_len` bytes; `None` if the table itself runs past the page.
    #[must_use]
    pub fn admit(table_start: usize, count: usize, page_len: usize) -> Option<SlotTable> {
        let len = count.checked_mul(2)?;
        crate::range::admit(table_start, len, page_len)?;
        Some(SlotTable {
            table_start,
            count,
            page_size: page_len,
        })
    }

    /// First byte after the slot table: no row may start before it.
    #[must_use]
    #[inline]
    pub fn header_end(&self) -> usize {
        // admitted in `admit`, so neither operation can overflow
        self.count
            .checked_mul(2)
            .and_then(|l| l.checked_add(self.table_start))
            .unwrap_or(usize::MAX)
    }

    /// The raw value of slot `index`, or `None` past the table.
    #[must_use]
    #[inline]
    pub fn raw(&self, page: &[u8], index: usize) -> Option<u16> {
        if index >= self.count {
            return None;
        }
        u16_at(page, self.table_start.checked_add(index.checked_mul(2)?)?)
    }

    /// Decoded slot `index`, or `None` past the table.
    #[must_use]
    #[inline]
    pub fn slot(&self, page: &[u8], index: usize) -> Option<Slot> {
        self.raw(page, index).map(decode_slot)
    }

    /// Slot `index`, its start offset and the page limit, refusing a start
    /// inside the header or slot table or at or past the page end: the
    /// admission both extent decisions share.
    fn admit_start(&self, page: &[u8], index: usize) -> Result<(Slot, usize, usize), Refusal> {
        let me = self.slot(page, index).ok_or(Refusal::BadCount)?;
        let start = usize::from(me.offset);
        let limit = self.page_size.min(page.len());
        if start < self.header_end() {
            return Err(Refusal::SlotInHeader);
        }
        if start >= limit {
            return Err(Refusal::OutOfBounds);
        }
        Ok((me, start, limit))
    }

    /// Byte interval `start .. end` of row `index`.
    ///
    /// `end` is the smallest start offset of any *other* slot that is greater
    /// than this row's start, or the page size when there is none. Refuses a
    /// row that starts inside the header or slot table
    /// ([`Refusal::SlotInHeader`]), a live row whose start another live slot
    /// shares ([`Refusal::Overlap`]; deleted slots may repeat an offset), one that starts at or past the page end
    /// ([`Refusal::OutOfBounds`]), and a slot index past the table
    /// ([`Refusal::BadCount`]). The returned interval always lies inside the
    /// page and after the slot table, and is never empty.
    pub fn row_bounds(&self, page: &[u8], index: usize) -> Result<(usize, usize), Refusal> {
        let (me, start, limit) = self.admit_start(page, index)?;
        let mut end = limit;
        for other in 0..self.count {
            if other == index {
                continue;
            }
            let os = self.slot(page, other).ok_or(Refusal::BadCount)?;
            let o = usize::from(os.offset);
            if o == start {
                // deleted slots may keep a neighbour's offset; two live
                // slots may not share bytes
                if !os.deleted && !me.deleted {
                    return Err(Refusal::Overlap);
                }
                continue;
            }
            if o > start && o < end {
                end = o;
            }
        }
        Ok((start, end))
    }

    /// Fills `scratch[..count]` with the raw slot values sorted by offset,
    /// for [`SlotTable::row_bounds_sorted`]. Refuses a scratch buffer shorter
    /// than the table ([`Refusal::BadCount`]).
    pub fn sort_slots(&self, page: &[u8], scratch: &mut [u16]) -> Result<(), Refusal> {
        let dst = scratch.get_mut(..self.count).ok_or(Refusal::BadCount)?;
        for (i, d) in dst.iter_mut().enumerate() {
            *d = self.raw(page, i).ok_or(Refusal::BadCount)?;
        }
        dst.sort_unstable_by_key(|v| v & OFFSET_MASK);
        Ok(())
    }

    /// The same decision as [`SlotTable::row_bounds`], in `O(log n)`, given
    /// `sorted` as filled by [`SlotTable::sort_slots`] for this page.
    pub fn row_bounds_sorted(
        &self,
        page: &[u8],
        sorted: &[u16],
        index: usize,
    ) -> Result<(usize, usize), Refusal> {
        let sorted = sorted.get(..self.count).ok_or(Refusal::BadCount)?;
        let (me, start, limit) = self.admit_start(page, index)?;
        let lo = sorted.partition_point(|v| (v & OFFSET_MASK) < me.offset);
        let hi = sorted.partition_point(|v| (v & OFFSET_MASK) <= me.offset);
        if !me.deleted {
            let same = sorted.get(lo..hi).ok_or(Refusal::BadCount)?;
            let live = same.iter().filter(|v| *v & DELETED_FLAG == 0).count();
            if live > 1 {
                return Err(Refusal::Overlap);
            }
        }
        let end = match sorted.get(hi) {
            Some(v) => usize::from(v & OFFSET_MASK).min(limit),
            None => limit,
        };
        Ok((start, end))
    }

    /// The decisions of [`SlotTable::row_bounds_all`] in one pass when the
    /// slots' start offsets fall strictly from slot to slot, as Access lays
    /// rows out (from the page's end down): then no start is shared, and a
    /// row ends where the slot before it starts (the first at the page
    /// limit). Returns `false`, with `out` partly written, at the first
    /// slot that does not fall; a slot that cannot be read is refused as
    /// the sorting path refuses it.
    #[inline]
    fn bounds_if_descending(
        &self,
        page: &[u8],
        out: &mut [Result<(usize, usize), Refusal>],
    ) -> Result<bool, Refusal> {
        let limit = self.page_size.min(page.len());
        let header_end = self.header_end();
        // the start of the slot before (none before the first)
        let mut above: Option<usize> = None;
        for (i, decision) in out.iter_mut().enumerate() {
            let raw = self.raw(page, i).ok_or(Refusal::BadCount)?;
            let start = usize::from(raw & OFFSET_MASK);
            if above.is_some_and(|a| start >= a) {
                return Ok(false);
            }
            let end = above.map_or(limit, |a| a.min(limit));
            *decision = if start < header_end {
                Err(Refusal::SlotInHeader)
            } else if start >= limit {
                Err(Refusal::OutOfBounds)
            } else {
                Ok((start, end))
            };
            above = Some(start);
        }
        Ok(true)
    }

    /// Every row's extent at once: `out[i]` receives exactly the decision
    /// [`SlotTable::row_bounds`] makes for slot `i`, for every slot of the
    /// table, in `O(n log n)` for the whole page (one sort and one sweep),
    /// so a scan pays `O(1)` per row afterwards. `order` is scratch. Refuses
    /// with [`Refusal::BadCount`] when `order` or `out` is shorter than the
    /// table or a slot cannot be read (as [`SlotTable::sort_slots`] does).
    pub fn row_bounds_all(
        &self,
        page: &[u8],
        order: &mut [u32],
        out: &mut [Result<(usize, usize), Refusal>],
    ) -> Result<(), Refusal> {
        let order = order.get_mut(..self.count).ok_or(Refusal::BadCount)?;
        let out = out.get_mut(..self.count).ok_or(Refusal::BadCount)?;
        if self.bounds_if_descending(page, out)? {
            return Ok(());
        }
        // key: offset in the high half, slot index in the low half, so the
        // sort orders by offset and each key names its slot
        for (i, key) in order.iter_mut().enumerate() {
            let raw = self.raw(page, i).ok_or(Refusal::BadCount)?;
            let idx = u16::try_from(i).map_err(|_| Refusal::BadCount)?;
            let [i0, i1] = idx.to_le_bytes();
            let [o0, o1] = (raw & OFFSET_MASK).to_le_bytes();
            *key = u32::from_le_bytes([i0, i1, o0, o1]);
        }
        order.sort_unstable();
        let offset_of = |key: u32| {
            let [_, _, o0, o1] = key.to_le_bytes();
            u16::from_le_bytes([o0, o1])
        };
        let index_of = |key: u32| {
            let [i0, i1, _, _] = key.to_le_bytes();
            usize::from(u16::from_le_bytes([i0, i1]))
        };
        let limit = self.page_size.min(page.len());
        let header_end = self.header_end();
        let mut rest: &[u32] = order;
        while let Some(&first) = rest.first() {
            let start = offset_of(first);
            // the group of slots sharing this start, and what follows it
            let len = rest
                .iter()
                .position(|&k| offset_of(k) != start)
                .unwrap_or(rest.len());
            let Some((group, after)) = rest.split_at_checked(len) else {
                return Err(Refusal::BadCount);
            };
            let end = match after.first() {
                Some(&k) => usize::from(offset_of(k)).min(limit),
                None => limit,
            };
            let live = group
                .iter()
                .filter(|&&k| {
                    self.raw(page, index_of(k))
                        .is_some_and(|r| r & DELETED_FLAG == 0)
                })
                .count();
            for &k in group {
                let i = index_of(k);
                let raw = self.raw(page, i).ok_or(Refusal::BadCount)?;
                let s = usize::from(start);
                let decision = if s < header_end {
                    Err(Refusal::SlotInHeader)
                } else if s >= limit {
                    Err(Refusal::OutOfBounds)
                } else if raw & DELETED_FLAG == 0 && live > 1 {
                    Err(Refusal::Overlap)
                } else {
                    Ok((s, end))
                };
                *out.get_mut(i).ok_or(Refusal::BadCount)? = decision;
            }
            rest = after;
        }
        Ok(())
    }
}

/// Packs a row pointer: a 24-bit page number and an 8-bit row number as
/// Jet stores them (`page << 8 | row`). `None` if `page` needs more than 24 bits.
#[must_use]
pub fn pack_row_pointer(page: u32, row: u8) -> Option<u32> {
    if page > 0x00FF_FFFF {
        return None;
    }
    Some((page << 8) | u32::from(row))
}

/// Unpacks a row pointer into `(page, row)`. Total.
#[must_use]
pub fn unpack_row_pointer(v: u32) -> (u32, u8) {
    let row = v.to_le_bytes()[0];
    (v >> 8, row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Naive oracle: sort all slot starts and take the successor.
    fn oracle_bounds(
        starts: &[u16],
        idx: usize,
        table_start: usize,
        page: usize,
    ) -> Result<(usize, usize), Refusal> {
        if idx >= starts.len() {
            return Err(Refusal::BadCount);
        }
        let s = (starts[idx] & OFFSET_MASK) as usize;
        if s < table_start + 2 * starts.len() {
            return Err(Refusal::SlotInHeader);
        }
        if s >= page {
            return Err(Refusal::OutOfBounds);
        }
        let me_deleted = starts[idx] & DELETED_FLAG != 0;
        let live_dup = starts
            .iter()
            .enumerate()
            .any(|(i, v)| i != idx && (v & OFFSET_MASK) as usize == s && v & DELETED_FLAG == 0);
        if live_dup && !me_deleted {
            return Err(Refusal::Overlap);
        }
        let mut all: std::vec::Vec<usize> = starts
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != idx)
            .map(|(_, v)| (v & OFFSET_MASK) as usize)
            .filter(|&o| o != s)
            .collect();
        all.sort();
        let end = all
            .into_iter()
            .find(|&o| o > s)
            .map(|o| o.min(page))
            .unwrap_or(page);
        Ok((s, end))
    }

    extern crate std;

    fn build(table_start: usize, raws: &[u16], page: usize) -> std::vec::Vec<u8> {
        let mut p = std::vec![0u8; page];
        for (i, r) in raws.iter().enumerate() {
            let o = table_start + 2 * i;
            if o + 2 <= page {
                p[o..o + 2].copy_from_slice(&r.to_le_bytes());
            }
        }
        p
    }

    #[test]
    fn slot_decode_exhaustive() {
        for raw in 0..=u16::MAX {
            let s = decode_slot(raw);
            assert_eq!(
                s.offset as u32
                    + (s.deleted as u32) * 0x8000
                    + (s.overflow as u32) * 0x4000
                    + (raw as u32 & 0x2000),
                raw as u32
            );
        }
    }

    #[test]
    fn bounds_exhaustive_small_pages() {
        // 3 slots, page of 24 bytes, table at 4: every start offset 0..24 for each slot
        let page = 24usize;
        for a in 0..page as u16 {
            for b in 0..page as u16 {
                for c in [
                    0u16,
                    10,
                    12,
                    23,
                    0x8000 | 15,
                    0x4000 | 20,
                    0x8000 | 12,
                    0xC000 | 10,
                ] {
                    let raws = [a, b, c];
                    let p = build(4, &raws, page);
                    let t = SlotTable::admit(4, 3, page).unwrap();
                    for i in 0..4 {
                        assert_eq!(
                            t.row_bounds(&p, i),
                            oracle_bounds(&raws, i, 4, page),
                            "{raws:?} {i}"
                        );
                    }
                    let mut order = [0u32; 3];
                    let mut all = [Ok((0, 0)); 3];
                    t.row_bounds_all(&p, &mut order, &mut all).unwrap();
                    for (i, got) in all.iter().enumerate() {
                        assert_eq!(*got, oracle_bounds(&raws, i, 4, page), "all {raws:?} {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn row_pointer_exhaustive_rows() {
        for row in 0..=u8::MAX {
            for page in [0u32, 1, 255, 256, 0xABCDE, 0xFFFFFF] {
                let v = pack_row_pointer(page, row).unwrap();
                assert_eq!(unpack_row_pointer(v), (page, row));
            }
            assert_eq!(pack_row_pointer(0x1000000, row), None);
        }
    }

    /// `row_bounds_all` over page `p` (slots `raws`, table at `ts`, page
    /// of `page` bytes) decides every slot as the oracle does.
    fn all_bounds_are_the_oracles(
        t: &SlotTable,
        p: &[u8],
        raws: &[u16],
        ts: usize,
        page: usize,
    ) -> Result<(), TestCaseError> {
        let mut order = std::vec![0u32; raws.len()];
        let mut all = std::vec![Ok((0, 0)); raws.len()];
        t.row_bounds_all(p, &mut order, &mut all).unwrap();
        for (i, got) in all.iter().enumerate() {
            prop_assert_eq!(*got, oracle_bounds(raws, i, ts, page));
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn bounds_match_oracle(raws in proptest::collection::vec(any::<u16>(), 0..12), ts in 0usize..16, idx in 0usize..14) {
            let page = 4096;
            let p = build(ts, &raws, page);
            if let Some(t) = SlotTable::admit(ts, raws.len(), page) {
                prop_assert_eq!(t.row_bounds(&p, idx), oracle_bounds(&raws, idx, ts, page));
            }
        }

        #[test]
        fn sorted_bounds_match(raws in proptest::collection::vec(any::<u16>(), 0..40), ts in 0usize..16, idx in 0usize..42, page in 16usize..4097) {
            let p = build(ts, &raws, page);
            if let Some(t) = SlotTable::admit(ts, raws.len(), page) {
                let mut scratch = std::vec![0u16; raws.len()];
                t.sort_slots(&p, &mut scratch).unwrap();
                prop_assert_eq!(t.row_bounds_sorted(&p, &scratch, idx), t.row_bounds(&p, idx));
                prop_assert_eq!(t.row_bounds_sorted(&p, &scratch, idx), oracle_bounds(&raws, idx, ts, page));
            }
        }

        #[test]
        fn all_bounds_match(raws in proptest::collection::vec(any::<u16>(), 0..120), ts in 0usize..16, page in 16usize..4097, cut in 0usize..4097) {
            let p = build(ts, &raws, page);
            if let Some(t) = SlotTable::admit(ts, raws.len(), page) {
                all_bounds_are_the_oracles(&t, &p, &raws, ts, page)?;
                let mut order = std::vec![0u32; raws.len()];
                let mut all = std::vec![Ok((0, 0)); raws.len()];
                // a buffer cut short: same decisions as row_bounds, or refused whole
                let short = &p[..cut.min(page)];
                match t.row_bounds_all(short, &mut order, &mut all) {
                    Ok(()) => for (i, got) in all.iter().enumerate() {
                        prop_assert_eq!(*got, t.row_bounds(short, i));
                    },
                    Err(r) => {
                        prop_assert_eq!(r, Refusal::BadCount);
                        prop_assert!(t.header_end() > short.len());
                    }
                }
                if !raws.is_empty() {
                    let mut small = std::vec![0u32; raws.len() - 1];
                    prop_assert_eq!(t.row_bounds_all(&p, &mut small, &mut all), Err(Refusal::BadCount));
                }
            }
        }

        /// Pages laid out as Access lays them (starts falling from slot
        /// to slot, any flags) take the one-pass path: the same decisions.
        #[test]
        fn descending_bounds_match(starts in proptest::collection::btree_set(0u16..0x2000, 0..120), flags in proptest::collection::vec(0u16..4, 120), ts in 0usize..16, page in 16usize..8193) {
            let raws: std::vec::Vec<u16> = starts
                .iter()
                .rev()
                .zip(&flags)
                .map(|(&o, &f)| o | (f << 14))
                .collect();
            let p = build(ts, &raws, page);
            if let Some(t) = SlotTable::admit(ts, raws.len(), page) {
                all_bounds_are_the_oracles(&t, &p, &raws, ts, page)?;
            }
        }

        #[test]
        fn pointer_roundtrip(v in any::<u32>()) {
            let (page, row) = unpack_row_pointer(v);
            prop_assert_eq!(pack_row_pointer(page, row), Some(v));
        }
    }
}
