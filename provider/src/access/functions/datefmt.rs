//! Date patterns of `Format`: `c d dd ddd dddd ddddd dddddd w ww m mm mmm
//! mmmm q y yy yyyy h hh n nn s ss ttttt AM/PM am/pm A/P a/p AMPM`, the
//! `/` and `:` separators, literal text in quotes or after `\`. `m` and
//! `mm` mean minutes right after an hour or right before a second.
//! Names are en-US. Every pattern is accepted; unknown characters are
//! shown as they are, except the symbols every Access format may hold
//! (<https://learn.microsoft.com/office/vba/api/access.textbox.format>):
//! `!` (left alignment) and `*` with the fill character after it take no
//! room in a result, which is exactly as wide as its text.

use super::calendar::{FirstWeek, day_number, week_of_year, weekday_from};
use super::date::{DAY_NAMES, MONTH_NAMES};
use super::value::{general_date, long_time, naive};
use chrono::{Datelike, NaiveDateTime, Timelike};

/// A token of a date pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum DateTok {
    /// `c`: General Date.
    General,
    /// `d`…`dddddd` (1–6).
    Day(usize),
    /// `w`: weekday number.
    Weekday,
    /// `ww`: week of the year.
    Week,
    /// `m`…`mmmm` (1–4), month or (1–2) minute by context.
    Month(usize),
    /// `q`.
    Quarter,
    /// `y`: day of the year.
    DayOfYear,
    /// `yy`.
    Year2,
    /// `yyyy`.
    Year4,
    /// `h`/`hh`.
    Hour(usize),
    /// `n`/`nn`.
    Minute(usize),
    /// `s`/`ss`.
    Second(usize),
    /// `ttttt`: Long Time.
    LongTime,
    /// An AM/PM marker: `AM/PM`, `am/pm`, `A/P`, `a/p`, `AMPM`.
    AmPm(&'static str, &'static str),
    /// Literal text.
    Lit(String),
}

fn run(chars: &[char], i: usize, lower: char) -> usize {
    chars[i..]
        .iter()
        .take_while(|c| c.to_ascii_lowercase() == lower)
        .count()
}

fn starts(chars: &[char], i: usize, s: &str) -> bool {
    let n = s.chars().count();
    i + n <= chars.len() && chars[i..i + n].iter().copied().eq(s.chars())
}

/// The tokens of a date pattern.
pub fn lex(pattern: &str) -> Vec<DateTok> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        let mut marker = false;
        for (text, am, pm) in [
            ("AM/PM", "AM", "PM"),
            ("am/pm", "am", "pm"),
            ("A/P", "A", "P"),
            ("a/p", "a", "p"),
            ("AMPM", "AM", "PM"),
        ] {
            if starts(&chars, i, text) {
                out.push(DateTok::AmPm(am, pm));
                i += text.len();
                marker = true;
                break;
            }
        }
        if marker {
            continue;
        }
        match ch {
            '!' => {
                i += 1;
                continue;
            }
            '*' => {
                i = (i + 2).min(chars.len());
                continue;
            }
            _ => {}
        }
        let lower = ch.to_ascii_lowercase();
        let n = run(&chars, i, lower);
        let (tok, used) = match lower {
            'c' => (DateTok::General, 1),
            'd' => (DateTok::Day(n.min(6)), n),
            'w' => {
                if n >= 2 {
                    (DateTok::Week, 2)
                } else {
                    (DateTok::Weekday, 1)
                }
            }
            'm' => (DateTok::Month(n.min(4)), n),
            'q' => (DateTok::Quarter, 1),
            'y' => match n {
                1 => (DateTok::DayOfYear, 1),
                2 | 3 => (DateTok::Year2, 2),
                _ => (DateTok::Year4, n),
            },
            'h' => (DateTok::Hour(n.min(2)), n),
            'n' => (DateTok::Minute(n.min(2)), n),
            's' => (DateTok::Second(n.min(2)), n),
            't' if n >= 5 => (DateTok::LongTime, 5),
            '"' => {
                let lit: String = chars[i + 1..].iter().take_while(|c| **c != '"').collect();
                let used = lit.chars().count() + 2;
                (DateTok::Lit(lit), used)
            }
            '\\' => match chars.get(i + 1) {
                Some(c) => (DateTok::Lit(c.to_string()), 2),
                None => (DateTok::Lit(String::new()), 1),
            },
            _ => (DateTok::Lit(ch.to_string()), 1),
        };
        out.push(tok);
        i = (i + used).min(chars.len());
    }
    mark_minutes(&mut out);
    out
}

/// `m`/`mm` right after an hour token or right before a second token
/// (literals between them skipped) are minutes.
fn mark_minutes(toks: &mut [DateTok]) {
    for i in 0..toks.len() {
        let DateTok::Month(n) = toks[i] else {
            continue;
        };
        if n > 2 {
            continue;
        }
        let prev = toks[..i]
            .iter()
            .rev()
            .find(|t| !matches!(t, DateTok::Lit(_)));
        let next = toks[i + 1..].iter().find(|t| !matches!(t, DateTok::Lit(_)));
        if matches!(prev, Some(DateTok::Hour(_))) || matches!(next, Some(DateTok::Second(_))) {
            toks[i] = DateTok::Minute(n);
        }
    }
}

