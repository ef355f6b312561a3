//! Access's Variant values and the coercion rules every function shares:
//! how a Yes/No, number, date or text becomes a number, text, date or
//! Yes/No, with the en-US conventions Access uses for text.
//!
//! Dates are held as microseconds since 1970-01-01 (the engine's
//! `Timestamp(Microsecond, None)`, local wall time); Access's own "serial"
//! form (a Double counting days from 1899-12-30, time as the fraction) is
//! reached through [`micros_to_serial`] and [`serial_to_micros`].

use super::parse;
use super::serial::{DAY_US, SERIAL_EPOCH_DAYS, from_naive};
use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, Timelike};
use datafusion::error::{DataFusionError, Result};

/// The earliest date Access accepts (100-01-01) as a serial day number.
pub const MIN_SERIAL: f64 = -657_434.0;
/// One past the last day Access accepts (9999-12-31) as a serial number.
pub const MAX_SERIAL: f64 = 2_958_466.0;

/// One Access value (a Variant as a query sees it).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Null.
    Null,
    /// Yes/No; True is -1 in arithmetic.
    Bool(bool),
    /// Any integer type (Byte, Integer, Long, BigInt).
    Int(i64),
    /// Single.
    Single(f32),
    /// Double.
    Double(f64),
    /// Currency or Decimal: an unscaled integer and its scale.
    Decimal(i128, i8),
    /// Date/Time as microseconds since 1970-01-01 (wall time).
    Date(i64),
    /// Text or Memo.
    Text(String),
}

