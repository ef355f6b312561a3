//! Seek-bound widening and order admission.
//!
//! A literal compared with a column is converted to the column's stored
//! type before an index seek. The conversion may be inexact, so the seek
//! range may only *grow* (the scan re-checks every row): a bound is widened
//! outward to the nearest representable values on either side, never moved
//! inward. NaN has no place in a range and is refused.

/// The narrowest `f32` interval `[lo, hi]` containing `v`: `lo == hi == v`
/// when `v` is exactly an `f32`. Zero widens to `[-0.0, +0.0]` (the two
/// zeros are distinct index keys but equal values). `None` for NaN.
#[must_use]
pub fn widen_to_f32(v: f64) -> Option<(f32, f32)> {
    if v.is_nan() {
        return None;
    }
    if v == 0.0 {
        return Some((-0.0, 0.0));
    }
    #[allow(clippy::as_conversions)] // f64 -> f32 rounds to nearest; corrected below
    let r = v as f32;
    let back = f64::from(r);
    if back == v {
        return Some((r, r));
    }
    if back < v {
        Some((r, next_up_f32(r)))
    } else {
        Some((next_down_f32(r), r))
    }
}

/// The `f64` interval for an `f64` literal: itself, with zero widened to
/// both signs. `None` for NaN.
#[must_use]
pub fn widen_f64(v: f64) -> Option<(f64, f64)> {
    if v.is_nan() {
        None
    } else if v == 0.0 {
        Some((-0.0, 0.0))
    } else {
        Some((v, v))
    }
}

fn next_up_f32(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 {
        b.saturating_add(1)
    } else {
        b.saturating_sub(1)
    })
}

fn next_down_f32(x: f32) -> f32 {
    -next_up_f32(-x)
}

/// Converts `value` at scale `from` to the integer interval at scale `to`
/// that contains it: exact when no digits are dropped, otherwise floor and
/// ceiling. `None` on overflow.
#[must_use]
pub fn widen_scale(value: i128, from: u8, to: u8) -> Option<(i128, i128)> {
    if to >= from {
        let f = 10i128.checked_pow(u32::from(to.checked_sub(from)?))?;
        let v = value.checked_mul(f)?;
        return Some((v, v));
    }
    let f = 10i128.checked_pow(u32::from(from.checked_sub(to)?))?;
    let q = value.checked_div(f)?;
    let r = value.checked_rem(f)?;
    if r == 0 {
        Some((q, q))
    } else if value > 0 {
        Some((q, q.checked_add(1)?))
    } else {
        Some((q.checked_sub(1)?, q))
    }
}

/// How an index's key order relates to the Arrow order of its column's
/// values (ascending key column, nulls aside).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderAdmission {
    /// Key order is the Arrow order: an index walk may declare it.
    Preserved,
    /// Key order is the reverse of Arrow order (Boolean: true sorts first).
    Reversed,
    /// No relation that can be declared (text collations, GUIDs, binary
    /// segments, ...).
    None,
}

/// Kinds of key column for [`order_admission`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// Byte, Integer, Long, BigInt.
    Integer,
    /// Currency (scaled integer).
    Currency,
    /// Single, Double.
    Float,
    /// Date/Time (days as a double).
    DateTime,
    /// Yes/No.
    Boolean,
    /// Text, Memo.
    Text,
    /// GUID, Binary, Numeric, Extended Date/Time and others.
    Other,
}

/// Whether an index over a column of `kind` orders rows as Arrow orders
/// their values. Floats: the key order of -0.0 < +0.0 and of NaN last
/// matches Arrow's total order. Date/Time: microsecond timestamps are a
/// monotonic function of the stored days on and after 1899-12-30; before
/// it Access stores the time of day as a positive fraction below a negative
/// day, so a caller must not declare the order for columns holding such
/// dates.
#[must_use]
pub fn order_admission(kind: KeyKind) -> OrderAdmission {
    match kind {
        KeyKind::Integer | KeyKind::Currency | KeyKind::Float | KeyKind::DateTime => {
            OrderAdmission::Preserved
        }
        KeyKind::Boolean => OrderAdmission::Reversed,
        KeyKind::Text | KeyKind::Other => OrderAdmission::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn f32_widening_contains_and_is_tight(v in any::<f64>()) {
            match widen_to_f32(v) {
                None => prop_assert!(v.is_nan()),
                Some((lo, hi)) => {
                    prop_assert!(f64::from(lo) <= v && v <= f64::from(hi));
                    // tight: nothing representable strictly inside except v itself
                    prop_assert!(lo == hi || next_up_f32(lo) == hi || (lo == 0.0 && hi == 0.0));
                }
            }
        }

        #[test]
        fn scale_widening_contains(v in any::<i64>(), from in 0u8..12, to in 0u8..12) {
            let v = i128::from(v);
            let (lo, hi) = widen_scale(v, from, to).unwrap();
            // oracle in exact rational arithmetic: lo * 10^from <= v * 10^to <= hi * 10^from
            let p = |e: u8| 10i128.pow(u32::from(e));
            prop_assert!(lo * p(from) <= v * p(to) && v * p(to) <= hi * p(from));
            prop_assert!(hi - lo <= 1);
        }
    }

    #[test]
    fn zeros_and_nan() {
        assert_eq!(widen_to_f32(0.0), Some((-0.0, 0.0)));
        assert_eq!(widen_f64(-0.0), Some((-0.0, 0.0)));
        assert_eq!(widen_f64(f64::NAN), None);
        assert_eq!(widen_to_f32(0.1).map(|(a, b)| a < b), Some(true));
        assert_eq!(widen_to_f32(0.5), Some((0.5, 0.5)));
        assert_eq!(widen_scale(12345, 3, 1), Some((123, 124)));
        assert_eq!(widen_scale(-12345, 3, 1), Some((-124, -123)));
        assert_eq!(order_admission(KeyKind::Boolean), OrderAdmission::Reversed);
    }
}
