//! Size-checked text functions. `repeat`, `lpad`, `rpad`, `overlay` and
//! `replace` allocate their whole result (and `lpad`/`rpad` a byte-offset
//! table of 8 bytes per character) before writing it; a failed allocation
//! aborts the process. [`size_checked`] wraps the session's function of
//! the same name: before it runs, the bytes it would allocate are bounded
//! from its arguments, and a result larger than the limit is a "resources
//! exhausted" error naming the limit instead of an abort.

use datafusion::arrow::array::{Array, AsArray, Int64Array};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
};
use std::sync::Arc;

/// The functions [`size_checked`] wraps.
pub const CHECKED_FUNCTIONS: [&str; 5] = ["repeat", "lpad", "rpad", "overlay", "replace"];

/// `n` bytes for people: `2.0 GiB`, `512 MiB`, `100 bytes`.
pub fn human_bytes(n: u128) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The limit the size-checked functions of a session use: its memory
/// pool's limit, or [`super::default_memory_limit`] for an unbounded pool.
pub fn session_limit(ctx: &datafusion::prelude::SessionContext) -> u64 {
    match ctx.runtime_env().memory_pool.memory_limit() {
        datafusion::execution::memory_pool::MemoryLimit::Finite(n) => n as u64,
        _ => super::default_memory_limit(),
    }
}

/// A function of [`CHECKED_FUNCTIONS`] that refuses results larger than
/// `limit` bytes.
#[derive(Debug, PartialEq, Eq, Hash)]
struct SizeChecked {
    inner: ScalarUDF,
    limit: u64,
}

/// `inner` (one of [`CHECKED_FUNCTIONS`], by name ignoring case: Access's
/// `Replace` too) wrapped so that a
/// result needing more than `limit` bytes is an error; other functions
/// come back unchanged.
pub fn size_checked(inner: Arc<ScalarUDF>, limit: u64) -> Arc<ScalarUDF> {
    let name = inner.name().to_ascii_lowercase();
    if !CHECKED_FUNCTIONS.contains(&name.as_str()) {
        return inner;
    }
    Arc::new(ScalarUDF::new_from_impl(SizeChecked {
        inner: inner.as_ref().clone(),
        limit,
    }))
}

/// The function `f` wraps when it is size-checked ([`size_checked`]),
/// else `f` itself.
pub fn unchecked(f: &ScalarUDF) -> &ScalarUDF {
    match f.inner().downcast_ref::<SizeChecked>() {
        Some(c) => &c.inner,
        None => f,
    }
}

/// Bytes of text in a string argument (a scalar counts once per row).
fn text_bytes(v: &ColumnarValue, rows: usize) -> u128 {
    match v {
        ColumnarValue::Scalar(s) => {
            s.try_as_str().flatten().map_or(0, str::len) as u128 * rows.max(1) as u128
        }
        ColumnarValue::Array(a) => match a.data_type() {
            DataType::Utf8 => a.as_string::<i32>().value_data().len() as u128,
            DataType::LargeUtf8 => a.as_string::<i64>().value_data().len() as u128,
            DataType::Utf8View => {
                let v = a.as_string_view();
                (0..v.len()).map(|i| v.value(i).len() as u128).sum()
            }
            _ => 0,
        },
    }
}

/// Longest text of a string argument.
fn max_text(v: &ColumnarValue) -> u128 {
    match v {
        ColumnarValue::Scalar(s) => s.try_as_str().flatten().map_or(0, str::len) as u128,
        ColumnarValue::Array(a) => match a.data_type() {
            DataType::Utf8 => a.as_string::<i32>().iter().flatten().map(str::len).max(),
            DataType::LargeUtf8 => a.as_string::<i64>().iter().flatten().map(str::len).max(),
            DataType::Utf8View => a.as_string_view().iter().flatten().map(str::len).max(),
            _ => None,
        }
        .unwrap_or(0) as u128,
    }
}

