//! Seek bounds: where a literal falls among the values a column can store,
//! and the encoded key range over an index's first column for a value
//! range.
//!
//! A literal may lie outside the column type's range (`Long < 3000000000`),
//! carry digits the column cannot hold (`Long > 10300.5`, Currency against
//! a decimal of scale 6) or be of another numeric kind. Each bound is moved
//! to the stored value on its inner side (an integer lower bound rounds up,
//! an upper bound down) or widened outward where the conversion is inexact
//! (floats, dates): the key range always holds every row the comparison
//! admits. A bound beyond every storable value makes its side unbounded or
//! the whole range empty.

use super::{KeyValue, encode_column, seek_fidelity};
use crate::error::KeyError;
use crate::format::types::JetType;
use crate::format::{JetVersion, OwnedField};
use crate::schema::tdef::{Column, Direction};
use std::ops::Bound;

const MICROS_PER_DAY: i64 = 86_400_000_000;
const ACCESS_EPOCH_OFFSET_DAYS: i64 = 25_569;

/// Where one bound of a value range falls among the column's storable
/// values.
enum Place {
    /// Below every storable value.
    Below,
    /// Above every storable value.
    Above,
    /// A stored value such that every value the bound admits lies on the
    /// bound's side of it (at or above it for a lower bound, at or below
    /// for an upper one).
    At(OwnedField),
}

/// `value / 10^from` at scale `to`, rounded up (`up`) or down when digits
/// are dropped; saturating at the `i128` limits (which lie beyond every
/// storable value).
fn rescale(value: i128, from: u8, to: u8, up: bool) -> i128 {
    let saturated = || match value.signum() {
        1 => i128::MAX,
        -1 => i128::MIN,
        _ => 0,
    };
    if to >= from {
        return 10i128
            .checked_pow(u32::from(to - from))
            .and_then(|f| value.checked_mul(f))
            .unwrap_or_else(saturated);
    }
    let Some(f) = 10i128.checked_pow(u32::from(from - to)) else {
        // |value| < 10^39 <= the divisor: the quotient is 0 or -1
        return match (value.signum(), up) {
            (0, _) => 0,
            (1, true) => 1,
            (1, false) | (-1, true) => 0,
            _ => -1,
        };
    };
    let q = value.div_euclid(f);
    if up && value.rem_euclid(f) != 0 {
        q + 1
    } else {
        q
    }
}

/// A literal as an integer count of `10^-scale` units, rounded toward the
/// inside of the bound (up for a lower bound): exact for integers and
/// decimals, `ceil`/`floor` for floats (infinities saturate). `None` for
/// NaN and for kinds that are not numbers.
fn scaled_integer(v: &KeyValue, scale: u8, lower: bool) -> Option<i128> {
    match v {
        KeyValue::Int(i) => Some(rescale(i128::from(*i), 0, scale, lower)),
        KeyValue::Decimal { value, scale: s } => Some(rescale(*value, *s, scale, lower)),
        // a float against a scaled column is compared as a float by SQL
        // (the column is cast), so only integer columns take one
        KeyValue::Float(f) if scale == 0 && !f.is_nan() => {
            let r = if lower { f.ceil() } else { f.floor() };
            // saturating: ±inf and huge values land beyond every domain
            Some(r as i128)
        }
        _ => None,
    }
}

/// The Access day numbers `[lo, hi]` of every stored Date/Time that this
/// reader decodes as `micros` (it rounds to the millisecond), widened
/// outward by one ulp. Handles the pre-1899 convention (negative day, time
/// of day as a positive fraction).
fn access_days_for_micros(micros: i64) -> (f64, f64) {
    let day = micros.div_euclid(MICROS_PER_DAY) + ACCESS_EPOCH_OFFSET_DAYS;
    let tod = micros.rem_euclid(MICROS_PER_DAY) as f64 / MICROS_PER_DAY as f64;
    let half_ms = 0.5 / 86_400_000.0;
    let (a, b) = if day >= 0 {
        (day as f64 + tod - half_ms, day as f64 + tod + half_ms)
    } else {
        (day as f64 - tod - half_ms, day as f64 - tod + half_ms)
    };
    (a.next_down(), b.next_up())
}

