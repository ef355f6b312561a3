//! Access's arithmetic operators `+`, `-`, `*`, `\` and `Mod`, `Not` of a
//! number, and the number a text or date stands for in a comparison, with
//! the result types of Microsoft's VBA operator pages (the table, with
//! each line's source, is `docs/access-operators.md`):
//!
//! - the result has the type of the more precise operand, in the order
//!   Byte, Integer, Long, BigInt, Single, Double, Currency, Decimal for
//!   `+` and `-`, and Byte, Integer, Long, BigInt, Single, Currency,
//!   Double, Decimal for `*`; a Single with a Long (or a BigInt) gives a
//!   Double;
//! - Yes/No counts as an Integer (True is -1), text as a Double (it must
//!   spell a number: "type mismatch" otherwise), and Null gives Null;
//! - Date + anything is a Date, Date - Date a Double, Date - anything
//!   else a Date; in `*` a Date is its Double serial number;
//! - `\` and `Mod` round each operand half to even to a Byte, Integer or
//!   Long (a BigInt stays one) and answer in the wider of the two types;
//! - a result outside its type's range is an overflow error: a jetsql
//!   column has one type, so a result cannot widen row by row as a
//!   Variant's does (Microsoft's rule for operands that are not Variants);
//! - Currency is exact to four places and rounds a product half to even;
//!   Decimal is exact (a product keeps at most 28 places, rounded half
//!   to even).
//!
//! The functions keep their operands' Access types
//! ([`AccessScalar::exact_types`]): Integer + Integer is an Integer.

use super::udf::{AccessScalar, Call, NULL_NONE, rescale, to_decimal};
use super::value::{Value, check_date, decimal_text, serial_to_micros, to_f64, to_i64, to_text};
use datafusion::arrow::datatypes::{DataType, TimeUnit, i256};
use datafusion::error::{DataFusionError, Result};

/// An Access type as the operators see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Null.
    Null,
    /// Byte (Arrow UInt8).
    Byte,
    /// Integer (Int16); Yes/No counts as one.
    Integer,
    /// Long (Int32).
    Long,
    /// BigInt, Access's Large Number (Int64); DataFusion's whole-number
    /// literals are BigInts too.
    BigInt,
    /// Single (Float32).
    Single,
    /// Double (Float64).
    Double,
    /// Currency (Decimal128(19, 4)).
    Currency,
    /// Decimal (any other Decimal128).
    Decimal,
    /// Date/Time (Timestamp).
    Date,
    /// Text (Utf8).
    Text,
}

impl Kind {
    /// The kind of an Arrow type; `None` for a type no Access value has.
    pub fn of(t: &DataType) -> Option<Kind> {
        use DataType::*;
        Some(match t {
            Null => Kind::Null,
            Boolean | Int8 | Int16 => Kind::Integer,
            UInt8 => Kind::Byte,
            UInt16 | Int32 => Kind::Long,
            UInt32 | UInt64 | Int64 => Kind::BigInt,
            Float16 | Float32 => Kind::Single,
            Float64 => Kind::Double,
            Decimal128(19, 4) => Kind::Currency,
            Decimal32(..) | Decimal64(..) | Decimal128(..) => Kind::Decimal,
            Date32 | Date64 | Timestamp(..) => Kind::Date,
            Utf8 | LargeUtf8 | Utf8View => Kind::Text,
            Dictionary(_, v) => return Kind::of(v),
            _ => return None,
        })
    }
}

/// Most places a Decimal result keeps (Access's Decimal holds 28).
const MAX_PLACES: i8 = 28;
/// Places a Single, Double, Date or text brings to Decimal arithmetic:
/// those of `CDec`'s result.
const FLOAT_PLACES: i8 = 10;
/// Currency's range at four places: a 64-bit integer of ten-thousandths
/// (-922,337,203,685,477.5808 to 922,337,203,685,477.5807).
const CURRENCY_MIN: i128 = i64::MIN as i128;
const CURRENCY_MAX: i128 = i64::MAX as i128;

/// Position in the order of precision of `+` and `-` ("The order of
/// precision, from least to most precise, is Byte, Integer, Long, Single,
/// Double, Currency, and Decimal"; BigInt after Long).
fn additive_rank(k: Kind) -> u8 {
    match k {
        Kind::Byte => 0,
        Kind::Integer => 1,
        Kind::Long => 2,
        Kind::BigInt => 3,
        Kind::Single => 4,
        Kind::Double => 5,
        Kind::Currency => 6,
        Kind::Decimal => 7,
        _ => 0,
    }
}