/// Formats engine microseconds with date pattern tokens; `first` is the
/// first day of the week (1 = Sunday) and `rule` the first-week rule for
/// `w` and `ww`.
pub fn format_date(us: i64, toks: &[DateTok], first: i64, rule: FirstWeek) -> String {
    let dt = naive(us);
    let twelve = toks.iter().any(|t| matches!(t, DateTok::AmPm(..)));
    let mut out = String::new();
    for t in toks {
        match t {
            DateTok::General => out.push_str(&general_date(us)),
            DateTok::Day(1) => out.push_str(&dt.day().to_string()),
            DateTok::Day(2) => out.push_str(&format!("{:02}", dt.day())),
            DateTok::Day(3) => out.push_str(&day_name(&dt)[..3]),
            DateTok::Day(4) => out.push_str(day_name(&dt)),
            DateTok::Day(5) => out.push_str(&short_date(&dt)),
            DateTok::Day(_) => out.push_str(&long_date(&dt)),
            DateTok::Weekday => out.push_str(&weekday_from(day_number(us), first).to_string()),
            DateTok::Week => {
                out.push_str(&week_of_year(day_number(us), dt.year(), first, rule).to_string())
            }
            DateTok::Month(1) => out.push_str(&dt.month().to_string()),
            DateTok::Month(2) => out.push_str(&format!("{:02}", dt.month())),
            DateTok::Month(3) => out.push_str(&MONTH_NAMES[dt.month0() as usize][..3]),
            DateTok::Month(_) => out.push_str(MONTH_NAMES[dt.month0() as usize]),
            DateTok::Quarter => out.push_str(&(dt.month0() / 3 + 1).to_string()),
            DateTok::DayOfYear => out.push_str(&dt.ordinal().to_string()),
            DateTok::Year2 => out.push_str(&format!("{:02}", dt.year().rem_euclid(100))),
            DateTok::Year4 => out.push_str(&dt.year().to_string()),
            DateTok::Hour(n) => {
                let h = if twelve { dt.hour12().1 } else { dt.hour() };
                if *n >= 2 {
                    out.push_str(&format!("{h:02}"));
                } else {
                    out.push_str(&h.to_string());
                }
            }
            DateTok::Minute(n) => two(&mut out, dt.minute(), *n),
            DateTok::Second(n) => two(&mut out, dt.second(), *n),
            DateTok::LongTime => out.push_str(&long_time(&dt)),
            DateTok::AmPm(am, pm) => out.push_str(if dt.hour() < 12 { am } else { pm }),
            DateTok::Lit(s) => out.push_str(s),
        }
    }
    out
}

fn two(out: &mut String, v: u32, n: usize) {
    if n >= 2 {
        out.push_str(&format!("{v:02}"));
    } else {
        out.push_str(&v.to_string());
    }
}

fn day_name(dt: &NaiveDateTime) -> &'static str {
    DAY_NAMES[dt.weekday().num_days_from_sunday() as usize]
}

/// en-US Short Date: `m/d/yyyy`.
pub fn short_date(dt: &NaiveDateTime) -> String {
    format!("{}/{}/{}", dt.month(), dt.day(), dt.year())
}

/// en-US Long Date: `dddd, mmmm d, yyyy`.
pub fn long_date(dt: &NaiveDateTime) -> String {
    format!(
        "{}, {} {}, {}",
        day_name(dt),
        MONTH_NAMES[dt.month0() as usize],
        dt.day(),
        dt.year()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::functions::serial::from_naive;
    use chrono::NaiveDate;

    fn at(y: i32, m: u32, d: u32, h: u32, n: u32, s: u32) -> i64 {
        from_naive(
            NaiveDate::from_ymd_opt(y, m, d)
                .unwrap()
                .and_hms_opt(h, n, s)
                .unwrap(),
        )
    }
    fn f(us: i64, p: &str) -> String {
        format_date(us, &lex(p), 1, FirstWeek::Jan1)
    }

    #[test]
    fn patterns() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/format-function-visual-basic-for-applications
        // (MyTime = #17:04:23#, MyDate = #January 27, 1993#)
        let t = at(1899, 12, 30, 17, 4, 23);
        let d = at(1993, 1, 27, 0, 0, 0);
        assert_eq!(f(t, "h:m:s"), "17:4:23");
        assert_eq!(f(t, "hh:mm:ss AMPM"), "05:04:23 PM");
        assert_eq!(f(d, "dddd, mmm d yyyy"), "Wednesday, Jan 27 1993");
        assert_eq!(f(d, "mm/dd/yy"), "01/27/93");
        assert_eq!(f(d, "q"), "1");
        assert_eq!(f(d, "y"), "27");
        assert_eq!(f(t, "h:nn a/p"), "5:04 p");
        assert_eq!(f(d, "\"Day \"d"), "Day 27");
        assert_eq!(f(d, "ddddd"), "1/27/1993");
        assert_eq!(f(d, "dddddd"), "Wednesday, January 27, 1993");
    }

    #[test]
    fn alignment_and_fill_take_no_room() {
        let d = at(1993, 1, 27, 0, 0, 0);
        assert_eq!(f(d, "!mm/dd/yy"), "01/27/93");
        assert_eq!(f(d, "yyyy*-"), "1993");
        assert_eq!(f(d, "yyyy*"), "1993");
        // quoted or escaped, they are text
        assert_eq!(f(d, "yyyy\"!*\"\\*"), "1993!**");
    }

    #[test]
    fn week_tokens() {
        let d = at(2000, 12, 31, 0, 0, 0);
        assert_eq!(f(d, "ww"), "54");
        assert_eq!(f(d, "w"), "1");
        assert_eq!(format_date(d, &lex("ww"), 2, FirstWeek::FourDays), "52");
    }
}
