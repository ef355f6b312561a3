//! `Format` and its friends FormatNumber, FormatCurrency, FormatPercent
//! and FormatDateTime, in the en-US locale (`$`, `,` thousands, `.`
//! decimal point, `m/d/yyyy` short dates, negative currency in
//! parentheses).
//!
//! A pattern is read by its first non-empty section: as a number pattern
//! when it has `0` or `#` placeholders, else as a text pattern when it
//! has the character placeholders `@` or `&`, else as a date pattern when
//! it has date letters, else as a text pattern when it has `<` or `>`.
//! The value is converted to suit: a number shown with a date pattern is
//! a serial date, a date with a number pattern its serial number; text
//! that is neither a number nor a date comes back unchanged.
//!
//! Every pattern may name a section's colour (`[Red]`), which text has no
//! place for and is removed, and a fill character (`*x`), dropped since a
//! result has no space around it to fill (Access's "Format property":
//! <https://learn.microsoft.com/office/vba/api/access.textbox.format>).
//! The named formats are VBA's plus `Euro`, the Access Format property's
//! Currency with the euro sign.
//!
//! `Format(Null, pattern)` is Null, except that a number pattern's fourth
//! section ("the fourth to Null values") and a text pattern's second
//! section ("the second to Null values and zero-length strings") are shown
//! for Null, as Microsoft's Format function page describes the sections.

use super::calendar::FirstWeek;
use super::date::{first_day, first_week};
use super::datefmt::{self, format_date, long_date, short_date};
use super::numfmt::{self, format_section, group, round_fixed, sections, strip_colors};
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

