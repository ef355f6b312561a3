//! The rows of a table as target-neutral values: batches of the storage
//! scan (decoded on every core, handed over in page order) read cell by
//! cell, and the values a target cannot hold reported by table, column
//! and row.

use super::schema::{ColumnModel, TableModel};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
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

/// Cell `row` of `a` (a column of the storage scan).
pub fn value(a: &ArrayRef, row: usize) -> Value<'_> {
    if a.is_null(row) {
        return Value::Null;
    }
    match a.data_type() {
        DataType::Boolean => Value::Bool(a.as_boolean().value(row)),
        DataType::UInt8 => Value::Int(a.as_primitive::<UInt8Type>().value(row).into()),
        DataType::Int16 => Value::Int(a.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Value::Int(a.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Value::Int(a.as_primitive::<Int64Type>().value(row)),
        DataType::Float32 => Value::F32(a.as_primitive::<Float32Type>().value(row)),
        DataType::Float64 => Value::F64(a.as_primitive::<Float64Type>().value(row)),
        DataType::Decimal128(_, s) => Value::Dec(a.as_primitive::<Decimal128Type>().value(row), *s),
        DataType::Timestamp(_, _) => {
            Value::Micros(a.as_primitive::<TimestampMicrosecondType>().value(row))
        }
        DataType::Utf8 => Value::Text(a.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => Value::Text(a.as_string::<i64>().value(row)),
        DataType::Binary => Value::Bytes(a.as_binary::<i32>().value(row)),
        DataType::LargeBinary => Value::Bytes(a.as_binary::<i64>().value(row)),
        // the storage scan makes no other type of a migrated column
        _ => Value::Null,
    }
}

/// `v × 10^-scale` as decimal text (`-12.3400`, `0.05`, `7`).
pub fn decimal_text(v: i128, scale: i8) -> String {
    if scale <= 0 {
        let mut s = v.to_string();
        if v != 0 {
            s.extend(std::iter::repeat_n('0', usize::from(scale.unsigned_abs())));
        }
        return s;
    }
    let digits = v.unsigned_abs().to_string();
    let scale = usize::from(scale.unsigned_abs());
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    let sign = if v < 0 { "-" } else { "" };
    format!("{sign}{int}.{frac}")
}

/// µs since 1970 as `YYYY-MM-DD HH:MM:SS` with `.ffffff` when the value
/// has a fraction of a second; `None` outside chrono's range.
pub fn timestamp_text(micros: i64) -> Option<String> {
    let t = chrono::DateTime::from_timestamp_micros(micros)?.naive_utc();
    Some(if micros.rem_euclid(1_000_000) == 0 {
        t.format("%Y-%m-%d %H:%M:%S").to_string()
    } else {
        t.format("%Y-%m-%d %H:%M:%S%.6f").to_string()
    })
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
        let v = value(b.column(c.source), r);
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
        (_, Value::Micros(m)) if timestamp_text(*m).is_none() => Some("a date out of range"),
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
    }
}
