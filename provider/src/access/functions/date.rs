//! Date and time functions: Date, Time, Now, Timer, Year, Month, Day,
//! Hour, Minute, Second, Weekday, WeekdayName, MonthName, DateAdd,
//! DateDiff, DatePart, DateSerial, TimeSerial, DateValue, TimeValue.
//!
//! Date(), Time(), Now() and Timer() read the local clock (chrono
//! `Local`); a time without a date is on 1899-12-30, as Access stores it.
//! Names of days and months are en-US.

use super::calendar::{
    FirstWeek, Interval, add_months, day_number, first_day_arg, week_of_year, weekday_from,
};
use super::serial::{DAY_US, SERIAL_EPOCH_DAYS, from_naive};
use super::types;
use super::udf::{AccessScalar, Call, NULL_ANY};
use super::value::{Value, check_date, date_micros, naive};
use chrono::{Datelike, Local, NaiveDate, Timelike};
use datafusion::error::Result;

/// English day names, Sunday first.
pub const DAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
/// English month names.
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn now_local() -> i64 {
    from_naive(Local::now().naive_local())
}

fn date_fn(_: &Call) -> Result<Value> {
    Ok(Value::Date(now_local().div_euclid(DAY_US) * DAY_US))
}
fn time_fn(_: &Call) -> Result<Value> {
    Ok(Value::Date(
        -SERIAL_EPOCH_DAYS * DAY_US + now_local().rem_euclid(DAY_US),
    ))
}
fn now_fn(_: &Call) -> Result<Value> {
    // Access keeps whole seconds in Now().
    Ok(Value::Date(now_local().div_euclid(1_000_000) * 1_000_000))
}
fn timer_fn(_: &Call) -> Result<Value> {
    Ok(Value::Single(
        (now_local().rem_euclid(DAY_US) / 10_000) as f32 / 100.0,
    ))
}

fn part(c: &Call, f: fn(&chrono::NaiveDateTime) -> i64) -> Result<Value> {
    Ok(Value::Int(f(&naive(c.date(0, "Date")?))))
}
fn year(c: &Call) -> Result<Value> {
    part(c, |d| d.year() as i64)
}
fn month(c: &Call) -> Result<Value> {
    part(c, |d| d.month() as i64)
}
fn day(c: &Call) -> Result<Value> {
    part(c, |d| d.day() as i64)
}
fn hour(c: &Call) -> Result<Value> {
    part(c, |d| d.hour() as i64)
}
fn minute(c: &Call) -> Result<Value> {
    part(c, |d| d.minute() as i64)
}
fn second(c: &Call) -> Result<Value> {
    part(c, |d| d.second() as i64)
}

/// Optional `firstdayofweek` argument at `i` (default Sunday).
pub fn first_day(c: &Call, i: usize) -> Result<i64> {
    let v = c.int_or(i, "FirstDayOfWeek", 1)?;
    first_day_arg(v).ok_or_else(|| c.err("argument FirstDayOfWeek must be 0 to 7"))
}

/// Optional `firstweekofyear` argument at `i` (default vbFirstJan1).
pub fn first_week(c: &Call, i: usize) -> Result<FirstWeek> {
    let v = c.int_or(i, "FirstWeekOfYear", 1)?;
    FirstWeek::from_arg(v).ok_or_else(|| c.err("argument FirstWeekOfYear must be 0 to 3"))
}

fn weekday(c: &Call) -> Result<Value> {
    let d = c.date(0, "Date")?;
    Ok(Value::Int(weekday_from(day_number(d), first_day(c, 1)?)))
}

fn weekdayname(c: &Call) -> Result<Value> {
    let n = c.int(0, "Weekday")?;
    if !(1..=7).contains(&n) {
        return Err(c.err("argument Weekday must be 1 to 7"));
    }
    let abbreviate = if c.has(1) {
        c.bool(1, "Abbreviate")?
    } else {
        false
    };
    let first = first_day(c, 2)?;
    let name = DAY_NAMES[((n - 1 + first - 1) % 7) as usize];
    Ok(Value::Text(if abbreviate {
        name[..3].to_string()
    } else {
        name.to_string()
    }))
}

fn monthname(c: &Call) -> Result<Value> {
    let n = c.int(0, "Month")?;
    if !(1..=12).contains(&n) {
        return Err(c.err("argument Month must be 1 to 12"));
    }
    let abbreviate = if c.has(1) {
        c.bool(1, "Abbreviate")?
    } else {
        false
    };
    let name = MONTH_NAMES[(n - 1) as usize];
    Ok(Value::Text(if abbreviate {
        name[..3].to_string()
    } else {
        name.to_string()
    }))
}

