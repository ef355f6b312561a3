//! Little-endian field reads that cannot read out of bounds.

use crate::range::slice;

/// Reads a `u8` at `offset`, or `None` past the end of `buf`.
#[must_use]
#[inline]
pub fn u8_at(buf: &[u8], offset: usize) -> Option<u8> {
    buf.get(offset).copied()
}

/// Reads a little-endian `u16` at `offset`, or `None` if any byte is past the end.
#[must_use]
#[inline]
pub fn u16_at(buf: &[u8], offset: usize) -> Option<u16> {
    let s = slice(buf, offset, 2)?;
    let a: [u8; 2] = s.try_into().ok()?;
    Some(u16::from_le_bytes(a))
}

/// Reads a little-endian 24-bit unsigned integer at `offset`.
#[must_use]
#[inline]
pub fn u24_at(buf: &[u8], offset: usize) -> Option<u32> {
    let s = slice(buf, offset, 3)?;
    let (a, b, c) = (s.first()?, s.get(1)?, s.get(2)?);
    Some(u32::from_le_bytes([*a, *b, *c, 0]))
}

/// Reads a little-endian `u32` at `offset`, or `None` if any byte is past the end.
#[must_use]
#[inline]
pub fn u32_at(buf: &[u8], offset: usize) -> Option<u32> {
    let s = slice(buf, offset, 4)?;
    let a: [u8; 4] = s.try_into().ok()?;
    Some(u32::from_le_bytes(a))
}

/// Reads a little-endian `u64` at `offset`, or `None` if any byte is past the end.
#[must_use]
#[inline]
pub fn u64_at(buf: &[u8], offset: usize) -> Option<u64> {
    let s = slice(buf, offset, 8)?;
    let a: [u8; 8] = s.try_into().ok()?;
    Some(u64::from_le_bytes(a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn reads_match_naive(buf in proptest::collection::vec(any::<u8>(), 0..16), off in 0usize..20) {
            let n = buf.len();
            let naive = |w: usize| -> Option<u64> {
                if off + w > n { return None; }
                let mut v = 0u64;
                for i in (0..w).rev() { v = (v << 8) | buf[off + i] as u64; }
                Some(v)
            };
            prop_assert_eq!(u8_at(&buf, off).map(u64::from), naive(1));
            prop_assert_eq!(u16_at(&buf, off).map(u64::from), naive(2));
            prop_assert_eq!(u24_at(&buf, off).map(u64::from), naive(3));
            prop_assert_eq!(u32_at(&buf, off).map(u64::from), naive(4));
            prop_assert_eq!(u64_at(&buf, off), naive(8));
        }
    }
}
