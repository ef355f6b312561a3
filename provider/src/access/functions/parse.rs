//! Reading numbers and dates out of text as Access does in the en-US
//! locale: `CDbl`/`CDate`'s whole-string rules and `Val`'s prefix rule.
//!
//! A date written without its year (`1/2`, `January 2`, `2-Jan`) is in
//! the current year of the machine's clock, as Microsoft's DateValue page
//! says. The functions that read text dates are immutable, so a constant
//! such as `CDate('1/2')` is folded with the year of the moment the
//! statement is planned; a column's text is read with the year of the
//! moment the row is.

use super::serial::{DAY_US, SERIAL_EPOCH_DAYS, from_naive};
use chrono::{Datelike, Local, NaiveDate};

/// The number a whole string spells (surrounding spaces allowed): an
/// optional sign and `$`, digits with `,` thousands separators, a `.`
/// decimal point, an exponent (`E` or `D`), or `&H`/`&O` hexadecimal and
/// octal. `None` when the text is not a number.
pub fn number(t: &str) -> Option<f64> {
    let s = t.trim_matches(|c: char| c == ' ' || c == '\t');
    if s.is_empty() {
        return None;
    }
    if let Some(v) = radix_literal(s) {
        return (v.1 == s.len()).then_some(v.0);
    }
    let (neg, rest) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let rest = rest.strip_prefix('$').unwrap_or(rest).trim_start();
    let mut clean = String::with_capacity(rest.len());
    let mut seen_digit = false;
    let mut seen_point = false;
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' => {
                seen_digit = true;
                clean.push(c);
            }
            ',' if !seen_point && seen_digit => {}
            '.' if !seen_point => {
                seen_point = true;
                clean.push('.');
            }
            'e' | 'E' | 'd' | 'D' if seen_digit => {
                clean.push('e');
                if let Some(&sign) = chars.peek()
                    && (sign == '+' || sign == '-')
                {
                    clean.push(sign);
                    chars.next();
                }
                let mut exp_digit = false;
                for c in chars.by_ref() {
                    if c.is_ascii_digit() {
                        exp_digit = true;
                        clean.push(c);
                    } else {
                        return None;
                    }
                }
                if !exp_digit {
                    return None;
                }
            }
            _ => return None,
        }
    }
    if !seen_digit {
        return None;
    }
    let v: f64 = clean.parse().ok()?;
    Some(if neg { -v } else { v })
}

/// `&H…` / `&O…` at the start of `s`: the value (four digits or fewer
/// are an Integer, eight or fewer a Long, so `&HFFFF` is -1) and the bytes
/// read.
fn radix_literal(s: &str) -> Option<(f64, usize)> {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'&' {
        return None;
    }
    let (radix, start) = match b[1] {
        b'h' | b'H' => (16, 2),
        b'o' | b'O' => (8, 2),
        b'0'..=b'7' => (8, 1),
        _ => return None,
    };
    let digits: usize = s[start..].chars().take_while(|c| c.is_digit(radix)).count();
    if digits == 0 {
        return None;
    }
    let v = u64::from_str_radix(&s[start..start + digits], radix).ok()?;
    let v = if v <= 0xFFFF {
        v as u16 as i16 as f64
    } else if v <= 0xFFFF_FFFF {
        v as u32 as i32 as f64
    } else {
        return None;
    };
    Some((v, start + digits))
}

/// `Val`: the number at the start of the text, skipping spaces, tabs and
/// line feeds anywhere; reading stops at the first character that cannot
/// continue a number; 0 when there is none.
pub fn val(t: &str) -> f64 {
    let squeezed: String = t
        .chars()
        .filter(|c| !matches!(c, ' ' | '\t' | '\n' | '\r'))
        .collect();
    if let Some((v, _)) = radix_literal(&squeezed) {
        return v;
    }
    let b = squeezed.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
        end += 1;
    }
    let mut digits = 0;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
        digits += 1;
    }
    if end < b.len() && b[end] == b'.' {
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return 0.0;
    }
    let mut text = squeezed[..end].replace(['d', 'D'], "e");
    if end < b.len() && matches!(b[end], b'e' | b'E' | b'd' | b'D') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'-' || b[e] == b'+') {
            e += 1;
        }
        let first = e;
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        if e > first {
            text = format!("{}e{}", &squeezed[..end], &squeezed[end + 1..e]);
        }
    }
    text.trim_end_matches('.').parse().unwrap_or(0.0)
}