/// The place of bound `v` (a `lower` or upper bound) of column `col`.
fn place(col: &Column, v: &KeyValue, lower: bool, version: JetVersion) -> Result<Place, KeyError> {
    use jet_kernels::widen::{widen_f64, widen_to_f32};
    let unsupported = |reason| KeyError::Unsupported {
        column: col.name.clone(),
        jet_type: col.jet_type.name(),
        reason,
    };
    let bytes = |b: Vec<u8>| Place::At(OwnedField::Bytes(b));
    if *v == KeyValue::Null {
        return Ok(Place::At(OwnedField::Null));
    }
    // integer and scaled-integer columns: (scale, min, max, stored form)
    let integer: Option<(u8, i128, i128)> = match col.jet_type {
        JetType::Byte => Some((0, 0, 255)),
        JetType::Integer => Some((0, i16::MIN.into(), i16::MAX.into())),
        JetType::Long | JetType::Complex => Some((0, i32::MIN.into(), i32::MAX.into())),
        JetType::BigInt => Some((0, i64::MIN.into(), i64::MAX.into())),
        JetType::Currency => Some((4, i64::MIN.into(), i64::MAX.into())),
        // the stored magnitude is 128 bits: every i128 has a key
        JetType::Numeric => Some((col.scale, i128::MIN, i128::MAX)),
        _ => None,
    };
    if let Some((scale, min, max)) = integer {
        let x = scaled_integer(v, scale, lower)
            .ok_or_else(|| unsupported("literal of another type"))?;
        if x < min {
            return Ok(Place::Below);
        }
        if x > max {
            return Ok(Place::Above);
        }
        return Ok(bytes(match col.jet_type {
            JetType::Byte => vec![x as u8],
            JetType::Integer => (x as i16).to_le_bytes().to_vec(),
            JetType::Long | JetType::Complex => (x as i32).to_le_bytes().to_vec(),
            JetType::Numeric => numeric_raw(x),
            _ => (x as i64).to_le_bytes().to_vec(),
        }));
    }
    let pick = |(lo, hi): (Vec<u8>, Vec<u8>)| bytes(if lower { lo } else { hi });
    Ok(match (col.jet_type, v) {
        (JetType::Single | JetType::Double, KeyValue::Float(_) | KeyValue::Int(_)) => {
            // an integer literal converts to a float inexactly beyond 2^53:
            // widen by one ulp each side
            let (lo, hi) = match v {
                KeyValue::Float(f) if f.is_nan() => {
                    return Err(unsupported("NaN has no place in a range"));
                }
                KeyValue::Float(f) => (*f, *f),
                KeyValue::Int(i) => {
                    let f = *i as f64;
                    (f.next_down(), f.next_up())
                }
                _ => return Err(unsupported("literal of another type")),
            };
            if col.jet_type == JetType::Single {
                let lo = widen_to_f32(lo).ok_or_else(|| unsupported("NaN"))?.0;
                let hi = widen_to_f32(hi).ok_or_else(|| unsupported("NaN"))?.1;
                pick((lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()))
            } else {
                let lo = widen_f64(lo).ok_or_else(|| unsupported("NaN"))?.0;
                let hi = widen_f64(hi).ok_or_else(|| unsupported("NaN"))?.1;
                pick((lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()))
            }
        }
        (JetType::DateTime, KeyValue::TimestampMicros(m)) => {
            // days as a double: every timestamp has a place, in Access's
            // range or not
            let (lo, hi) = access_days_for_micros(*m);
            pick((lo.to_le_bytes().to_vec(), hi.to_le_bytes().to_vec()))
        }
        (JetType::ExtDateTime, KeyValue::TimestampMicros(m)) => {
            match (ext_datetime_raw(*m, 0), ext_datetime_raw(*m, 9)) {
                (Some(lo), Some(hi)) => pick((lo, hi)),
                _ if *m < 0 => Place::Below,
                _ => Place::Above,
            }
        }
        (JetType::Boolean, KeyValue::Bool(b)) => Place::At(OwnedField::Bool(*b)),
        (JetType::Binary, KeyValue::Bytes(b)) => bytes(b.clone()),
        // a GUID column's Arrow values are strings; one that is no GUID
        // equals no stored value (equality only, checked by the caller)
        (JetType::Guid, KeyValue::Guid(s) | KeyValue::Text(s)) => match parse_guid(s) {
            Some(raw) => bytes(raw.to_vec()),
            None => Place::Above,
        },
        (JetType::Text, KeyValue::Text(t)) => {
            // the stored form of the literal: UTF-16LE (Jet4/ACE) or the
            // code-page bytes (Jet3; characters outside Windows-1252 cannot
            // be stored, so no row can equal the literal)
            if version.is_jet3() {
                let (b, _, bad) = encoding_rs::WINDOWS_1252.encode(t);
                if bad {
                    return Ok(Place::Above);
                }
                bytes(b.into_owned())
            } else {
                bytes(t.encode_utf16().flat_map(|u| u.to_le_bytes()).collect())
            }
        }
        (JetType::Memo, _) => {
            return Err(unsupported(
                "memo keys need the long value, which the row does not hold",
            ));
        }
        _ => return Err(unsupported("literal of another type")),
    })
}

