//! Calendar arithmetic Access's date functions share: weekdays counted
//! from a chosen first day, week-of-year numbering under the three
//! first-week rules, month arithmetic that clamps to the month's end, and
//! the interval names of DateAdd/DateDiff/DatePart.

use chrono::{Datelike, NaiveDate};

/// Days since 1970-01-01 of engine microseconds (floor).
pub fn day_number(us: i64) -> i64 {
    us.div_euclid(super::serial::DAY_US)
}

/// The weekday of a day number, 1 = Sunday … 7 = Saturday.
pub fn weekday_sun(day: i64) -> i64 {
    (day + 4).rem_euclid(7) + 1
}

/// The weekday of a day number counted from `first` (1 = Sunday … 7 =
/// Saturday): 1 is `first` itself.
pub fn weekday_from(day: i64, first: i64) -> i64 {
    (weekday_sun(day) - first).rem_euclid(7) + 1
}

/// Rule for the first week of a year (Access's `firstweekofyear`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstWeek {
    /// vbFirstJan1 (1): the week containing January 1.
    Jan1,
    /// vbFirstFourDays (2): the first week with four days in the year.
    FourDays,
    /// vbFirstFullWeek (3): the first week wholly in the year.
    FullWeek,
}

impl FirstWeek {
    /// The rule for Access's argument value (0 = system = Jan1 in en-US).
    pub fn from_arg(v: i64) -> Option<FirstWeek> {
        match v {
            0 | 1 => Some(FirstWeek::Jan1),
            2 => Some(FirstWeek::FourDays),
            3 => Some(FirstWeek::FullWeek),
            _ => None,
        }
    }
}

/// The first day of the week for Access's argument value (0 = system =
/// Sunday in en-US; 1 = Sunday … 7 = Saturday).
pub fn first_day_arg(v: i64) -> Option<i64> {
    match v {
        0 => Some(1),
        1..=7 => Some(v),
        _ => None,
    }
}

/// Day number of January 1 of `year`.
fn jan1(year: i32) -> i64 {
    NaiveDate::from_ymd_opt(year, 1, 1)
        .map(|d| (d - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()).num_days())
        .unwrap_or(0)
}

/// Day number on which week 1 of `year` starts.
fn week1_start(year: i32, first: i64, rule: FirstWeek) -> i64 {
    let j = jan1(year);
    let offset = weekday_from(j, first) - 1; // days since the week began
    match rule {
        FirstWeek::Jan1 => j - offset,
        FirstWeek::FourDays => {
            if 7 - offset >= 4 {
                j - offset
            } else {
                j - offset + 7
            }
        }
        FirstWeek::FullWeek => {
            if offset == 0 {
                j
            } else {
                j - offset + 7
            }
        }
    }
}

/// The week of the year of a day number: weeks start on `first`, week 1
/// is chosen by `rule`. Days before week 1 belong to the previous year's
/// last week; under vbFirstFourDays the days of a week that counts as
/// week 1 of the next year are week 1 (so the result is 1 to 53, or up
/// to 54 under vbFirstJan1 in a leap year).
pub fn week_of_year(day: i64, year: i32, first: i64, rule: FirstWeek) -> i64 {
    if rule == FirstWeek::FourDays {
        let next = week1_start(year + 1, first, rule);
        if day >= next {
            return (day - next).div_euclid(7) + 1;
        }
    }
    let mut start = week1_start(year, first, rule);
    if day < start {
        start = week1_start(year - 1, first, rule);
    }
    (day - start).div_euclid(7) + 1
}

/// A date-part interval of DateAdd, DateDiff and DatePart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interval {
    /// `yyyy`.
    Year,
    /// `q`.
    Quarter,
    /// `m`.
    Month,
    /// `y` (day of year).
    DayOfYear,
    /// `d`.
    Day,
    /// `w` (weekday).
    Weekday,
    /// `ww` (week).
    Week,
    /// `h`.
    Hour,
    /// `n`.
    Minute,
    /// `s`.
    Second,
}