/// Whether a string argument is all ASCII (unknown: no).
fn ascii(v: &ColumnarValue) -> bool {
    match v {
        ColumnarValue::Scalar(s) => s.try_as_str().flatten().is_none_or(str::is_ascii),
        ColumnarValue::Array(a) => match a.data_type() {
            DataType::Utf8 => a.as_string::<i32>().value_data().is_ascii(),
            DataType::LargeUtf8 => a.as_string::<i64>().value_data().is_ascii(),
            _ => false,
        },
    }
}

/// The count arguments (`repeat`'s n, `lpad`'s length) as non-negative
/// numbers: (the largest, the sum over rows; a scalar counts per row).
fn counts(v: &ColumnarValue, rows: usize) -> (u128, u128) {
    let clamp = |n: i64| n.max(0) as u128;
    match v {
        ColumnarValue::Scalar(s) => {
            let n = match s.cast_to(&DataType::Int64) {
                Ok(ScalarValue::Int64(Some(n))) => clamp(n),
                _ => 0,
            };
            (n, n * rows.max(1) as u128)
        }
        ColumnarValue::Array(a) => {
            let Ok(c) = datafusion::arrow::compute::cast(a, &DataType::Int64) else {
                return (0, 0);
            };
            let Some(c) = c.as_any().downcast_ref::<Int64Array>() else {
                return (0, 0);
            };
            let it = c.iter().flatten().map(clamp);
            (it.clone().max().unwrap_or(0), it.sum())
        }
    }
}

impl SizeChecked {
    /// Bytes the inner function would allocate for `args`.
    fn estimate(&self, args: &ScalarFunctionArgs) -> u128 {
        let a = &args.args;
        let rows = args.number_rows;
        match (
            self.inner.name().to_ascii_lowercase().as_str(),
            a.as_slice(),
        ) {
            ("repeat", [s, n]) => {
                let (max_n, sum_n) = counts(n, rows);
                match (s, n) {
                    (ColumnarValue::Scalar(_), _) => max_text(s) * sum_n,
                    (_, ColumnarValue::Scalar(_)) => text_bytes(s, rows) * max_n,
                    _ => max_text(s) * sum_n,
                }
            }
            ("lpad" | "rpad", [s, n, rest @ ..]) => {
                let all_ascii = ascii(s) && rest.iter().all(ascii);
                let width: u128 = if all_ascii { 1 } else { 4 };
                let (max_n, sum_n) = counts(n, rows);
                // the result, plus a padding buffer of max_n characters
                // (and its offset table when not ASCII)
                let table = if all_ascii { 0 } else { 8 * (max_n + 1) };
                sum_n * width + max_n * width + table
            }
            ("overlay", [s, sub, ..]) => text_bytes(s, rows) + text_bytes(sub, rows),
            ("replace", [s, from, to, ..]) => {
                let from_len = match from {
                    ColumnarValue::Scalar(_) => max_text(from).max(1),
                    ColumnarValue::Array(_) => 1,
                };
                let bytes = text_bytes(s, rows);
                bytes + (bytes / from_len + rows as u128) * max_text(to)
            }
            _ => 0,
        }
    }
}

impl ScalarUDFImpl for SizeChecked {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }
    fn signature(&self) -> &Signature {
        self.inner.signature()
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.inner.return_type(arg_types)
    }
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        self.inner.return_field_from_args(args)
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        self.inner.coerce_types(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let need = self.estimate(&args);
        if need > u128::from(self.limit) {
            return Err(DataFusionError::ResourcesExhausted(format!(
                "{}() would need {} of memory for its result, more than the memory limit of {} \
                 (jetsql --memory-limit)",
                self.inner.name(),
                human_bytes(need),
                human_bytes(u128::from(self.limit))
            )));
        }
        self.inner.invoke_with_args(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(100), "100 bytes");
        assert_eq!(human_bytes(2 << 30), "2.0 GiB");
        assert_eq!(human_bytes(1536 << 10), "1.5 MiB");
    }
}