/// Position in the order of precision of `*` ("Byte, Integer, Long,
/// Single, Currency, Double, and Decimal"; BigInt after Long).
fn multiplicative_rank(k: Kind) -> u8 {
    match k {
        Kind::Currency => 5,
        Kind::Double => 6,
        other => additive_rank(other),
    }
}

/// A kind as a number: text reads as a Double, a Date as its Double
/// serial number.
fn numeric(k: Kind) -> Kind {
    match k {
        Kind::Text | Kind::Date => Kind::Double,
        other => other,
    }
}

/// The result of two numeric kinds in an order of precision: the more
/// precise, except that a Single with a Long (or BigInt) is a Double; a
/// Null takes the other's kind.
fn wider(a: Kind, b: Kind, rank: fn(Kind) -> u8) -> Kind {
    match (a, b) {
        (Kind::Null, k) | (k, Kind::Null) => k,
        (Kind::Single, Kind::Long | Kind::BigInt) | (Kind::Long | Kind::BigInt, Kind::Single) => {
            Kind::Double
        }
        _ if rank(a) >= rank(b) => a,
        _ => b,
    }
}

/// The kind `\`, `Mod` and `Not` round an operand to: Byte, Integer,
/// Long and BigInt stay, anything else becomes a Long.
fn rounded(k: Kind) -> Kind {
    match k {
        Kind::Null | Kind::Byte | Kind::Integer | Kind::Long | Kind::BigInt => k,
        _ => Kind::Long,
    }
}

/// The Arrow type of a result kind (a Decimal with `places` places).
fn arrow(k: Kind, places: i8) -> DataType {
    match k {
        Kind::Null => DataType::Null,
        Kind::Byte => DataType::UInt8,
        Kind::Integer => DataType::Int16,
        Kind::Long => DataType::Int32,
        Kind::BigInt => DataType::Int64,
        Kind::Single => DataType::Float32,
        Kind::Double => DataType::Float64,
        Kind::Currency => DataType::Decimal128(19, 4),
        Kind::Decimal => DataType::Decimal128(38, places.clamp(0, MAX_PLACES)),
        Kind::Date => DataType::Timestamp(TimeUnit::Microsecond, None),
        Kind::Text => DataType::Utf8,
    }
}

/// Places an operand of type `t` brings to a Decimal result: its own for
/// a Decimal or Currency, none for a whole number, CDec's for anything
/// else.
fn places(t: &DataType) -> i8 {
    match t {
        DataType::Decimal128(_, s) => *s,
        DataType::Null
        | DataType::Boolean
        | DataType::UInt8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64 => 0,
        _ => FLOAT_PLACES,
    }
}

/// Argument type `i` (Null when absent).
fn arg(t: &[DataType], i: usize) -> &DataType {
    t.get(i).unwrap_or(&DataType::Null)
}

/// The kinds of the two operands.
fn pair(t: &[DataType]) -> Result<(Kind, Kind)> {
    let kind = |i: usize| {
        let dt = arg(t, i);
        Kind::of(dt).ok_or_else(|| {
            DataFusionError::Plan(format!(
                "an operand of type {dt} has no Access value for arithmetic"
            ))
        })
    };
    Ok((kind(0)?, kind(1)?))
}

/// The type of `a + b`: a Date when either is a Date, text when both are
/// text (they concatenate), otherwise the more precise number.
fn add_type(t: &[DataType]) -> Result<DataType> {
    let (a, b) = pair(t)?;
    let k = match (a, b) {
        (Kind::Date, _) | (_, Kind::Date) => Kind::Date,
        (Kind::Text, Kind::Text | Kind::Null) | (Kind::Null, Kind::Text) => Kind::Text,
        _ => wider(numeric(a), numeric(b), additive_rank),
    };
    Ok(arrow(k, places(arg(t, 0)).max(places(arg(t, 1)))))
}

/// The type of `a - b`: a Double for two Dates, a Date when one is a
/// Date, otherwise the more precise number.
fn sub_type(t: &[DataType]) -> Result<DataType> {
    let (a, b) = pair(t)?;
    let k = match (a, b) {
        (Kind::Date, Kind::Date) => Kind::Double,
        (Kind::Date, _) | (_, Kind::Date) => Kind::Date,
        _ => wider(numeric(a), numeric(b), additive_rank),
    };
    Ok(arrow(k, places(arg(t, 0)).max(places(arg(t, 1)))))
}

