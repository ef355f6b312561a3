//! Result rows as PostgreSQL `DataRow` messages: each value in the text
//! form PostgreSQL itself prints (`t`/`f`, `2017-11-03 19:48:00`,
//! `3365.6300`, `\x0aff`, shortest round-trip floats with PostgreSQL's
//! exponent rule) or, where the client asked for it, the binary form
//! (the encoder `jetsql migrate` sends to `COPY … BINARY`).

use super::types::pg_type;
use crate::migrate::data::{Cells, Value, write_decimal, write_timestamp};
use bytes::{BufMut, BytesMut};
use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Date32Type, Field, Time64MicrosecondType, TimeUnit};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use pgwire::api::Type;
use pgwire::api::results::FieldFormat;
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::data::DataRow;
use postgres_types::ToSql;

/// How one result column is sent.
#[derive(Debug, Clone)]
pub struct Column {
    /// Its PostgreSQL type.
    pub ty: Type,
    /// Text or binary.
    pub format: FieldFormat,
}

impl Column {
    /// The column `field` sent in `format`.
    pub fn new(field: &Field, format: FieldFormat) -> Column {
        Column {
            ty: pg_type(field).0,
            format,
        }
    }
}

/// Days from 1970-01-01 to 2000-01-01, PostgreSQL's epoch of dates.
const PG_EPOCH_DAYS: i32 = 10_957;

/// A column of a batch read cell by cell in the form its type is sent.
enum Reader<'a> {
    /// The types of the storage scan (and computed columns cast to them).
    Cells(Cells<'a>),
    Date(&'a datafusion::arrow::array::PrimitiveArray<Date32Type>),
    Time(&'a datafusion::arrow::array::PrimitiveArray<Time64MicrosecondType>),
    /// A list of booleans, integers, floats or text: a PostgreSQL array.
    Array(&'a datafusion::arrow::array::GenericListArray<i32>),
    /// Anything else, as Arrow displays it.
    Display(ArrayFormatter<'a>, &'a ArrayRef),
}

/// The array `a` cast to the Arrow type its PostgreSQL type `ty` is read
/// from, when it is not that type already.
fn canonical(a: &ArrayRef, ty: &Type) -> PgWireResult<ArrayRef> {
    let want = match (ty.clone(), a.data_type()) {
        (Type::TEXT | Type::VARCHAR | Type::UUID, DataType::Utf8 | DataType::LargeUtf8) => {
            return Ok(a.clone());
        }
        (Type::TEXT | Type::VARCHAR | Type::UUID, DataType::Utf8View) => DataType::Utf8,
        (Type::INT2, DataType::Int8) => DataType::Int16,
        (Type::INT4, DataType::UInt16) => DataType::Int32,
        (Type::INT8, DataType::UInt32) => DataType::Int64,
        (Type::FLOAT4, DataType::Float16) => DataType::Float32,
        (Type::NUMERIC, DataType::Decimal32(p, s) | DataType::Decimal64(p, s)) => {
            DataType::Decimal128(*p, *s)
        }
        (Type::NUMERIC, DataType::UInt64) => DataType::Decimal128(20, 0),
        (Type::TIMESTAMP, DataType::Timestamp(u, None)) if *u != TimeUnit::Microsecond => {
            DataType::Timestamp(TimeUnit::Microsecond, None)
        }
        (Type::DATE, DataType::Date64) => DataType::Date32,
        (Type::TIME, DataType::Time32(_) | DataType::Time64(TimeUnit::Nanosecond)) => {
            DataType::Time64(TimeUnit::Microsecond)
        }
        (Type::BYTEA, DataType::BinaryView | DataType::FixedSizeBinary(_)) => DataType::Binary,
        (Type::TEXT_ARRAY, DataType::List(item)) if !matches!(item.data_type(), DataType::Utf8) => {
            DataType::List(std::sync::Arc::new(Field::new_list_field(
                DataType::Utf8,
                true,
            )))
        }
        (_, DataType::LargeList(item)) => DataType::List(item.clone()),
        _ => return Ok(a.clone()),
    };
    cast(a, &want).map_err(|e| internal(&e.to_string()))
}

impl<'a> Reader<'a> {
    fn new(a: &'a ArrayRef, ty: &Type, options: &'a FormatOptions<'a>) -> PgWireResult<Self> {
        Ok(match (ty.clone(), a.data_type()) {
            (Type::DATE, DataType::Date32) => Reader::Date(a.as_primitive()),
            (Type::TIME, DataType::Time64(TimeUnit::Microsecond)) => Reader::Time(a.as_primitive()),
            (
                Type::BOOL_ARRAY
                | Type::INT2_ARRAY
                | Type::INT4_ARRAY
                | Type::INT8_ARRAY
                | Type::FLOAT8_ARRAY
                | Type::TEXT_ARRAY
                | Type::INT2_VECTOR,
                DataType::List(_),
            ) => Reader::Array(a.as_list()),
            (Type::TEXT, dt) if !matches!(dt, DataType::Utf8 | DataType::LargeUtf8) => {
                Reader::Display(
                    ArrayFormatter::try_new(a.as_ref(), options)
                        .map_err(|e| internal(&e.to_string()))?,
                    a,
                )
            }
            _ => Reader::Cells(Cells::new(a)),
        })
    }
}

fn internal(message: &str) -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "ERROR".to_string(),
        "XX000".to_string(),
        message.to_string(),
    )))
}

