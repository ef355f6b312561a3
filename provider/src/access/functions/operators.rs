//! The functions Access operators are rewritten to: `access_concat` (&),
//! `access_like` (Like), `access_mod` (Mod), `access_intdiv` (\),
//! `access_pow` (^), `access_add` (+) and `access_sub` (−) with Access's
//! Date/Time arithmetic.

use super::like::LikePattern;
use super::types::{common, date_type};
use super::udf::{AccessScalar, Call, NULL_ANY, NULL_NONE};
use super::value::{
    Value, check_date, micros_to_serial, serial_to_micros, to_f64, to_i64, to_text,
};
use datafusion::arrow::datatypes::DataType;
use datafusion::error::Result;

/// `a & b`: text of both, Null as empty; Null only when both are Null.
/// `a & b & …`: the operands' texts joined, Null read as empty; Null only
/// when every operand is Null. A chain of `&` is one call (the planner
/// flattens it), which is the same value because `&` is associative.
fn concat(c: &Call) -> Result<Value> {
    let mut out: Option<String> = None;
    for v in c.args {
        if let Some(t) = to_text(v) {
            out.get_or_insert_with(String::new).push_str(&t);
        }
    }
    Ok(out.map_or(Value::Null, Value::Text))
}

fn like(c: &Call) -> Result<Value> {
    let text = c.text(0, "Expression")?;
    let pattern = c.text(1, "Pattern")?;
    let p = LikePattern::new(&pattern).map_err(|e| c.err(format!("pattern '{pattern}': {e}")))?;
    Ok(Value::Bool(p.matches(&text)))
}

/// The operands of Mod and \ rounded to whole numbers (half to even).
fn whole_pair(c: &Call) -> Result<(i64, i64)> {
    let a = to_i64(c.name, c.arg(0))?.unwrap_or(0);
    let b = to_i64(c.name, c.arg(1))?.unwrap_or(0);
    if b == 0 {
        return Err(c.err("Division by zero"));
    }
    Ok((a, b))
}

/// `a Mod b`: the remainder with the sign of `a`.
fn modulo(c: &Call) -> Result<Value> {
    let (a, b) = whole_pair(c)?;
    Ok(Value::Int(
        a.checked_rem(b).ok_or_else(|| c.err("overflow"))?,
    ))
}

/// `a \ b`: the quotient truncated toward zero.
fn intdiv(c: &Call) -> Result<Value> {
    let (a, b) = whole_pair(c)?;
    Ok(Value::Int(
        a.checked_div(b).ok_or_else(|| c.err("overflow"))?,
    ))
}

fn pow(c: &Call) -> Result<Value> {
    let a = c.num(0, "Base")?;
    let b = c.num(1, "Exponent")?;
    let r = a.powf(b);
    if r.is_nan() {
        return Err(c.err("a negative number raised to a fractional power"));
    }
    if r.is_infinite() {
        return Err(if a == 0.0 {
            c.err("Division by zero")
        } else {
            c.err("overflow")
        });
    }
    Ok(Value::Double(r))
}

fn is_date(t: &DataType) -> bool {
    matches!(t, DataType::Timestamp(..))
}

fn numeric_type(a: &DataType, b: &DataType) -> DataType {
    let t = common(&[a, b]);
    match t {
        DataType::Utf8 | DataType::Float32 => DataType::Float64,
        DataType::Boolean => DataType::Int64,
        other => other,
    }
}

fn add_type(t: &[DataType]) -> Result<DataType> {
    let (a, b) = (&t[0], &t[1]);
    Ok(if is_date(a) || is_date(b) {
        date_type()
    } else if *a == DataType::Utf8 && *b == DataType::Utf8 {
        DataType::Utf8
    } else {
        numeric_type(a, b)
    })
}

fn sub_type(t: &[DataType]) -> Result<DataType> {
    let (a, b) = (&t[0], &t[1]);
    Ok(if is_date(a) && is_date(b) {
        DataType::Float64
    } else if is_date(a) || is_date(b) {
        date_type()
    } else {
        numeric_type(a, b)
    })
}

/// Exact sum or difference of two numbers in the result's kind.
fn arith(c: &Call, sign: i64) -> Result<Value> {
    let (a, b) = (c.arg(0), c.arg(1));
    match c.ret {
        DataType::Int64 => {
            let x = to_i64(c.name, a)?.unwrap_or(0);
            let y = to_i64(c.name, b)?.unwrap_or(0);
            x.checked_add(y.checked_mul(sign).ok_or_else(|| c.err("overflow"))?)
                .map(Value::Int)
                .ok_or_else(|| c.err("overflow"))
        }
        DataType::Decimal128(p, s) => {
            let x = super::udf::to_decimal(c.name, a, *p, *s)?.unwrap_or(0);
            let y = super::udf::to_decimal(c.name, b, *p, *s)?.unwrap_or(0);
            x.checked_add(y * sign as i128)
                .map(|u| Value::Decimal(u, *s))
                .ok_or_else(|| c.err("overflow"))
        }
        _ => {
            let x = c.num(0, "Left operand")?;
            let y = c.num(1, "Right operand")?;
            Ok(Value::Double(x + sign as f64 * y))
        }
    }
}

/// `a + b`: dates add as serial numbers (date + number = date), two
/// texts concatenate, otherwise numbers add.
fn add(c: &Call) -> Result<Value> {
    match c.ret {
        DataType::Timestamp(..) => {
            let x = to_f64(c.name, c.arg(0))?.unwrap_or(0.0);
            let y = to_f64(c.name, c.arg(1))?.unwrap_or(0.0);
            serial_to_micros(c.name, x + y).map(Value::Date)
        }
        DataType::Utf8 => Ok(Value::Text(
            c.text(0, "Left operand")? + &c.text(1, "Right operand")?,
        )),
        _ => arith(c, 1),
    }
}

/// `a − b`: date − date is the Double number of days between them, date
/// − number a date, otherwise numbers subtract.
fn sub(c: &Call) -> Result<Value> {
    match (c.arg(0), c.arg(1), c.ret) {
        (Value::Date(x), Value::Date(y), _) => {
            Ok(Value::Double(micros_to_serial(*x) - micros_to_serial(*y)))
        }
        (_, _, DataType::Timestamp(..)) => {
            let x = to_f64(c.name, c.arg(0))?.unwrap_or(0.0);
            let y = to_f64(c.name, c.arg(1))?.unwrap_or(0.0);
            serial_to_micros(c.name, x - y)
                .and_then(|u| check_date(c.name, u))
                .map(Value::Date)
        }
        _ => arith(c, -1),
    }
}

/// The most operands one `access_concat` call takes (a longer `&` chain is
/// refused earlier, by the statement-shape limit of 200 operators).
pub const CONCAT_MAX_OPERANDS: usize = 4096;

/// The operator functions.
pub fn functions() -> Vec<AccessScalar> {
    use super::types::*;
    vec![
        AccessScalar::new("access_concat", 2, CONCAT_MAX_OPERANDS, utf8, concat)
            .titled("&")
            .nulls(NULL_NONE),
        AccessScalar::new("access_like", 2, 2, boolean, like)
            .titled("Like")
            .nulls(NULL_ANY),
        AccessScalar::new("access_mod", 2, 2, int64, modulo).titled("Mod"),
        AccessScalar::new("access_intdiv", 2, 2, int64, intdiv).titled("\\"),
        AccessScalar::new("access_pow", 2, 2, float64, pow).titled("^"),
        AccessScalar::new("access_add", 2, 2, add_type, add).titled("+"),
        AccessScalar::new("access_sub", 2, 2, sub_type, sub).titled("-"),
    ]
}
