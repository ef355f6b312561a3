//! Row geometry: the null mask, the variable-column count and offset table,
//! and the Jet3 jump table.
//!
//! A row (the bytes a row slot admits) is laid out as
//! `num_cols | fixed columns | variable columns | [eod, var offsets reversed,
//! (Jet3: jump table reversed,)] var_count | null mask`. Jet4 stores
//! `num_cols`, `var_count` and every offset as 2 bytes; Jet3 as 1 byte, with
//! a jump table adding 256 to the offsets past each recorded column.

use crate::Refusal;
use crate::bytes::{u8_at, u16_at};
use core::ops::Range;

/// Where the parts of one row lie, relative to the row's first byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowLayout {
    /// Number of columns the row was written with (`num_cols`).
    pub num_cols: usize,
    /// Byte interval of the null mask (`(num_cols + 7) / 8` bytes at the end).
    pub null_mask: Range<usize>,
    /// Number of variable-column offsets stored (not counting `eod`).
    pub var_count: usize,
    /// Offset of the first byte past the variable-column data area: the
    /// lowest byte of the offset table (or of the null mask when the table
    /// has no variable columns). Every column's bytes must end at or before it.
    pub data_end: usize,
    /// Offset of the first fixed column (after `num_cols`).
    pub fixed_start: usize,
    /// Jet3 only: position of variable offset 0 (`col_ptr`) and the number
    /// of effective jump-table entries.
    jet3: Option<(usize, usize)>,
}

/// Whether column `bit` (its column number) is non-null in the row's mask.
/// Bits past the mask read as null (`false`): a column added after the row
/// was written is null in it.
#[must_use]
#[inline]
pub fn null_mask_bit(row: &[u8], layout: &RowLayout, bit: usize) -> bool {
    let byte = bit / 8;
    let Some(pos) = layout.null_mask.start.checked_add(byte) else {
        return false;
    };
    if pos >= layout.null_mask.end {
        return false;
    }
    match u8_at(row, pos) {
        Some(b) => (b >> (bit % 8)) & 1 == 1,
        None => false,
    }
}

#[inline]
fn mask_len(num_cols: usize) -> Option<usize> {
    num_cols.checked_add(7).map(|n| n / 8)
}

/// Lays out a Jet4/ACE row of `row.len()` bytes.
///
/// `has_var_cols` is whether the table definition has variable columns (only
/// then does the row store `var_count` and the offset table). Refuses a row
/// too short for its own header, mask, count or offset table.
#[inline]
pub fn jet4_layout(row: &[u8], has_var_cols: bool) -> Result<RowLayout, Refusal> {
    let n = row.len();
    let num_cols = usize::from(u16_at(row, 0).ok_or(Refusal::OutOfBounds)?);
    let m = mask_len(num_cols).ok_or(Refusal::BadCount)?;
    let mask_start = n.checked_sub(m).ok_or(Refusal::BadCount)?;
    if mask_start < 2 {
        return Err(Refusal::BadCount);
    }
    let (var_count, data_end) = if has_var_cols {
        let count_pos = mask_start.checked_sub(2).ok_or(Refusal::BadCount)?;
        let var_count = usize::from(u16_at(row, count_pos).ok_or(Refusal::OutOfBounds)?);
        // var_count + 1 entries (eod last), 2 bytes each, below the count
        let table_len = var_count
            .checked_add(1)
            .and_then(|e| e.checked_mul(2))
            .ok_or(Refusal::BadCount)?;
        let low = count_pos.checked_sub(table_len).ok_or(Refusal::BadCount)?;
        if low < 2 {
            return Err(Refusal::BadCount);
        }
        (var_count, low)
    } else {
        (0, mask_start)
    };
    Ok(RowLayout {
        num_cols,
        null_mask: mask_start..n,
        var_count,
        data_end,
        fixed_start: 2,
        jet3: None,
    })
}

