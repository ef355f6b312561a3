//! Text functions: Len, Left, Right, Mid, InStr, InStrRev, UCase, LCase,
//! Trim, LTrim, RTrim, Space, String, Replace, StrComp, StrReverse,
//! StrConv, Asc, AscW, Chr, ChrW, Hex, Oct, Val, Str.
//!
//! Positions and lengths count characters (Unicode scalar values; the
//! same as Access's UTF-16 units for all text in the Basic Multilingual
//! Plane), 1-based. Comparisons default to Access SQL's text compare
//! (case-insensitive), as in a database whose Option Compare is Database.

use super::parse;
use super::types;
use super::udf::{AccessScalar, Call, NULL_ANY, NULL_FIRST, NULL_NONE};
use super::value::{Value, to_f64, to_text};
use datafusion::error::Result;

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

fn len(c: &Call) -> Result<Value> {
    Ok(Value::Int(c.text(0, "String")?.chars().count() as i64))
}

fn length_arg(c: &Call, i: usize) -> Result<usize> {
    let n = c.int(i, "Length")?;
    if n < 0 {
        return Err(c.err("argument Length must be ≥ 0"));
    }
    Ok(n as usize)
}

fn left(c: &Call) -> Result<Value> {
    let s = c.text(0, "String")?;
    let n = length_arg(c, 1)?;
    Ok(Value::Text(s.chars().take(n).collect()))
}

fn right(c: &Call) -> Result<Value> {
    let s = chars(&c.text(0, "String")?);
    let n = length_arg(c, 1)?.min(s.len());
    Ok(Value::Text(s[s.len() - n..].iter().collect()))
}

/// `Mid(string, start[, length])`: characters from `start` (≥ 1); empty
/// past the end.
pub(crate) fn mid(c: &Call) -> Result<Value> {
    let s = c.text(0, "String")?;
    let start = c.int(1, "Start")?;
    if start < 1 {
        return Err(c.err("argument Start must be ≥ 1"));
    }
    let take = if c.has(2) {
        length_arg(c, 2)?
    } else {
        usize::MAX
    };
    let skip = usize::try_from(start - 1).unwrap_or(usize::MAX);
    Ok(Value::Text(s.chars().skip(skip).take(take).collect()))
}

/// Compare mode: 0 binary, 1 text (default), 2 database (= text).
fn compare_arg(c: &Call, i: usize) -> Result<bool> {
    if !c.has(i) {
        return Ok(true);
    }
    match c.int(i, "Compare")? {
        0 => Ok(false),
        1 | 2 | -1 => Ok(true),
        v => Err(c.err(format!("argument Compare must be 0, 1 or 2, not {v}"))),
    }
}

fn fold(s: &str, text: bool) -> Vec<char> {
    if text {
        s.chars().flat_map(char::to_lowercase).collect()
    } else {
        s.chars().collect()
    }
}

