//! Access `#…#` date/time literals.
//!
//! Access reads the text between the `#` signs in US form whatever the
//! machine's locale ("Examples of using dates as criteria in Access
//! queries", support.microsoft.com): `#1/31/1998#` is m/d/yyyy; ISO
//! `#1998-01-31#` is accepted too, as are month names (`#31-Jan-1998#`,
//! `#Jan 31, 1998#`). A time may follow the date, or stand alone
//! (`#10:30 PM#`): a time alone is that time on 1899-12-30, Access's day
//! zero. Two-digit years follow Access's window: 00–29 are 2000–2029,
//! 30–99 are 1930–1999. A month and day without a year (`#1/2#`,
//! `#Jan 2#`) are in the current year of the machine's clock, as
//! Microsoft's DateValue page says of dates without a year; the literal
//! becomes a constant when the statement is parsed, so it is the year of
//! that moment.

/// A calendar date and time of day, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AccessDateTime {
    /// Year (100–9999).
    pub year: i32,
    /// Month 1–12.
    pub month: u32,
    /// Day of month, valid for the month.
    pub day: u32,
    /// Hour 0–23.
    pub hour: u32,
    /// Minute 0–59.
    pub minute: u32,
    /// Second 0–59.
    pub second: u32,
}

impl AccessDateTime {
    /// `yyyy-mm-ddThh:mm:ss`, the form Arrow's casts read.
    pub fn iso(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 0,
    }
}

fn month_name(word: &str) -> Option<u32> {
    let w = word.to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| w.starts_with(m))
        .and_then(|i| u32::try_from(i + 1).ok())
}

fn year_of(text: &str) -> Option<i32> {
    let y: i32 = text.parse().ok()?;
    if text.len() <= 2 {
        return Some(if y < 30 { 2000 + y } else { 1900 + y });
    }
    Some(y)
}

/// Parses the text between `#` signs; `None` when it is not a date or
/// time Access accepts.
pub fn parse_date_literal(text: &str) -> Option<AccessDateTime> {
    parse_date_literal_in(text, super::functions::parse::current_year)
}

/// [`parse_date_literal`], with `this_year` giving the year of a date
/// written without one (asked only then).
pub fn parse_date_literal_in(text: &str, this_year: fn() -> i32) -> Option<AccessDateTime> {
    let text = text.trim();
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    // split off a time part: the first token containing ':' and what
    // follows it (AM/PM)
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let time_at = tokens.iter().position(|t| t.contains(':'));
    let (date_tokens, time_tokens) = match time_at {
        Some(i) => (&tokens[..i], &tokens[i..]),
        None => {
            // `#10 PM#` is a time too
            match tokens.as_slice() {
                [h, ampm] if is_ampm(ampm) && h.chars().all(|c| c.is_ascii_digit()) => {
                    (&tokens[..0], &tokens[..])
                }
                _ => (&tokens[..], &tokens[..0]),
            }
        }
    };
    let (year, month, day) = if date_tokens.is_empty() {
        (1899, 12, 30)
    } else {
        parse_date(&date_tokens.join(" "), this_year)?
    };
    let (hour, minute, second) = if time_tokens.is_empty() {
        (0, 0, 0)
    } else {
        parse_time(time_tokens)?
    };
    if !(100..=9999).contains(&year) || !(1..=12).contains(&month) {
        return None;
    }
    if day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some(AccessDateTime {
        year,
        month,
        day,
        hour,
        minute,
        second,
    })
}

fn is_ampm(t: &str) -> bool {
    matches!(t.to_ascii_uppercase().as_str(), "AM" | "PM" | "A" | "P")
}