/// The type of `a * b`: the more precise number in `*`'s order.
fn mul_type(t: &[DataType]) -> Result<DataType> {
    let (a, b) = pair(t)?;
    let k = wider(numeric(a), numeric(b), multiplicative_rank);
    Ok(arrow(
        k,
        places(arg(t, 0)).saturating_add(places(arg(t, 1))),
    ))
}

/// The type of `a \ b` and `a Mod b`: the wider of the types the
/// operands round to.
fn whole_type(t: &[DataType]) -> Result<DataType> {
    let (a, b) = pair(t)?;
    Ok(arrow(wider(rounded(a), rounded(b), additive_rank), 0))
}

/// The type of `-a`: a Byte or Yes/No negates to an Integer, text to a
/// Double; any other type is kept (a Date stays a Date).
fn neg_type(t: &[DataType]) -> Result<DataType> {
    let a = arg(t, 0);
    let k = Kind::of(a).ok_or_else(|| {
        DataFusionError::Plan(format!("-: an operand of type {a} has no Access value"))
    })?;
    let k = match k {
        Kind::Byte => Kind::Integer,
        Kind::Text => Kind::Double,
        k => k,
    };
    Ok(arrow(k, places(a)))
}

/// The type of `Not a`: Yes/No for Yes/No, the operand's whole-number
/// type for a Byte, Integer, Long or BigInt, a Long for anything else.
fn not_type(t: &[DataType]) -> Result<DataType> {
    let a = arg(t, 0);
    if matches!(a, DataType::Boolean | DataType::Null) {
        return Ok(a.clone());
    }
    let k = Kind::of(a).ok_or_else(|| {
        DataFusionError::Plan(format!("Not: an operand of type {a} has no Access value"))
    })?;
    Ok(arrow(rounded(k), 0))
}

/// The range a whole-number result type holds, and its name.
fn whole_range(t: &DataType) -> (i128, i128, &'static str) {
    match t {
        DataType::UInt8 => (0, 255, "Byte (0 to 255)"),
        DataType::Int16 => (
            i16::MIN.into(),
            i16::MAX.into(),
            "Integer (-32,768 to 32,767)",
        ),
        DataType::Int32 => (
            i32::MIN.into(),
            i32::MAX.into(),
            "Long (-2,147,483,648 to 2,147,483,647)",
        ),
        _ => (
            i64::MIN.into(),
            i64::MAX.into(),
            "BigInt (-9,223,372,036,854,775,808 to 9,223,372,036,854,775,807)",
        ),
    }
}

/// Access's overflow error: `what` does not fit in the type `range`
/// names.
fn overflow(c: &Call, what: impl std::fmt::Display, range: &str) -> DataFusionError {
    c.err(format!("overflow: {what} is outside the range of {range}"))
}

/// `r` as a value of the call's whole-number result type, or an
/// overflow error.
fn fit_whole(c: &Call, r: i128) -> Result<Value> {
    let (lo, hi, name) = whole_range(c.ret);
    if (lo..=hi).contains(&r) {
        Ok(Value::Int(r as i64))
    } else {
        Err(overflow(c, format!("the result {r}"), name))
    }
}

/// The three operators that share the type rules above.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
}

fn add(c: &Call) -> Result<Value> {
    arith(c, Op::Add)
}

fn sub(c: &Call) -> Result<Value> {
    arith(c, Op::Sub)
}

fn mul(c: &Call) -> Result<Value> {
    arith(c, Op::Mul)
}

/// `a + b`, `a - b` or `a * b` in the call's result type.
fn arith(c: &Call, op: Op) -> Result<Value> {
    match c.ret {
        DataType::Null => Ok(Value::Null),
        DataType::Utf8 => Ok(Value::Text(
            c.text(0, "Left operand")? + &c.text(1, "Right operand")?,
        )),
        DataType::Timestamp(..) => date_arith(c, op),
        DataType::UInt8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            let (x, y) = (whole(c, 0)?, whole(c, 1)?);
            // operands are 64-bit at most: no i128 overflow
            fit_whole(
                c,
                match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                },
            )
        }
        DataType::Float32 | DataType::Float64 => float_arith(c, op),
        DataType::Decimal128(19, 4) => currency_arith(c, op),
        DataType::Decimal128(_, s) => decimal_arith(c, op, *s),
        other => Err(c.err(format!("cannot compute a result of type {other}"))),
    }
}