/// Position of `needle` in `hay` at or after index `from` (0-based).
fn find_from(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

/// `InStr([start, ]string1, string2[, compare])`.
fn instr(c: &Call) -> Result<Value> {
    let (start, base) = if c.args.len() >= 3 {
        (c.int(0, "Start")?, 1)
    } else {
        (1, 0)
    };
    if start < 1 {
        return Err(c.err("argument Start must be ≥ 1"));
    }
    let (Some(s1), Some(s2)) = (to_text(c.arg(base)), to_text(c.arg(base + 1))) else {
        return Ok(Value::Null);
    };
    let text = compare_arg(c, base + 2)?;
    let (hay, needle) = (fold(&s1, text), fold(&s2, text));
    let from = (start - 1) as usize;
    if from > hay.len() {
        return Ok(Value::Int(0));
    }
    if needle.is_empty() {
        return Ok(Value::Int(start));
    }
    Ok(Value::Int(
        find_from(&hay, &needle, from).map_or(0, |i| i as i64 + 1),
    ))
}

/// `InStrRev(string1, string2[, start[, compare]])`: the last match
/// ending at or before `start` (-1 = the end).
fn instrrev(c: &Call) -> Result<Value> {
    let (Some(s1), Some(s2)) = (to_text(c.arg(0)), to_text(c.arg(1))) else {
        return Ok(Value::Null);
    };
    let start = c.int_or(2, "Start", -1)?;
    if start == 0 || start < -1 {
        return Err(c.err("argument Start must be ≥ 1 or -1"));
    }
    let text = compare_arg(c, 3)?;
    let (hay, needle) = (fold(&s1, text), fold(&s2, text));
    let end = if start == -1 {
        hay.len()
    } else {
        let s = start as usize;
        if s > hay.len() {
            return Ok(Value::Int(0));
        }
        s
    };
    if needle.is_empty() {
        return Ok(Value::Int(end as i64));
    }
    if needle.len() > end {
        return Ok(Value::Int(0));
    }
    let found = (0..=end - needle.len())
        .rev()
        .find(|&i| hay[i..i + needle.len()] == *needle);
    Ok(Value::Int(found.map_or(0, |i| i as i64 + 1)))
}

fn ucase(c: &Call) -> Result<Value> {
    Ok(Value::Text(c.text(0, "String")?.to_uppercase()))
}
fn lcase(c: &Call) -> Result<Value> {
    Ok(Value::Text(c.text(0, "String")?.to_lowercase()))
}
fn trim(c: &Call) -> Result<Value> {
    Ok(Value::Text(c.text(0, "String")?.trim_matches(' ').into()))
}
fn ltrim(c: &Call) -> Result<Value> {
    Ok(Value::Text(
        c.text(0, "String")?.trim_start_matches(' ').into(),
    ))
}
fn rtrim(c: &Call) -> Result<Value> {
    Ok(Value::Text(
        c.text(0, "String")?.trim_end_matches(' ').into(),
    ))
}

/// Longest text a function builds (guards Space/String against huge
/// counts).
const MAX_BUILT: i64 = 1 << 26;

fn count_arg(c: &Call, i: usize) -> Result<usize> {
    let n = c.int(i, "Number")?;
    if n < 0 {
        return Err(c.err("argument Number must be ≥ 0"));
    }
    if n > MAX_BUILT {
        return Err(c.err(format!("argument Number must be ≤ {MAX_BUILT}")));
    }
    Ok(n as usize)
}

fn space(c: &Call) -> Result<Value> {
    Ok(Value::Text(" ".repeat(count_arg(c, 0)?)))
}

/// `String(number, character)`: a character code or the first character
/// of text, repeated.
fn string(c: &Call) -> Result<Value> {
    let n = count_arg(c, 0)?;
    let ch = match c.arg(1) {
        Value::Text(t) => t
            .chars()
            .next()
            .ok_or_else(|| c.err("argument Character is an empty string"))?,
        _ => {
            let code = c.int(1, "Character")?.rem_euclid(256);
            chr_ansi(code).ok_or_else(|| c.err("argument Character is not a character code"))?
        }
    };
    Ok(Value::Text(std::iter::repeat_n(ch, n).collect()))
}

/// `Replace(expression, find, replace[, start[, count[, compare]]])`: the
/// text from `start` on with up to `count` (-1 = all) replacements.
fn replace(c: &Call) -> Result<Value> {
    let s = chars(&c.text(0, "Expression")?);
    let find = c.text(1, "Find")?;
    let repl = c.text(2, "Replace")?;
    let start = c.int_or(3, "Start", 1)?;
    if start < 1 {
        return Err(c.err("argument Start must be ≥ 1"));
    }
    let count = c.int_or(4, "Count", -1)?;
    if count < -1 {
        return Err(c.err("argument Count must be ≥ -1"));
    }
    let text = compare_arg(c, 5)?;
    let from = ((start - 1) as usize).min(s.len());
    let tail = &s[from..];
    let needle = fold(&find, text);
    if needle.is_empty() || count == 0 {
        return Ok(Value::Text(tail.iter().collect()));
    }
    let hay = fold(&tail.iter().collect::<String>(), text);
    // Case folding may change lengths; fall back to exact positions then.
    let hay = if hay.len() == tail.len() {
        hay
    } else {
        tail.to_vec()
    };
    let mut out = String::new();
    let mut i = 0;
    let mut done = 0;
    while i < tail.len() {
        if (count < 0 || done < count)
            && i + needle.len() <= hay.len()
            && hay[i..i + needle.len()] == *needle
        {
            out.push_str(&repl);
            i += needle.len();
            done += 1;
        } else {
            out.push(tail[i]);
            i += 1;
        }
    }
    Ok(Value::Text(out))
}

fn strcomp(c: &Call) -> Result<Value> {
    let a = c.text(0, "String1")?;
    let b = c.text(1, "String2")?;
    let text = compare_arg(c, 2)?;
    let ord = fold(&a, text).cmp(&fold(&b, text));
    Ok(Value::Int(ord as i64))
}

fn strreverse(c: &Call) -> Result<Value> {
    Ok(Value::Text(
        c.text(0, "Expression")?.chars().rev().collect(),
    ))
}

/// Proper case: the first letter of every word upper case, the rest lower
/// (words are separated by space, tab, line feed, carriage return, form
/// feed and Chr(0)).
pub fn proper_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut at_start = true;
    for ch in s.chars() {
        if matches!(ch, ' ' | '\t' | '\n' | '\r' | '\u{c}' | '\0') {
            at_start = true;
            out.push(ch);
        } else if at_start {
            out.extend(ch.to_uppercase());
            at_start = false;
        } else {
            out.extend(ch.to_lowercase());
        }
    }
    out
}

