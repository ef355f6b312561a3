//! The rows of a table as target-neutral values: batches of the storage
//! scan (decoded on every core, handed over in page order) read cell by
//! cell, and the values a target cannot hold reported by table, column
//! and row.

use super::schema::{ColumnModel, TableModel};
use chrono::Datelike;
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BinaryArray, BooleanArray, LargeBinaryArray, LargeStringArray,
    PrimitiveArray, RecordBatch, StringArray,
};
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, TimeUnit,
    TimestampMicrosecondType, UInt8Type,
};
use jet_storage::{ScanOptions, Table};

/// One cell as the targets see it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    /// NULL.
    Null,
    /// Yes/No.
    Bool(bool),
    /// Byte, Integer, Long, Large Number.
    Int(i64),
    /// Single.
    F32(f32),
    /// Double.
    F64(f64),
    /// Currency or Decimal: unscaled value and scale.
    Dec(i128, i8),
    /// Date/Time: µs since 1970-01-01, zone-less.
    Micros(i64),
    /// Text, Memo, GUID (`{…}`).
    Text(&'a str),
    /// Binary, OLE.
    Bytes(&'a [u8]),
}

/// A column of the storage scan with its Arrow type resolved once, read
/// cell by cell (the per-row loops of the targets call [`Cells::value`]
/// a million times; the downcast happens here, once a batch).
pub struct Cells<'a> {
    nulls: Option<&'a datafusion::arrow::buffer::NullBuffer>,
    typed: Typed<'a>,
}