/// Argument `i` as a whole number (a Byte, Integer, Long, BigInt or
/// Yes/No; anything else rounded half to even).
fn whole(c: &Call, i: usize) -> Result<i128> {
    Ok(match c.arg(i) {
        Value::Int(n) => i128::from(*n),
        Value::Bool(b) => {
            if *b {
                -1
            } else {
                0
            }
        }
        other => i128::from(to_i64(c.name, other)?.unwrap_or(0)),
    })
}

/// Single or Double arithmetic. A Single result is computed in Double
/// and rounded once to Single, which gives the Single IEEE answer (a
/// Double holds more than twice a Single's digits).
fn float_arith(c: &Call, op: Op) -> Result<Value> {
    let x = c.num(0, "Left operand")?;
    let y = c.num(1, "Right operand")?;
    let r = match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
    };
    if *c.ret == DataType::Float32 {
        let f = r as f32;
        if f.is_finite() {
            return Ok(Value::Single(f));
        }
        return Err(overflow(c, "the result", "Single (about ±3.4E+38)"));
    }
    if r.is_finite() {
        Ok(Value::Double(r))
    } else {
        Err(overflow(c, "the result", "Double (about ±1.8E+308)"))
    }
}

const CURRENCY_RANGE: &str = "Currency (-922,337,203,685,477.5808 to 922,337,203,685,477.5807)";

/// `u` (ten-thousandths) when it is a Currency value, else an overflow
/// error.
fn fit_currency(c: &Call, u: i128) -> Result<i128> {
    if (CURRENCY_MIN..=CURRENCY_MAX).contains(&u) {
        Ok(u)
    } else {
        Err(overflow(c, decimal_text(u, 4), CURRENCY_RANGE))
    }
}

/// Argument `i` converted to Currency (ten-thousandths; a Double or
/// Single read to its 15 or 7 digits and rounded half to even at four
/// places, as `CCur` converts).
fn currency(c: &Call, i: usize) -> Result<i128> {
    let u = to_decimal(c.name, c.arg(i), 38, 4)?.unwrap_or(0);
    fit_currency(c, u)
}

/// Currency arithmetic: exact sums and differences; a product rounded
/// half to even to four places.
fn currency_arith(c: &Call, op: Op) -> Result<Value> {
    let (x, y) = (currency(c, 0)?, currency(c, 1)?);
    let r = match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        // |x|, |y| < 2^63: the product at eight places fits an i128
        Op::Mul => {
            rescale(x * y, 8, 4).ok_or_else(|| overflow(c, "the product", CURRENCY_RANGE))?
        }
    };
    fit_currency(c, r).map(|u| Value::Decimal(u, 4))
}

/// Argument `i` exactly, as (unscaled value, places): a Decimal or
/// Currency as it is, a whole number at no places, anything else as CDec
/// reads it.
fn exact(c: &Call, i: usize) -> Result<(i128, i8)> {
    Ok(match c.arg(i) {
        Value::Decimal(u, s) => (*u, *s),
        Value::Int(n) => (i128::from(*n), 0),
        Value::Bool(b) => (if *b { -1 } else { 0 }, 0),
        other => (
            to_decimal(c.name, other, 38, FLOAT_PLACES)?.unwrap_or(0),
            FLOAT_PLACES,
        ),
    })
}

/// Decimal arithmetic at `s` places: exact sums and differences; a
/// product rounded half to even to `s` places.
fn decimal_arith(c: &Call, op: Op, s: i8) -> Result<Value> {
    let (x, sx) = exact(c, 0)?;
    let (y, sy) = exact(c, 1)?;
    let r = match op {
        Op::Add | Op::Sub => match (product(x, 1, sx, s), product(y, 1, sy, s)) {
            (Some(x), Some(y)) if op == Op::Add => x.checked_add(y),
            (Some(x), Some(y)) => x.checked_sub(y),
            _ => None,
        },
        Op::Mul => product(x, y, sx.saturating_add(sy), s),
    };
    match r {
        Some(u) if u.unsigned_abs() < 10u128.pow(38) => Ok(Value::Decimal(u, s)),
        _ => Err(overflow(c, "the result", "Decimal (38 digits)")),
    }
}