fn strconv(c: &Call) -> Result<Value> {
    let s = c.text(0, "String")?;
    Ok(Value::Text(match c.int(1, "Conversion")? {
        1 => s.to_uppercase(),
        2 => s.to_lowercase(),
        3 => proper_case(&s),
        v => {
            return Err(c.err(format!(
                "conversion {v} is not supported (1 vbUpperCase, 2 vbLowerCase, 3 vbProperCase)"
            )));
        }
    }))
}

/// Windows-1252's characters for bytes 0x80–0x9F (None where undefined).
const CP1252_HIGH: [Option<char>; 32] = [
    Some('€'),
    None,
    Some('‚'),
    Some('ƒ'),
    Some('„'),
    Some('…'),
    Some('†'),
    Some('‡'),
    Some('ˆ'),
    Some('‰'),
    Some('Š'),
    Some('‹'),
    Some('Œ'),
    None,
    Some('Ž'),
    None,
    None,
    Some('‘'),
    Some('’'),
    Some('“'),
    Some('”'),
    Some('•'),
    Some('–'),
    Some('—'),
    Some('˜'),
    Some('™'),
    Some('š'),
    Some('›'),
    Some('œ'),
    None,
    Some('ž'),
    Some('Ÿ'),
];

/// The en-US (Windows-1252) character of an ANSI code.
pub fn chr_ansi(code: i64) -> Option<char> {
    match code {
        0..=127 | 160..=255 => char::from_u32(code as u32),
        128..=159 => CP1252_HIGH[(code - 128) as usize].or(char::from_u32(code as u32)),
        _ => None,
    }
}

/// The ANSI code of a character (63, `?`, when Windows-1252 lacks it).
pub fn asc_ansi(ch: char) -> i64 {
    let u = ch as u32;
    if u < 128 || (160..256).contains(&u) {
        return u as i64;
    }
    CP1252_HIGH
        .iter()
        .position(|c| *c == Some(ch))
        .map_or(63, |i| i as i64 + 128)
}

fn first_char(c: &Call) -> Result<char> {
    c.text(0, "String")?
        .chars()
        .next()
        .ok_or_else(|| c.err("argument String is an empty string"))
}

fn asc(c: &Call) -> Result<Value> {
    Ok(Value::Int(asc_ansi(first_char(c)?)))
}

fn ascw(c: &Call) -> Result<Value> {
    let ch = first_char(c)?;
    let mut buf = [0u16; 2];
    let unit = ch.encode_utf16(&mut buf)[0];
    Ok(Value::Int(unit as i16 as i64))
}

fn chr(c: &Call) -> Result<Value> {
    let code = c.int(0, "CharCode")?;
    chr_ansi(code)
        .map(|ch| Value::Text(ch.to_string()))
        .ok_or_else(|| c.err("argument CharCode must be 0 to 255"))
}

fn chrw(c: &Call) -> Result<Value> {
    let code = c.int(0, "CharCode")?;
    if !(-32768..=65535).contains(&code) {
        return Err(c.err("argument CharCode must be -32768 to 65535"));
    }
    char::from_u32(code.rem_euclid(65536) as u32)
        .map(|ch| Value::Text(ch.to_string()))
        .ok_or_else(|| c.err("argument CharCode is a lone surrogate"))
}

/// Hex/Oct digits of a whole number: negatives in two's complement of 16
/// bits (Integer range), 32 bits (Long range) or 64 bits.
fn radix_text(c: &Call, radix: u32) -> Result<Value> {
    let n = c.int(0, "Number")?;
    let bits: u64 = if n >= 0 {
        n as u64
    } else if n >= -32768 {
        (n as i16 as u16) as u64
    } else if n >= i32::MIN as i64 {
        (n as i32 as u32) as u64
    } else {
        n as u64
    };
    Ok(Value::Text(match radix {
        16 => format!("{bits:X}"),
        _ => format!("{bits:o}"),
    }))
}

