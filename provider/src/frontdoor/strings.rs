//! Size-checked text functions. `repeat`, `lpad`, `rpad`, `overlay`,
//! `replace`, `concat`, `concat_ws`, `regexp_replace` and `encode`, and
//! Access's `Space`, `String`, `Replace` and `&` (`access_concat`, and
//! `+` of texts, `access_add`) allocate their whole result (and
//! `lpad`/`rpad` a byte-offset table of 8 bytes per character) before
//! writing it; a failed allocation aborts the process. [`size_checked`]
//! wraps the session's function of the same name: before it runs, the
//! bytes it would allocate for the whole batch (every row's value; a
//! constant argument counts once per row, as the caller repeats a
//! constant result over the batch) are bounded from its arguments, and a
//! result larger than the limit is a "resources exhausted" error naming
//! the limit instead of an abort ([`check_need`]). The digest functions
//! (`sha256`, `md5`, `digest`, …) build small results; their input comes
//! from a column or from one of these functions, which is checked.

use datafusion::arrow::array::{Array, AsArray, Int64Array};
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, Expr, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use std::sync::Arc;

/// The functions [`size_checked`] wraps (by name, ignoring case).
pub const CHECKED_FUNCTIONS: &[&str] = &[
    "repeat",
    "lpad",
    "rpad",
    "overlay",
    "replace",
    "concat",
    "concat_ws",
    "regexp_replace",
    "encode",
    "space",
    "string",
    "access_concat",
    "access_add",
];

/// The functions of [`CHECKED_FUNCTIONS`] that multiply their input by a
/// count (`repeat`, `lpad`, `rpad`, Access's `Space` and `String`): they
/// are not folded into constants while planning (their signature says
/// volatile). Folded, they would put a value of up to the memory limit
/// into the plan, which the planner copies (into the physical plan, into
/// each function it folds next) without any check, and which a
/// projection then repeats over every row of a batch; run with the rows,
/// their result for the whole batch is what the check bounds.
pub const UNFOLDED_FUNCTIONS: &[&str] = &["repeat", "lpad", "rpad", "space", "string"];

/// From this many bytes on, a check also asks how much room the process
/// has left under its own limits ([`super::limits::room_left`], a read of
/// `/proc/self/status`); smaller needs skip that read.
const ROOM_CHECK_FROM: u128 = 16 << 20;

