//! Decoding of single fixed-format values: dates, currency, numeric,
//! GUIDs, extended date/time, calculated-value wrappers.

/// Days from 1899-12-30 (the Access epoch) to 1970-01-01.
const ACCESS_EPOCH_DAYS: i64 = 25_569;
const MS_PER_DAY: f64 = 86_400_000.0;

/// Converts an Access date (days since 1899-12-30; for negative values the
/// fraction is a positive time of day) to microseconds since 1970-01-01,
/// rounded to the millisecond as Access stores times. `None` for NaN,
/// infinities and values outside the `i64` microsecond range.
pub fn access_date_to_micros(v: f64) -> Option<i64> {
    if !v.is_finite() || v.abs() > 100_000_000.0 {
        return None;
    }
    let days = v.trunc();
    let frac = (v - days).abs();
    let ms = (days * MS_PER_DAY) as i64 + (frac * MS_PER_DAY).round() as i64
        - ACCESS_EPOCH_DAYS * 86_400_000;
    ms.checked_mul(1000)
}

/// Decodes a 17-byte Numeric: a sign byte (non-zero = negative) and 16
/// bytes holding four little-endian 32-bit words, most significant first.
/// `None` when the magnitude does not fit an `i128`.
pub fn numeric_to_i128(b: &[u8]) -> Option<i128> {
    if b.len() < 17 {
        return None;
    }
    let mut mag: u128 = 0;
    for w in 0..4 {
        let o = 1 + 4 * w;
        let word = u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        mag = (mag << 32) | u128::from(word);
    }
    let v = i128::try_from(mag).ok()?;
    Some(if b[0] != 0 { -v } else { v })
}

/// Formats a 16-byte GUID as Access shows it: `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`
/// (first three groups little-endian).
pub fn format_guid(b: &[u8], out: &mut String) {
    use std::fmt::Write;
    if b.len() < 16 {
        return;
    }
    let _ = write!(
        out,
        "{{{:02X}{:02X}{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}}}",
        b[3],
        b[2],
        b[1],
        b[0],
        b[5],
        b[4],
        b[7],
        b[6],
        b[8],
        b[9],
        b[10],
        b[11],
        b[12],
        b[13],
        b[14],
        b[15]
    );
}

/// Days from 0001-01-01 to 1970-01-01 (proleptic Gregorian).
const EXT_EPOCH_DAYS: i64 = 719_162;

fn ascii_number(b: &[u8]) -> Option<i64> {
    let mut v: i64 = 0;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
    }
    Some(v)
}

/// Decodes an extended date/time (42 ASCII bytes: 19 digits of days since
/// 0001-01-01, a separator, 12 digits of seconds, 7 digits of 100 ns ticks,
/// then `:7\0`) to microseconds since 1970-01-01, truncating the last digit.
/// `None` for bytes that are not of that form.
pub fn ext_datetime_to_micros(b: &[u8]) -> Option<i64> {
    if b.len() < 39 {
        return None;
    }
    let days = ascii_number(&b[0..19])?;
    let secs = ascii_number(&b[20..32])?;
    let ticks = ascii_number(&b[32..39])?;
    let day_micros = (days - EXT_EPOCH_DAYS).checked_mul(86_400_000_000)?;
    day_micros
        .checked_add(secs.checked_mul(1_000_000)?)?
        .checked_add(ticks / 10)
}

/// Offset of the data length in a calculated value's wrapper.
const CALC_LEN_OFFSET: usize = 16;
/// Offset of the data in a calculated value's wrapper.
const CALC_DATA_OFFSET: usize = 20;

/// The real bytes of a calculated column's stored value: a 16-byte header,
/// a 4-byte length, then the data. Values shorter than the header are
/// returned as they are.
pub fn unwrap_calculated(b: &[u8]) -> &[u8] {
    if b.len() < CALC_DATA_OFFSET {
        return b;
    }
    let o = CALC_LEN_OFFSET;
    let len = u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) as usize;
    let data = &b[CALC_DATA_OFFSET..];
    &data[..len.min(data.len())]
}

/// Scale of the Arrow type of calculated Numeric columns (each value
/// carries its own scale, at most 28).
pub const CALC_NUMERIC_SCALE: i8 = 28;
/// Precision of the Arrow type of calculated Numeric columns: 29 integer
/// digits (Access's widest) plus [`CALC_NUMERIC_SCALE`] fractional ones.
pub const CALC_NUMERIC_PRECISION: u8 = 57;

/// Decodes a calculated Numeric: 2-byte length, scale byte, sign byte, then
/// 32-bit little-endian words: the most significant first, the rest from
/// least to most significant (established from
/// `calcFieldTestV2010.accdb`, whose expected values Jackcess records).
/// Returns the value rescaled to [`CALC_NUMERIC_SCALE`]; `None` when the
/// value's own scale exceeds it.
pub fn calculated_numeric(b: &[u8]) -> Option<arrow_buffer::i256> {
    use arrow_buffer::i256;
    if b.len() < 4 {
        return None;
    }
    let scale = i8::try_from(b[2])
        .ok()
        .filter(|s| *s <= CALC_NUMERIC_SCALE)?;
    let neg = b[3] != 0;
    let digits = &b[4..];
    let words: Vec<u32> = digits
        .chunks_exact(4)
        .take(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut order: Vec<u32> = Vec::with_capacity(words.len());
    if let Some((first, rest)) = words.split_first() {
        order.push(*first);
        order.extend(rest.iter().rev());
    }
    let mut v = i256::ZERO;
    for w in order {
        v = v
            .checked_mul(i256::from_i128(1i128 << 32))?
            .checked_add(i256::from_i128(i128::from(w)))?;
    }
    let factor =
        i256::from_i128(10).checked_pow(u32::try_from(CALC_NUMERIC_SCALE - scale).ok()?)?;
    v = v.checked_mul(factor)?;
    Some(if neg { v.checked_neg()? } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(access_date_to_micros(25569.0), Some(0));
        assert_eq!(access_date_to_micros(0.0), Some(-25569 * 86_400_000_000));
        // 1899-12-29 06:00 is -1.25
        assert_eq!(
            access_date_to_micros(-1.25),
            Some((-25570 * 86_400_000 + 6 * 3_600_000) * 1000)
        );
        assert_eq!(access_date_to_micros(f64::NAN), None);
    }

    #[test]
    fn ext_dates() {
        let s = b"0000000000000719162:0000000036001234567:7\0";
        assert_eq!(ext_datetime_to_micros(s), Some(3_600_000_000 + 123_456));
        assert_eq!(ext_datetime_to_micros(b"garbage"), None);
    }

    #[test]
    fn numerics() {
        let mut b = [0u8; 17];
        b[13] = 0x39;
        b[14] = 0x30; // last word = 0x3039 = 12345
        assert_eq!(numeric_to_i128(&b), Some(12345));
        b[0] = 0x80;
        assert_eq!(numeric_to_i128(&b), Some(-12345));
    }

    #[test]
    fn guid() {
        let b: Vec<u8> = (0u8..16).collect();
        let mut s = String::new();
        format_guid(&b, &mut s);
        assert_eq!(s, "{03020100-0504-0706-0809-0A0B0C0D0E0F}");
    }
}
