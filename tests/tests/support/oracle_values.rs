//! When a value jetsql reads agrees with what mdb-reader (`dump.mjs`) or
//! mdbtools (`mdb-export` with ISO dates and `-b hex`) prints for it. The
//! rules are stated in `oracle_mdb_reader.rs`'s module docs.

/// A value jetsql read, typed by its Arrow type.
#[derive(Debug, Clone, PartialEq)]
pub enum Ours {
    /// NULL.
    Null,
    /// Yes/No.
    Bool(bool),
    /// Byte, Integer, Long, BigInt (and complex-column ids).
    Int(i128),
    /// Single.
    F32(f32),
    /// Double.
    F64(f64),
    /// Currency or Decimal: unscaled value and scale.
    Dec(i128, i8),
    /// Date/Time as µs since 1970 (zone-less).
    Micros(i64),
    /// Extended Date/Time as µs since 1970 (zone-less).
    ExtMicros(i64),
    /// Text or Memo.
    Text(String),
    /// GUID in `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}` form.
    Guid(String),
    /// Binary, OLE, unknown types.
    Bytes(Vec<u8>),
    /// A type neither oracle prints comparably (its Arrow type).
    Other(String),
}

/// Whether `ours` equals mdb-reader's normalized text `theirs` (`None` for
/// NULL) of a column mdb-reader types `rtype`.
pub fn agrees_reader(ours: &Ours, theirs: Option<&str>, rtype: &str) -> bool {
    let Some(s) = theirs else {
        return *ours == Ours::Null;
    };
    match ours {
        Ours::Null => false,
        Ours::Bool(b) => s == if *b { "true" } else { "false" },
        Ours::Int(v) => s.parse::<i128>().is_ok_and(|t| t == *v),
        Ours::F32(v) => float_eq(f64::from(*v), s, 0.0),
        Ours::F64(v) => float_eq(*v, s, 0.0),
        Ours::Dec(v, scale) => canon_decimal(s).is_some_and(|t| t == scaled(*v, *scale)),
        Ours::Micros(us) => iso_millis(s).is_some_and(|ms| (ms - round_div(*us, 1000)).abs() <= 1),
        // "YYYY.MM.DD HH:MM:SS.nnnnnnnnn", compared to the microsecond
        Ours::ExtMicros(us) => {
            let (date, time) = civil(*us);
            let want = format!("{} {time}", date.replace('-', "."));
            s.len() == 29 && s.get(..26) == Some(want.as_str())
        }
        Ours::Text(t) => s == t,
        Ours::Guid(g) => rtype == "repid" && hexdigits(s) == hexdigits(g),
        Ours::Bytes(b) => s.eq_ignore_ascii_case(&hex(b)),
        Ours::Other(_) => false,
    }
}

/// Whether `ours` equals mdbtools' field `theirs` (`None` for NULL or an
/// empty field).
pub fn agrees_mdbtools(ours: &Ours, theirs: Option<&str>) -> bool {
    let Some(s) = theirs else {
        return *ours == Ours::Null;
    };
    match ours {
        Ours::Null => false,
        Ours::Bool(b) => s == if *b { "1" } else { "0" },
        Ours::Int(v) => s.parse::<i128>().is_ok_and(|t| t == *v),
        Ours::F32(v) => float_eq(f64::from(*v), s, 1e-7),
        Ours::F64(v) => float_eq(*v, s, 1e-13),
        Ours::Dec(v, scale) => canon_decimal(s).is_some_and(|t| t == scaled(*v, *scale)),
        Ours::Micros(us) | Ours::ExtMicros(us) => {
            let (d, t) = civil(round_div(*us, 1_000_000) * 1_000_000);
            s == format!("{d} {}", &t[..8])
        }
        Ours::Text(t) => s == t,
        Ours::Guid(g) => unhex(s)
            .and_then(|b| String::from_utf8(b).ok())
            .is_some_and(|t| hexdigits(&t) == hexdigits(g)),
        Ours::Bytes(b) => s.eq_ignore_ascii_case(&hex(b)),
        Ours::Other(_) => false,
    }
}

/// The known classes of disagreement with both oracles
/// (`tests/oracle-js/KNOWN_DISAGREEMENTS.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// A calculated column: both oracles decode the stored header.
    Calculated,
    /// Windows-1252's five undefined bytes: U+FFFD in mdb-reader, `?` in
    /// mdbtools, the code point U+0081 … U+009D in jetsql.
    Cp1252Undefined,
    /// A date before 1899-12-30 with a time of day: mdb-reader converts
    /// the double linearly, mdbtools prints `1900-01-00 00:00:00`.
    Pre1899Time,
}