#[derive(Debug, PartialEq)]
enum Tok {
    Num(u32, usize),
    Word(String),
    Colon,
    Point,
}

fn tokens(t: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = t.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_digit() {
            let mut v: u32 = 0;
            let mut n = 0;
            while let Some(&d) = chars.peek() {
                match d.to_digit(10) {
                    Some(x) => {
                        v = v.checked_mul(10)?.checked_add(x)?;
                        n += 1;
                        chars.next();
                    }
                    None => break,
                }
            }
            out.push(Tok::Num(v, n));
        } else if c.is_alphabetic() {
            let mut w = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_alphabetic() {
                    w.extend(d.to_lowercase());
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Tok::Word(w));
        } else {
            chars.next();
            match c {
                ':' => out.push(Tok::Colon),
                '.' => out.push(Tok::Point),
                ' ' | '\t' | ',' | '/' | '-' => {}
                _ => return None,
            }
        }
    }
    Some(out)
}

/// The month a word names (full or three-letter en-US name).
pub fn month_word(w: &str) -> Option<u32> {
    const NAMES: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    NAMES
        .iter()
        .position(|n| w == *n || (w.len() >= 3 && n.starts_with(w)))
        .map(|i| i as u32 + 1)
}

fn weekday_word(w: &str) -> bool {
    const NAMES: [&str; 7] = [
        "sunday",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
    ];
    NAMES.iter().any(|n| w.len() >= 3 && n.starts_with(w))
}

/// A two-digit year as Access reads it: 0–29 are 2000–2029, 30–99 are
/// 1930–1999.
pub fn window_year(y: u32, digits: usize) -> i32 {
    if digits <= 2 {
        if y < 30 {
            2000 + y as i32
        } else {
            1900 + y as i32
        }
    } else {
        y as i32
    }
}

/// The current year of the machine's clock (local time): the year of a
/// date written without one.
pub fn current_year() -> i32 {
    Local::now().year()
}

/// A date and/or time in en-US text (`1/5/1998`, `1998-01-05 17:30:00`,
/// `January 5, 1998`, `5-Jan-98`, `5:30 PM`), as engine microseconds; a
/// time alone is on 1899-12-30, a month and day without a year (`1/5`,
/// `January 5`, `5-Jan`) are in the current year. `None` when the text
/// is not a date.
pub fn date(t: &str) -> Option<i64> {
    date_in(t, current_year)
}

/// Whether the date part of `t` (before a time's first `:`) separates
/// its numbers with the date separators `/` or `-`, not with `,` or `.`
/// (which numbers use), so that two numbers read as a month and a day:
/// `1/2` is a date, `1.2` and `1,2` are not.
fn date_separated(t: &str) -> bool {
    let date_part = t.split(':').next().unwrap_or(t);
    date_part.contains(['/', '-']) && !date_part.contains([',', '.'])
}

