//! The one DataFusion scalar UDF type every Access function is: a name,
//! an arity, the arguments whose Null makes the result Null, a rule for
//! the result's Arrow type and a row function over [`Value`]s.
//!
//! Arguments arrive as whatever Arrow types DataFusion has; they are read
//! through a few canonical types (Int64, Float32/64, Decimal128,
//! Timestamp(µs), Utf8, Boolean) and the result is built in the type the
//! return rule chose, converting with Access's coercions.

use super::value::{Value, fn_err, to_bool, to_date, to_f64, to_i64, to_text};
use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanBuilder, Decimal128Builder, Float32Builder, Float64Builder,
    Int16Builder, Int32Builder, Int64Builder, NullArray, TimestampMicrosecondBuilder, UInt8Builder,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Float32Type, Float64Type, Int64Type, TimeUnit,
    TimestampMicrosecondType,
};
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::Expr;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use std::fmt::Write as _;
use std::sync::Arc;

/// A function's arguments for one row, with helpers that convert them by
/// Access's rules and name the function and argument in errors.
pub struct Call<'a> {
    /// The function's Access name, for messages.
    pub name: &'static str,
    /// The row's argument values (missing optional arguments are absent).
    pub args: &'a [Value],
    /// The type the result is built in.
    pub ret: &'a DataType,
}

impl Call<'_> {
    /// Argument `i`, or Null when it was not given.
    pub fn arg(&self, i: usize) -> &Value {
        self.args.get(i).unwrap_or(&Value::Null)
    }
    /// True when argument `i` was given.
    pub fn has(&self, i: usize) -> bool {
        i < self.args.len()
    }
    fn null_err(&self, label: &str) -> datafusion::error::DataFusionError {
        fn_err(
            self.name,
            format!("invalid use of Null in argument {label}"),
        )
    }
    /// Argument `i` as a number; Null is an error.
    pub fn num(&self, i: usize, label: &str) -> Result<f64> {
        to_f64(self.name, self.arg(i))?.ok_or_else(|| self.null_err(label))
    }
    /// Argument `i` as a whole number (banker's rounding); Null is an error.
    pub fn int(&self, i: usize, label: &str) -> Result<i64> {
        to_i64(self.name, self.arg(i))?.ok_or_else(|| self.null_err(label))
    }
    /// Optional whole-number argument `i`, `default` when not given.
    pub fn int_or(&self, i: usize, label: &str, default: i64) -> Result<i64> {
        if self.has(i) {
            self.int(i, label)
        } else {
            Ok(default)
        }
    }
    /// Argument `i` as text; Null is an error.
    pub fn text(&self, i: usize, label: &str) -> Result<String> {
        to_text(self.arg(i)).ok_or_else(|| self.null_err(label))
    }
    /// Argument `i` as a date (engine microseconds); Null is an error.
    pub fn date(&self, i: usize, label: &str) -> Result<i64> {
        to_date(self.name, self.arg(i))?.ok_or_else(|| self.null_err(label))
    }
    /// Argument `i` as Yes/No; Null is an error.
    pub fn bool(&self, i: usize, label: &str) -> Result<bool> {
        to_bool(self.name, self.arg(i))?.ok_or_else(|| self.null_err(label))
    }
    /// An error naming this function.
    pub fn err(&self, msg: impl std::fmt::Display) -> datafusion::error::DataFusionError {
        fn_err(self.name, msg)
    }
}

/// A row function.
pub type EvalFn = fn(&Call) -> Result<Value>;
/// A result type rule over the argument types (after [`canonical`]).
pub type RetFn = fn(&[DataType]) -> Result<DataType>;

/// Bit mask meaning "a Null in any argument makes the result Null".
pub const NULL_ANY: u64 = u64::MAX;
/// Bit mask meaning "a Null first argument makes the result Null".
pub const NULL_FIRST: u64 = 1;
/// Bit mask meaning "the function handles every Null itself".
pub const NULL_NONE: u64 = 0;