enum Typed<'a> {
    Bool(&'a BooleanArray),
    U8(&'a PrimitiveArray<UInt8Type>),
    I16(&'a PrimitiveArray<Int16Type>),
    I32(&'a PrimitiveArray<Int32Type>),
    I64(&'a PrimitiveArray<Int64Type>),
    F32(&'a PrimitiveArray<Float32Type>),
    F64(&'a PrimitiveArray<Float64Type>),
    Dec(&'a PrimitiveArray<Decimal128Type>, i8),
    Micros(&'a PrimitiveArray<TimestampMicrosecondType>),
    Utf8(&'a StringArray),
    LargeUtf8(&'a LargeStringArray),
    Binary(&'a BinaryArray),
    LargeBinary(&'a LargeBinaryArray),
    /// A type the storage scan never makes for a migrated column.
    Other,
}

impl<'a> Cells<'a> {
    /// The reader of column `a`.
    pub fn new(a: &'a ArrayRef) -> Cells<'a> {
        let typed = match a.data_type() {
            DataType::Boolean => Typed::Bool(a.as_boolean()),
            DataType::UInt8 => Typed::U8(a.as_primitive()),
            DataType::Int16 => Typed::I16(a.as_primitive()),
            DataType::Int32 => Typed::I32(a.as_primitive()),
            DataType::Int64 => Typed::I64(a.as_primitive()),
            DataType::Float32 => Typed::F32(a.as_primitive()),
            DataType::Float64 => Typed::F64(a.as_primitive()),
            DataType::Decimal128(_, s) => Typed::Dec(a.as_primitive(), *s),
            DataType::Timestamp(TimeUnit::Microsecond, _) => Typed::Micros(a.as_primitive()),
            DataType::Utf8 => Typed::Utf8(a.as_string()),
            DataType::LargeUtf8 => Typed::LargeUtf8(a.as_string()),
            DataType::Binary => Typed::Binary(a.as_binary()),
            DataType::LargeBinary => Typed::LargeBinary(a.as_binary()),
            _ => Typed::Other,
        };
        Cells {
            nulls: a.nulls(),
            typed,
        }
    }

    /// Cell `row` (which must be below the column's length).
    #[inline]
    pub fn value(&self, row: usize) -> Value<'a> {
        if self.nulls.is_some_and(|n| n.is_null(row)) {
            return Value::Null;
        }
        match &self.typed {
            Typed::Bool(a) => Value::Bool(a.value(row)),
            Typed::U8(a) => Value::Int(a.value(row).into()),
            Typed::I16(a) => Value::Int(a.value(row).into()),
            Typed::I32(a) => Value::Int(a.value(row).into()),
            Typed::I64(a) => Value::Int(a.value(row)),
            Typed::F32(a) => Value::F32(a.value(row)),
            Typed::F64(a) => Value::F64(a.value(row)),
            Typed::Dec(a, s) => Value::Dec(a.value(row), *s),
            Typed::Micros(a) => Value::Micros(a.value(row)),
            Typed::Utf8(a) => Value::Text(a.value(row)),
            Typed::LargeUtf8(a) => Value::Text(a.value(row)),
            Typed::Binary(a) => Value::Bytes(a.value(row)),
            Typed::LargeBinary(a) => Value::Bytes(a.value(row)),
            Typed::Other => Value::Null,
        }
    }
}

/// The readers of `t`'s migrated columns in `b`, in the model's order.
pub fn table_cells<'b>(t: &TableModel, b: &'b RecordBatch) -> Vec<Cells<'b>> {
    t.columns
        .iter()
        .map(|c| Cells::new(b.column(c.source)))
        .collect()
}

/// Cell `row` of `a` (a column of the storage scan).
pub fn value(a: &ArrayRef, row: usize) -> Value<'_> {
    Cells::new(a).value(row)
}

/// `v × 10^-scale` as decimal text (`-12.3400`, `0.05`, `7`).
pub fn decimal_text(v: i128, scale: i8) -> String {
    let mut s = String::new();
    write_decimal(&mut s, v, scale);
    s
}

/// Appends [`decimal_text`]`(v, scale)` to `out` without allocating
/// beyond `out`'s growth.
pub fn write_decimal(out: &mut String, v: i128, scale: i8) {
    // the digits of |v|, most significant first, in buf[at..]
    let mut buf = [0u8; 40];
    let mut at = buf.len();
    let magnitude = v.unsigned_abs();
    match u64::try_from(magnitude) {
        // Currency and most decimals: 64-bit division is far cheaper
        Ok(mut u) => loop {
            at -= 1;
            buf[at] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        },
        Err(_) => {
            let mut u = magnitude;
            loop {
                at -= 1;
                buf[at] = b'0' + (u % 10) as u8;
                u /= 10;
                if u == 0 {
                    break;
                }
            }
        }
    }
    let digits = &buf[at..];
    // ASCII digits only: valid UTF-8
    fn text(d: &[u8]) -> &str {
        std::str::from_utf8(d).unwrap_or_default()
    }
    if v < 0 {
        out.push('-');
    }
    if scale <= 0 {
        out.push_str(text(digits));
        if v != 0 {
            out.extend(std::iter::repeat_n('0', usize::from(scale.unsigned_abs())));
        }
        return;
    }
    let scale = usize::from(scale.unsigned_abs());
    if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        out.push_str(text(int));
        out.push('.');
        out.push_str(text(frac));
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(text(digits));
    }
}

/// µs since 1970 as `YYYY-MM-DD HH:MM:SS` with `.ffffff` when the value
/// has a fraction of a second (a year past 9999 in full, without a sign;
/// one before year 0 with a `-`); `None` outside chrono's range.
pub fn timestamp_text(micros: i64) -> Option<String> {
    let mut s = String::new();
    write_timestamp(&mut s, micros).then_some(s)
}

/// Appends [`timestamp_text`]`(micros)` to `out`; false (and nothing
/// appended) outside chrono's range. Years 0‥9999 are written here from
/// chrono's calendar date (without its formatter, the cost of a date
/// column), the rest by chrono's formatter; the text equals chrono's but for the `+` chrono puts
/// before a year past 9999 (checked in the tests).
pub fn write_timestamp(out: &mut String, micros: i64) -> bool {
    const DAY: i64 = 86_400_000_000;
    // days from 0001-01-01 (chrono's day 1) to 1970-01-01
    const UNIX_EPOCH_CE_DAY: i64 = 719_163;
    let days = micros.div_euclid(DAY);
    let in_day = micros.rem_euclid(DAY);
    let date = i32::try_from(days + UNIX_EPOCH_CE_DAY)
        .ok()
        .and_then(chrono::NaiveDate::from_num_days_from_ce_opt)
        .filter(|d| (0..=9999).contains(&d.year()));
    let Some(date) = date else {
        let Some(t) = chrono::DateTime::from_timestamp_micros(micros) else {
            return false;
        };
        let t = t.naive_utc();
        let text = if in_day % 1_000_000 == 0 {
            t.format("%Y-%m-%d %H:%M:%S").to_string()
        } else {
            t.format("%Y-%m-%d %H:%M:%S%.6f").to_string()
        };
        // chrono writes a year past 9999 with a `+`, which no target reads
        out.push_str(text.trim_start_matches('+'));
        return true;
    };
    let (y, m, d) = (
        i64::from(date.year()),
        i64::from(date.month()),
        i64::from(date.day()),
    );
    let secs = in_day / 1_000_000;
    let frac = in_day % 1_000_000;
    let mut b = [0u8; 26];
    let put = |b: &mut [u8], at: usize, width: usize, mut v: i64| {
        for i in (0..width).rev() {
            b[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(&mut b, 0, 4, y);
    b[4] = b'-';
    put(&mut b, 5, 2, m);
    b[7] = b'-';
    put(&mut b, 8, 2, d);
    b[10] = b' ';
    put(&mut b, 11, 2, secs / 3600);
    b[13] = b':';
    put(&mut b, 14, 2, secs / 60 % 60);
    b[16] = b':';
    put(&mut b, 17, 2, secs % 60);
    let len = if frac == 0 {
        19
    } else {
        b[19] = b'.';
        put(&mut b, 20, 6, frac);
        26
    };
    out.push_str(std::str::from_utf8(&b[..len]).unwrap_or_default());
    true
}

/// A value the target cannot hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Table name.
    pub table: String,
    /// Column name.
    pub column: String,
    /// Row number in the table's page order, from 1.
    pub row: u64,
    /// What is wrong with the value.
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} / {} / row {}: {}",
            jet_storage::error::printable(&self.table),
            jet_storage::error::printable(&self.column),
            self.row,
            self.what
        )
    }
}

/// Streams the batches of `t` in page order to `each`, with the number of
/// data pages each step covered (for progress). The scan decodes on every
/// core.
pub fn scan(
    t: &Table,
    mut each: impl FnMut(&RecordBatch, usize) -> Result<(), String>,
) -> Result<(), String> {
    type SendError = Box<dyn std::error::Error + Send + Sync>;
    jet_storage::read::parallel::scan_ordered(
        t,
        &ScanOptions::default(),
        jet_storage::read::parallel::Parallel::default(),
        Ok::<_, SendError>,
        |items, pages| {
            let mut pages = Some(pages);
            if items.is_empty() {
                return each(
                    &RecordBatch::new_empty(t.schema()),
                    pages.take().unwrap_or(0),
                )
                .map_err(SendError::from);
            }
            for b in &items {
                each(b, pages.take().unwrap_or(0)).map_err(SendError::from)?;
            }
            Ok(())
        },
    )
    .map_err(|e| format!("{}: {e}", jet_storage::error::printable(t.name())))
}

/// The largest value of the table's auto-number Long column in `b`.
pub fn max_auto(model: &TableModel, b: &RecordBatch) -> Option<i64> {
    let c = model.auto_long()?;
    let a = b.column(c.source);
    (0..a.len())
        .filter_map(|r| match value(a, r) {
            Value::Int(v) => Some(v),
            _ => None,
        })
        .max()
}

/// The rows of one batch of a table as one target receives them: cells
/// the target cannot hold become NULL and are reported.
pub struct TargetRows<'a> {
    /// The target.
    pub target: super::types::Target,
    /// The table the batch belongs to.
    pub table: &'a TableModel,
    /// Rows of the table before this batch.
    pub first_row: u64,
}

impl TargetRows<'_> {
    /// Cell `r` of column `c` in `b`: its value, or NULL when the target
    /// cannot hold it, in which case `problems` gets the table, column,
    /// row (counted from 1 in page order) and the reason.
    pub fn cell<'b>(
        &self,
        b: &'b RecordBatch,
        c: &ColumnModel,
        r: usize,
        problems: &mut Vec<Problem>,
    ) -> Value<'b> {
        self.check(c, r, value(b.column(c.source), r), problems)
    }

    /// `v`, cell `r` of column `c`, or NULL when the target cannot hold
    /// it (reported as [`TargetRows::cell`] does).
    #[inline]
    pub fn check<'b>(
        &self,
        c: &ColumnModel,
        r: usize,
        v: Value<'b>,
        problems: &mut Vec<Problem>,
    ) -> Value<'b> {
        match cannot_hold(self.target, c.jet, &v) {
            None => v,
            Some(why) => {
                problems.push(self.problem(c, r, why));
                Value::Null
            }
        }
    }

    /// The report of cell `r` of column `c`, which the target cannot hold
    /// for reason `what`.
    pub fn problem(&self, c: &ColumnModel, r: usize, what: &str) -> Problem {
        Problem {
            table: self.table.name.clone(),
            column: c.name.clone(),
            row: self.first_row + r as u64 + 1,
            what: what.into(),
        }
    }
}

/// Why `target` cannot hold `v` (a value of an Access `jet` column), or
/// `None` when it can.
pub fn cannot_hold(
    target: super::types::Target,
    _jet: jet_storage::JetType,
    v: &Value<'_>,
) -> Option<&'static str> {
    use super::types::Target as T;
    match (target, v) {
        (T::Sqlite, Value::F64(x)) if x.is_nan() => Some("NaN (SQLite stores it as NULL)"),
        (T::Sqlite, Value::F32(x)) if x.is_nan() => Some("NaN (SQLite stores it as NULL)"),
        (T::Mysql, Value::F64(x)) if !x.is_finite() => Some("NaN or infinity (MySQL has none)"),
        (T::Mysql, Value::F32(x)) if !x.is_finite() => Some("NaN or infinity (MySQL has none)"),
        // 1000-01-01 00:00:00
        (T::Mysql, Value::Micros(m)) if *m < -30_610_224_000_000_000 => {
            Some("a date before 1000-01-01 (MySQL's DATETIME starts there)")
        }
        (T::Postgres, Value::Text(s)) if s.contains('\0') => {
            Some("text with a NUL character (PostgreSQL text cannot hold it)")
        }
        (_, Value::Micros(m)) if chrono::DateTime::from_timestamp_micros(*m).is_none() => {
            Some("a date out of range")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_timestamps_as_text() {
        assert_eq!(decimal_text(123_400, 4), "12.3400");
        assert_eq!(decimal_text(-5, 2), "-0.05");
        assert_eq!(decimal_text(0, 4), "0.0000");
        assert_eq!(decimal_text(7, 0), "7");
        assert_eq!(decimal_text(7, -2), "700");
        assert_eq!(timestamp_text(0).unwrap(), "1970-01-01 00:00:00");
        assert_eq!(
            timestamp_text(1_500_000).unwrap(),
            "1970-01-01 00:00:01.500000"
        );
        // 0100-01-01, Access's first day
        assert_eq!(
            timestamp_text(-59_011_459_200_000_000).unwrap(),
            "0100-01-01 00:00:00"
        );
        // Money files' "no date", past Access's last day: no sign
        assert_eq!(
            timestamp_text(253_402_300_800_000_000).unwrap(),
            "10000-01-01 00:00:00"
        );
    }

    /// chrono's text of `micros` without its `+` before a year past 9999
    /// (the reference [`write_timestamp`] replaces for years 0‥9999).
    fn chrono_text(micros: i64) -> Option<String> {
        let t = chrono::DateTime::from_timestamp_micros(micros)?.naive_utc();
        let text = if micros.rem_euclid(1_000_000) == 0 {
            t.format("%Y-%m-%d %H:%M:%S").to_string()
        } else {
            t.format("%Y-%m-%d %H:%M:%S%.6f").to_string()
        };
        Some(text.trim_start_matches('+').to_string())
    }

    /// The decimal text by string operations (the reference of
    /// [`write_decimal`]).
    fn reference_decimal(v: i128, scale: i8) -> String {
        if scale <= 0 {
            let mut s = v.to_string();
            if v != 0 {
                s.push_str(&"0".repeat(usize::from(scale.unsigned_abs())));
            }
            return s;
        }
        let scale = usize::from(scale.unsigned_abs());
        let digits = format!("{:0>w$}", v.unsigned_abs(), w = scale + 1);
        let (int, frac) = digits.split_at(digits.len() - scale);
        format!("{}{int}.{frac}", if v < 0 { "-" } else { "" })
    }

    #[test]
    fn timestamps_equal_chronos_text_at_the_edges() {
        const DAY: i64 = 86_400_000_000;
        // 0000-01-01, 0100-01-01 (Access's first day), 1899-12-30,
        // 1970, leap days, 9999-12-31 23:59:59.999999 and past it
        let edges = [
            -62_167_219_200_000_000,
            -59_011_459_200_000_000,
            -2_209_161_600_000_000,
            0,
            951_782_400_000_000,
            253_402_300_799_999_999,
            253_402_300_800_000_000,
            -62_167_219_200_000_001,
            i64::MIN,
            i64::MAX,
        ];
        for e in edges {
            for d in [-DAY, -1, 0, 1, 999_999, 1_000_000, DAY] {
                let m = e.saturating_add(d);
                assert_eq!(timestamp_text(m), chrono_text(m), "{m}");
            }
        }
    }

    #[test]
    fn decimals_equal_the_reference_at_the_edges() {
        for v in [
            0,
            1,
            -1,
            9_999,
            10_000,
            -10_001,
            i128::from(i64::MAX),
            i128::from(i64::MIN),
            i128::from(u64::MAX),
            i128::from(u64::MAX) + 1,
            i128::MAX,
            i128::MIN + 1,
        ] {
            for scale in [-3, 0, 1, 4, 20, 28, 38] {
                assert_eq!(
                    decimal_text(v, scale),
                    reference_decimal(v, scale),
                    "{v} scale {scale}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn timestamps_equal_chronos_text(m in proptest::num::i64::ANY) {
            // every range: whole seconds, whole days and any µs
            for x in [m, m.saturating_sub(m.rem_euclid(1_000_000)), m.saturating_sub(m.rem_euclid(86_400_000_000))] {
                proptest::prop_assert_eq!(timestamp_text(x), chrono_text(x));
            }
            let access = m.rem_euclid(316_000_000_000_000_000) - 59_011_459_200_000_000;
            proptest::prop_assert_eq!(timestamp_text(access), chrono_text(access));
        }

        #[test]
        fn decimals_equal_the_reference(v in proptest::num::i128::ANY, small in proptest::num::i64::ANY, scale in -4i8..=38) {
            proptest::prop_assert_eq!(decimal_text(v, scale), reference_decimal(v, scale));
            let small = i128::from(small);
            proptest::prop_assert_eq!(decimal_text(small, scale), reference_decimal(small, scale));
        }
    }
}