/// `x · y`, whose exact value has `from` places, at `to` places (half to
/// even when places drop); `None` when it does not fit an i128.
fn product(x: i128, y: i128, from: i8, to: i8) -> Option<i128> {
    let ten = i256::from_i128(10);
    let p = i256::from_i128(x).checked_mul(i256::from_i128(y))?;
    let dropped = i32::from(from) - i32::from(to);
    if dropped <= 0 {
        return p
            .checked_mul(ten.checked_pow(dropped.unsigned_abs())?)?
            .to_i128();
    }
    let d = ten.checked_pow(dropped as u32)?;
    let n = p.checked_abs()?;
    let mut q = n.checked_div(d)?;
    let twice = n.checked_rem(d)?.checked_mul(i256::from_i128(2))?;
    if twice > d || (twice == d && q.checked_rem(i256::from_i128(2))? != i256::ZERO) {
        q = q.checked_add(i256::ONE)?;
    }
    let q = q.to_i128()?;
    Some(if p.is_negative() { -q } else { q })
}

/// Date + number, number + Date, Date - number: the serial numbers
/// added or subtracted, a Date between the years 100 and 9999.
fn date_arith(c: &Call, op: Op) -> Result<Value> {
    let x = to_f64(c.name, c.arg(0))?.unwrap_or(0.0);
    let y = to_f64(c.name, c.arg(1))?.unwrap_or(0.0);
    date_at(c, if op == Op::Sub { x - y } else { x + y })
}

/// The Date of serial number `serial`, between the years 100 and 9999.
fn date_at(c: &Call, serial: f64) -> Result<Value> {
    serial_to_micros(c.name, serial)
        .and_then(|u| check_date(c.name, u))
        .map(Value::Date)
}

/// An operand of `\`, `Mod` or `Not` rounded half to even to a whole
/// number: Byte, Integer, Long and BigInt values are whole already, any
/// other must round to a Long.
fn rounded_operand(c: &Call, i: usize) -> Result<i64> {
    match c.arg(i) {
        Value::Int(n) => Ok(*n),
        Value::Bool(b) => Ok(if *b { -1 } else { 0 }),
        other => {
            let n = to_i64(c.name, other)?.unwrap_or(0);
            if i32::try_from(n).is_ok() {
                Ok(n)
            } else {
                let shown = to_text(other).unwrap_or_default();
                Err(overflow(
                    c,
                    format!("{shown} (rounded to {n})"),
                    "Long (-2,147,483,648 to 2,147,483,647)",
                ))
            }
        }
    }
}

/// `a \ b` (the quotient truncated toward zero) or `a Mod b` (the
/// remainder, with the sign of `a`), the operands rounded first.
fn whole_division(c: &Call, remainder: bool) -> Result<Value> {
    let a = i128::from(rounded_operand(c, 0)?);
    let b = i128::from(rounded_operand(c, 1)?);
    if b == 0 {
        return Err(c.err("Division by zero"));
    }
    fit_whole(c, if remainder { a % b } else { a / b })
}

fn intdiv(c: &Call) -> Result<Value> {
    whole_division(c, false)
}

fn modulo(c: &Call) -> Result<Value> {
    whole_division(c, true)
}

/// `-a` in the call's result type: an overflow error where the negation
/// leaves the type's range (`-(-32768)` as an Integer), a Date's serial
/// number negated.
fn neg(c: &Call) -> Result<Value> {
    match c.ret {
        DataType::Null => Ok(Value::Null),
        DataType::Timestamp(..) => date_at(c, -c.num(0, "Operand")?),
        DataType::UInt8 | DataType::Int16 | DataType::Int32 | DataType::Int64 => {
            fit_whole(c, -whole(c, 0)?)
        }
        DataType::Float32 => Ok(Value::Single(-(c.num(0, "Operand")? as f32))),
        DataType::Float64 => Ok(Value::Double(-c.num(0, "Operand")?)),
        DataType::Decimal128(19, 4) => {
            fit_currency(c, -currency(c, 0)?).map(|u| Value::Decimal(u, 4))
        }
        DataType::Decimal128(_, s) => {
            let (x, sx) = exact(c, 0)?;
            match product(x, -1, sx, *s) {
                Some(u) => Ok(Value::Decimal(u, *s)),
                None => Err(overflow(c, "the result", "Decimal (38 digits)")),
            }
        }
        other => Err(c.err(format!("cannot compute a result of type {other}"))),
    }
}

