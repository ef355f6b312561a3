//! `Format` and its friends FormatNumber, FormatCurrency, FormatPercent
//! and FormatDateTime, in the en-US locale (`$`, `,` thousands, `.`
//! decimal point, `m/d/yyyy` short dates, negative currency in
//! parentheses).
//!
//! A pattern is read as a number pattern when it has `0` or `#`
//! placeholders, else as a date pattern when it has date letters, else
//! as a text pattern (`@ & < >`). The value is converted to suit: a
//! number shown with a date pattern is a serial date, a date with a
//! number pattern its serial number; text that is neither a number nor
//! a date comes back unchanged.

use super::calendar::FirstWeek;
use super::date::{first_day, first_week};
use super::datefmt::{self, format_date, long_date, short_date};
use super::numfmt::{self, format_section, group, round_fixed, sections};
use super::parse;
use super::types;
use super::udf::{AccessScalar, Call, NULL_ANY, NULL_NONE};
use super::value::{Value, general_number, long_time, naive, serial_to_micros, to_f64, to_text};
use chrono::Timelike;
use datafusion::error::Result;

#[derive(Debug, PartialEq)]
enum Kind {
    Number,
    Date,
    Text,
}

/// What a pattern formats (see the module comment).
fn kind(pattern: &str) -> Kind {
    let mut chars = pattern.chars();
    let mut date = false;
    let mut text = false;
    let mut quoted = false;
    while let Some(ch) = chars.next() {
        if quoted {
            quoted = ch != '"';
            continue;
        }
        match ch {
            '"' => quoted = true,
            '\\' => {
                chars.next();
            }
            '0' | '#' => return Kind::Number,
            '@' | '&' | '<' | '>' => text = true,
            c if "dDwWmMqQyYhHnNsStTcCaApP".contains(c) => date = true,
            _ => {}
        }
    }
    if date {
        Kind::Date
    } else if text {
        Kind::Text
    } else {
        Kind::Number
    }
}

/// A number with a (possibly multi-section) number pattern.
fn number_pattern(x: f64, pattern: &str) -> String {
    let secs = sections(pattern);
    let toks: Vec<Vec<numfmt::NumTok>> = secs.iter().map(|s| numfmt::lex(s)).collect();
    let non_empty = |i: usize| secs.get(i).is_some_and(|s| !s.is_empty());
    if x == 0.0 && non_empty(2) {
        return format_section(0.0, &toks[2]);
    }
    if x < 0.0 {
        if non_empty(1) {
            return format_section(-x, &toks[1]);
        }
        let body = format_section(-x, &toks[0]);
        // A negative that shows as zero keeps no sign only if no digit
        // is non-zero (as Access shows -0.001 with "0.00": "-0.00").
        return format!("-{body}");
    }
    format_section(x, &toks[0])
}

/// A text value with a text pattern: `@` a character or a space, `&` a
/// character or nothing (filled from the right), `<` lower case, `>`
/// upper case.
fn text_pattern(s: &str, pattern: &str) -> String {
    let secs = sections(pattern);
    let section = if s.is_empty() && secs.len() > 1 {
        return literal_text(&secs[1]);
    } else {
        &secs[0]
    };
    let mut s = s.to_string();
    if section.contains('<') {
        s = s.to_lowercase();
    }
    if section.contains('>') {
        s = s.to_uppercase();
    }
    let left_to_right = section.contains('!');
    let chars: Vec<char> = section.chars().collect();
    let slots: Vec<usize> = (0..chars.len())
        .filter(|&i| chars[i] == '@' || chars[i] == '&')
        .collect();
    if slots.is_empty() {
        return format!("{s}{}", literal_text(&section.replace(['<', '>', '!'], "")));
    }
    let mut text: Vec<char> = s.chars().collect();
    let mut fill: Vec<String> = vec![String::new(); slots.len()];
    if left_to_right {
        for (k, f) in fill.iter_mut().enumerate() {
            if !text.is_empty() {
                *f = text.remove(0).to_string();
            } else if chars[slots[k]] == '@' {
                *f = " ".into();
            }
        }
        if let Some(last) = fill.last_mut() {
            last.extend(text.drain(..));
        }
    } else {
        for k in (0..slots.len()).rev() {
            if k == 0 {
                let rest: String = text.drain(..).collect();
                fill[0] = if rest.is_empty() && chars[slots[0]] == '@' {
                    " ".into()
                } else {
                    rest
                };
            } else if let Some(c) = text.pop() {
                fill[k] = c.to_string();
            } else if chars[slots[k]] == '@' {
                fill[k] = " ".into();
            }
        }
    }
    let mut out = String::new();
    let mut quoted = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if quoted {
            if c == '"' {
                quoted = false;
            } else {
                out.push(c);
            }
        } else if let Some(k) = slots.iter().position(|&p| p == i) {
            out.push_str(&fill[k]);
        } else {
            match c {
                '"' => quoted = true,
                '\\' => {
                    if let Some(n) = chars.get(i + 1) {
                        out.push(*n);
                        i += 1;
                    }
                }
                '<' | '>' | '!' => {}
                _ => out.push(c),
            }
        }
        i += 1;
    }
    out
}