impl Class {
    /// The class's name in `KNOWN_DISAGREEMENTS.md`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Calculated => "calculated",
            Class::Cp1252Undefined => "cp1252-undefined",
            Class::Pre1899Time => "pre-1899-time",
        }
    }

    /// Whether a value where jetsql (`ours`) differs from mdb-reader (`r`)
    /// and mdbtools (`m`) has this class's shape; `calculated` is whether
    /// jetsql's TDEF reader marks the column calculated.
    pub fn accepts(self, ours: &Ours, r: Option<&str>, m: Option<&str>, calculated: bool) -> bool {
        match self {
            Class::Calculated => calculated,
            Class::Cp1252Undefined => {
                let Ours::Text(t) = ours else { return false };
                let undefined = |c: char| matches!(u32::from(c), 0x81 | 0x8D | 0x8F | 0x90 | 0x9D);
                let sub = |with: char| -> String {
                    t.chars()
                        .map(|c| if undefined(c) { with } else { c })
                        .collect()
                };
                t.chars().any(undefined)
                    && r == Some(sub('\u{FFFD}').as_str())
                    && m == Some(sub('?').as_str())
            }
            Class::Pre1899Time => {
                let Ours::Micros(us) = ours else { return false };
                let epoch_us = -25_569 * 86_400_000_000i64;
                let tod_ms = us.rem_euclid(86_400_000_000) / 1000;
                *us < epoch_us
                    && tod_ms != 0
                    && m == Some("1900-01-00 00:00:00")
                    && r.and_then(iso_millis)
                        .is_some_and(|ms| (ms - (round_div(*us, 1000) - 2 * tod_ms)).abs() <= 1)
            }
        }
    }
}

/// `a` against the number printed as `s`, exactly when `rel_tol` is 0.
fn float_eq(a: f64, s: &str, rel_tol: f64) -> bool {
    let Ok(b) = s.parse::<f64>() else {
        return false;
    };
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rel_tol * a.abs().max(b.abs())
}

/// `a / b` rounded half away from zero (`b > 0`).
fn round_div(a: i64, b: i64) -> i64 {
    let q = a.div_euclid(b);
    let r = a.rem_euclid(b);
    if 2 * r >= b { q + 1 } else { q }
}

/// The lower-case hex digits of `s`, nothing else.
fn hexdigits(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Canonical decimal text: no leading zeros in the integer part, no
/// trailing zeros in the fraction, no `-0`.
fn canon_decimal(s: &str) -> Option<String> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let frac = frac.trim_end_matches('0');
    let mut out = String::new();
    if neg && !(int == "0" && frac.is_empty()) {
        out.push('-');
    }
    out.push_str(int);
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    Some(out)
}

/// `v / 10^scale` as canonical decimal text.
fn scaled(v: i128, scale: i8) -> String {
    let digits = v.unsigned_abs().to_string();
    let text = if scale > 0 {
        let s = usize::try_from(scale).unwrap_or(0);
        let d = format!("{digits:0>width$}", width = s + 1);
        let (i, f) = d.split_at(d.len() - s);
        format!("{i}.{f}")
    } else {
        format!("{digits}{}", "0".repeat(usize::from(scale.unsigned_abs())))
    };
    let text = if v < 0 { format!("-{text}") } else { text };
    canon_decimal(&text).unwrap_or(text)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (`YYYY-MM-DD`, `HH:MM:SS.ffffff`) of µs since 1970.
fn civil(us: i64) -> (String, String) {
    let days = us.div_euclid(86_400_000_000);
    let t = us.rem_euclid(86_400_000_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let secs = t / 1_000_000;
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!(
            "{:02}:{:02}:{:02}.{:06}",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            t % 1_000_000
        ),
    )
}

/// Milliseconds since 1970 of JavaScript's `toISOString()` text
/// (`YYYY-MM-DDTHH:MM:SS.mmmZ`, years outside 0..=9999 as `±YYYYYY`).
fn iso_millis(s: &str) -> Option<i64> {
    let (date, time) = s.strip_suffix('Z')?.split_once('T')?;
    let (sign, date) = match date.as_bytes().first()? {
        b'+' => (1, date.get(1..)?),
        b'-' => (-1, date.get(1..)?),
        _ => (1, date),
    };
    let mut dp = date.split('-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: i64 = dp.next()?.parse().ok()?;
    let d: i64 = dp.next()?.parse().ok()?;
    let (hms, ms) = time.split_once('.')?;
    let mut tp = hms.split(':');
    let h: i64 = tp.next()?.parse().ok()?;
    let mi: i64 = tp.next()?.parse().ok()?;
    let se: i64 = tp.next()?.parse().ok()?;
    let ms: i64 = ms.parse().ok()?;
    let days = days_from_civil(sign * y, m, d);
    Some(((days * 24 + h) * 60 + mi) * 60_000 + se * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_and_civil_agree() {
        assert_eq!(iso_millis("1970-01-01T00:00:01.500Z"), Some(1500));
        assert_eq!(
            iso_millis("1899-12-30T00:00:00.000Z"),
            Some(-25_569 * 86_400_000)
        );
        let us = -25_569 * 86_400_000_000 + 3_723_000_001;
        assert_eq!(civil(us), ("1899-12-30".into(), "01:02:03.000001".into()));
        assert_eq!(
            iso_millis("-000001-01-01T00:00:00.000Z").map(|m| m < 0),
            Some(true)
        );
        assert_eq!(scaled(-5, 4), "-0.0005");
        assert_eq!(scaled(140_000, 4), "14");
        assert_eq!(canon_decimal("14.0000").as_deref(), Some("14"));
    }
}