/// `Not a`: the logical negation of a Yes/No; every bit of a number
/// inverted (a Byte's eight, so `Not 5` is 250 for a Byte and -6
/// otherwise).
fn not(c: &Call) -> Result<Value> {
    if let Value::Bool(b) = c.arg(0) {
        return Ok(Value::Bool(!b));
    }
    let n = rounded_operand(c, 0)?;
    Ok(Value::Int(if *c.ret == DataType::UInt8 {
        255 - n
    } else {
        !n
    }))
}

/// The three bitwise operators that a known operand can decide when the
/// other is Null.
#[derive(Clone, Copy)]
enum Bits {
    And,
    Or,
    Imp,
}

/// The type of `a And b`, `a Or b`, `a Imp b` of numbers: the planner
/// casts both operands to one whole-number type first, which the result
/// keeps.
fn bits_type(t: &[DataType]) -> Result<DataType> {
    Ok(match (arg(t, 0), arg(t, 1)) {
        (DataType::Null, other) | (other, DataType::Null) => other.clone(),
        (a, _) => a.clone(),
    })
}

/// `a And b`, `a Or b` or `a Imp b` bit by bit; with a Null operand, the
/// logical tables of the And, Or and Imp pages with 0 as False and every
/// bit set as True: `Null And 0` is 0, `Null Or -1` is -1, `0 Imp Null`
/// and `Null Imp -1` are every bit set; any other Null gives Null.
fn bits(c: &Call, op: Bits) -> Result<Value> {
    let ones: i64 = if *c.ret == DataType::UInt8 { 255 } else { -1 };
    let operand = |i: usize| -> Result<Option<i64>> {
        match c.arg(i) {
            Value::Null => Ok(None),
            _ => rounded_operand(c, i).map(Some),
        }
    };
    let (a, b) = (operand(0)?, operand(1)?);
    let either = |v: i64| a == Some(v) || b == Some(v);
    Ok(match (op, a, b) {
        (Bits::And, Some(x), Some(y)) => Value::Int(x & y),
        (Bits::Or, Some(x), Some(y)) => Value::Int(x | y),
        (Bits::Imp, Some(x), Some(y)) => Value::Int((x ^ ones) | y),
        (Bits::And, ..) if either(0) => Value::Int(0),
        (Bits::Or, ..) if either(ones) => Value::Int(ones),
        (Bits::Imp, ..) if a == Some(0) || b == Some(ones) => Value::Int(ones),
        _ => Value::Null,
    })
}

fn bit_and(c: &Call) -> Result<Value> {
    bits(c, Bits::And)
}

fn bit_or(c: &Call) -> Result<Value> {
    bits(c, Bits::Or)
}

fn bit_imp(c: &Call) -> Result<Value> {
    bits(c, Bits::Imp)
}

/// The number a text or date stands for where it is compared with a
/// number: text must spell one ("type mismatch" otherwise), a date is
/// its serial number.
fn number(c: &Call) -> Result<Value> {
    Ok(to_f64(c.name, c.arg(0))?.map_or(Value::Null, Value::Double))
}