fn numeric_raw(v: i128) -> Vec<u8> {
    let mut out = vec![if v < 0 { 0x80 } else { 0 }];
    let mag = v.unsigned_abs();
    for w in (0..4).rev() {
        let word = (mag >> (32 * w)) as u32;
        out.extend_from_slice(&word.to_le_bytes());
    }
    out
}

fn parse_guid(s: &str) -> Option<[u8; 16]> {
    let hex: String = s.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    if hex.len() != 32
        || s.chars()
            .any(|c| !(c.is_ascii_hexdigit() || "{}-".contains(c)))
    {
        return None;
    }
    let mut d = [0u8; 16];
    for (i, b) in d.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    // display order to stored order: first three groups little-endian
    Some([
        d[3], d[2], d[1], d[0], d[5], d[4], d[7], d[6], d[8], d[9], d[10], d[11], d[12], d[13],
        d[14], d[15],
    ])
}

fn ext_datetime_raw(micros: i64, extra_ticks: i64) -> Option<Vec<u8>> {
    let days = micros.div_euclid(MICROS_PER_DAY) + 719_162;
    let rem = micros.rem_euclid(MICROS_PER_DAY);
    if !(0..=3_652_058).contains(&days) {
        return None;
    }
    let secs = rem / 1_000_000;
    let ticks = (rem % 1_000_000) * 10 + extra_ticks;
    Some(format!("{days:019}:{secs:012}{ticks:07}:7\0").into_bytes())
}