impl Interval {
    /// The interval an Access interval string names (case-insensitive).
    pub fn parse(s: &str) -> Option<Interval> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "yyyy" => Interval::Year,
            "q" => Interval::Quarter,
            "m" => Interval::Month,
            "y" => Interval::DayOfYear,
            "d" => Interval::Day,
            "w" => Interval::Weekday,
            "ww" => Interval::Week,
            "h" => Interval::Hour,
            "n" => Interval::Minute,
            "s" => Interval::Second,
            _ => return None,
        })
    }
}

/// `date` moved by `months`, the day clamped to the target month's last
/// day (January 31 + 1 month = February 28 or 29). `None` outside the
/// calendar chrono supports.
pub fn add_months(date: NaiveDate, months: i64) -> Option<NaiveDate> {
    let total = date.year() as i64 * 12 + date.month0() as i64 + months;
    let y = i32::try_from(total.div_euclid(12)).ok()?;
    let m = total.rem_euclid(12) as u32 + 1;
    let last = (28..=31)
        .rev()
        .find(|d| NaiveDate::from_ymd_opt(y, m, *d).is_some())?;
    NaiveDate::from_ymd_opt(y, m, date.day().min(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> i64 {
        (NaiveDate::from_ymd_opt(y, m, d).unwrap() - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap())
            .num_days()
    }

    #[test]
    fn weekdays() {
        // 1998-01-05 was a Monday.
        assert_eq!(weekday_sun(day(1998, 1, 5)), 2);
        assert_eq!(weekday_from(day(1998, 1, 5), 2), 1);
        assert_eq!(weekday_from(day(1998, 1, 4), 2), 7);
    }

    #[test]
    fn weeks_jan1() {
        // 2000-01-01 was a Saturday: week 1 is that one day; 2000-12-31
        // (a Sunday) opens week 54.
        assert_eq!(week_of_year(day(2000, 1, 1), 2000, 1, FirstWeek::Jan1), 1);
        assert_eq!(week_of_year(day(2000, 1, 2), 2000, 1, FirstWeek::Jan1), 2);
        assert_eq!(
            week_of_year(day(2000, 12, 31), 2000, 1, FirstWeek::Jan1),
            54
        );
    }

    #[test]
    fn weeks_iso_like() {
        // ISO 8601 weeks = Monday start, first four-day week.
        for (y, m, d) in [
            (2004, 12, 31),
            (2005, 1, 2),
            (2008, 12, 29),
            (2009, 12, 31),
            (2010, 1, 3),
            (2021, 1, 3),
            (2020, 12, 31),
            (1998, 1, 5),
        ] {
            let date = NaiveDate::from_ymd_opt(y, m, d).unwrap();
            let iso = date.iso_week().week() as i64;
            assert_eq!(
                week_of_year(day(y, m, d), y, 2, FirstWeek::FourDays),
                iso,
                "{date}"
            );
        }
    }

    #[test]
    fn weeks_full() {
        // 2021-01-01 was a Friday: with Sunday weeks the first full week
        // starts Sunday 2021-01-03; Jan 1–2 are the last week of 2020.
        assert_eq!(
            week_of_year(day(2021, 1, 3), 2021, 1, FirstWeek::FullWeek),
            1
        );
        assert_eq!(
            week_of_year(day(2021, 1, 2), 2021, 1, FirstWeek::FullWeek),
            52
        );
    }

    #[test]
    fn months_clamp() {
        let d = |y, m, dd| NaiveDate::from_ymd_opt(y, m, dd).unwrap();
        assert_eq!(add_months(d(1995, 1, 31), 1), Some(d(1995, 2, 28)));
        assert_eq!(add_months(d(1996, 1, 31), 1), Some(d(1996, 2, 29)));
        assert_eq!(add_months(d(1996, 3, 31), -13), Some(d(1995, 2, 28)));
    }
}