impl Value {
    /// True for Null.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// The error every function reports: the function's name, then the message.
pub fn fn_err(func: &str, msg: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Execution(format!("{func}: {msg}"))
}

/// Rounds half to even (banker's rounding), as Access rounds when it
/// converts to an integer type and in `Round`.
pub fn round_half_even(x: f64) -> f64 {
    x.round_ties_even()
}

/// Access's serial Date (days since 1899-12-30; for days before it the
/// fraction is still the time of day, added away from zero) from engine
/// microseconds: for a whole millisecond, the double Access stores.
pub fn micros_to_serial(us: i64) -> f64 {
    let days = us.div_euclid(DAY_US) + SERIAL_EPOCH_DAYS;
    // seconds times the double nearest 1/86400, as Access computes the
    // time of day (the writer's `micros_to_access_date` does the same)
    let frac = (us.rem_euclid(DAY_US) as f64 / 1e6) * (1.0 / 86_400.0);
    if days >= 0 {
        days as f64 + frac
    } else {
        days as f64 - frac
    }
}

/// Engine microseconds from an Access serial Date; errors outside the
/// years 100–9999 Access allows.
pub fn serial_to_micros(func: &str, serial: f64) -> Result<i64> {
    if !serial.is_finite() || serial <= MIN_SERIAL - 1.0 || serial >= MAX_SERIAL {
        return Err(fn_err(func, "date is outside the years 100 to 9999"));
    }
    let day = serial.trunc();
    let frac = (serial - day).abs();
    let tod = (frac * DAY_US as f64).round() as i64;
    Ok((day as i64 - SERIAL_EPOCH_DAYS) * DAY_US + tod)
}

/// The calendar date and time of engine microseconds.
pub fn naive(us: i64) -> NaiveDateTime {
    DateTime::from_timestamp_micros(us)
        .map(|d| d.naive_utc())
        .unwrap_or(NaiveDateTime::MIN)
}

/// Engine microseconds of a date at midnight; errors outside 100–9999.
pub fn date_micros(func: &str, y: i64, m: u32, d: u32) -> Result<i64> {
    let date = i32::try_from(y)
        .ok()
        .filter(|y| (100..=9999).contains(y))
        .and_then(|y| NaiveDate::from_ymd_opt(y, m, d))
        .ok_or_else(|| fn_err(func, "date is outside the years 100 to 9999"))?;
    Ok(from_naive(date.and_hms_opt(0, 0, 0).unwrap_or_default()))
}

/// Checks that engine microseconds lie in Access's date range.
pub fn check_date(func: &str, us: i64) -> Result<i64> {
    let y = naive(us).year();
    if (100..=9999).contains(&y) {
        Ok(us)
    } else {
        Err(fn_err(func, "date is outside the years 100 to 9999"))
    }
}

/// The number a value stands for (`CDbl`'s rules): Yes/No is -1/0, a date
/// its serial number, text must spell a number (en-US: `1,234.5`, `&H1F`,
/// `&O17`, `1E3`). `Ok(None)` for Null.
pub fn to_f64(func: &str, v: &Value) -> Result<Option<f64>> {
    Ok(Some(match v {
        Value::Null => return Ok(None),
        Value::Bool(b) => {
            if *b {
                -1.0
            } else {
                0.0
            }
        }
        Value::Int(i) => *i as f64,
        Value::Single(f) => *f as f64,
        Value::Double(f) => *f,
        Value::Decimal(u, s) => *u as f64 / 10f64.powi(*s as i32),
        Value::Date(us) => micros_to_serial(*us),
        Value::Text(t) => parse::number(t)
            .ok_or_else(|| fn_err(func, format!("type mismatch: '{t}' is not a number")))?,
    }))
}

/// The whole number a value rounds to (banker's rounding), as Access
/// converts arguments of type Integer or Long.
pub fn to_i64(func: &str, v: &Value) -> Result<Option<i64>> {
    if let Value::Int(i) = v {
        return Ok(Some(*i));
    }
    match to_f64(func, v)? {
        None => Ok(None),
        Some(f) => {
            let r = round_half_even(f);
            if r.is_finite() && r.abs() < 9.2e18 {
                Ok(Some(r as i64))
            } else {
                Err(fn_err(func, "overflow"))
            }
        }
    }
}

/// The Yes/No a value stands for (`CBool`'s rules): non-zero numbers are
/// True; text must be True/False/Yes/No/On/Off or a number.
pub fn to_bool(func: &str, v: &Value) -> Result<Option<bool>> {
    match v {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::Text(t) => {
            let l = t.trim().to_ascii_lowercase();
            match l.as_str() {
                "true" | "yes" | "on" => Ok(Some(true)),
                "false" | "no" | "off" => Ok(Some(false)),
                _ => Ok(Some(to_f64(func, v)?.unwrap_or(0.0) != 0.0)),
            }
        }
        _ => Ok(Some(to_f64(func, v)?.unwrap_or(0.0) != 0.0)),
    }
}

/// The date a value stands for (`CDate`'s rules): numbers are serial
/// dates, text is a date and/or time in en-US (`1/5/1998`, `1998-01-05`,
/// `January 5, 1998`, `5-Jan-98`, `17:30`, `5:30 PM`); a time without a
/// date is on 1899-12-30.
pub fn to_date(func: &str, v: &Value) -> Result<Option<i64>> {
    match v {
        Value::Null => Ok(None),
        Value::Date(us) => Ok(Some(*us)),
        Value::Text(t) => match parse::date(t) {
            Some(us) => check_date(func, us).map(Some),
            None => match parse::number(t) {
                Some(n) => serial_to_micros(func, n).map(Some),
                None => Err(fn_err(func, format!("type mismatch: '{t}' is not a date"))),
            },
        },
        other => match to_f64(func, other)? {
            Some(n) => serial_to_micros(func, n).map(Some),
            None => Ok(None),
        },
    }
}

/// The text a value stands for (`CStr`'s rules): True/False, numbers in
/// general format (up to 15 significant digits for Double, 7 for Single),
/// dates in General Date form.
pub fn to_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Single(f) => general_number(*f as f64, 7),
        Value::Double(f) => general_number(*f, 15),
        Value::Decimal(u, s) => decimal_text(*u, *s),
        Value::Date(us) => general_date(*us),
        Value::Text(t) => t.clone(),
    })
}

/// A decimal's text without trailing zeros after the point.
pub fn decimal_text(u: i128, s: i8) -> String {
    if s <= 0 {
        return (u * 10i128.pow((-s) as u32)).to_string();
    }
    let neg = u < 0;
    let digits = u.unsigned_abs().to_string();
    let s = s as usize;
    let padded = format!("{digits:0>width$}", width = s + 1);
    let (int, frac) = padded.split_at(padded.len() - s);
    let frac = frac.trim_end_matches('0');
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push_str(int);
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    out
}