/// The arithmetic operator functions.
pub fn functions() -> Vec<AccessScalar> {
    vec![
        AccessScalar::new("access_add", 2, 2, add_type, add)
            .titled("+")
            .exact_types(),
        AccessScalar::new("access_sub", 2, 2, sub_type, sub)
            .titled("-")
            .exact_types(),
        AccessScalar::new("access_mul", 2, 2, mul_type, mul)
            .titled("*")
            .exact_types(),
        AccessScalar::new("access_intdiv", 2, 2, whole_type, intdiv)
            .titled("\\")
            .exact_types(),
        AccessScalar::new("access_mod", 2, 2, whole_type, modulo)
            .titled("Mod")
            .exact_types(),
        AccessScalar::new("access_neg", 1, 1, neg_type, neg)
            .titled("-")
            .exact_types(),
        AccessScalar::new("access_not", 1, 1, not_type, not)
            .titled("Not")
            .exact_types(),
        AccessScalar::new("access_and", 2, 2, bits_type, bit_and)
            .titled("And")
            .nulls(NULL_NONE)
            .exact_types(),
        AccessScalar::new("access_or", 2, 2, bits_type, bit_or)
            .titled("Or")
            .nulls(NULL_NONE)
            .exact_types(),
        AccessScalar::new("access_imp", 2, 2, bits_type, bit_imp)
            .titled("Imp")
            .nulls(NULL_NONE)
            .exact_types(),
        AccessScalar::new("access_number", 1, 1, super::types::float64, number)
            .titled("Comparison"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    const CUR: DataType = Decimal128(19, 4);

    #[test]
    fn addition_takes_the_more_precise_type() {
        assert_eq!(add_type(&[Int16, Int16]).unwrap(), Int16);
        assert_eq!(add_type(&[UInt8, Int16]).unwrap(), Int16);
        assert_eq!(add_type(&[Int16, Int32]).unwrap(), Int32);
        assert_eq!(add_type(&[Int32, Float32]).unwrap(), Float64);
        assert_eq!(add_type(&[Int16, Float32]).unwrap(), Float32);
        // + and -: Double < Currency < Decimal
        assert_eq!(add_type(&[Float64, CUR]).unwrap(), CUR);
        assert_eq!(
            add_type(&[CUR, Decimal128(38, 10)]).unwrap(),
            Decimal128(38, 10)
        );
        assert_eq!(add_type(&[Boolean, Boolean]).unwrap(), Int16);
        assert_eq!(add_type(&[Utf8, Int16]).unwrap(), Float64);
        assert_eq!(add_type(&[Utf8, Utf8]).unwrap(), Utf8);
        assert_eq!(
            add_type(&[Timestamp(TimeUnit::Microsecond, None), Float64]).unwrap(),
            Timestamp(TimeUnit::Microsecond, None)
        );
        assert_eq!(add_type(&[Null, Int32]).unwrap(), Int32);
    }

    #[test]
    fn subtraction_of_dates_is_a_double() {
        let d = Timestamp(TimeUnit::Microsecond, None);
        assert_eq!(sub_type(&[d.clone(), d.clone()]).unwrap(), Float64);
        assert_eq!(sub_type(&[d.clone(), Int16]).unwrap(), d);
        assert_eq!(sub_type(&[Utf8, Utf8]).unwrap(), Float64);
    }

    #[test]
    fn multiplication_puts_currency_below_double() {
        assert_eq!(mul_type(&[CUR, Float64]).unwrap(), Float64);
        assert_eq!(mul_type(&[CUR, Float32]).unwrap(), CUR);
        assert_eq!(mul_type(&[Int32, Float32]).unwrap(), Float64);
        assert_eq!(
            mul_type(&[Decimal128(38, 10), Decimal128(18, 2)]).unwrap(),
            Decimal128(38, 12)
        );
        assert_eq!(
            mul_type(&[Decimal128(38, 20), Decimal128(38, 20)]).unwrap(),
            Decimal128(38, 28)
        );
    }

    #[test]
    fn whole_division_rounds_to_byte_integer_or_long() {
        assert_eq!(whole_type(&[UInt8, UInt8]).unwrap(), UInt8);
        assert_eq!(whole_type(&[UInt8, Boolean]).unwrap(), Int16);
        assert_eq!(whole_type(&[Float64, Int16]).unwrap(), Int32);
        assert_eq!(whole_type(&[Int64, Decimal128(2, 1)]).unwrap(), Int64);
        assert_eq!(whole_type(&[Null, Null]).unwrap(), Null);
        assert_eq!(not_type(&[Float64]).unwrap(), Int32);
        assert_eq!(not_type(&[Boolean]).unwrap(), Boolean);
    }

    #[test]
    fn products_round_half_to_even() {
        // 1.2345 × 1.2345 = 1.52399025 → 1.5240 at four places
        assert_eq!(product(12345, 12345, 8, 4), Some(15240));
        // 1.2345 × 2.5 = 3.08625 → 3.0862 (half to even)
        assert_eq!(product(12345, 25000, 8, 4), Some(30862));
        assert_eq!(product(-12345, 25000, 8, 4), Some(-30862));
        // 0.35 × 1 at one place: 0.35 → 0.4
        assert_eq!(product(35, 1, 2, 1), Some(4));
        // widening to more places
        assert_eq!(product(3, 4, 0, 2), Some(1200));
    }
}
