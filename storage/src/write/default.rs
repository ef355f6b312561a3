//! Column defaults: the Access expressions (`DefaultValue` property) the
//! writer evaluates for rows inserted without a value for the column.
//!
//! Accepted: number literals (`0`, `-12`, `3.25`, `1.5E3`), quoted strings
//! (`"abc"`, `'abc'`, a doubled quote inside standing for one), `True`,
//! `False`, `Yes`, `No`, `On`, `Off`, `Null`, date literals (`#2024-01-31#`,
//! `#1/31/2024#` month first as Access writes them, either with a time
//! `13:45[:30]` or `1:45 PM`, or a time alone), and `Now()` / `Date()`
//! (`=` in front allowed). Anything else is refused when a table is created,
//! so a stored default is never silently ignored.

use super::row::Cell;
use crate::format::types::JetType;
use crate::schema::tdef::Column;

/// A parsed default expression.
#[derive(Debug, Clone, PartialEq)]
pub enum DefaultExpr {
    /// `Null`.
    Null,
    /// A number literal, kept as written (trimmed) so that each column type
    /// converts it exactly.
    Number(String),
    /// A string literal (quotes removed).
    Text(String),
    /// `True`/`Yes`/`On` or `False`/`No`/`Off`.
    Bool(bool),
    /// A `#date#` literal, µs since 1970 (zone-less).
    Date(i64),
    /// `Now()`: the date and time of the insert.
    Now,
    /// `Date()`: the date of the insert (midnight).
    Today,
}

/// Parses Access default-expression text; `None` for anything this writer
/// cannot evaluate.
pub fn parse(expr: &str) -> Option<DefaultExpr> {
    let t = expr.trim();
    let t = t.strip_prefix('=').map(str::trim).unwrap_or(t);
    if t.is_empty() {
        return None;
    }
    let lower = t.to_ascii_lowercase();
    let compact: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    match compact.as_str() {
        "null" => return Some(DefaultExpr::Null),
        "true" | "yes" | "on" => return Some(DefaultExpr::Bool(true)),
        "false" | "no" | "off" => return Some(DefaultExpr::Bool(false)),
        "now()" => return Some(DefaultExpr::Now),
        "date()" => return Some(DefaultExpr::Today),
        _ => {}
    }
    if let Some(q) = t.chars().next().filter(|c| *c == '"' || *c == '\'') {
        return parse_quoted(t, q).map(DefaultExpr::Text);
    }
    if let Some(inner) = t.strip_prefix('#').and_then(|r| r.strip_suffix('#')) {
        return parse_date(inner.trim()).map(DefaultExpr::Date);
    }
    is_number(t).then(|| DefaultExpr::Number(t.to_string()))
}

fn parse_quoted(t: &str, q: char) -> Option<String> {
    let body = t.strip_prefix(q)?.strip_suffix(q)?;
    let mut out = String::new();
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if c == q {
            // only a doubled quote may appear inside
            if it.next() != Some(q) {
                return None;
            }
        }
        out.push(c);
    }
    Some(out)
}

fn is_number(t: &str) -> bool {
    let b = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mant, exp) = match b.find(['e', 'E']) {
        Some(i) => (&b[..i], Some(&b[i + 1..])),
        None => (b, None),
    };
    let mut parts = mant.splitn(2, '.');
    let int = parts.next().unwrap_or("");
    let frac = parts.next().unwrap_or("");
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.len() <= 3 && digits(e)
    });
    !(int.is_empty() && frac.is_empty()) && digits(int) && digits(frac) && exp_ok
}

/// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d`.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        4 | 6 | 9 | 11 => 30,
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// `#…#` contents: a date (`y-m-d` or `m/d/y`), a time, or both.
fn parse_date(s: &str) -> Option<i64> {
    let mut words = s.split_whitespace().peekable();
    let first = words.next()?;
    let (date_days, time_words): (i64, Vec<&str>) = if first.contains(['-', '/']) {
        (parse_day(first)?, words.collect())
    } else {
        // a time alone is on Access's day 0, 1899-12-30
        (
            days_from_civil(1899, 12, 30),
            std::iter::once(first).chain(words).collect(),
        )
    };
    let secs = match time_words.as_slice() {
        [] => 0,
        [t] => parse_time(t, None)?,
        [t, ampm] => parse_time(t, Some(ampm))?,
        _ => return None,
    };
    Some((date_days * 86_400 + secs) * 1_000_000)
}

