//! Index page packing: the decisions the index writer takes before it
//! writes entries onto a page.
//!
//! An index page holds a header, an entry-end bitmap of `mask_len` bytes
//! and then the entry area. The first entry is stored whole; each later
//! entry leaves out the prefix its key shares with every key of the page.
//! These functions decide the shared prefix, each stored entry's length,
//! whether the packed entries fit (the area and the bitmap both bound
//! them) with the free-space value for the header, and where an entry's
//! end bit goes. All are total: a length that would overflow, a prefix
//! longer than a key, or an end the bitmap cannot mark is refused.

use crate::Refusal;

/// Length of the prefix shared by `a` and `b`.
#[must_use]
pub fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Bytes an entry with a key of `key_len` bytes and `pointers_len` bytes of
/// pointers takes on a page whose shared prefix is `prefix` bytes: the first
/// entry (`first`) whole, the others without the prefix. Refuses
/// ([`Refusal::BadCount`]) a prefix longer than the key and
/// ([`Refusal::OutOfBounds`]) an overflowing length.
pub fn stored_entry_len(
    key_len: usize,
    pointers_len: usize,
    prefix: usize,
    first: bool,
) -> Result<usize, Refusal> {
    let key = if first {
        key_len
    } else {
        key_len.checked_sub(prefix).ok_or(Refusal::BadCount)?
    };
    key.checked_add(pointers_len).ok_or(Refusal::OutOfBounds)
}

/// Admits packed entries of `used` bytes on a page of `page_size` bytes
/// whose entry area starts at `area_start` and whose bitmap has `mask_len`
/// bytes: they must fit the area, and the last entry's end (`used`) must be
/// a bit the bitmap has. Returns the free-space value of the header (bytes
/// after the last entry), refusing ([`Refusal::OutOfBounds`]) otherwise
/// or when the free space does not fit its 16-bit field.
pub fn admit_entry_area(
    page_size: usize,
    area_start: usize,
    mask_len: usize,
    used: usize,
) -> Result<u16, Refusal> {
    let area = page_size
        .checked_sub(area_start)
        .ok_or(Refusal::OutOfBounds)?;
    let bits = mask_len.checked_mul(8).ok_or(Refusal::OutOfBounds)?;
    if used >= bits {
        return Err(Refusal::OutOfBounds);
    }
    let free = area.checked_sub(used).ok_or(Refusal::OutOfBounds)?;
    u16::try_from(free).map_err(|_| Refusal::OutOfBounds)
}

/// The largest `used` that [`admit_entry_area`] admits (when the free space
/// it leaves fits 16 bits, as it does on every Jet page size).
#[must_use]
pub fn max_entry_area(page_size: usize, area_start: usize, mask_len: usize) -> usize {
    let area = page_size.saturating_sub(area_start);
    let last_bit = mask_len.saturating_mul(8).saturating_sub(1);
    area.min(last_bit)
}

/// The bitmap byte and bit marking an entry that ends at byte `end` of the
/// entry area, in a bitmap of `mask_len` bytes. Refuses
/// ([`Refusal::OutOfBounds`]) an end the bitmap cannot mark and
/// ([`Refusal::EmptyRow`]) an end at 0 (no entry is empty).
pub fn mask_position(mask_len: usize, end: usize) -> Result<(usize, u8), Refusal> {
    if end == 0 {
        return Err(Refusal::EmptyRow);
    }
    let byte = end / 8;
    if byte >= mask_len {
        return Err(Refusal::OutOfBounds);
    }
    let bit = u8::try_from(end % 8).map_err(|_| Refusal::OutOfBounds)?;
    Ok((byte, 1u8 << bit))
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use proptest::prelude::*;

    fn naive_prefix(a: &[u8], b: &[u8]) -> usize {
        let mut n = 0;
        while n < a.len() && n < b.len() && a[n] == b[n] {
            n += 1;
        }
        n
    }

    #[test]
    fn area_exhaustive_small() {
        for page in 0..40usize {
            for start in 0..12usize {
                for mask in 0..5usize {
                    for used in 0..45usize {
                        let want = if start <= page && used <= page - start && used < mask * 8 {
                            Ok((page - start - used) as u16)
                        } else {
                            Err(Refusal::OutOfBounds)
                        };
                        assert_eq!(admit_entry_area(page, start, mask, used), want);
                        let max = max_entry_area(page, start, mask);
                        if mask > 0 && start <= page {
                            assert!(admit_entry_area(page, start, mask, max).is_ok());
                            assert!(admit_entry_area(page, start, mask, max + 1).is_err());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn mask_positions_exhaustive_small() {
        for mask in 0..6usize {
            for end in 0..60usize {
                let got = mask_position(mask, end);
                if end == 0 {
                    assert_eq!(got, Err(Refusal::EmptyRow));
                } else if end < mask * 8 {
                    let (byte, bit) = got.unwrap();
                    assert_eq!(byte * 8 + bit.trailing_zeros() as usize, end);
                } else {
                    assert_eq!(got, Err(Refusal::OutOfBounds));
                }
            }
        }
    }

    #[test]
    fn stored_lengths() {
        assert_eq!(stored_entry_len(5, 4, 3, false), Ok(6));
        assert_eq!(stored_entry_len(5, 4, 3, true), Ok(9));
        assert_eq!(stored_entry_len(2, 4, 3, false), Err(Refusal::BadCount));
        assert_eq!(
            stored_entry_len(usize::MAX, 8, 0, true),
            Err(Refusal::OutOfBounds)
        );
    }

    proptest! {
        #[test]
        fn prefix_matches_oracle(a in proptest::collection::vec(0u8..3, 0..12), b in proptest::collection::vec(0u8..3, 0..12)) {
            let n = common_prefix_len(&a, &b);
            prop_assert_eq!(n, naive_prefix(&a, &b));
            prop_assert!(a.starts_with(&b[..n]) && b.starts_with(&a[..n]));
        }

        #[test]
        fn area_matches_oracle(page in 0usize..70000, start in 0usize..600, mask in 0usize..600, used in 0usize..70000) {
            let want = if start <= page && used <= page - start && used < mask * 8 {
                u16::try_from(page - start - used).map_err(|_| Refusal::OutOfBounds)
            } else {
                Err(Refusal::OutOfBounds)
            };
            prop_assert_eq!(admit_entry_area(page, start, mask, used), want);
        }
    }
}