/// Lays out a Jet3 row, including its jump table.
///
/// The jump table has `(row_len - 1) / 256` entries; the last is a dummy
/// (ignored, but present) when the offset table itself lies below the last
/// 256-byte boundary it would mark. Refuses a row too short for its parts.
#[inline]
pub fn jet3_layout(row: &[u8], has_var_cols: bool) -> Result<RowLayout, Refusal> {
    let n = row.len();
    let num_cols = usize::from(u8_at(row, 0).ok_or(Refusal::OutOfBounds)?);
    let m = mask_len(num_cols).ok_or(Refusal::BadCount)?;
    let mask_start = n.checked_sub(m).ok_or(Refusal::BadCount)?;
    if mask_start < 1 {
        return Err(Refusal::BadCount);
    }
    if !has_var_cols {
        return Ok(RowLayout {
            num_cols,
            null_mask: mask_start..n,
            var_count: 0,
            data_end: mask_start,
            fixed_start: 1,
            jet3: None,
        });
    }
    let count_pos = mask_start.checked_sub(1).ok_or(Refusal::BadCount)?;
    let var_count = usize::from(u8_at(row, count_pos).ok_or(Refusal::OutOfBounds)?);
    let mut jumps = n.checked_sub(1).ok_or(Refusal::BadCount)? / 256;
    // var offset 0 sits just below the jump table
    let col_ptr = count_pos
        .checked_sub(1)
        .and_then(|p| p.checked_sub(jumps))
        .ok_or(Refusal::BadCount)?;
    // entries var_count..=0 occupy col_ptr - var_count ..= col_ptr
    let low = col_ptr.checked_sub(var_count).ok_or(Refusal::BadCount)?;
    if low < 1 {
        return Err(Refusal::BadCount);
    }
    if jumps > 0 && low / 256 < jumps {
        jumps = jumps.saturating_sub(1);
    }
    Ok(RowLayout {
        num_cols,
        null_mask: mask_start..n,
        var_count,
        data_end: low,
        fixed_start: 1,
        jet3: Some((col_ptr, jumps)),
    })
}

/// Fills `out[0..=var_count]` with the row's variable-column offsets (the
/// last being `eod`), resolving the Jet3 jump table. Offsets are relative to
/// the row start. Refuses when `out` is too short ([`Refusal::BadCount`]) or
/// an offset entry lies outside the row.
#[inline]
pub fn var_offsets(row: &[u8], layout: &RowLayout, out: &mut [u16]) -> Result<usize, Refusal> {
    let entries = layout.var_count.checked_add(1).ok_or(Refusal::BadCount)?;
    if layout.var_count == 0 && layout.data_end == layout.null_mask.start {
        // table without variable columns: no offset table at all
        return Ok(0);
    }
    let dst = out.get_mut(..entries).ok_or(Refusal::BadCount)?;
    match layout.jet3 {
        None => {
            // Jet4: entry i at mask_start - 4 - 2i
            let base = layout
                .null_mask
                .start
                .checked_sub(4)
                .ok_or(Refusal::BadCount)?;
            for (i, slot) in dst.iter_mut().enumerate() {
                let pos = i
                    .checked_mul(2)
                    .and_then(|d| base.checked_sub(d))
                    .ok_or(Refusal::BadCount)?;
                *slot = u16_at(row, pos).ok_or(Refusal::OutOfBounds)?;
            }
        }
        Some((col_ptr, jumps)) => {
            let jump_base = layout
                .null_mask
                .start
                .checked_sub(2)
                .ok_or(Refusal::BadCount)?;
            let mut used = 0usize;
            for (i, slot) in dst.iter_mut().enumerate() {
                while used < jumps {
                    let jp = jump_base.checked_sub(used).ok_or(Refusal::BadCount)?;
                    let j = usize::from(u8_at(row, jp).ok_or(Refusal::OutOfBounds)?);
                    if j != i {
                        break;
                    }
                    used = used.saturating_add(1);
                }
                let pos = col_ptr.checked_sub(i).ok_or(Refusal::BadCount)?;
                let low = u16::from(u8_at(row, pos).ok_or(Refusal::OutOfBounds)?);
                let hi = u16::try_from(used.checked_mul(256).ok_or(Refusal::BadCount)?)
                    .map_err(|_| Refusal::BadCount)?;
                *slot = low.checked_add(hi).ok_or(Refusal::BadCount)?;
            }
        }
    }
    Ok(entries)
}