fn parse_date(text: &str, this_year: fn() -> i32) -> Option<(i32, u32, u32)> {
    // `1/2` and `1-2` are a month and a day; `1.2` or `1 2` are not
    let separated = text.contains(['/', '-']);
    let cleaned = text.replace(',', " ");
    let parts: Vec<&str> = cleaned
        .split(|c: char| c == '/' || c == '-' || c == '.' || c.is_whitespace())
        .filter(|p| !p.is_empty())
        .collect();
    let num = |p: &str| -> Option<u32> {
        (p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    match parts.as_slice() {
        // yyyy-mm-dd (ISO) or yyyy/mm/dd
        [y, m, d] if y.len() == 4 && num(y).is_some() => Some((year_of(y)?, num(m)?, num(d)?)),
        // m/d/yyyy (US)
        [m, d, y] if num(m).is_some() && num(d).is_some() && num(y).is_some() => {
            Some((year_of(y)?, num(m)?, num(d)?))
        }
        // d-Mon-yyyy
        [d, mon, y] if num(d).is_some() && month_name(mon).is_some() => {
            Some((year_of(y)?, month_name(mon)?, num(d)?))
        }
        // Mon d yyyy
        [mon, d, y] if month_name(mon).is_some() => Some((year_of(y)?, month_name(mon)?, num(d)?)),
        // no year: m/d, d-Mon, Mon d in the current year
        [m, d] if separated && m.len() <= 2 && d.len() <= 2 && num(m).is_some() => {
            Some((this_year(), num(m)?, num(d)?))
        }
        [d, mon] if d.len() <= 2 && num(d).is_some() && month_name(mon).is_some() => {
            Some((this_year(), month_name(mon)?, num(d)?))
        }
        [mon, d] if d.len() <= 2 && month_name(mon).is_some() => {
            Some((this_year(), month_name(mon)?, num(d)?))
        }
        _ => None,
    }
}

fn parse_time(tokens: &[&str]) -> Option<(u32, u32, u32)> {
    let (clock, ampm) = match tokens {
        [c] => (*c, None),
        [c, a] if is_ampm(a) => (*c, Some(a.to_ascii_uppercase())),
        _ => {
            // `10:30PM`
            return None;
        }
    };
    let (clock, ampm) = match ampm {
        Some(a) => (clock.to_string(), Some(a)),
        None => {
            let upper = clock.to_ascii_uppercase();
            if let Some(c) = upper
                .strip_suffix("PM")
                .or_else(|| upper.strip_suffix("AM"))
            {
                let a = upper[c.len()..].to_string();
                (c.to_string(), Some(a))
            } else {
                (clock.to_string(), None)
            }
        }
    };
    let fields: Vec<&str> = clock.split(':').collect();
    let num = |p: &str| -> Option<u32> {
        (!p.is_empty() && p.len() <= 2 && p.chars().all(|c| c.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let (mut h, m, s) = match fields.as_slice() {
        [h] => (num(h)?, 0, 0),
        [h, m] => (num(h)?, num(m)?, 0),
        [h, m, s] => (num(h)?, num(m)?, num(s)?),
        _ => return None,
    };
    if let Some(a) = ampm {
        if !(1..=12).contains(&h) {
            return None;
        }
        let pm = a.starts_with('P');
        h = match (h, pm) {
            (12, false) => 0,
            (12, true) => 12,
            (h, true) => h + 12,
            (h, false) => h,
        };
    }
    (h < 24 && m < 60 && s < 60).then_some((h, m, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(t: &str) -> Option<String> {
        parse_date_literal(t).map(|d| d.iso())
    }

    // Forms from "Examples of using dates as criteria in Access queries"
    // (support.microsoft.com/en-us/office/examples-of-using-dates-as-criteria-in-access-queries-aea83b3b-46eb-43dd-8689-5fc961f21762):
    // #2/2/2012#, #2/2/2012 10:30:00 AM#.
    #[test]
    fn us_and_iso_dates() {
        assert_eq!(iso("2/2/2012").as_deref(), Some("2012-02-02T00:00:00"));
        assert_eq!(iso("1/31/1998").as_deref(), Some("1998-01-31T00:00:00"));
        assert_eq!(iso("1998-01-31").as_deref(), Some("1998-01-31T00:00:00"));
        assert_eq!(
            iso("2/2/2012 10:30:00 AM").as_deref(),
            Some("2012-02-02T10:30:00")
        );
        assert_eq!(
            iso("2/2/2012 10:30 PM").as_deref(),
            Some("2012-02-02T22:30:00")
        );
        assert_eq!(
            iso("12/31/9999 23:59:59").as_deref(),
            Some("9999-12-31T23:59:59")
        );
        assert_eq!(iso("31-Jan-1998").as_deref(), Some("1998-01-31T00:00:00"));
        assert_eq!(iso("Jan 31, 1998").as_deref(), Some("1998-01-31T00:00:00"));
    }

    #[test]
    fn times_alone_are_on_day_zero() {
        assert_eq!(iso("10:30 PM").as_deref(), Some("1899-12-30T22:30:00"));
        assert_eq!(iso("12:00 AM").as_deref(), Some("1899-12-30T00:00:00"));
        assert_eq!(iso("12:15 PM").as_deref(), Some("1899-12-30T12:15:00"));
        assert_eq!(iso("17:45:10").as_deref(), Some("1899-12-30T17:45:10"));
    }

    #[test]
    fn two_digit_years_follow_the_window() {
        assert_eq!(iso("1/1/29").as_deref(), Some("2029-01-01T00:00:00"));
        assert_eq!(iso("1/1/30").as_deref(), Some("1930-01-01T00:00:00"));
    }

    #[test]
    fn impossible_dates_are_refused() {
        for t in [
            "2/30/2001",
            "2/29/1900",
            "13/1/2000",
            "0/1/2000",
            "1/1/10000",
            "25:00",
            "10:61",
            "13:00 PM",
            "",
            "hello",
            "1.2",
            "1 2",
            "13/2",
            "Jan 1998",
        ] {
            assert_eq!(iso(t), None, "{t}");
        }
        assert_eq!(iso("2/29/2000").as_deref(), Some("2000-02-29T00:00:00"));
    }

    #[test]
    fn dates_without_a_year_are_in_the_current_year() {
        // https://learn.microsoft.com/office/vba/language/reference/user-interface-help/datevalue-function
        // ("If the year part of date is omitted, DateValue uses the
        // current year from your computer's system date")
        let in_2024 = |t: &str| parse_date_literal_in(t, || 2024).map(|d| d.iso());
        assert_eq!(in_2024("1/2").as_deref(), Some("2024-01-02T00:00:00"));
        assert_eq!(in_2024("01-02").as_deref(), Some("2024-01-02T00:00:00"));
        assert_eq!(in_2024("2-Jan").as_deref(), Some("2024-01-02T00:00:00"));
        assert_eq!(in_2024("Jan 2").as_deref(), Some("2024-01-02T00:00:00"));
        assert_eq!(
            in_2024("1/2 10:30 PM").as_deref(),
            Some("2024-01-02T22:30:00")
        );
        assert_eq!(in_2024("2/29").as_deref(), Some("2024-02-29T00:00:00"));
        assert_eq!(parse_date_literal_in("2/29", || 2023), None);
        let year = super::super::functions::parse::current_year();
        assert_eq!(parse_date_literal("1/2").map(|d| d.year), Some(year));
    }
}
