//! The units Access dates are counted in, below both the coercions
//! ([`super::value`]) and the reading of text dates ([`super::parse`]):
//! microseconds in a day, Access's day zero against 1970-01-01, and engine
//! microseconds of a calendar date and time.

use chrono::NaiveDateTime;

/// Microseconds in one day.
pub const DAY_US: i64 = 86_400_000_000;
/// Days from Access's day zero (1899-12-30) to 1970-01-01.
pub const SERIAL_EPOCH_DAYS: i64 = 25_569;

/// Engine microseconds of a calendar date and time.
pub fn from_naive(dt: NaiveDateTime) -> i64 {
    dt.and_utc().timestamp_micros()
}