/// Refuses `need` bytes for `subject` (`repeat()`, `string_agg()`, …;
/// `purpose` says what for, after "would need … of memory"): more than
/// `limit`, or, from [`ROOM_CHECK_FROM`] on, more than a third of what
/// the process may still map under its own limits (`ulimit -v`,
/// `ulimit -d`; the value, a copy of it or of the arguments it is made
/// from, and what is built from it next). The error is "resources
/// exhausted", one line.
pub fn check_need(
    subject: std::fmt::Arguments<'_>,
    purpose: &str,
    need: u128,
    limit: u64,
) -> Result<()> {
    if need > u128::from(limit) {
        return Err(DataFusionError::ResourcesExhausted(format!(
            "{subject} would need {} of memory{purpose}, more than the memory limit of {} \
             (jetsql --memory-limit)",
            human_bytes(need),
            human_bytes(u128::from(limit))
        )));
    }
    if need >= ROOM_CHECK_FROM
        && let Some(room) = super::limits::room_left()
        && need.saturating_mul(3) > u128::from(room)
    {
        return Err(DataFusionError::ResourcesExhausted(format!(
            "{subject} would need {} of memory{purpose}, more than a third of the {} the \
             process may still use under its own limit (ulimit -v, ulimit -d)",
            human_bytes(need),
            human_bytes(u128::from(room))
        )));
    }
    Ok(())
}

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
    /// The inner function's signature, volatile for
    /// [`UNFOLDED_FUNCTIONS`].
    signature: Signature,
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
    if inner.inner().is::<SizeChecked>() {
        return inner;
    }
    let mut signature = inner.signature().clone();
    if UNFOLDED_FUNCTIONS.contains(&name.as_str()) {
        signature.volatility = Volatility::Volatile;
    }
    Arc::new(ScalarUDF::new_from_impl(SizeChecked {
        inner: inner.as_ref().clone(),
        limit,
        signature,
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

/// Bytes between the first and the last offset of a string or binary
/// array (its values' bytes, also for a slice of a larger array).
fn offsets_span<O: Copy + Into<i64>>(offsets: &[O]) -> u128 {
    match (offsets.first(), offsets.last()) {
        (Some(&first), Some(&last)) => (last.into() - first.into()).max(0) as u128,
        _ => 0,
    }
}

/// Bytes of the values of a string or binary array; `None` for other
/// types.
pub fn array_bytes(a: &dyn Array) -> Option<u128> {
    Some(match a.data_type() {
        DataType::Utf8 => offsets_span(a.as_string::<i32>().value_offsets()),
        DataType::LargeUtf8 => offsets_span(a.as_string::<i64>().value_offsets()),
        DataType::Binary => offsets_span(a.as_binary::<i32>().value_offsets()),
        DataType::LargeBinary => offsets_span(a.as_binary::<i64>().value_offsets()),
        DataType::Utf8View => a.as_string_view().lengths().map(u128::from).sum(),
        DataType::BinaryView => a.as_binary_view().lengths().map(u128::from).sum(),
        _ => return None,
    })
}

/// Bytes of a string or binary scalar (0 for NULL); `None` for other
/// types.
pub fn scalar_bytes(s: &ScalarValue) -> Option<u128> {
    match s {
        ScalarValue::Utf8(v) | ScalarValue::LargeUtf8(v) | ScalarValue::Utf8View(v) => {
            Some(v.as_ref().map_or(0, String::len) as u128)
        }
        ScalarValue::Binary(v)
        | ScalarValue::LargeBinary(v)
        | ScalarValue::BinaryView(v)
        | ScalarValue::FixedSizeBinary(_, v) => Some(v.as_ref().map_or(0, Vec::len) as u128),
        ScalarValue::Dictionary(_, v) => scalar_bytes(v),
        _ => None,
    }
}

/// Bytes of text (or binary) in an argument (a scalar counts once per
/// row); 0 for other types.
fn text_bytes(v: &ColumnarValue, rows: usize) -> u128 {
    match v {
        ColumnarValue::Scalar(s) => scalar_bytes(s).unwrap_or(0) * rows.max(1) as u128,
        ColumnarValue::Array(a) => array_bytes(a.as_ref()).unwrap_or(0),
    }
}

/// Bytes an argument adds to a concatenation: its text or binary bytes,
/// nothing for NULL, and for other types (numbers and dates written as
/// text) 32 bytes a row.
fn value_bytes(v: &ColumnarValue, rows: usize) -> u128 {
    match v {
        ColumnarValue::Scalar(s) if s.is_null() => 0,
        ColumnarValue::Scalar(s) => scalar_bytes(s).unwrap_or(32) * rows.max(1) as u128,
        ColumnarValue::Array(a) if *a.data_type() == DataType::Null => 0,
        ColumnarValue::Array(a) => array_bytes(a.as_ref()).unwrap_or(32 * a.len() as u128),
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
    /// Bytes the inner function would allocate for `args`: its result
    /// for the whole batch.
    fn estimate(&self, args: &ScalarFunctionArgs) -> u128 {
        let a = &args.args;
        let rows = args.number_rows;
        match (
            self.inner.name().to_ascii_lowercase().as_str(),
            a.as_slice(),
        ) {
            ("repeat", [s, n]) => {
                let (max_n, sum_n) = counts(n, rows);
                let result = match (s, n) {
                    (ColumnarValue::Scalar(_), _) => max_text(s) * sum_n,
                    (_, ColumnarValue::Scalar(_)) => text_bytes(s, rows) * max_n,
                    _ => max_text(s) * sum_n,
                };
                // DataFusion repeats each value into a reused buffer sized
                // for the longest one, then copies it into the result (the
                // hostile-input fuzz found a 1.2 GB repeat taking 2.4 GB)
                result + max_text(s) * max_n
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
                // at most one replacement per character of `from` (Access
                // matches characters, DataFusion bytes)
                let from_len = match from {
                    ColumnarValue::Scalar(f) => f
                        .try_as_str()
                        .flatten()
                        .map_or(1, |t| t.chars().count().max(1) as u128),
                    ColumnarValue::Array(_) => 1,
                };
                let bytes = text_bytes(s, rows);
                bytes + (bytes / from_len + rows as u128) * max_text(to)
            }
            ("concat" | "access_concat" | "access_add", values) => {
                values.iter().map(|v| value_bytes(v, rows)).sum()
            }
            ("concat_ws", [sep, rest @ ..]) => {
                let values: u128 = rest.iter().map(|v| value_bytes(v, rows)).sum();
                values + text_bytes(sep, rows) * rest.len().saturating_sub(1) as u128
            }
            // every match (at most one per byte, and one at the end)
            // becomes the replacement, whose references to groups (`\1`,
            // at most one per two of its bytes) copy at most the text
            ("regexp_replace", [s, _, repl, ..]) => {
                (text_bytes(s, rows) + rows as u128) * (2 * max_text(repl) + 1)
            }
            // hex doubles, base64 adds a third
            ("encode", [s, ..]) => 2 * value_bytes(s, rows) + rows as u128,
            ("space", [n]) => counts(n, rows).1,
            // a character of up to 4 bytes, repeated
            ("string", [n, ..]) => 4 * counts(n, rows).1,
            _ => 0,
        }
    }
}

impl ScalarUDFImpl for SizeChecked {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn schema_name(&self, args: &[Expr]) -> Result<String> {
        // the inner function's column name (Access's operators are named
        // as the operator: `a & b`)
        self.inner.inner().schema_name(args)
    }
    fn aliases(&self) -> &[String] {
        self.inner.aliases()
    }
    fn signature(&self) -> &Signature {
        &self.signature
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
        // Access's operators by their sign, functions by name
        let (subject, call) = match self.inner.name() {
            "access_concat" => ("the & operator", ""),
            "access_add" => ("the + operator", ""),
            name => (name, "()"),
        };
        check_need(
            format_args!("{subject}{call}"),
            " for its result",
            need,
            self.limit,
        )?;
        self.inner.invoke_with_args(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_of_strings_and_binaries() {
        use datafusion::arrow::array::{BinaryArray, StringArray, StringViewArray};
        let a = StringArray::from(vec!["ab", "cde", "f"]);
        assert_eq!(array_bytes(&a), Some(6));
        // a slice counts its own values, not the whole buffer
        assert_eq!(array_bytes(&a.slice(1, 2)), Some(4));
        let v = StringViewArray::from(vec!["ab", "a much longer string than twelve"]);
        assert_eq!(array_bytes(&v), Some(34));
        let b = BinaryArray::from(vec![&b"xyz"[..]]);
        assert_eq!(array_bytes(&b), Some(3));
        assert_eq!(array_bytes(&Int64Array::from(vec![1])), None);
        assert_eq!(
            scalar_bytes(&ScalarValue::Utf8(Some("abc".into()))),
            Some(3)
        );
        assert_eq!(
            scalar_bytes(&ScalarValue::LargeBinary(Some(vec![0; 5]))),
            Some(5)
        );
        assert_eq!(scalar_bytes(&ScalarValue::Utf8(None)), Some(0));
        assert_eq!(scalar_bytes(&ScalarValue::Int64(Some(1))), None);
    }

    #[test]
    fn needs_past_the_limit_are_resources_exhausted() {
        assert!(check_need(format_args!("f()"), " for its result", 100, 1000).is_ok());
        let e = check_need(format_args!("f()"), " for its result", 2048, 1024)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "Resources exhausted: f() would need 2.0 KiB of memory for its result, more than \
             the memory limit of 1.0 KiB (jetsql --memory-limit)"
        );
    }

    #[test]
    fn count_functions_are_not_folded() {
        let repeat = datafusion::functions::string::repeat();
        let checked = size_checked(repeat.clone(), 1 << 20);
        assert_eq!(checked.signature().volatility, Volatility::Volatile);
        assert_eq!(unchecked(&checked), repeat.as_ref());
        // wrapping twice changes nothing
        let again = size_checked(checked.clone(), 1 << 20);
        assert!(Arc::ptr_eq(&again, &checked));
        let concat = size_checked(datafusion::functions::string::concat(), 1 << 20);
        assert_ne!(concat.signature().volatility, Volatility::Volatile);
        assert!(concat.inner().is::<SizeChecked>());
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(100), "100 bytes");
        assert_eq!(human_bytes(2 << 30), "2.0 GiB");
        assert_eq!(human_bytes(1536 << 10), "1.5 MiB");
    }
}