/// The literal text of a section (quotes removed, escapes resolved).
fn literal_text(section: &str) -> String {
    let mut out = String::new();
    let mut chars = section.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {}
            '\\' => out.extend(chars.next()),
            _ => out.push(c),
        }
    }
    out
}

/// A named format's pattern or text, `None` when `name` is not one.
fn named(v: &Value, x: Option<f64>, us: Option<i64>, name: &str) -> Option<Option<String>> {
    let lower = name.to_ascii_lowercase();
    let n = |p: &str| x.map(|x| number_pattern(x, p));
    let d = |f: fn(i64) -> String| us.map(f);
    let yn = |yes: &str, no: &str| x.map(|x| if x != 0.0 { yes } else { no }.to_string());
    Some(match lower.as_str() {
        "general number" => x.map(|x| general_number(x, 15)),
        "currency" => n("$#,##0.00;($#,##0.00)"),
        "fixed" => n("0.00"),
        "standard" => n("#,##0.00"),
        "percent" => n("0.00%"),
        "scientific" => n("0.00E+00"),
        "yes/no" => yn("Yes", "No"),
        "true/false" => yn("True", "False"),
        "on/off" => yn("On", "Off"),
        "general date" => d(super::value::general_date),
        "long date" => d(|u| long_date(&naive(u))),
        "medium date" => d(|u| format_date(u, &datefmt::lex("dd-mmm-yy"), 1, FirstWeek::Jan1)),
        "short date" => d(|u| short_date(&naive(u))),
        "long time" => d(|u| long_time(&naive(u))),
        "medium time" => d(|u| format_date(u, &datefmt::lex("hh:nn AM/PM"), 1, FirstWeek::Jan1)),
        "short time" => d(|u| {
            let t = naive(u);
            format!("{:02}:{:02}", t.hour(), t.minute())
        }),
        _ => {
            let _ = v;
            return None;
        }
    })
}

/// `Format(expression[, format[, firstdayofweek[, firstweekofyear]]])`.
fn format(c: &Call) -> Result<Value> {
    let v = c.arg(0);
    let pattern = match c.arg(1) {
        Value::Null => String::new(),
        other => to_text(other).unwrap_or_default(),
    };
    let first = first_day(c, 2)?;
    let rule = first_week(c, 3)?;
    if v.is_null() {
        let secs = sections(&pattern);
        return Ok(match secs.get(3) {
            Some(s) if kind(&pattern) == Kind::Number => Value::Text(literal_text(s)),
            _ => Value::Null,
        });
    }
    if pattern.is_empty() {
        return Ok(Value::Text(to_text(v).unwrap_or_default()));
    }
    // The value as a number and as a date, where it is one.
    let as_number = match v {
        Value::Text(t) => parse::number(t),
        other => to_f64(c.name, other).ok().flatten(),
    };
    let as_date = match v {
        Value::Date(us) => Some(*us),
        Value::Text(t) => parse::date(t)
            .or_else(|| parse::number(t).and_then(|n| serial_to_micros(c.name, n).ok())),
        _ => as_number.and_then(|n| serial_to_micros(c.name, n).ok()),
    };
    if let Some(out) = named(v, as_number, as_date, &pattern) {
        return Ok(match out {
            Some(s) => Value::Text(s),
            None => Value::Text(to_text(v).unwrap_or_default()),
        });
    }
    let text = match kind(&pattern) {
        Kind::Number => as_number.map(|x| number_pattern(x, &pattern)),
        Kind::Date => as_date.map(|us| {
            let section = sections(&pattern).swap_remove(0);
            format_date(us, &datefmt::lex(&section), first, rule)
        }),
        Kind::Text => Some(text_pattern(&to_text(v).unwrap_or_default(), &pattern)),
    };
    Ok(Value::Text(
        text.unwrap_or_else(|| to_text(v).unwrap_or_default()),
    ))
}

/// A tri-state argument (-1 True, 0 False, -2 default).
fn tristate(c: &Call, i: usize, label: &str, default: bool) -> Result<bool> {
    match c.int_or(i, label, -2)? {
        -2 => Ok(default),
        -1 => Ok(true),
        0 => Ok(false),
        v => Err(c.err(format!("argument {label} must be -2, -1 or 0, not {v}"))),
    }
}