/// Byte interval of variable column `v` given the offsets from
/// [`var_offsets`]: `offsets[v] .. offsets[v + 1]`.
///
/// Refuses an index past the stored count ([`Refusal::BadCount`]), a
/// decreasing pair ([`Refusal::Disorder`]) and an interval reaching into the
/// offset table or before the fixed area ([`Refusal::OutOfBounds`]).
#[inline]
pub fn var_interval(
    offsets: &[u16],
    layout: &RowLayout,
    v: usize,
) -> Result<Range<usize>, Refusal> {
    if v >= layout.var_count {
        return Err(Refusal::BadCount);
    }
    let s = usize::from(*offsets.get(v).ok_or(Refusal::BadCount)?);
    let e = usize::from(
        *offsets
            .get(v.checked_add(1).ok_or(Refusal::BadCount)?)
            .ok_or(Refusal::BadCount)?,
    );
    if e < s {
        return Err(Refusal::Disorder);
    }
    if s < layout.fixed_start || e > layout.data_end {
        return Err(Refusal::OutOfBounds);
    }
    Ok(s..e)
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// Builds a Jet3 row the way Access writes it, from fixed bytes and
    /// variable values; returns the row and the true value intervals.
    fn build_jet3(num_cols: u8, fixed: &[u8], vars: &[Vec<u8>]) -> (Vec<u8>, Vec<(usize, usize)>) {
        let mut data = std::vec![num_cols];
        data.extend_from_slice(fixed);
        let mut offs = Vec::new();
        let mut iv = Vec::new();
        for v in vars {
            let s = data.len();
            data.extend_from_slice(v);
            offs.push(s);
            iv.push((s, data.len()));
        }
        let eod = data.len();
        offs.push(eod);
        let mask = (num_cols as usize).div_ceil(8);
        // total length: data + offsets(var+1) + jumps + 1 (count) + mask
        let base = data.len() + offs.len() + 1 + mask;
        let mut jumps_n = 0;
        loop {
            let total = base + jumps_n;
            let need = (total - 1) / 256;
            if need == jumps_n {
                break;
            }
            jumps_n = need;
        }
        let total = base + jumps_n;
        // real jumps: for each 256 boundary k (1..), first entry index whose offset >= 256k
        let mut jumps = Vec::new();
        for k in 1..=jumps_n {
            let first = offs.iter().position(|&o| o >= 256 * k);
            jumps.push(first.map(|p| p as u8).unwrap_or(0xff));
        }
        let mut row = data.clone();
        for o in offs.iter().rev() {
            row.push((*o % 256) as u8);
        }
        for j in jumps.iter().rev() {
            row.push(*j);
        }
        row.push(vars.len() as u8);
        row.extend(std::iter::repeat_n(0xffu8, mask));
        assert_eq!(row.len(), total);
        (row, iv)
    }

    fn build_jet4(num_cols: u16, fixed: &[u8], vars: &[Vec<u8>]) -> (Vec<u8>, Vec<(usize, usize)>) {
        let mut row = num_cols.to_le_bytes().to_vec();
        row.extend_from_slice(fixed);
        let mut offs = Vec::new();
        let mut iv = Vec::new();
        for v in vars {
            let s = row.len();
            row.extend_from_slice(v);
            offs.push(s as u16);
            iv.push((s, row.len()));
        }
        offs.push(row.len() as u16);
        for o in offs.iter().rev() {
            row.extend_from_slice(&o.to_le_bytes());
        }
        row.extend_from_slice(&(vars.len() as u16).to_le_bytes());
        let mask = (num_cols as usize).div_ceil(8);
        row.extend(std::iter::repeat_n(0xffu8, mask));
        (row, iv)
    }

    fn check(row: &[u8], layout: &RowLayout, iv: &[(usize, usize)]) {
        assert_eq!(layout.var_count, iv.len());
        let mut offs = [0u16; 300];
        var_offsets(row, layout, &mut offs).unwrap();
        for (v, (s, e)) in iv.iter().enumerate() {
            assert_eq!(var_interval(&offs, layout, v), Ok(*s..*e), "var {v}");
        }
        assert_eq!(
            var_interval(&offs, layout, iv.len()),
            Err(Refusal::BadCount)
        );
    }

    #[test]
    fn jet3_jump_table_lengths() {
        // every total variable length crossing several 256 boundaries
        for len_a in (0..700).step_by(7) {
            for len_b in [0usize, 1, 200, 255, 256, 300] {
                let vars = std::vec![
                    std::vec![1u8; len_a],
                    std::vec![2u8; len_b],
                    std::vec![3u8; 5]
                ];
                let (row, iv) = build_jet3(6, &[9, 9, 9], &vars);
                let l = jet3_layout(&row, true).unwrap();
                check(&row, &l, &iv);
            }
        }
    }

    #[test]
    fn jet4_roundtrip() {
        for len_a in (0..3000).step_by(97) {
            let vars = std::vec![std::vec![1u8; len_a], Vec::new(), std::vec![3u8; 5]];
            let (row, iv) = build_jet4(9, &[1, 2, 3, 4], &vars);
            let l = jet4_layout(&row, true).unwrap();
            check(&row, &l, &iv);
            for bit in 0..20 {
                assert_eq!(null_mask_bit(&row, &l, bit), bit < 16);
            }
        }
    }

    proptest! {
        #[test]
        fn jet3_matches_builder(lens in proptest::collection::vec(0usize..400, 0..8), fixed in 0usize..20, nc in 0u8..40) {
            let vars: Vec<Vec<u8>> = lens.iter().map(|&l| std::vec![7u8; l]).collect();
            let (row, iv) = build_jet3(nc, &std::vec![0u8; fixed], &vars);
            if row.len() <= 2048 {
                let l = jet3_layout(&row, true).unwrap();
                check(&row, &l, &iv);
            }
        }

        #[test]
        fn jet4_matches_builder(lens in proptest::collection::vec(0usize..600, 0..8), fixed in 0usize..20, nc in 0u16..300) {
            let vars: Vec<Vec<u8>> = lens.iter().map(|&l| std::vec![7u8; l]).collect();
            let (row, iv) = build_jet4(nc, &std::vec![0u8; fixed], &vars);
            let l = jet4_layout(&row, true).unwrap();
            check(&row, &l, &iv);
        }

        /// Garbage never panics and every admitted interval lies in the row.
        #[test]
        fn garbage_is_total(row in proptest::collection::vec(any::<u8>(), 0..600), jet3 in any::<bool>(), var in any::<bool>()) {
            let l = if jet3 { jet3_layout(&row, var) } else { jet4_layout(&row, var) };
            if let Ok(l) = l {
                prop_assert!(l.null_mask.end == row.len());
                prop_assert!(l.data_end <= l.null_mask.start);
                let mut offs = [0u16; 70000];
                if var_offsets(&row, &l, &mut offs).is_ok() {
                    for v in 0..l.var_count {
                        if let Ok(r) = var_interval(&offs, &l, v) {
                            prop_assert!(r.end <= row.len() && r.start <= r.end);
                        }
                    }
                }
                for b in 0..l.num_cols + 9 { let _ = null_mask_bit(&row, &l, b); }
            }
        }
    }
}