fn interval(c: &Call) -> Result<Interval> {
    let s = c.text(0, "Interval")?;
    Interval::parse(&s).ok_or_else(|| {
        c.err(format!(
            "'{s}' is not an interval (yyyy, q, m, y, d, w, ww, h, n, s)"
        ))
    })
}

/// `DateAdd(interval, number, date)`: months and years clamp the day to
/// the month's end; the number is rounded to a whole number.
fn dateadd(c: &Call) -> Result<Value> {
    let iv = interval(c)?;
    let n = c.int(1, "Number")?;
    let d = c.date(2, "Date")?;
    let overflow = || c.err("date is outside the years 100 to 9999");
    let months = |m: i64| -> Result<i64> {
        let dt = naive(d);
        let nd = add_months(dt.date(), m).ok_or_else(overflow)?;
        Ok(from_naive(nd.and_time(dt.time())))
    };
    let plus = |unit: i64| -> Result<i64> {
        n.checked_mul(unit)
            .and_then(|x| d.checked_add(x))
            .ok_or_else(overflow)
    };
    let out = match iv {
        Interval::Year => months(n.checked_mul(12).ok_or_else(overflow)?)?,
        Interval::Quarter => months(n.checked_mul(3).ok_or_else(overflow)?)?,
        Interval::Month => months(n)?,
        Interval::DayOfYear | Interval::Day | Interval::Weekday => plus(DAY_US)?,
        Interval::Week => plus(7 * DAY_US)?,
        Interval::Hour => plus(3_600_000_000)?,
        Interval::Minute => plus(60_000_000)?,
        Interval::Second => plus(1_000_000)?,
    };
    check_date(c.name, out).map(Value::Date)
}

/// `DateDiff(interval, date1, date2[, firstdayofweek[, firstweekofyear]])`:
/// the number of interval boundaries crossed from date1 to date2
/// (negative when date1 is later). "w" counts whole weeks; "ww" counts
/// the firstdayofweek days after date1 up to and including date2.
fn datediff(c: &Call) -> Result<Value> {
    let iv = interval(c)?;
    let a = c.date(1, "Date1")?;
    let b = c.date(2, "Date2")?;
    let fdw = first_day(c, 3)?;
    first_week(c, 4)?;
    let (na, nb) = (naive(a), naive(b));
    let (da, db) = (day_number(a), day_number(b));
    let secs = |us: i64| us.div_euclid(1_000_000);
    let v = match iv {
        Interval::Year => (nb.year() - na.year()) as i64,
        Interval::Quarter => {
            (nb.year() as i64 * 4 + nb.month0() as i64 / 3)
                - (na.year() as i64 * 4 + na.month0() as i64 / 3)
        }
        Interval::Month => {
            (nb.year() as i64 * 12 + nb.month0() as i64)
                - (na.year() as i64 * 12 + na.month0() as i64)
        }
        Interval::DayOfYear | Interval::Day => db - da,
        Interval::Weekday => (db - da) / 7,
        Interval::Week => {
            // Index of the week (starting on fdw) each day falls in.
            // Day number 0 (1970-01-01) is a Thursday (weekday 5).
            let week = |d: i64| (d - (fdw - 5).rem_euclid(7)).div_euclid(7);
            week(db) - week(da)
        }
        Interval::Hour => secs(b).div_euclid(3600) - secs(a).div_euclid(3600),
        Interval::Minute => secs(b).div_euclid(60) - secs(a).div_euclid(60),
        Interval::Second => secs(b) - secs(a),
    };
    Ok(Value::Int(v))
}

/// `DatePart(interval, date[, firstdayofweek[, firstweekofyear]])`.
fn datepart(c: &Call) -> Result<Value> {
    let iv = interval(c)?;
    let d = c.date(1, "Date")?;
    let fdw = first_day(c, 2)?;
    let fwy = first_week(c, 3)?;
    let dt = naive(d);
    Ok(Value::Int(match iv {
        Interval::Year => dt.year() as i64,
        Interval::Quarter => dt.month0() as i64 / 3 + 1,
        Interval::Month => dt.month() as i64,
        Interval::DayOfYear => dt.ordinal() as i64,
        Interval::Day => dt.day() as i64,
        Interval::Weekday => weekday_from(day_number(d), fdw),
        Interval::Week => week_of_year(day_number(d), dt.year(), fdw, fwy),
        Interval::Hour => dt.hour() as i64,
        Interval::Minute => dt.minute() as i64,
        Interval::Second => dt.second() as i64,
    }))
}