/// What a pattern formats (see the module comment): the kind of its
/// first non-empty section (`;0` is a number pattern like `0`).
fn kind(pattern: &str) -> Kind {
    let secs = sections(pattern);
    let first = secs
        .iter()
        .find(|s| !s.is_empty())
        .map_or("", String::as_str);
    let mut chars = first.chars();
    let mut date = false;
    let mut case = false;
    let mut placeholder = false;
    let mut quoted = false;
    while let Some(ch) = chars.next() {
        if quoted {
            quoted = ch != '"';
            continue;
        }
        match ch {
            '"' => quoted = true,
            // an escaped character and a fill character are text
            '\\' | '*' => {
                chars.next();
            }
            '0' | '#' => return Kind::Number,
            '@' | '&' => placeholder = true,
            '<' | '>' => case = true,
            c if "dDwWmMqQyYhHnNsStTcCaApP".contains(c) => date = true,
            _ => {}
        }
    }
    if placeholder {
        Kind::Text
    } else if date {
        Kind::Date
    } else if case {
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

/// A text value with a text pattern: the first section, or for a
/// zero-length string the second section when there is one ("the second
/// [applies] to Null values and zero-length strings").
fn text_pattern(s: &str, pattern: &str) -> String {
    let secs = sections(pattern);
    match secs.get(1) {
        Some(second) if s.is_empty() => text_section("", second),
        _ => text_section(s, &secs[0]),
    }
}

/// A piece of a text pattern section.
#[derive(Debug, PartialEq)]
enum TextTok {
    /// `@` (`true`: a character or a space) or `&` (`false`: a character
    /// or nothing).
    Slot(bool),
    /// Text shown as it is.
    Lit(String),
}

/// One section of a text pattern, as the Format function page's
/// "User-defined string formats" describe it: `@` a character or a
/// space, `&` a character or nothing, filled from right to left unless
/// the section has a `!` (then from left to right); `<` shows every
/// character in lower case, `>` in upper case (the later of the two
/// wins). Characters the placeholders have no room for go with the first
/// placeholder (with the last when filling from the left). Quoted text
/// and `\x` are literal; `*x` (a fill character) is dropped.
fn text_section(s: &str, section: &str) -> String {
    let mut toks: Vec<TextTok> = Vec::new();
    let mut left_to_right = false;
    let mut case: Option<bool> = None;
    let lit = |toks: &mut Vec<TextTok>, c: char| match toks.last_mut() {
        Some(TextTok::Lit(l)) => l.push(c),
        _ => toks.push(TextTok::Lit(c.to_string())),
    };
    let mut chars = section.chars();
    while let Some(c) = chars.next() {
        match c {
            '@' => toks.push(TextTok::Slot(true)),
            '&' => toks.push(TextTok::Slot(false)),
            '!' => left_to_right = true,
            '<' => case = Some(false),
            '>' => case = Some(true),
            '*' => {
                chars.next();
            }
            '\\' => {
                if let Some(e) = chars.next() {
                    lit(&mut toks, e);
                }
            }
            '"' => {
                for q in chars.by_ref() {
                    if q == '"' {
                        break;
                    }
                    lit(&mut toks, q);
                }
            }
            other => lit(&mut toks, other),
        }
    }
    let s = match case {
        Some(true) => s.to_uppercase(),
        Some(false) => s.to_lowercase(),
        None => s.to_string(),
    };
    let slots: Vec<bool> = toks
        .iter()
        .filter_map(|t| match t {
            TextTok::Slot(required) => Some(*required),
            TextTok::Lit(_) => None,
        })
        .collect();
    if slots.is_empty() {
        // no placeholder: the text, then the section's literal text
        let literal: String = toks
            .iter()
            .filter_map(|t| match t {
                TextTok::Lit(l) => Some(l.as_str()),
                TextTok::Slot(_) => None,
            })
            .collect();
        return format!("{s}{literal}");
    }
    let text: Vec<char> = s.chars().collect();
    let n = slots.len();
    // what each placeholder shows
    let mut fill: Vec<String> = vec![String::new(); n];
    if left_to_right {
        let mut next = text.iter();
        for (k, f) in fill.iter_mut().enumerate() {
            match next.next() {
                Some(c) => f.push(*c),
                None if slots[k] => f.push(' '),
                None => {}
            }
        }
        fill[n - 1].extend(next);
    } else {
        let mut end = text.len();
        for k in (0..n).rev() {
            if k == 0 {
                fill[0] = text[..end].iter().collect();
                if end == 0 && slots[0] {
                    fill[0].push(' ');
                }
            } else if end > 0 {
                end -= 1;
                fill[k].push(text[end]);
            } else if slots[k] {
                fill[k].push(' ');
            }
        }
    }
    let mut out = String::new();
    let mut fills = fill.into_iter();
    for t in &toks {
        match t {
            TextTok::Slot(_) => out.extend(fills.next()),
            TextTok::Lit(l) => out.push_str(l),
        }
    }
    out
}

/// The literal text of a section (quotes removed, escapes resolved, a
/// fill character `*x` and `!` dropped): what a number pattern's Null
/// section shows.
fn literal_text(section: &str) -> String {
    let mut out = String::new();
    let mut chars = section.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '!' => {}
            '\\' => out.extend(chars.next()),
            '*' => {
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// What `Format` shows for Null with `pattern`: the fourth section of a
/// number pattern, the second section of a text pattern (applied to a
/// zero-length string); `None` (Null) for every other pattern.
fn null_text(pattern: &str) -> Option<String> {
    let secs = sections(pattern);
    match kind(pattern) {
        Kind::Number => secs.get(3).map(String::as_str).map(literal_text),
        Kind::Text => secs.get(1).map(|s| text_section("", s)),
        Kind::Date => None,
    }
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
        // Currency with the euro sign "regardless of the currency symbol"
        // of the regional settings (Access's Format property)
        "euro" => n("€#,##0.00;(€#,##0.00)"),
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
        other => strip_colors(&to_text(other).unwrap_or_default()),
    };
    let first = first_day(c, 2)?;
    let rule = first_week(c, 3)?;
    if v.is_null() {
        return Ok(null_text(&pattern).map_or(Value::Null, Value::Text));
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
        // the first non-empty section decides: `ZLS` is text, not seconds
        assert_eq!(kind("@;ZLS"), Kind::Text);
        assert_eq!(kind(";(0)"), Kind::Number);
        // placeholders make a text pattern whatever letters it has
        assert_eq!(kind("@@ d"), Kind::Text);
        assert_eq!(kind("<"), Kind::Text);
        assert_eq!(kind("*d0"), Kind::Number);
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
    fn text_placeholders() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/format-function-visual-basic-for-applications
        // ("User-defined string formats"):
        // `@` shows a character or a space, `&` a character or nothing,
        // filled from right to left unless there is a `!`.
        assert_eq!(text_pattern("abc", "&&&&&"), "abc");
        assert_eq!(text_pattern("abc", "!&&&&&"), "abc");
        assert_eq!(text_pattern("ab", "@&@"), " ab");
        assert_eq!(text_pattern("ab", "!@&@"), "ab ");
        assert_eq!(text_pattern("ab", "&-@@"), "-ab");
        // characters beyond the placeholders stay (at the first one, or at
        // the last when filling from the left)
        assert_eq!(text_pattern("abcdef", "@@@"), "abcdef");
        assert_eq!(text_pattern("abcdef", "!@@@-@"), "abc-def");
        assert_eq!(text_pattern("abcdef", "@-@@@"), "abc-def");
        // `<` and `>` change every character of the text, the later wins
        assert_eq!(text_pattern("Hello", ">@@@@@@"), " HELLO");
        assert_eq!(text_pattern("Hello", "<>"), "HELLO");
        assert_eq!(text_pattern("Hello", "><"), "hello");
        // quoted and escaped placeholders are literal text
        assert_eq!(text_pattern("ab", "\"@\"@@"), "@ab");
        assert_eq!(text_pattern("ab", "\\&@@"), "&ab");
        // a fill character fills no space: `*` and its character go
        assert_eq!(text_pattern("ab", "@@*-"), "ab");
        // "Different formats for different string values": the second
        // section applies to Null values and zero-length strings
        assert_eq!(text_pattern("", "@;\"empty\""), "empty");
        assert_eq!(text_pattern("", "@;ZLS"), "ZLS");
        assert_eq!(text_pattern("x", "@;ZLS"), "x");
        assert_eq!(text_pattern("", "@@"), "  ");
    }

    fn fmt(v: Value, pattern: &str) -> Option<String> {
        format_value(&v, pattern).unwrap()
    }

    #[test]
    fn null_has_its_own_sections() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/format-function-visual-basic-for-applications
        // ("Different formats for different numeric values": four
        // sections, "the fourth to Null values"; for strings "the second
        // to Null values and zero-length strings")
        assert_eq!(
            fmt(Value::Null, "0.00;-0.00;\"Zero\";\"Null\""),
            Some("Null".into())
        );
        assert_eq!(fmt(Value::Null, "@;ZLS"), Some("ZLS".into()));
        assert_eq!(fmt(Value::Null, "@;\"none\""), Some("none".into()));
        // without such a section Null stays Null
        assert_eq!(fmt(Value::Null, "0.00;-0.00;\"Zero\""), None);
        assert_eq!(fmt(Value::Null, "@"), None);
        assert_eq!(fmt(Value::Null, "yyyy;\"x\""), None);
        assert_eq!(fmt(Value::Null, "Currency"), None);
        assert_eq!(fmt(Value::Null, ""), None);
    }

    #[test]
    fn euro_colors_and_fill() {
        // "Format property - Number and Currency data types"
        // (https://learn.microsoft.com/office/vba/api/access.format.propertynumber.and.currency):
        // Euro is Currency with the euro sign; the custom format
        // $#,##0.00[Green];($#,##0.00)[Red];"Zero";"Null" has a colour,
        // which text leaves out, in its first two sections.
        assert_eq!(fmt(Value::Double(1234.5), "Euro"), Some("€1,234.50".into()));
        assert_eq!(
            fmt(Value::Double(-1234.5), "euro"),
            Some("(€1,234.50)".into())
        );
        assert_eq!(fmt(Value::Int(0), "Euro"), Some("€0.00".into()));
        let p = "$#,##0.00[Green];($#,##0.00)[Red];\"Zero\";\"Null\"";
        assert_eq!(fmt(Value::Double(1234.5), p), Some("$1,234.50".into()));
        assert_eq!(fmt(Value::Double(-5.0), p), Some("($5.00)".into()));
        assert_eq!(fmt(Value::Int(0), p), Some("Zero".into()));
        assert_eq!(fmt(Value::Null, p), Some("Null".into()));
        // colours in text and date patterns, and before a section's text
        assert_eq!(
            fmt(Value::Text("abc".into()), "[Blue]>@@@@"),
            Some(" ABC".into())
        );
        let d = super::super::value::date_micros("t", 1993, 1, 27).unwrap();
        assert_eq!(fmt(Value::Date(d), "[Red]yyyy"), Some("1993".into()));
        // a fill character and `!` take no room in a date either
        assert_eq!(fmt(Value::Date(d), "!yyyy*-"), Some("1993".into()));
    }

    #[test]
    fn sections_pick() {
        assert_eq!(number_pattern(-5.0, "0;(0)"), "(5)");
        assert_eq!(number_pattern(0.0, "0;(0);\"zero\""), "zero");
        assert_eq!(number_pattern(-5.0, "0.00"), "-5.00");
    }
}