/// The shared body of FormatNumber/FormatCurrency/FormatPercent: `x`
/// rounded half away from zero to the digits asked for (default 2).
fn format_fixed(
    c: &Call,
    x: f64,
    prefix: &str,
    suffix: &str,
    parens_default: bool,
) -> Result<String> {
    let digits = c.int_or(1, "NumDigitsAfterDecimal", -1)?;
    let digits = match digits {
        -1 => 2,
        d if (0..=99).contains(&d) => d as usize,
        d => {
            return Err(c.err(format!(
                "argument NumDigitsAfterDecimal must be -1 to 99, not {d}"
            )));
        }
    };
    let leading = tristate(c, 2, "IncludeLeadingDigit", true)?;
    let parens = tristate(c, 3, "UseParensForNegativeNumbers", parens_default)?;
    let grouping = tristate(c, 4, "GroupDigits", true)?;
    let (int, frac) = round_fixed(x, digits);
    let mut body = if grouping { group(&int) } else { int.clone() };
    if body.is_empty() && leading {
        body.push('0');
    }
    if digits > 0 {
        body.push('.');
        body.push_str(&frac);
    }
    let zero = int.is_empty() && frac.bytes().all(|b| b == b'0');
    let body = format!("{prefix}{body}{suffix}");
    Ok(if x < 0.0 && !zero {
        if parens {
            format!("({body})")
        } else {
            format!("-{body}")
        }
    } else {
        body
    })
}

fn format_number(c: &Call) -> Result<Value> {
    let x = c.num(0, "Expression")?;
    format_fixed(c, x, "", "", false).map(Value::Text)
}
fn format_currency(c: &Call) -> Result<Value> {
    let x = c.num(0, "Expression")?;
    format_fixed(c, x, "$", "", true).map(Value::Text)
}
fn format_percent(c: &Call) -> Result<Value> {
    let x = c.num(0, "Expression")? * 100.0;
    format_fixed(c, x, "", "%", false).map(Value::Text)
}

/// `FormatDateTime(date[, namedformat])`: 0 General Date, 1 Long Date,
/// 2 Short Date, 3 Long Time, 4 Short Time.
fn format_datetime(c: &Call) -> Result<Value> {
    let us = c.date(0, "Date")?;
    let dt = naive(us);
    Ok(Value::Text(match c.int_or(1, "NamedFormat", 0)? {
        0 => super::value::general_date(us),
        1 => long_date(&dt),
        2 => short_date(&dt),
        3 => long_time(&dt),
        4 => format!("{:02}:{:02}", dt.hour(), dt.minute()),
        v => return Err(c.err(format!("argument NamedFormat must be 0 to 4, not {v}"))),
    }))
}

/// The format functions.
pub fn functions() -> Vec<AccessScalar> {
    use types::*;
    vec![
        AccessScalar::new("Format", 1, 4, utf8, format)
            .nulls(NULL_NONE)
            .dollar(),
        AccessScalar::new("FormatNumber", 1, 5, utf8, format_number).nulls(NULL_ANY),
        AccessScalar::new("FormatCurrency", 1, 5, utf8, format_currency).nulls(NULL_ANY),
        AccessScalar::new("FormatPercent", 1, 5, utf8, format_percent).nulls(NULL_ANY),
        AccessScalar::new("FormatDateTime", 1, 2, utf8, format_datetime).nulls(NULL_ANY),
    ]
}

/// Formats a value as `Format(value, pattern)` does (for tests and
/// callers outside SQL).
pub fn format_value(v: &Value, pattern: &str) -> Result<Option<String>> {
    let args = [v.clone(), Value::Text(pattern.to_string())];
    let ret = datafusion::arrow::datatypes::DataType::Utf8;
    let call = Call {
        name: "Format",
        args: &args,
        ret: &ret,
    };
    Ok(to_text(&format(&call)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_kinds() {
        assert_eq!(kind("0.00"), Kind::Number);
        assert_eq!(kind("yyyy-mm-dd"), Kind::Date);
        assert_eq!(kind(">@@@"), Kind::Text);
        assert_eq!(kind("\"d\"0"), Kind::Number);
    }

    #[test]
    fn text_patterns() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/format-function-visual-basic-for-applications
        assert_eq!(text_pattern("Hello", "<"), "hello");
        assert_eq!(text_pattern("This is it", ">"), "THIS IS IT");
        assert_eq!(text_pattern("abc", "@@@@@"), "  abc");
        assert_eq!(text_pattern("abc", "!@@@@@"), "abc  ");
        assert_eq!(text_pattern("5551234", "@@@-@@@@"), "555-1234");
    }

    #[test]
    fn sections_pick() {
        assert_eq!(number_pattern(-5.0, "0;(0)"), "(5)");
        assert_eq!(number_pattern(0.0, "0;(0);\"zero\""), "zero");
        assert_eq!(number_pattern(-5.0, "0.00"), "-5.00");
    }
}