fn parse_day(s: &str) -> Option<i64> {
    let num = |p: &str| -> Option<i64> {
        (!p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let (y, m, d) = if s.contains('-') {
        let p: Vec<&str> = s.split('-').collect();
        let [y, m, d] = p.as_slice() else { return None };
        (num(y)?, num(m)?, num(d)?)
    } else {
        let p: Vec<&str> = s.split('/').collect();
        let [m, d, y] = p.as_slice() else { return None };
        (num(y)?, num(m)?, num(d)?)
    };
    let (m, d) = (u32::try_from(m).ok()?, u32::try_from(d).ok()?);
    if !(100..=9999).contains(&y) || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

fn parse_time(t: &str, ampm: Option<&&str>) -> Option<i64> {
    let p: Vec<&str> = t.split(':').collect();
    if !(2..=3).contains(&p.len())
        || p.iter()
            .any(|x| x.is_empty() || x.len() > 2 || !x.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let mut h: i64 = p[0].parse().ok()?;
    let m: i64 = p[1].parse().ok()?;
    let s: i64 = p.get(2).map_or(Some(0), |x| x.parse().ok())?;
    match ampm.map(|a| a.to_ascii_uppercase()) {
        None => {}
        Some(a) if (1..=12).contains(&h) && (a == "AM" || a == "PM") => {
            h %= 12;
            if a == "PM" {
                h += 12;
            }
        }
        Some(_) => return None,
    }
    (h < 24 && m < 60 && s < 60).then_some(h * 3600 + m * 60 + s)
}

impl DefaultExpr {
    /// The value this default gives a row of column `col` inserted at
    /// `now_micros` (the writer's clock, µs since 1970), or why the
    /// expression does not apply to the column's type. The caller still
    /// checks the value's range and width (`row::encode_value`).
    pub fn cell(&self, col: &Column, now_micros: i64) -> Result<Cell, String> {
        use JetType as J;
        let t = col.jet_type;
        let wrong = || {
            Err(format!(
                "the default {} does not apply to a {} column",
                self.describe(),
                t.name()
            ))
        };
        Ok(match self {
            DefaultExpr::Null => Cell::Null,
            DefaultExpr::Number(n) => match t {
                J::Byte | J::Integer | J::Long | J::BigInt | J::Currency | J::Numeric => {
                    decimal_cell(n)?
                }
                J::Single => Cell::Float(f64::from(
                    n.parse::<f32>().map_err(|e| format!("{n}: {e}"))?,
                )),
                J::Double => Cell::Float(n.parse::<f64>().map_err(|e| format!("{n}: {e}"))?),
                J::Boolean => Cell::Bool(decimal_cell(n)? != Cell::Int(0)),
                J::Text | J::Memo => Cell::Text(n.clone()),
                _ => return wrong(),
            },
            DefaultExpr::Text(s) => match t {
                J::Text | J::Memo | J::Guid => Cell::Text(s.clone()),
                _ => return wrong(),
            },
            DefaultExpr::Bool(b) => match t {
                J::Boolean => Cell::Bool(*b),
                // Access's True is -1
                J::Integer
                | J::Long
                | J::BigInt
                | J::Currency
                | J::Numeric
                | J::Single
                | J::Double => Cell::Int(if *b { -1 } else { 0 }),
                _ => return wrong(),
            },
            DefaultExpr::Date(m) => match t {
                J::DateTime => Cell::Micros(*m),
                _ => return wrong(),
            },
            DefaultExpr::Now => match t {
                J::DateTime => Cell::Micros(now_micros.div_euclid(1_000_000) * 1_000_000),
                _ => return wrong(),
            },
            DefaultExpr::Today => match t {
                J::DateTime => Cell::Micros(now_micros.div_euclid(86_400_000_000) * 86_400_000_000),
                _ => return wrong(),
            },
        })
    }

    fn describe(&self) -> String {
        match self {
            DefaultExpr::Null => "Null".into(),
            DefaultExpr::Number(n) => n.clone(),
            DefaultExpr::Text(s) => format!("{s:?}"),
            DefaultExpr::Bool(b) => (if *b { "True" } else { "False" }).into(),
            DefaultExpr::Date(_) => "date literal".into(),
            DefaultExpr::Now => "Now()".into(),
            DefaultExpr::Today => "Date()".into(),
        }
    }
}

/// A number literal as an exact integer or decimal cell; exponent forms
/// are scaled exactly when they fit.
fn decimal_cell(n: &str) -> Result<Cell, String> {
    let (mant, exp) = match n.find(['e', 'E']) {
        Some(i) => (
            &n[..i],
            n[i + 1..].parse::<i32>().map_err(|e| e.to_string())?,
        ),
        None => (n, 0),
    };
    let neg = mant.starts_with('-');
    let mant = mant.trim_start_matches(['-', '+']);
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits: String = format!("{int}{frac}");
    let mut value: i128 = 0;
    for c in digits.chars() {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(i128::from(c.to_digit(10).unwrap_or(0))))
            .ok_or_else(|| format!("{n} has too many digits"))?;
    }
    let mut scale = i32::try_from(frac.len()).map_err(|e| e.to_string())? - exp;
    while scale < 0 {
        value = value
            .checked_mul(10)
            .ok_or_else(|| format!("{n} is too large"))?;
        scale += 1;
    }
    // drop trailing fraction zeros so that "1.50" fits a 1-place column
    while scale > 0 && value % 10 == 0 {
        value /= 10;
        scale -= 1;
    }
    if neg {
        value = -value;
    }
    if scale == 0 {
        return Ok(Cell::Int(value));
    }
    let scale = i8::try_from(scale).map_err(|_| format!("{n} has too many decimal places"))?;
    Ok(Cell::Decimal { value, scale })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(t: JetType) -> Column {
        Column {
            name: "c".into(),
            jet_type: t,
            col_num: 0,
            var_index: 0,
            fixed_offset: 0,
            length: 0,
            flags: 0,
            ext_flags: 0,
            precision: 0,
            scale: 0,
            sort_order: 0,
            code_page: 0,
            sort_order_version: 0,
            required: false,
            default_value: None,
            complex_id: None,
        }
    }

    #[test]
    fn literals_parse() {
        use DefaultExpr as D;
        assert_eq!(parse("0"), Some(D::Number("0".into())));
        assert_eq!(parse(" -12.50 "), Some(D::Number("-12.50".into())));
        assert_eq!(parse("1.5E3"), Some(D::Number("1.5E3".into())));
        assert_eq!(parse("\"a\"\"b\""), Some(D::Text("a\"b".into())));
        assert_eq!(parse("'x'"), Some(D::Text("x".into())));
        assert_eq!(parse("Yes"), Some(D::Bool(true)));
        assert_eq!(parse("off"), Some(D::Bool(false)));
        assert_eq!(parse("=Now( )"), Some(D::Now));
        assert_eq!(parse("Date()"), Some(D::Today));
        assert_eq!(parse("Null"), Some(D::Null));
        let d = days_from_civil(2024, 1, 31) * 86_400_000_000;
        assert_eq!(parse("#2024-01-31#"), Some(D::Date(d)));
        assert_eq!(parse("#1/31/2024#"), Some(D::Date(d)));
        assert_eq!(
            parse("#1/31/2024 1:45:30 PM#"),
            Some(D::Date(d + (13 * 3600 + 45 * 60 + 30) * 1_000_000))
        );
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        for bad in [
            "",
            "GenGUID()",
            "\"open",
            "\"a\"b\"",
            "1..2",
            "#2024-02-30#",
            "#13/1/2024#",
            "#25:00#",
            "1+1",
            "Date() + 1",
            "x",
            ".",
            "1e",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn values_follow_the_column_type() {
        use JetType as J;
        let n = parse("2.50").unwrap();
        assert_eq!(
            n.cell(&col(J::Currency), 0),
            Ok(Cell::Decimal {
                value: 25,
                scale: 1
            })
        );
        assert_eq!(n.cell(&col(J::Double), 0), Ok(Cell::Float(2.5)));
        assert_eq!(n.cell(&col(J::Text), 0), Ok(Cell::Text("2.50".into())));
        assert_eq!(
            parse("1.5E3").unwrap().cell(&col(J::Long), 0),
            Ok(Cell::Int(1500))
        );
        assert_eq!(
            parse("Yes").unwrap().cell(&col(J::Integer), 0),
            Ok(Cell::Int(-1))
        );
        assert!(parse("Yes").unwrap().cell(&col(J::Text), 0).is_err());
        assert!(parse("\"a\"").unwrap().cell(&col(J::Long), 0).is_err());
        assert!(parse("Now()").unwrap().cell(&col(J::Long), 0).is_err());
        let now = 1_700_000_123_456_789;
        assert_eq!(
            parse("Now()").unwrap().cell(&col(J::DateTime), now),
            Ok(Cell::Micros(1_700_000_123_000_000))
        );
        assert_eq!(
            parse("Date()").unwrap().cell(&col(J::DateTime), now),
            Ok(Cell::Micros(1_699_920_000_000_000))
        );
    }
}