/// Encoded key bounds over the *first* key column of an index (use with
/// [`crate::index::KeyMatch::Prefix`]): every row whose column value lies
/// in the value range `lower ..= upper` (as SQL compares the literal with
/// the column) has a key inside the returned bounds. Bounds are inclusive,
/// moved to the nearest storable value inside the range or widened outward
/// where a conversion is inexact, and NULL sorts as the index stores it, so
/// the caller re-checks the fetched rows. A bound beyond every storable
/// value leaves its side unbounded or the range empty. `Ok(None)` means no
/// row can match. Ranges (anything but `v ..= v`) are refused for columns
/// whose key order is not Arrow's order ([`seek_fidelity`]); NaN and
/// literals of an unrelated kind are refused ([`KeyError::Unsupported`]).
#[allow(clippy::type_complexity)]
pub fn first_column_bounds(
    col: &Column,
    dir: Direction,
    lower: Bound<&KeyValue>,
    upper: Bound<&KeyValue>,
    version: JetVersion,
) -> Result<Option<(Bound<Vec<u8>>, Bound<Vec<u8>>)>, KeyError> {
    let enc = |f: &OwnedField| -> Result<Vec<u8>, KeyError> {
        let mut out = Vec::new();
        encode_column(&mut out, col, dir, f, version)?;
        Ok(out)
    };
    let is_range = !matches!((lower, upper), (Bound::Included(a), Bound::Included(b)) if a == b);
    if is_range && !seek_fidelity(col).order_matches_arrow {
        return Err(KeyError::Unsupported {
            column: col.name.clone(),
            jet_type: col.jet_type.name(),
            reason: "its key order is not the order of its values, so only equality seeks",
        });
    }
    // Before 1899-12-30 Access stores a time of day as a *positive*
    // fraction below a negative day number, so key order is not
    // chronological inside such a day: a range bound there widens to the
    // whole day (the day below for a lower bound, the day itself for an
    // upper one). Equality keeps its exact interval.
    let day_bound = |v: &KeyValue, is_lower: bool| -> Option<OwnedField> {
        match (col.jet_type, v) {
            (JetType::DateTime, KeyValue::TimestampMicros(m)) if is_range => {
                let day = m.div_euclid(MICROS_PER_DAY) + ACCESS_EPOCH_OFFSET_DAYS;
                (day < 0).then(|| {
                    let d = if is_lower {
                        (day - 1) as f64
                    } else {
                        day as f64
                    };
                    OwnedField::Bytes(d.to_le_bytes().to_vec())
                })
            }
            _ => None,
        }
    };
    let lo = match lower {
        Bound::Included(v) | Bound::Excluded(v) => match day_bound(v, true) {
            Some(f) => Bound::Included(enc(&f)?),
            None => match place(col, v, true, version)? {
                Place::Below => Bound::Unbounded,
                Place::Above => return Ok(None),
                Place::At(f) => Bound::Included(enc(&f)?),
            },
        },
        Bound::Unbounded => Bound::Unbounded,
    };
    let hi = match upper {
        Bound::Included(v) | Bound::Excluded(v) => match day_bound(v, false) {
            Some(f) => Bound::Included(enc(&f)?),
            None => match place(col, v, false, version)? {
                Place::Below => return Ok(None),
                Place::Above => Bound::Unbounded,
                Place::At(f) => Bound::Included(enc(&f)?),
            },
        },
        Bound::Unbounded => Bound::Unbounded,
    };
    // a descending column stores larger values first: swap the bounds
    let (lo, hi) = if dir == Direction::Descending {
        (hi, lo)
    } else {
        (lo, hi)
    };
    // an integer equality with a fraction rounds to an empty key range
    if let (Bound::Included(a), Bound::Included(b)) = (&lo, &hi)
        && a > b
    {
        return Ok(None);
    }
    Ok(Some((lo, hi)))
}

#[cfg(test)]
mod tests {
    use super::rescale;

    #[test]
    fn rescale_rounds_toward_the_bound_inside() {
        // 10300.5 at scale 1 to scale 0
        assert_eq!(rescale(103_005, 1, 0, true), 10_301);
        assert_eq!(rescale(103_005, 1, 0, false), 10_300);
        assert_eq!(rescale(-103_005, 1, 0, true), -10_300);
        assert_eq!(rescale(-103_005, 1, 0, false), -10_301);
        assert_eq!(rescale(103_000, 1, 0, true), 10_300);
        assert_eq!(rescale(7, 0, 4, true), 70_000);
        assert_eq!(rescale(i128::MAX / 2, 0, 4, true), i128::MAX);
        assert_eq!(rescale(-(i128::MAX / 2), 0, 4, false), i128::MIN);
        assert_eq!(rescale(5, 0, 40, false), i128::MAX);
        assert_eq!(rescale(5, 40, 0, true), 1);
        assert_eq!(rescale(5, 40, 0, false), 0);
        assert_eq!(rescale(-5, 40, 0, true), 0);
        assert_eq!(rescale(-5, 40, 0, false), -1);
    }
}