/// [`date`], with `this_year` giving the year of a date written without
/// one (asked only then).
pub fn date_in(t: &str, this_year: fn() -> i32) -> Option<i64> {
    let toks = tokens(t.trim())?;
    // Split off the time: NUM ':' NUM [':' NUM ['.' NUM]] [AM|PM].
    let mut date_toks: Vec<&Tok> = Vec::new();
    let mut time: Option<(u32, u32, u32, u32)> = None;
    let mut ampm: Option<bool> = None;
    let mut i = 0;
    let mut has_iso_t = false;
    while i < toks.len() {
        match (&toks[i], toks.get(i + 1), toks.get(i + 2)) {
            (Tok::Num(h, _), Some(Tok::Colon), Some(Tok::Num(m, _))) if time.is_none() => {
                let (mut s, mut us) = (0, 0);
                i += 3;
                if let (Some(Tok::Colon), Some(Tok::Num(sv, _))) = (toks.get(i), toks.get(i + 1)) {
                    s = *sv;
                    i += 2;
                    if let (Some(Tok::Point), Some(Tok::Num(f, n))) = (toks.get(i), toks.get(i + 1))
                    {
                        let n = (*n).min(6);
                        let f = f.to_string();
                        us = f[..n.min(f.len())].parse::<u32>().ok()? * 10u32.pow((6 - n) as u32);
                        i += 2;
                    }
                }
                time = Some((*h, m.to_owned(), s, us));
            }
            (Tok::Word(w), _, _) if w == "am" || w == "a" || w == "pm" || w == "p" => {
                ampm = Some(w.starts_with('p'));
                i += 1;
            }
            (Tok::Word(w), _, _) if w == "t" => {
                has_iso_t = true;
                i += 1;
            }
            (Tok::Point, _, _) => i += 1,
            (Tok::Colon, _, _) => return None,
            (tok, _, _) => {
                date_toks.push(tok);
                i += 1;
            }
        }
    }
    let _ = has_iso_t;
    // "5 PM": an hour alone before AM/PM.
    if time.is_none() && ampm.is_some() {
        if let Some(Tok::Num(h, _)) = date_toks.last()
            && *h <= 12
        {
            time = Some((*h, 0, 0, 0));
            date_toks.pop();
        } else {
            return None;
        }
    }
    let tod = match time {
        None => 0,
        Some((mut h, m, s, us)) => {
            if let Some(pm) = ampm {
                if h == 0 || h > 12 {
                    return None;
                }
                h = match (pm, h) {
                    (false, 12) => 0,
                    (true, 12) => 12,
                    (true, h) => h + 12,
                    (false, h) => h,
                };
            }
            if h > 23 || m > 59 || s > 59 {
                return None;
            }
            (h as i64 * 3600 + m as i64 * 60 + s as i64) * 1_000_000 + us as i64
        }
    };
    let mut nums = Vec::new();
    let mut month: Option<u32> = None;
    for tok in date_toks {
        match tok {
            Tok::Num(v, n) => nums.push((*v, *n)),
            Tok::Word(w) if weekday_word(w) && month_word(w).is_none() => {}
            Tok::Word(w) => {
                if month.is_some() {
                    return None;
                }
                month = Some(month_word(w)?);
            }
            _ => return None,
        }
    }
    let (y, m, d) = match (month, nums.as_slice()) {
        (None, []) => {
            return time.map(|_| -SERIAL_EPOCH_DAYS * DAY_US + tod);
        }
        (None, [(a, an), (b, _), (c, cn)]) => {
            if *an >= 3 {
                (*a as i32, *b, *c)
            } else {
                (window_year(*c, *cn), *a, *b)
            }
        }
        (Some(m), [(a, an), (b, bn)]) => {
            if *an >= 3 || *a > 31 {
                (window_year(*a, *an), m, *b)
            } else {
                (window_year(*b, *bn), m, *a)
            }
        }
        // no year: "If the year part of date is omitted, DateValue uses
        // the current year from your computer's system date" (Microsoft's
        // DateValue page)
        (None, [(a, an), (b, bn)]) if *an <= 2 && *bn <= 2 && date_separated(t) => {
            (this_year(), *a, *b)
        }
        (Some(m), [(a, an)]) if *an <= 2 => (this_year(), m, *a),
        _ => return None,
    };
    let date = NaiveDate::from_ymd_opt(y, m, d)?;
    if !(100..=9999).contains(&y) {
        return None;
    }
    Some(from_naive(date.and_hms_opt(0, 0, 0)?) + tod)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_whole_string() {
        assert_eq!(number(" 1,234.5 "), Some(1234.5));
        assert_eq!(number("&H1F"), Some(31.0));
        assert_eq!(number("&HFFFF"), Some(-1.0));
        assert_eq!(number("-1.5E3"), Some(-1500.0));
        assert_eq!(number("12abc"), None);
        assert_eq!(number(""), None);
        assert_eq!(number("e5"), None);
    }

    #[test]
    fn val_prefix() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/val-function
        assert_eq!(val("    1615 198th Street N.E."), 1_615_198.0);
        assert_eq!(val("&HFFFF"), -1.0);
        assert_eq!(val("  12abc"), 12.0);
        assert_eq!(val("abc"), 0.0);
        assert_eq!(val("1.5e2x"), 150.0);
        assert_eq!(val("2."), 2.0);
    }

    /// Midnight of `y-m-dd` as a Date/Time value.
    fn d(y: i32, m: u32, dd: u32) -> i64 {
        from_naive(
            NaiveDate::from_ymd_opt(y, m, dd)
                .unwrap()
                .and_hms_opt(0, 0, 0)
                .unwrap(),
        )
    }

    #[test]
    fn dates() {
        assert_eq!(date("1/5/1998"), Some(d(1998, 1, 5)));
        assert_eq!(date("1998-01-05"), Some(d(1998, 1, 5)));
        assert_eq!(date("January 5, 1998"), Some(d(1998, 1, 5)));
        assert_eq!(date("5-Jan-98"), Some(d(1998, 1, 5)));
        assert_eq!(date("Monday, January 5, 1998"), Some(d(1998, 1, 5)));
        assert_eq!(date("2/30/1998"), None);
        assert_eq!(
            date("1/5/1998 5:30 PM"),
            Some(d(1998, 1, 5) + (17 * 3600 + 30 * 60) * 1_000_000)
        );
        assert_eq!(
            date("17:30:15"),
            Some(d(1899, 12, 30) + (17 * 3600 + 30 * 60 + 15) * 1_000_000)
        );
        assert_eq!(date("hello"), None);
        assert_eq!(date("13:00 PM"), None);
    }

    #[test]
    fn dates_without_a_year_are_in_the_current_year() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/datevalue-function
        // "If the year part of date is omitted, DateValue uses the current
        // year from your computer's system date."
        let in_2024 = |t: &str| date_in(t, || 2024);
        assert_eq!(in_2024("01/02"), Some(d(2024, 1, 2)));
        assert_eq!(in_2024("1-2"), Some(d(2024, 1, 2)));
        assert_eq!(in_2024("February 12"), Some(d(2024, 2, 12)));
        assert_eq!(in_2024("12-Feb"), Some(d(2024, 2, 12)));
        assert_eq!(in_2024("Feb 29"), Some(d(2024, 2, 29)));
        assert_eq!(date_in("Feb 29", || 2023), None);
        assert_eq!(
            in_2024("1/2 4:35 PM"),
            Some(d(2024, 1, 2) + (16 * 3600 + 35 * 60) * 1_000_000)
        );
        assert_eq!(
            in_2024("1/2 4:35:10.5"),
            Some(d(2024, 1, 2) + (4 * 3600 + 35 * 60 + 10) * 1_000_000 + 500_000)
        );
        // not month and day: numbers, impossible days, a lone month
        assert_eq!(in_2024("1.2"), None);
        assert_eq!(in_2024("1,2"), None);
        assert_eq!(in_2024("1 2"), None);
        assert_eq!(in_2024("13/1"), None);
        assert_eq!(in_2024("1/32"), None);
        assert_eq!(in_2024("2024-01"), None);
        assert_eq!(in_2024("May"), None);
        // a written year is kept
        assert_eq!(in_2024("1/2/1998"), Some(d(1998, 1, 2)));
        // the clock's year when none is given
        assert_eq!(date("1/2"), Some(d(current_year(), 1, 2)));
    }
}
