//! Index pages: the entry-boundary bitmap and entry ordering.
//!
//! An index page stores its entries back to back after a bitmap; bit `p`
//! (low bit of the first byte first) set means an entry *ends* at byte `p`
//! of the entry area, the first entry starting at 0. Entries are ordered by
//! their key bytes (lexicographically), then by the bookmark (page, row).

use crate::Refusal;
use crate::usage_map::next_set_bit;
use core::cmp::Ordering;

/// The end of the entry that starts at `start` in an entry area of
/// `area_len` bytes: the next set bit after `start`.
///
/// `Ok(None)` when no bit follows (there are no more entries). Refuses
/// ([`Refusal::OutOfBounds`]) an end past the entry area: an entry crossing
/// the page end. The returned end is always `> start`, so walking entries
/// by feeding each end back as the next start makes strict progress.
pub fn entry_end(mask: &[u8], area_len: usize, start: usize) -> Result<Option<usize>, Refusal> {
    let Some(from) = start.checked_add(1) else {
        return Ok(None);
    };
    match next_set_bit(mask, from) {
        None => Ok(None),
        Some(end) if end <= area_len => Ok(Some(end)),
        Some(_) => Err(Refusal::OutOfBounds),
    }
}

/// Admits the shared-prefix length of a page against its first entry: the
/// prefix is taken from the first entry, so it may not be longer than it.
pub fn admit_prefix(prefix_len: usize, first_entry_len: usize) -> Result<usize, Refusal> {
    if prefix_len <= first_entry_len {
        Ok(prefix_len)
    } else {
        Err(Refusal::BadCount)
    }
}

/// Orders two index entries: key bytes lexicographically, then page, then row.
#[must_use]
pub fn compare_entries(
    a_key: &[u8],
    a_page: u32,
    a_row: u8,
    b_key: &[u8],
    b_page: u32,
    b_row: u8,
) -> Ordering {
    a_key
        .cmp(b_key)
        .then(a_page.cmp(&b_page))
        .then(a_row.cmp(&b_row))
}

/// Compares an entry key with a (possibly shorter) bound over a key prefix:
/// only the first `bound.len()` bytes of the key take part, so every key
/// that starts with `bound` compares `Equal`.
#[must_use]
pub fn compare_prefix(key: &[u8], bound: &[u8]) -> Ordering {
    let n = bound.len().min(key.len());
    match key.get(..n) {
        Some(head) => head.cmp(bound),
        None => Ordering::Less,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;
    use std::vec::Vec;

    fn oracle_entries(mask: &[u8], area: usize) -> Result<Vec<(usize, usize)>, Refusal> {
        let mut out = Vec::new();
        let mut start = 0;
        for p in 0..mask.len() * 8 {
            if mask[p / 8] >> (p % 8) & 1 == 1 && p > 0 {
                if p > area {
                    return Err(Refusal::OutOfBounds);
                }
                out.push((start, p));
                start = p;
            }
        }
        Ok(out)
    }

    fn walk(mask: &[u8], area: usize) -> Result<Vec<(usize, usize)>, Refusal> {
        let mut out = Vec::new();
        let mut start = 0;
        while let Some(end) = entry_end(mask, area, start)? {
            out.push((start, end));
            start = end;
        }
        Ok(out)
    }

    #[test]
    fn entries_exhaustive_two_bytes() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for area in [0usize, 5, 9, 16, 20] {
                    assert_eq!(
                        walk(&[a, b], area),
                        oracle_entries(&[a, b], area),
                        "{a:#x} {b:#x} {area}"
                    );
                }
            }
        }
    }

    #[test]
    fn prefix_compare() {
        assert_eq!(compare_prefix(b"abc", b"ab"), Ordering::Equal);
        assert_eq!(compare_prefix(b"abc", b"ac"), Ordering::Less);
        assert_eq!(compare_prefix(b"a", b"ab"), Ordering::Less);
        assert_eq!(compare_prefix(b"b", b"ab"), Ordering::Greater);
        assert_eq!(admit_prefix(5, 4), Err(Refusal::BadCount));
    }

    proptest! {
        #[test]
        fn entries_match_oracle(mask in proptest::collection::vec(any::<u8>(), 0..60), area in 0usize..500) {
            prop_assert_eq!(walk(&mask, area), oracle_entries(&mask, area));
        }

        #[test]
        fn compare_is_a_total_order(a in proptest::collection::vec(any::<u8>(), 0..6), b in proptest::collection::vec(any::<u8>(), 0..6), pa in 0u32..3, pb in 0u32..3, ra in 0u8..3, rb in 0u8..3) {
            let ab = compare_entries(&a, pa, ra, &b, pb, rb);
            let ba = compare_entries(&b, pb, rb, &a, pa, ra);
            prop_assert_eq!(ab, ba.reverse());
            // naive: tuple order
            let naive = (a.clone(), pa, ra).cmp(&(b.clone(), pb, rb));
            prop_assert_eq!(ab, naive);
            // prefix comparison equals comparing the truncated key
            let t: Vec<u8> = a.iter().copied().take(b.len()).collect();
            prop_assert_eq!(compare_prefix(&a, &b), t.cmp(&b));
        }
    }
}