/// The rows of `batch` as `DataRow`s, column `i` sent as `columns[i]`.
pub fn rows(batch: &RecordBatch, columns: &[Column]) -> PgWireResult<Vec<DataRow>> {
    let options = FormatOptions::default().with_null("");
    let arrays: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .zip(columns)
        .map(|(a, c)| canonical(a, &c.ty))
        .collect::<PgWireResult<_>>()?;
    let readers: Vec<Reader<'_>> = arrays
        .iter()
        .zip(columns)
        .map(|(a, c)| Reader::new(a, &c.ty, &options))
        .collect::<PgWireResult<_>>()?;
    let field_count = i16::try_from(columns.len()).map_err(|_| internal("too many columns"))?;
    let mut out = Vec::with_capacity(batch.num_rows());
    let mut text = String::new();
    for r in 0..batch.num_rows() {
        let mut data = BytesMut::with_capacity(16 * columns.len());
        for (reader, c) in readers.iter().zip(columns) {
            put_cell(&mut data, &mut text, reader, r, c)?;
        }
        out.push(DataRow::new(data, field_count));
    }
    Ok(out)
}

/// Appends one cell: its length (-1 for NULL), then its bytes.
fn put_cell(
    data: &mut BytesMut,
    text: &mut String,
    reader: &Reader<'_>,
    r: usize,
    c: &Column,
) -> PgWireResult<()> {
    let at = data.len();
    data.put_i32(0);
    let null = match reader {
        Reader::Cells(cells) => {
            let v = cells.value(r);
            match c.format {
                FieldFormat::Binary => match (v, &c.ty) {
                    // the catalog's own types
                    (Value::Int(i), &Type::OID) => {
                        data.put_u32(u32::try_from(i).map_err(|e| internal(&e.to_string()))?);
                        false
                    }
                    (Value::Text(t), &Type::NAME | &Type::CHAR | &Type::BPCHAR) => {
                        data.put_slice(t.as_bytes());
                        false
                    }
                    _ => {
                        let is_null = v
                            .to_sql(&c.ty, data)
                            .map_err(|e| internal(&e.to_string()))?;
                        matches!(is_null, postgres_types::IsNull::Yes)
                    }
                },
                FieldFormat::Text => {
                    text.clear();
                    let null = write_text(text, v, &c.ty)?;
                    data.put_slice(text.as_bytes());
                    null
                }
            }
        }
        Reader::Date(a) => {
            if a.is_null(r) {
                true
            } else {
                let days = a.value(r);
                match c.format {
                    FieldFormat::Binary => data.put_i32(days - PG_EPOCH_DAYS),
                    FieldFormat::Text => {
                        let d = chrono::DateTime::from_timestamp(i64::from(days) * 86_400, 0)
                            .ok_or_else(|| internal("a date out of range"))?;
                        data.put_slice(d.format("%Y-%m-%d").to_string().as_bytes());
                    }
                }
                false
            }
        }
        Reader::Time(a) => {
            if a.is_null(r) {
                true
            } else {
                let micros = a.value(r);
                match c.format {
                    FieldFormat::Binary => data.put_i64(micros),
                    FieldFormat::Text => {
                        text.clear();
                        write_time(text, micros);
                        data.put_slice(text.as_bytes());
                    }
                }
                false
            }
        }
        Reader::Array(a) => {
            if a.is_null(r) {
                true
            } else {
                let items = a.value(r);
                match c.format {
                    FieldFormat::Text => {
                        text.clear();
                        array_text(text, &items, &c.ty)?;
                        data.put_slice(text.as_bytes());
                    }
                    FieldFormat::Binary => array_binary(data, &items, &c.ty)?,
                }
                false
            }
        }
        Reader::Display(f, a) => {
            // logical: a NullArray has no null buffer, yet every value is NULL
            if a.logical_nulls().is_some_and(|n| n.is_null(r)) {
                true
            } else {
                text.clear();
                use std::fmt::Write;
                write!(text, "{}", f.value(r)).map_err(|e| internal(&e.to_string()))?;
                data.put_slice(text.as_bytes());
                false
            }
        }
    };
    if null {
        data.truncate(at);
        data.put_i32(-1);
    } else {
        let len = i32::try_from(data.len() - at - 4)
            .map_err(|_| internal("a value larger than 2 GiB"))?;
        data[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }
    Ok(())
}

/// Writes `v` as PostgreSQL prints a value of type `ty`; true for NULL.
fn write_text(out: &mut String, v: Value<'_>, ty: &Type) -> PgWireResult<bool> {
    use std::fmt::Write;
    match v {
        Value::Null => return Ok(true),
        Value::Bool(b) => out.push(if b { 't' } else { 'f' }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::F32(x) => write_float(out, f64::from(x), x.to_string(), 6),
        Value::F64(x) => write_float(out, x, x.to_string(), 15),
        Value::Dec(v, s) => write_decimal(out, v, s),
        Value::Micros(m) => {
            if !write_timestamp(out, m) {
                return Err(internal("a date out of range"));
            }
            trim_fraction(out);
        }
        Value::Text(s) if *ty == Type::UUID => {
            let inner = s
                .strip_prefix('{')
                .and_then(|x| x.strip_suffix('}'))
                .unwrap_or(s);
            out.extend(inner.chars().map(|c| c.to_ascii_lowercase()));
        }
        Value::Text(s) => out.push_str(s),
        Value::Bytes(b) => {
            out.push_str("\\x");
            for byte in b {
                let _ = write!(out, "{byte:02x}");
            }
        }
    }
    Ok(false)
}

/// The element type of a PostgreSQL array type.
fn element(ty: &Type) -> Type {
    match *ty {
        Type::BOOL_ARRAY => Type::BOOL,
        Type::INT2_ARRAY | Type::INT2_VECTOR => Type::INT2,
        Type::INT4_ARRAY => Type::INT4,
        Type::INT8_ARRAY => Type::INT8,
        Type::FLOAT8_ARRAY => Type::FLOAT8,
        _ => Type::TEXT,
    }
}

/// An array's text form: `{1,2}`, `{"a b",NULL}` (an element quoted when
/// it is empty, `NULL`, or holds a blank, a quote, a backslash, a comma
/// or a brace).
fn array_text(out: &mut String, items: &ArrayRef, ty: &Type) -> PgWireResult<()> {
    let cells = Cells::new(items);
    let elem = element(ty);
    if *ty == Type::INT2_VECTOR {
        // `int2vector`: the numbers, blank-separated
        for i in 0..items.len() {
            if i > 0 {
                out.push(' ');
            }
            write_text(out, cells.value(i), &elem)?;
        }
        return Ok(());
    }
    out.push('{');
    let mut one = String::new();
    for i in 0..items.len() {
        if i > 0 {
            out.push(',');
        }
        one.clear();
        if write_text(&mut one, cells.value(i), &elem)? {
            out.push_str("NULL");
            continue;
        }
        let quote = one.is_empty()
            || one.eq_ignore_ascii_case("null")
            || one
                .chars()
                .any(|c| c.is_whitespace() || matches!(c, '"' | '\\' | ',' | '{' | '}'));
        if quote {
            out.push('"');
            for c in one.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        } else {
            out.push_str(&one);
        }
    }
    out.push('}');
    Ok(())
}

/// An array's binary form: dimensions, a NULL flag, the element type,
/// each dimension's length and lower bound (1), then each element.
fn array_binary(data: &mut BytesMut, items: &ArrayRef, ty: &Type) -> PgWireResult<()> {
    let elem = element(ty);
    let n = i32::try_from(items.len()).map_err(|_| internal("an array too long"))?;
    data.put_i32(i32::from(n > 0));
    data.put_i32(i32::from(items.null_count() > 0));
    data.put_u32(elem.oid());
    if n > 0 {
        data.put_i32(n);
        data.put_i32(1);
    }
    let cells = Cells::new(items);
    for i in 0..items.len() {
        let at = data.len();
        data.put_i32(0);
        let v = cells.value(i);
        let null = matches!(
            v.to_sql(&elem, data)
                .map_err(|e| internal(&e.to_string()))?,
            postgres_types::IsNull::Yes
        );
        if null {
            data.truncate(at);
            data.put_i32(-1);
        } else {
            let len =
                i32::try_from(data.len() - at - 4).map_err(|_| internal("an element too long"))?;
            data[at..at + 4].copy_from_slice(&len.to_be_bytes());
        }
    }
    Ok(())
}

/// Drops the trailing zeros of a time's fraction of a second, as
/// PostgreSQL prints it (`12:00:00.5`).
fn trim_fraction(out: &mut String) {
    if let Some(dot) = out.rfind('.')
        && out[dot + 1..].bytes().all(|b| b.is_ascii_digit())
    {
        let kept = out.trim_end_matches('0').len();
        out.truncate(if kept == dot + 1 { dot } else { kept });
    }
}

/// `HH:MM:SS[.ffffff]` of µs since midnight.
fn write_time(out: &mut String, micros: i64) {
    use std::fmt::Write;
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if frac != 0 {
        let _ = write!(out, ".{frac:06}");
        trim_fraction(out);
    }
}

/// A float as PostgreSQL 12+ prints it (`extra_float_digits` ≥ 1): the
/// shortest digits that read back exactly, in fixed notation when the
/// decimal exponent is in −4 ‥ `digits`−1 (`digits` 15 for `float8`, 6
/// for `float4`), else as `1.5e-05` / `1e+21`. `shortest` is Rust's
/// shortest round-trip text of the value in its own width.
fn write_float(out: &mut String, x: f64, shortest: String, digits: i32) {
    if x.is_nan() {
        out.push_str("NaN");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    // the exponent and digits of the shortest form: parse Rust's text
    let (sign, body) = match shortest.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", shortest.as_str()),
    };
    let (mantissa, exp10) = match body.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse::<i32>().unwrap_or(0)),
        None => (body.to_string(), 0),
    };
    // digits without the point, and where the point is
    let (int, frac) = mantissa.split_once('.').unwrap_or((&mantissa, ""));
    let all: String = format!("{int}{frac}");
    let lead_zeros = all.len() - all.trim_start_matches('0').len();
    let significant = all.trim_start_matches('0').trim_end_matches('0');
    // decimal exponent of the first significant digit
    let exponent = int.len() as i32 - 1 - lead_zeros as i32 + exp10;
    if (-4..digits).contains(&exponent) {
        out.push_str(sign);
        if exponent < 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
            out.push_str(significant);
        } else {
            let int_digits = exponent as usize + 1;
            if significant.len() <= int_digits {
                out.push_str(significant);
                out.extend(std::iter::repeat_n('0', int_digits - significant.len()));
            } else {
                out.push_str(&significant[..int_digits]);
                out.push('.');
                out.push_str(&significant[int_digits..]);
            }
        }
    } else {
        out.push_str(sign);
        out.push_str(&significant[..1]);
        if significant.len() > 1 {
            out.push('.');
            out.push_str(&significant[1..]);
        }
        use std::fmt::Write;
        let _ = write!(
            out,
            "e{}{:02}",
            if exponent < 0 { '-' } else { '+' },
            exponent.abs()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f8(x: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, x, x.to_string(), 15);
        s
    }

    fn f4(x: f32) -> String {
        let mut s = String::new();
        write_float(&mut s, f64::from(x), x.to_string(), 6);
        s
    }

    /// Expected texts are PostgreSQL 15's own output (`SELECT x::float8`,
    /// `x::float4`, extra_float_digits 1, on this machine's server).
    #[test]
    fn floats_print_as_postgresql_prints_them() {
        assert_eq!(f8(0.1), "0.1");
        assert_eq!(f8(1.0), "1");
        assert_eq!(f8(-2.5), "-2.5");
        assert_eq!(f8(1e15), "1e+15");
        assert_eq!(f8(1e14), "100000000000000");
        assert_eq!(f8(123456.789), "123456.789");
        assert_eq!(f8(0.0001), "0.0001");
        assert_eq!(f8(0.00001), "1e-05");
        assert_eq!(f8(1.5e-7), "1.5e-07");
        assert_eq!(f8(1e21), "1e+21");
        assert_eq!(f8(1.7976931348623157e308), "1.7976931348623157e+308");
        assert_eq!(f8(f64::NAN), "NaN");
        assert_eq!(f8(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(f8(-0.0), "-0");
        assert_eq!(f4(1234567.0), "1.234567e+06");
        assert_eq!(f4(123456.0), "123456");
        assert_eq!(f4(0.1), "0.1");
        assert_eq!(f4(98765.43), "98765.43");
        assert_eq!(f4(0.000123), "0.000123");
    }

    /// PostgreSQL 15 prints `ARRAY['a b', NULL, 'x', '']` as
    /// `{"a b",NULL,x,""}` and `ARRAY[1,2]::int2[]` as `{1,2}`.
    #[test]
    fn arrays_print_as_postgresql_prints_them() {
        use datafusion::arrow::array::{Int16Array, StringArray};
        let mut s = String::new();
        let texts: ArrayRef = std::sync::Arc::new(StringArray::from(vec![
            Some("a b"),
            None,
            Some("x"),
            Some(""),
        ]));
        array_text(&mut s, &texts, &Type::TEXT_ARRAY).unwrap();
        assert_eq!(s, r#"{"a b",NULL,x,""}"#);
        s.clear();
        let ints: ArrayRef = std::sync::Arc::new(Int16Array::from(vec![1, 2]));
        array_text(&mut s, &ints, &Type::INT2_ARRAY).unwrap();
        assert_eq!(s, "{1,2}");
    }

    #[test]
    fn times_and_fractions() {
        let mut s = String::new();
        write_time(&mut s, 45_296_500_000);
        assert_eq!(s, "12:34:56.5");
        let mut s = "2020-01-02 03:04:05.120000".to_string();
        trim_fraction(&mut s);
        assert_eq!(s, "2020-01-02 03:04:05.12");
    }
}