fn hex(c: &Call) -> Result<Value> {
    radix_text(c, 16)
}
fn oct(c: &Call) -> Result<Value> {
    radix_text(c, 8)
}

fn val(c: &Call) -> Result<Value> {
    Ok(Value::Double(parse::val(&c.text(0, "String")?)))
}

/// `Str(number)`: the number's text with a leading space for positive
/// numbers (the sign's place).
fn str_fn(c: &Call) -> Result<Value> {
    let v = c.arg(0);
    let n = to_f64(c.name, v)?.unwrap_or(0.0);
    let text = match v {
        Value::Text(_) | Value::Bool(_) | Value::Date(_) => to_text(&Value::Double(n)),
        other => to_text(other),
    }
    .unwrap_or_default();
    Ok(Value::Text(if n >= 0.0 && !text.starts_with('-') {
        format!(" {text}")
    } else {
        text
    }))
}

/// The text functions.
pub fn functions() -> Vec<AccessScalar> {
    use types::*;
    vec![
        AccessScalar::new("Len", 1, 1, int32, len),
        AccessScalar::new("Left", 2, 2, utf8, left)
            .nulls(NULL_FIRST)
            .dollar(),
        AccessScalar::new("Right", 2, 2, utf8, right)
            .nulls(NULL_FIRST)
            .dollar(),
        AccessScalar::new("Mid", 2, 3, utf8, mid)
            .nulls(NULL_FIRST)
            .dollar(),
        AccessScalar::new("InStr", 2, 4, int32, instr).nulls(NULL_NONE),
        AccessScalar::new("InStrRev", 2, 4, int32, instrrev).nulls(NULL_NONE),
        AccessScalar::new("UCase", 1, 1, utf8, ucase).dollar(),
        AccessScalar::new("LCase", 1, 1, utf8, lcase).dollar(),
        AccessScalar::new("Trim", 1, 1, utf8, trim).dollar(),
        AccessScalar::new("LTrim", 1, 1, utf8, ltrim).dollar(),
        AccessScalar::new("RTrim", 1, 1, utf8, rtrim).dollar(),
        AccessScalar::new("Space", 1, 1, utf8, space).dollar(),
        AccessScalar::new("String", 2, 2, utf8, string).dollar(),
        AccessScalar::new("Replace", 3, 6, utf8, replace).nulls(NULL_ANY),
        AccessScalar::new("StrComp", 2, 3, int16, strcomp),
        AccessScalar::new("StrReverse", 1, 1, utf8, strreverse),
        AccessScalar::new("StrConv", 2, 3, utf8, strconv).nulls(NULL_FIRST),
        AccessScalar::new("Asc", 1, 1, int16, asc),
        AccessScalar::new("AscW", 1, 1, int16, ascw),
        AccessScalar::new("Chr", 1, 1, utf8, chr).dollar(),
        AccessScalar::new("ChrW", 1, 1, utf8, chrw).dollar(),
        AccessScalar::new("Hex", 1, 1, utf8, hex).dollar(),
        AccessScalar::new("Oct", 1, 1, utf8, oct).dollar(),
        AccessScalar::new("Val", 1, 1, float64, val),
        AccessScalar::new("Str", 1, 1, utf8, str_fn).dollar(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::DataType;

    fn run(f: fn(&Call) -> Result<Value>, args: &[Value]) -> Value {
        let ret = DataType::Utf8;
        f(&Call {
            name: "t",
            args,
            ret: &ret,
        })
        .unwrap()
    }

    #[test]
    fn trims_spaces_only() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/ltrim-rtrim-and-trim-functions
        // (in a plain DataFusion session TRIM(...) is SQL syntax, so the
        // slt files reach this function only through the Access dialect)
        let s = Value::Text("  <-Trim->  ".into());
        assert_eq!(
            run(trim, std::slice::from_ref(&s)),
            Value::Text("<-Trim->".into())
        );
        assert_eq!(
            run(ltrim, std::slice::from_ref(&s)),
            Value::Text("<-Trim->  ".into())
        );
        assert_eq!(
            run(rtrim, std::slice::from_ref(&s)),
            Value::Text("  <-Trim->".into())
        );
        let tab = Value::Text("\tx ".into());
        assert_eq!(run(trim, &[tab]), Value::Text("\tx".into()));
    }
}