/// One Access scalar function as a DataFusion UDF.
#[derive(Debug)]
pub struct AccessScalar {
    title: &'static str,
    name: String,
    aliases: Vec<String>,
    signature: Signature,
    min: usize,
    max: usize,
    null_mask: u64,
    /// Whether arguments keep their Access types ([`AccessScalar::exact_types`]).
    exact: bool,
    ret: RetFn,
    eval: EvalFn,
}

impl PartialEq for AccessScalar {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for AccessScalar {}
impl std::hash::Hash for AccessScalar {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl AccessScalar {
    /// A function named `title` (Access spelling; registered in lower
    /// case) taking `min..=max` arguments.
    pub fn new(title: &'static str, min: usize, max: usize, ret: RetFn, eval: EvalFn) -> Self {
        AccessScalar {
            title,
            name: title.to_ascii_lowercase(),
            aliases: Vec::new(),
            signature: Signature::user_defined(Volatility::Immutable),
            min,
            max,
            null_mask: NULL_ANY,
            exact: false,
            ret,
            eval,
        }
    }
    /// Sets which arguments' Null makes the result Null (bit i = arg i).
    pub fn nulls(mut self, mask: u64) -> Self {
        self.null_mask = mask;
        self
    }
    /// Marks the function volatile (a new value per evaluation).
    pub fn volatile(mut self) -> Self {
        self.signature = Signature::user_defined(Volatility::Volatile);
        self
    }
    /// Sets the name errors use (for operator functions: `Mod`, `Like`).
    pub fn titled(mut self, title: &'static str) -> Self {
        self.title = title;
        self
    }
    /// Keeps each argument's Access type (Byte, Integer, Long, BigInt,
    /// Single, …, as [`variant_type`] names them) where the others read
    /// every integer as Int64 and every float as Float32 or Float64: for
    /// the operators, whose result type depends on their operands' types
    /// (Integer + Integer is an Integer, Integer + Long a Long). The row
    /// function still reads the values through [`canonical`] types.
    pub fn exact_types(mut self) -> Self {
        self.exact = true;
        self
    }
    /// Adds the `$` alias (`Left$` for `Left`).
    pub fn dollar(mut self) -> Self {
        self.aliases.push(format!("{}$", self.name));
        self
    }
}

/// The type an argument is read as: every integer as Int64, Float16 as
/// Float32, dates and timestamps as Timestamp(µs), every string type as
/// Utf8. `None` for types no Access value has.
pub fn canonical(dt: &DataType) -> Option<DataType> {
    use DataType::*;
    Some(match dt {
        Null => Null,
        Boolean => Boolean,
        Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 => Int64,
        Float16 | Float32 => Float32,
        Float64 => Float64,
        Decimal128(p, s) => Decimal128(*p, *s),
        Decimal32(_, s) | Decimal64(_, s) => Decimal128(38, *s),
        Date32 | Date64 | Timestamp(_, _) => Timestamp(TimeUnit::Microsecond, None),
        Utf8 | LargeUtf8 | Utf8View => Utf8,
        Dictionary(_, v) => return canonical(v),
        _ => return None,
    })
}

/// The Arrow type a Variant-valued result of argument type `dt` is built
/// in (keeps Access's own types, widens the rest).
pub fn variant_type(dt: &DataType) -> DataType {
    use DataType::*;
    match dt {
        Int8 => Int16,
        UInt16 => Int32,
        UInt32 | UInt64 => Int64,
        Float16 => Float32,
        Decimal32(_, s) | Decimal64(_, s) => Decimal128(38, *s),
        Date32 | Date64 | Timestamp(_, _) => Timestamp(TimeUnit::Microsecond, None),
        LargeUtf8 | Utf8View => Utf8,
        Dictionary(_, v) => variant_type(v),
        other => other.clone(),
    }
}

impl ScalarUDFImpl for AccessScalar {
    fn name(&self) -> &str {
        &self.name
    }
    /// DataFusion's name, `name(arg,arg)`, written in one pass: the default
    /// builds each nested call's name as a string of its own and copies it
    /// into its parent's, which made a chain of `Mod` or `^` (one nested
    /// call per operator) take seconds to plan.
    fn schema_name(&self, args: &[Expr]) -> Result<String> {
        let mut out = String::new();
        write_call_name(&mut out, self, args)
            .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
        Ok(out)
    }
    fn aliases(&self) -> &[String] {
        &self.aliases
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let n = arg_types.len();
        if n < self.min || n > self.max {
            let want = if self.min == self.max {
                format!("{}", self.min)
            } else {
                format!("{} to {}", self.min, self.max)
            };
            return Err(fn_err(
                self.title,
                format!("takes {want} arguments, {n} given"),
            ));
        }
        arg_types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                canonical(t)
                    .map(|c| if self.exact { variant_type(t) } else { c })
                    .ok_or_else(|| {
                        fn_err(
                            self.title,
                            format!("argument {} has type {t}, which has no Access value", i + 1),
                        )
                    })
            })
            .collect()
    }
    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        (self.ret)(arg_types)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let ret = args.return_type().clone();
        if args
            .args
            .iter()
            .all(|a| matches!(a, ColumnarValue::Scalar(_)))
        {
            return self.invoke_constant(args.args, &ret);
        }
        let rows = args.number_rows;
        let mut cols = Vec::with_capacity(args.args.len());
        for a in &args.args {
            let arr = match a {
                ColumnarValue::Scalar(s) => s.to_array_of_size(1)?,
                ColumnarValue::Array(a) => Arc::clone(a),
            };
            cols.push((
                self.canonical_array(arr)?,
                matches!(a, ColumnarValue::Scalar(_)),
            ));
        }
        let mut out = Vec::with_capacity(rows);
        let mut vals = Vec::with_capacity(cols.len());
        for r in 0..rows {
            vals.clear();
            let mut null_hit = false;
            for (i, (arr, one)) in cols.iter().enumerate() {
                let v = cell(arr.as_ref(), if *one { 0 } else { r });
                if self.null_makes_null(i, &v) {
                    null_hit = true;
                }
                vals.push(v);
            }
            if null_hit {
                out.push(Value::Null);
                continue;
            }
            out.push((self.eval)(&Call {
                name: self.title,
                args: &vals,
                ret: &ret,
            })?);
        }
        Ok(ColumnarValue::Array(build(self.title, &out, &ret)?))
    }
}