/// `DateSerial(year, month, day)`: years 0–29 are 2000–2029 and 30–99
/// are 1930–1999; months and days outside their ranges carry into the
/// next or previous year and month (DateSerial(1998, 14, 35) = 3/7/1999).
fn dateserial(c: &Call) -> Result<Value> {
    let mut y = c.int(0, "Year")?;
    let m = c.int(1, "Month")?;
    let d = c.int(2, "Day")?;
    if (0..30).contains(&y) {
        y += 2000;
    } else if (30..100).contains(&y) {
        y += 1900;
    }
    let overflow = || c.err("date is outside the years 100 to 9999");
    let total = y
        .checked_mul(12)
        .and_then(|t| t.checked_add(m - 1))
        .ok_or_else(overflow)?;
    let first = date_micros(
        c.name,
        total.div_euclid(12),
        total.rem_euclid(12) as u32 + 1,
        1,
    )
    .map_err(|_| overflow())?;
    let us = (d - 1)
        .checked_mul(DAY_US)
        .and_then(|x| first.checked_add(x))
        .ok_or_else(overflow)?;
    check_date(c.name, us).map(Value::Date)
}

/// `TimeSerial(hour, minute, second)`: the parts are added up, so
/// TimeSerial(12 - 6, -15, 0) = 5:45:00 AM; totals beyond one day move
/// the date away from 1899-12-30.
fn timeserial(c: &Call) -> Result<Value> {
    let h = c.int(0, "Hour")?;
    let m = c.int(1, "Minute")?;
    let s = c.int(2, "Second")?;
    let total = h
        .checked_mul(3600)
        .and_then(|t| t.checked_add(m.checked_mul(60)?))
        .and_then(|t| t.checked_add(s))
        .and_then(|t| t.checked_mul(1_000_000))
        .ok_or_else(|| c.err("overflow"))?;
    check_date(c.name, -SERIAL_EPOCH_DAYS * DAY_US + total).map(Value::Date)
}

/// `DateValue(date)`: the date part, at midnight.
fn datevalue(c: &Call) -> Result<Value> {
    Ok(Value::Date(c.date(0, "Date")?.div_euclid(DAY_US) * DAY_US))
}

/// `TimeValue(time)`: the time part, on 1899-12-30.
fn timevalue(c: &Call) -> Result<Value> {
    Ok(Value::Date(
        -SERIAL_EPOCH_DAYS * DAY_US + c.date(0, "Time")?.rem_euclid(DAY_US),
    ))
}

/// The en-US short date of a calendar date (`m/d/yyyy`).
pub fn short_date(d: &NaiveDate) -> String {
    format!("{}/{}/{}", d.month(), d.day(), d.year())
}

/// The date and time functions.
pub fn functions() -> Vec<AccessScalar> {
    use types::*;
    vec![
        AccessScalar::new("Date", 0, 0, timestamp, date_fn)
            .volatile()
            .dollar(),
        AccessScalar::new("Time", 0, 0, timestamp, time_fn)
            .volatile()
            .dollar(),
        AccessScalar::new("Now", 0, 0, timestamp, now_fn).volatile(),
        AccessScalar::new("Timer", 0, 0, float32, timer_fn).volatile(),
        AccessScalar::new("Year", 1, 1, int16, year),
        AccessScalar::new("Month", 1, 1, int16, month),
        AccessScalar::new("Day", 1, 1, int16, day),
        AccessScalar::new("Hour", 1, 1, int16, hour),
        AccessScalar::new("Minute", 1, 1, int16, minute),
        AccessScalar::new("Second", 1, 1, int16, second),
        AccessScalar::new("Weekday", 1, 2, int16, weekday).nulls(1),
        AccessScalar::new("WeekdayName", 1, 3, utf8, weekdayname).nulls(1),
        AccessScalar::new("MonthName", 1, 2, utf8, monthname).nulls(1),
        AccessScalar::new("DateAdd", 3, 3, timestamp, dateadd).nulls(NULL_ANY),
        AccessScalar::new("DateDiff", 3, 5, int64, datediff).nulls(0b110),
        AccessScalar::new("DatePart", 2, 4, int16, datepart).nulls(0b10),
        AccessScalar::new("DateSerial", 3, 3, timestamp, dateserial),
        AccessScalar::new("TimeSerial", 3, 3, timestamp, timeserial),
        AccessScalar::new("DateValue", 1, 1, timestamp, datevalue),
        AccessScalar::new("TimeValue", 1, 1, timestamp, timevalue),
    ]
}