/// A number with at most `digits` significant digits, as Access shows a
/// Double (15) or Single (7) in General Number form: plain decimals, or
/// `1.5E+20` / `1E-05` outside 1E-5 ≤ |x| < 1E+digits.
pub fn general_number(x: f64, digits: usize) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let sci = format!("{:.*e}", digits - 1, x);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let mant_digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let mant_digits = mant_digits.trim_end_matches('0');
    let mant_digits = if mant_digits.is_empty() {
        "0"
    } else {
        mant_digits
    };
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if exp >= digits as i32 || exp < -5 {
        out.push_str(&mant_digits[..1]);
        if mant_digits.len() > 1 {
            out.push('.');
            out.push_str(&mant_digits[1..]);
        }
        out.push_str(&format!(
            "E{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        ));
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(mant_digits);
    } else {
        let e = exp as usize;
        if mant_digits.len() > e + 1 {
            out.push_str(&mant_digits[..=e]);
            out.push('.');
            out.push_str(&mant_digits[e + 1..]);
        } else {
            out.push_str(mant_digits);
            for _ in mant_digits.len()..=e {
                out.push('0');
            }
        }
    }
    out
}

/// The General Date form: `m/d/yyyy h:nn:ss AM/PM`, without the date on
/// 1899-12-30 (serial 0 itself is `12:00:00 AM`: a value with no whole
/// part shows as a time, as OLE Automation's date-to-text conversion
/// that VBA's `CStr` uses decides before it looks at the time) and
/// without the time at midnight of any other day.
pub fn general_date(us: i64) -> String {
    let dt = naive(us);
    let day0 = us.div_euclid(DAY_US) == -SERIAL_EPOCH_DAYS;
    let midnight = us.rem_euclid(DAY_US) == 0;
    let date = format!("{}/{}/{}", dt.month(), dt.day(), dt.year());
    let time = long_time(&dt);
    if day0 {
        time
    } else if midnight {
        date
    } else {
        format!("{date} {time}")
    }
}

/// The Long Time form: `h:nn:ss AM/PM`.
pub fn long_time(dt: &NaiveDateTime) -> String {
    let (pm, h12) = dt.hour12();
    format!(
        "{}:{:02}:{:02} {}",
        h12,
        dt.minute(),
        dt.second(),
        if pm { "PM" } else { "AM" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_dates() {
        // Access day zero is 1899-12-30; 1899-12-29 06:00 is -1.25 (the
        // fraction stays the time of day before day zero).
        let day0 = -SERIAL_EPOCH_DAYS * DAY_US;
        assert_eq!(micros_to_serial(day0), 0.0);
        assert_eq!(micros_to_serial(day0 - DAY_US + DAY_US / 4), -1.25);
        assert_eq!(
            serial_to_micros("t", -1.25).unwrap(),
            day0 - DAY_US + DAY_US / 4
        );
        assert_eq!(serial_to_micros("t", 35800.5).unwrap() % DAY_US, DAY_US / 2);
        assert!(serial_to_micros("t", 3.0e6).is_err());
        // the doubles Access 97 stored for 00:00:30 and 05:15:07 on day
        // zero (testIndexCodesV1997.mdb, Table6)
        assert_eq!(
            micros_to_serial(day0 + 30_000_000).to_bits(),
            0x3f36_c16c_16c1_6c16
        );
        assert_eq!(
            micros_to_serial(day0 + 18_907_000_000).to_bits(),
            0x3fcc_02a7_a1f1_9690
        );
    }

    #[test]
    fn general_numbers() {
        assert_eq!(general_number(437.324, 15), "437.324");
        assert_eq!(general_number(1.0 / 3.0, 15), "0.333333333333333");
        assert_eq!(general_number(1e15, 15), "1E+15");
        assert_eq!(general_number(123456789012345.0, 15), "123456789012345");
        assert_eq!(general_number(-2.5e-7, 15), "-2.5E-07");
        assert_eq!(general_number(0.0001, 15), "0.0001");
        assert_eq!(general_number(75.342_11_f32 as f64, 7), "75.34211");
    }

    #[test]
    fn decimals_as_text() {
        assert_eq!(decimal_text(10864292, 4), "1086.4292");
        assert_eq!(decimal_text(-25000, 4), "-2.5");
        assert_eq!(decimal_text(5, 4), "0.0005");
        assert_eq!(decimal_text(120, 0), "120");
    }

    #[test]
    fn general_dates() {
        let d = date_micros("t", 1998, 1, 5).unwrap();
        assert_eq!(general_date(d), "1/5/1998");
        assert_eq!(general_date(d + 17 * 3_600_000_000), "1/5/1998 5:00:00 PM");
        assert_eq!(
            general_date(-SERIAL_EPOCH_DAYS * DAY_US + 3_600_000_000),
            "1:00:00 AM"
        );
    }
}