impl AccessScalar {
    /// `arr` in the canonical type of its Arrow type.
    fn canonical_array(&self, arr: ArrayRef) -> Result<ArrayRef> {
        let to = canonical(arr.data_type()).ok_or_else(|| {
            fn_err(
                self.title,
                format!("unsupported argument type {}", arr.data_type()),
            )
        })?;
        Ok(if arr.data_type() == &to {
            arr
        } else {
            cast(&arr, &to)?
        })
    }

    /// Whether argument `i` being `v` makes the result Null.
    fn null_makes_null(&self, i: usize, v: &Value) -> bool {
        v.is_null() && i < 64 && self.null_mask & (1 << i) != 0
    }

    /// One call on constant arguments. A text argument is moved into the
    /// call and a text result into the scalar returned: a large value is
    /// not copied (the hostile-input fuzz, seed 36, found a 1.2 GB
    /// `Replace` result copied into an array and out again into a
    /// scalar, three times its size at once, which aborted under
    /// `ulimit -v`).
    fn invoke_constant(&self, args: Vec<ColumnarValue>, ret: &DataType) -> Result<ColumnarValue> {
        let mut vals = Vec::with_capacity(args.len());
        let mut null_hit = false;
        for (i, a) in args.into_iter().enumerate() {
            let v = match a {
                ColumnarValue::Scalar(
                    ScalarValue::Utf8(Some(t))
                    | ScalarValue::LargeUtf8(Some(t))
                    | ScalarValue::Utf8View(Some(t)),
                ) => Value::Text(t),
                ColumnarValue::Scalar(s) => {
                    cell(self.canonical_array(s.to_array_of_size(1)?)?.as_ref(), 0)
                }
                ColumnarValue::Array(a) => cell(self.canonical_array(a)?.as_ref(), 0),
            };
            null_hit |= self.null_makes_null(i, &v);
            vals.push(v);
        }
        let out = if null_hit {
            Value::Null
        } else {
            (self.eval)(&Call {
                name: self.title,
                args: &vals,
                ret,
            })?
        };
        drop(vals);
        let scalar = match (out, ret) {
            (Value::Text(t), DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => {
                // a scalar becomes an array of i32 offsets when a batch
                // uses it: refuse what cannot become one
                if matches!(ret, DataType::Utf8) && i32::try_from(t.len()).is_err() {
                    return Err(datafusion::error::DataFusionError::ResourcesExhausted(
                        format!(
                            "{} could not get {} of memory for its result",
                            self.title,
                            crate::frontdoor::strings::human_bytes(t.len() as u128)
                        ),
                    ));
                }
                match ret {
                    DataType::Utf8 => ScalarValue::Utf8(Some(t)),
                    DataType::LargeUtf8 => ScalarValue::LargeUtf8(Some(t)),
                    _ => ScalarValue::Utf8View(Some(t)),
                }
            }
            (out, _) => ScalarValue::try_from_array(&build(self.title, &[out], ret)?, 0)?,
        };
        Ok(ColumnarValue::Scalar(scalar))
    }
}

/// Row `r` of a canonical array as a [`Value`].
pub fn cell(arr: &dyn Array, r: usize) -> Value {
    if arr.is_null(r) {
        return Value::Null;
    }
    match arr.data_type() {
        DataType::Boolean => Value::Bool(arr.as_boolean().value(r)),
        DataType::Int64 => Value::Int(arr.as_primitive::<Int64Type>().value(r)),
        DataType::Float32 => Value::Single(arr.as_primitive::<Float32Type>().value(r)),
        DataType::Float64 => Value::Double(arr.as_primitive::<Float64Type>().value(r)),
        DataType::Decimal128(_, s) => {
            Value::Decimal(arr.as_primitive::<Decimal128Type>().value(r), *s)
        }
        DataType::Timestamp(TimeUnit::Microsecond, _) => {
            Value::Date(arr.as_primitive::<TimestampMicrosecondType>().value(r))
        }
        DataType::Utf8 => Value::Text(arr.as_string::<i32>().value(r).to_string()),
        _ => Value::Null,
    }
}

/// Integer conversion with a range check ("overflow" as Access says).
fn int_in<T: TryFrom<i64>>(func: &str, v: &Value) -> Result<Option<T>> {
    match to_i64(func, v)? {
        None => Ok(None),
        Some(i) => T::try_from(i)
            .map(Some)
            .map_err(|_| fn_err(func, "overflow")),
    }
}

/// A decimal value rescaled to scale `s` (half-even when digits drop).
pub fn to_decimal(func: &str, v: &Value, p: u8, s: i8) -> Result<Option<i128>> {
    let unscaled = match v {
        Value::Null => return Ok(None),
        Value::Decimal(u, vs) => rescale(*u, *vs, s),
        Value::Int(i) => (*i as i128).checked_mul(10i128.pow(s.max(0) as u32)),
        Value::Single(f) => float_scaled(*f as f64, 7, s),
        other => float_scaled(to_f64(func, other)?.unwrap_or(0.0), 15, s),
    };
    let limit = 10i128.pow(p.min(38) as u32);
    match unscaled {
        Some(u) if u.abs() < limit => Ok(Some(u)),
        _ => Err(fn_err(func, "overflow")),
    }
}

/// A floating value at scale `s`, read through its first `digits`
/// significant decimal digits (as Access shows the number), rounding
/// half to even where scale `s` drops digits.
fn float_scaled(f: f64, digits: usize, s: i8) -> Option<i128> {
    if !f.is_finite() {
        return None;
    }
    if f == 0.0 {
        return Some(0);
    }
    let sci = format!("{:.*e}", digits - 1, f);
    let (mant, exp) = sci.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let neg = mant.starts_with('-');
    let m: i128 = mant
        .chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()?;
    // f = m × 10^(exp − digits + 1); at scale s: m × 10^(exp − digits + 1 + s).
    let shift = exp - digits as i32 + 1 + s as i32;
    if shift > 38 {
        return None;
    }
    let u = if shift >= 0 {
        m.checked_mul(10i128.checked_pow(shift as u32)?)?
    } else if shift < -38 {
        0
    } else {
        rescale(m, (-shift) as i8, 0)?
    };
    Some(if neg { -u } else { u })
}

/// `u` at scale `from` rescaled to scale `to`, rounding half to even.
pub fn rescale(u: i128, from: i8, to: i8) -> Option<i128> {
    if to >= from {
        u.checked_mul(10i128.checked_pow((to - from) as u32)?)
    } else {
        let d = 10i128.checked_pow((from - to) as u32)?;
        let q = u.div_euclid(d);
        let r = u.rem_euclid(d);
        let twice = r * 2;
        Some(if twice > d || (twice == d && q % 2 != 0) {
            q + 1
        } else {
            q
        })
    }
}

/// The text results of `func` as one string array, built at its exact
/// size: text values are borrowed, not copied, and memory the process
/// cannot get (or a column past the 2 GiB a string array can address) is
/// an error naming the function, never an abort. (A builder grown by
/// doubling over copies of the values took three times a large result,
/// which the hostile-input fuzz found under `ulimit -v`.)
fn text_array(func: &str, vals: &[Value]) -> Result<ArrayRef> {
    let texts: Vec<Option<std::borrow::Cow<'_, str>>> = vals
        .iter()
        .map(|v| match v {
            Value::Text(t) => Some(std::borrow::Cow::Borrowed(t.as_str())),
            other => to_text(other).map(std::borrow::Cow::Owned),
        })
        .collect();
    let bytes: usize = texts.iter().flatten().map(|t| t.len()).sum();
    let too_large = || {
        datafusion::error::DataFusionError::ResourcesExhausted(format!(
            "{func} could not get {} of memory for its result",
            crate::frontdoor::strings::human_bytes(bytes as u128)
        ))
    };
    if i32::try_from(bytes).is_err() {
        return Err(too_large());
    }
    let mut values: Vec<u8> = Vec::new();
    values.try_reserve_exact(bytes).map_err(|_| too_large())?;
    let mut offsets: Vec<i32> = Vec::with_capacity(texts.len() + 1);
    offsets.push(0);
    let mut nulls = datafusion::arrow::array::NullBufferBuilder::new(texts.len());
    for t in &texts {
        match t {
            Some(t) => {
                values.extend_from_slice(t.as_bytes());
                nulls.append_non_null();
            }
            None => nulls.append_null(),
        }
        // within i32: the total was checked above
        offsets.push(values.len() as i32);
    }
    let array = datafusion::arrow::array::StringArray::try_new(
        datafusion::arrow::buffer::OffsetBuffer::new(offsets.into()),
        datafusion::arrow::buffer::Buffer::from_vec(values),
        nulls.finish(),
    )?;
    Ok(Arc::new(array))
}

/// Builds an array of type `ty` from row values, converting each by
/// Access's rules.
pub fn build(func: &str, vals: &[Value], ty: &DataType) -> Result<ArrayRef> {
    let n = vals.len();
    Ok(match ty {
        DataType::Null => {
            if let Some(v) = vals.iter().find(|v| !v.is_null()) {
                return Err(fn_err(
                    func,
                    format!(
                        "unexpected value {} for a Null result",
                        to_text(v).unwrap_or_default()
                    ),
                ));
            }
            Arc::new(NullArray::new(n))
        }
        DataType::Boolean => {
            let mut b = BooleanBuilder::with_capacity(n);
            for v in vals {
                b.append_option(to_bool(func, v)?);
            }
            Arc::new(b.finish())
        }
        DataType::UInt8 => {
            let mut b = UInt8Builder::with_capacity(n);
            for v in vals {
                b.append_option(int_in::<u8>(func, v)?);
            }
            Arc::new(b.finish())
        }
        DataType::Int16 => {
            let mut b = Int16Builder::with_capacity(n);
            for v in vals {
                b.append_option(int_in::<i16>(func, v)?);
            }
            Arc::new(b.finish())
        }
        DataType::Int32 => {
            let mut b = Int32Builder::with_capacity(n);
            for v in vals {
                b.append_option(int_in::<i32>(func, v)?);
            }
            Arc::new(b.finish())
        }
        DataType::Int64 => {
            let mut b = Int64Builder::with_capacity(n);
            for v in vals {
                b.append_option(int_in::<i64>(func, v)?);
            }
            Arc::new(b.finish())
        }
        DataType::Float32 => {
            let mut b = Float32Builder::with_capacity(n);
            for v in vals {
                b.append_option(match v {
                    Value::Single(f) => Some(*f),
                    other => to_f64(func, other)?.map(|f| f as f32),
                });
            }
            Arc::new(b.finish())
        }
        DataType::Float64 => {
            let mut b = Float64Builder::with_capacity(n);
            for v in vals {
                b.append_option(to_f64(func, v)?);
            }
            Arc::new(b.finish())
        }
        DataType::Decimal128(p, s) => {
            let mut b = Decimal128Builder::with_capacity(n);
            for v in vals {
                b.append_option(to_decimal(func, v, *p, *s)?);
            }
            Arc::new(b.finish().with_precision_and_scale(*p, *s)?)
        }
        DataType::Timestamp(TimeUnit::Microsecond, None) => {
            let mut b = TimestampMicrosecondBuilder::with_capacity(n);
            for v in vals {
                b.append_option(to_date(func, v)?);
            }
            Arc::new(b.finish())
        }
        DataType::Utf8 => text_array(func, vals)?,
        other => {
            return Err(fn_err(
                func,
                format!("cannot produce a result of type {other}"),
            ));
        }
    })
}

/// Writes the name a result column of a call gets: an operator helper
/// (`access_add`, `access_concat`, …) as the operator it stands for
/// (`Quantity * 2`, `Not x`), as DataFusion names its own operators,
/// and any other function as `name(arg,arg…)`, DataFusion's default;
/// arguments that are themselves Access functions are written in place
/// rather than built as separate strings.
fn write_call_name(out: &mut String, f: &AccessScalar, args: &[Expr]) -> std::fmt::Result {
    let operator = f.name.starts_with("access_") && f.name != "access_number";
    match args {
        // negation is named as DataFusion names its own: `(- x)`
        [only] if operator && f.title == "-" => {
            out.push_str("(- ");
            write_arg_name(out, only)?;
            out.push(')');
            Ok(())
        }
        [only] if operator => {
            write!(out, "{} ", f.title)?;
            write_arg_name(out, only)
        }
        [first, rest @ ..] if operator && !rest.is_empty() => {
            write_arg_name(out, first)?;
            for a in rest {
                write!(out, " {} ", f.title)?;
                write_arg_name(out, a)?;
            }
            Ok(())
        }
        _ => {
            out.push_str(&f.name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_arg_name(out, a)?;
            }
            out.push(')');
            Ok(())
        }
    }
}

/// Writes one argument's part of a call's name.
fn write_arg_name(out: &mut String, a: &Expr) -> std::fmt::Result {
    match a {
        // (through the size check that wraps Access's `&`, `+`, Replace,
        // String and Space: crate::frontdoor::strings)
        Expr::ScalarFunction(c) => match crate::frontdoor::strings::unchecked(&c.func)
            .inner()
            .downcast_ref::<AccessScalar>()
        {
            Some(inner) => write_call_name(out, inner, &c.args),
            None => write!(out, "{}", a.schema_name()),
        },
        other => write!(out, "{}", other.schema_name()),
    }
}
