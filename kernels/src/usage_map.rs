//! Usage maps: which pages a table (or index, or the database) owns.
//!
//! An *inline* map (type 0) stores a start page and a bitmap: bit `i` set
//! means page `start + i` is a member. A *reference* map (type 1) stores
//! pointers to usage-map pages (page type 0x05), each a bitmap after a 4-byte
//! header; bit `i` of the `k`-th map page stands for page
//! `k * bits_per_map_page + i`. Bits are numbered from the low bit of the
//! first byte.

use crate::bytes::u8_at;

/// Whether bit `index` of `bitmap` is set. Bits past the end read as unset.
#[must_use]
pub fn test_bit(bitmap: &[u8], index: usize) -> bool {
    match u8_at(bitmap, index / 8) {
        Some(b) => (b >> (index % 8)) & 1 == 1,
        None => false,
    }
}

/// Sets or clears bit `index` of `bitmap`. Returns `false` (and changes
/// nothing) when the bit lies past the end.
pub fn set_bit(bitmap: &mut [u8], index: usize, value: bool) -> bool {
    let Some(b) = bitmap.get_mut(index / 8) else {
        return false;
    };
    let m = 1u8 << (index % 8);
    if value {
        *b |= m
    } else {
        *b &= !m
    }
    true
}

/// The index of the first set bit at or after `from`, or `None`. Member
/// enumeration: repeated calls with `from = last + 1` visit every set bit
/// once, in increasing order, and stop at the end of the bitmap.
#[must_use]
pub fn next_set_bit(bitmap: &[u8], from: usize) -> Option<usize> {
    let mut byte_i = from / 8;
    let mut first = true;
    while let Some(&b) = bitmap.get(byte_i) {
        let masked = if first { b & (0xFFu8 << (from % 8)) } else { b };
        first = false;
        if masked != 0 {
            let bit = usize::try_from(masked.trailing_zeros()).ok()?;
            return byte_i.checked_mul(8)?.checked_add(bit);
        }
        byte_i = byte_i.checked_add(1)?;
    }
    None
}

/// Page named by bit `bit` of an inline map starting at `start`; `None` on
/// overflow of the 32-bit page space.
#[must_use]
pub fn inline_page(start: u32, bit: usize) -> Option<u32> {
    start.checked_add(u32::try_from(bit).ok()?)
}

/// Bit of an inline map starting at `start` that stands for `page`, or
/// `None` when the page lies before the start or past `bitmap_len` bytes.
#[must_use]
pub fn inline_bit(start: u32, page: u32, bitmap_len: usize) -> Option<usize> {
    let bit = usize::try_from(page.checked_sub(start)?).ok()?;
    if bit < bitmap_len.checked_mul(8)? {
        Some(bit)
    } else {
        None
    }
}

/// Number of pages one usage-map page (type 0x05) of `page_size` bytes
/// covers: `(page_size - 4) * 8`. `None` for pages too small to hold one.
#[must_use]
pub fn bits_per_map_page(page_size: usize) -> Option<usize> {
    page_size.checked_sub(4)?.checked_mul(8).filter(|&b| b > 0)
}

/// Page named by bit `bit` of the `map_index`-th page of a reference map.
#[must_use]
pub fn reference_page(map_index: usize, bit: usize, page_size: usize) -> Option<u32> {
    let per = bits_per_map_page(page_size)?;
    if bit >= per {
        return None;
    }
    u32::try_from(map_index.checked_mul(per)?.checked_add(bit)?).ok()
}

/// `(map_index, bit)` of a reference map that stands for `page`.
#[must_use]
pub fn reference_position(page: u32, page_size: usize) -> Option<(usize, usize)> {
    let per = bits_per_map_page(page_size)?;
    let p = usize::try_from(page).ok()?;
    Some((p.checked_div(per)?, p.checked_rem(per)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn oracle_members(bitmap: &[u8]) -> Vec<usize> {
        let mut v = Vec::new();
        for i in 0..bitmap.len() * 8 {
            if bitmap[i / 8] & (1 << (i % 8)) != 0 {
                v.push(i);
            }
        }
        v
    }

    fn members(bitmap: &[u8]) -> Vec<usize> {
        let mut v = Vec::new();
        let mut from = 0;
        while let Some(b) = next_set_bit(bitmap, from) {
            v.push(b);
            from = b + 1;
        }
        v
    }

    #[test]
    fn enumeration_exhaustive_two_bytes() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let m = [a, b];
                assert_eq!(members(&m), oracle_members(&m));
                for i in 0..20 {
                    assert_eq!(test_bit(&m, i), oracle_members(&m).contains(&i));
                }
            }
        }
    }

    #[test]
    fn set_bit_exhaustive() {
        for i in 0..24 {
            let mut m = [0u8; 2];
            assert_eq!(set_bit(&mut m, i, true), i < 16);
            assert_eq!(
                oracle_members(&m),
                if i < 16 { std::vec![i] } else { Vec::new() }
            );
            set_bit(&mut m, i, false);
            assert_eq!(m, [0, 0]);
        }
    }

    #[test]
    fn positions_roundtrip_small() {
        for page in 0..100_000u32 {
            let (k, b) = reference_position(page, 4096).unwrap();
            assert_eq!(reference_page(k, b, 4096), Some(page));
            let (k, b) = reference_position(page, 2048).unwrap();
            assert_eq!(reference_page(k, b, 2048), Some(page));
        }
        assert_eq!(bits_per_map_page(4), None);
        assert_eq!(reference_page(0, 32736, 4096), None);
    }

    proptest! {
        #[test]
        fn members_match_oracle(m in proptest::collection::vec(any::<u8>(), 0..80)) {
            prop_assert_eq!(members(&m), oracle_members(&m));
        }

        #[test]
        fn next_from_any(m in proptest::collection::vec(any::<u8>(), 0..40), from in 0usize..400) {
            let want = oracle_members(&m).into_iter().find(|&b| b >= from);
            prop_assert_eq!(next_set_bit(&m, from), want);
        }

        #[test]
        fn inline_roundtrip(start in any::<u32>(), page in any::<u32>(), len in 0usize..200) {
            let want = if page >= start && ((page - start) as u64) < len as u64 * 8 { Some((page - start) as usize) } else { None };
            prop_assert_eq!(inline_bit(start, page, len), want);
            if let Some(b) = want { prop_assert_eq!(inline_page(start, b), Some(page)); }
        }
    }
}
