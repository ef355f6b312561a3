//! Byte-range admission and exact-read cursor progress.

use core::ops::Range;

/// Admits the range `offset .. offset + len` inside a buffer of `limit` bytes.
///
/// Returns `Some(offset..offset + len)` exactly when `offset + len` does not
/// overflow and is `<= limit`; `None` otherwise. A zero-length range at
/// `offset == limit` is admitted.
#[must_use]
#[inline]
pub fn admit(offset: usize, len: usize, limit: usize) -> Option<Range<usize>> {
    let end = offset.checked_add(len)?;
    if end <= limit {
        Some(offset..end)
    } else {
        None
    }
}

/// Admits the half-open interval `start .. end` inside `limit` bytes.
///
/// Returns it when `start <= end <= limit`, `None` otherwise.
#[must_use]
#[inline]
pub fn admit_interval(start: usize, end: usize, limit: usize) -> Option<Range<usize>> {
    if start <= end && end <= limit {
        Some(start..end)
    } else {
        None
    }
}

/// Borrows `len` bytes at `offset` of `buf`, or `None` if they are not all
/// inside it. The total, panic-free form of `&buf[offset..offset + len]`.
#[must_use]
#[inline]
pub fn slice(buf: &[u8], offset: usize, len: usize) -> Option<&[u8]> {
    let r = admit(offset, len, buf.len())?;
    buf.get(r)
}

/// Progress of an exact read: after `done` of `wanted` bytes, a read returned
/// `got` more.
///
/// Returns the new `done` when the read made progress and did not overshoot
/// (`0 < got` and `done + got <= wanted`); `None` when it returned nothing
/// (an unexpected end of file: the caller must stop rather than retry for
/// ever) or more than was asked.
#[must_use]
pub fn exact_read_progress(done: usize, got: usize, wanted: usize) -> Option<usize> {
    if got == 0 {
        return None;
    }
    let next = done.checked_add(got)?;
    if next <= wanted { Some(next) } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn oracle_admit(offset: usize, len: usize, limit: usize) -> Option<Range<usize>> {
        // Naive: compute in u128, which cannot overflow for usize inputs.
        let end = offset as u128 + len as u128;
        if end <= limit as u128 {
            Some(offset..(end as usize))
        } else {
            None
        }
    }

    #[test]
    fn admit_exhaustive_small() {
        for offset in 0..40usize {
            for len in 0..40usize {
                for limit in 0..40usize {
                    assert_eq!(admit(offset, len, limit), oracle_admit(offset, len, limit));
                    let buf = [0u8; 40];
                    let b = buf.get(..limit).unwrap_or(&[]);
                    assert_eq!(
                        slice(b, offset, len).map(|s| s.len()),
                        oracle_admit(offset, len, limit).map(|r| r.len())
                    );
                }
            }
        }
    }

    #[test]
    fn admit_overflow_edges() {
        assert_eq!(admit(usize::MAX, 1, usize::MAX), None);
        assert_eq!(
            admit(usize::MAX, 0, usize::MAX),
            Some(usize::MAX..usize::MAX)
        );
        assert_eq!(admit(1, usize::MAX, usize::MAX), None);
    }

    #[test]
    fn interval_exhaustive_small() {
        for s in 0..20usize {
            for e in 0..20usize {
                for l in 0..20usize {
                    let want = if s <= e && e <= l { Some(s..e) } else { None };
                    assert_eq!(admit_interval(s, e, l), want);
                }
            }
        }
    }

    #[test]
    fn progress_exhaustive_small() {
        for done in 0..20usize {
            for got in 0..20usize {
                for wanted in 0..20usize {
                    let want = if got > 0 && done + got <= wanted {
                        Some(done + got)
                    } else {
                        None
                    };
                    assert_eq!(exact_read_progress(done, got, wanted), want);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn admit_matches_oracle(o in any::<usize>(), l in any::<usize>(), lim in any::<usize>()) {
            prop_assert_eq!(admit(o, l, lim), oracle_admit(o, l, lim));
        }

        #[test]
        fn progress_matches_oracle(d in any::<usize>(), g in any::<usize>(), w in any::<usize>()) {
            let want = if g > 0 && (d as u128 + g as u128) <= w as u128 { Some(d + g) } else { None };
            prop_assert_eq!(exact_read_progress(d, g, w), want);
        }
    }
}
