//! The functions Access operators are rewritten to: `access_concat` (&),
//! `access_like` (Like), `access_pow` (^) and `access_div` (/). The
//! arithmetic operators `+`, `-`, `*`, `\` and `Mod` are in
//! [`super::arith`].

use super::like::LikePattern;
use super::udf::{AccessScalar, Call, NULL_ANY, NULL_NONE};
use super::value::{Value, to_text};
use datafusion::arrow::datatypes::{DataType, i256};
use datafusion::error::{DataFusionError, Result};
use std::borrow::Cow;

/// `a & b`: text of both, Null as empty; Null only when both are Null.
/// `a & b & …`: the operands' texts joined, Null read as empty; Null only
/// when every operand is Null. A chain of `&` is one call (the planner
/// flattens it), which is the same value because `&` is associative.
fn concat(c: &Call) -> Result<Value> {
    // Text operands are borrowed, not copied, and the result is reserved
    // once at its exact length: a large operand then costs its result and
    // nothing more, and memory the process cannot get is an error, not an
    // abort (a doubling String grown by push_str took three times the
    // result, which the hostile-input fuzz found under `ulimit -v`).
    let parts: Vec<Option<Cow<'_, str>>> = c
        .args
        .iter()
        .map(|v| match v {
            Value::Text(t) => Some(Cow::Borrowed(t.as_str())),
            other => to_text(other).map(Cow::Owned),
        })
        .collect();
    if parts.iter().all(Option::is_none) {
        return Ok(Value::Null);
    }
    let total: usize = parts.iter().flatten().map(|t| t.len()).sum();
    let mut out = String::new();
    out.try_reserve_exact(total).map_err(|_| {
        DataFusionError::ResourcesExhausted(format!(
            "the & operator could not get {} of memory for its result",
            crate::frontdoor::strings::human_bytes(total as u128)
        ))
    })?;
    for t in parts.iter().flatten() {
        out.push_str(t);
    }
    Ok(Value::Text(out))
}

fn like(c: &Call) -> Result<Value> {
    let text = c.text(0, "Expression")?;
    let pattern = c.text(1, "Pattern")?;
    let p = LikePattern::new(&pattern).map_err(|e| c.err(format!("pattern '{pattern}': {e}")))?;
    Ok(Value::Bool(p.matches(&text)))
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

/// The result type of `a / b` (after the planner's casts, see
/// [`crate::access::planner`]): Decimal when either operand is a Decimal,
/// Single when both are Single (the planner casts Byte and Integer
/// operands to Single when both are such), otherwise Double, as
/// Microsoft's "/ operator" page has it.
fn div_type(t: &[DataType]) -> Result<DataType> {
    let (a, b) = (&t[0], &t[1]);
    Ok(
        if matches!(a, DataType::Decimal128(..)) || matches!(b, DataType::Decimal128(..)) {
            DataType::Decimal128(38, div_scale(a, b))
        } else if *a == DataType::Float32 && *b == DataType::Float32 {
            DataType::Float32
        } else {
            DataType::Float64
        },
    )
}

/// The (precision, scale) an operand of a Decimal division is taken to
/// have: its own for a Decimal, a BigInt's 19 digits for an integer, and
/// for anything else (a Double, text) CDec's Decimal(38, 10).
fn digits(t: &DataType) -> (i32, i32) {
    match t {
        DataType::Decimal128(p, s) => (i32::from(*p), i32::from(*s)),
        DataType::Int64 | DataType::Boolean => (19, 0),
        _ => (38, 10),
    }
}

/// The scale of a Decimal quotient: as many places as Decimal128(38) has
/// room for beside the quotient's whole digits (at most the dividend's
/// whole digits plus the divisor's places), between 10 (CDec's scale) and
/// 28 (Access's Decimal's most).
fn div_scale(a: &DataType, b: &DataType) -> i8 {
    let (pa, sa) = digits(a);
    let (_, sb) = digits(b);
    let whole = pa - sa + sb;
    (38 - whole).clamp(10, 28) as i8
}

/// A Decimal or whole-number operand as (unscaled value, scale).
fn exact(v: &Value) -> Option<(i128, i8)> {
    match v {
        Value::Decimal(u, s) => Some((*u, *s)),
        Value::Int(i) => Some((i128::from(*i), 0)),
        Value::Bool(b) => Some((if *b { -1 } else { 0 }, 0)),
        _ => None,
    }
}

/// `a / b` at scale `s`, rounded half to even (as Access rounds a
/// Decimal); `None` when `b` is zero or the quotient has no room in
/// Decimal128(38).
fn decimal_quotient((a, sa): (i128, i8), (b, sb): (i128, i8), s: i8) -> Option<i128> {
    // a·10^−sa / (b·10^−sb) at scale s is a·10^(s + sb − sa) / b
    let shift = i32::from(s) + i32::from(sb) - i32::from(sa);
    let ten = i256::from_i128(10);
    let mut n = i256::from_i128(a).checked_abs()?;
    let mut d = i256::from_i128(b).checked_abs()?;
    if shift >= 0 {
        n = n.checked_mul(ten.checked_pow(shift as u32)?)?;
    } else {
        d = d.checked_mul(ten.checked_pow((-shift) as u32)?)?;
    }
    let mut q = n.checked_div(d)?;
    let r = n.checked_rem(d)?;
    let twice = r.checked_mul(i256::from_i128(2))?;
    if twice > d || (twice == d && q.checked_rem(i256::from_i128(2))? != i256::ZERO) {
        q = q.checked_add(i256::ONE)?;
    }
    let q = q.to_i128()?;
    let q = if (a < 0) != (b < 0) { -q } else { q };
    (q.abs() < 10i128.pow(38)).then_some(q)
}

/// An operand of a Decimal division as (unscaled value, scale): a
/// Decimal, Currency, whole number or Yes/No exactly, anything else as
/// `CDec` reads it (a Double to 15 significant digits, a Single to 7, at
/// CDec's 10 places): "Division involves a Decimal and any other data
/// type: A Decimal data type" (the "/ operator" page).
fn decimal_operand(c: &Call, i: usize) -> Result<(i128, i8)> {
    match exact(c.arg(i)) {
        Some(e) => Ok(e),
        None => Ok((
            super::udf::to_decimal(c.name, c.arg(i), 38, 10)?.unwrap_or(0),
            10,
        )),
    }
}

/// `a / b`: a zero divisor is an error ("Division by zero"), as in
/// Access; a Decimal quotient is exact (rounded half to even at the
/// result's scale), Singles divide in Single, everything else in Double.
fn div(c: &Call) -> Result<Value> {
    let y = c.num(1, "Divisor")?;
    if y == 0.0 {
        return Err(c.err("Division by zero"));
    }
    if let DataType::Decimal128(_, s) = c.ret {
        let (a, b) = (decimal_operand(c, 0)?, decimal_operand(c, 1)?);
        return decimal_quotient(a, b, *s)
            .map(|u| Value::Decimal(u, *s))
            .ok_or_else(|| c.err("overflow"));
    }
    let x = c.num(0, "Dividend")?;
    let (q, value) = if *c.ret == DataType::Float32 {
        let q = x as f32 / y as f32;
        (f64::from(q), Value::Single(q))
    } else {
        (x / y, Value::Double(x / y))
    };
    if q.is_finite() {
        Ok(value)
    } else {
        Err(c.err("overflow"))
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
        AccessScalar::new("access_pow", 2, 2, float64, pow).titled("^"),
        AccessScalar::new("access_div", 2, 2, div_type, div).titled("/"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_quotients_round_half_to_even_at_the_scale() {
        // 1 / 3 at scale 4
        assert_eq!(decimal_quotient((1, 0), (3, 0), 4), Some(3333));
        // 2.5 / 2 = 1.25 → 1.2 at scale 1 (half to even), −1.2 likewise
        assert_eq!(decimal_quotient((25, 1), (2, 0), 1), Some(12));
        assert_eq!(decimal_quotient((-25, 1), (2, 0), 1), Some(-12));
        // 3.5 / 1 → 4 at scale 0; 10.00 / −0.4 = −25
        assert_eq!(decimal_quotient((35, 1), (1, 0), 0), Some(4));
        assert_eq!(decimal_quotient((1000, 2), (-4, 1), 2), Some(-2500));
        // no room in Decimal128(38)
        assert_eq!(decimal_quotient((10i128.pow(30), 0), (1, 10), 10), None);
        assert_eq!(decimal_quotient((1, 0), (0, 0), 4), None);
    }

    #[test]
    fn division_types_follow_the_operands() {
        use DataType::*;
        assert_eq!(div_type(&[Int64, Int64]).unwrap(), Float64);
        assert_eq!(div_type(&[Float32, Float32]).unwrap(), Float32);
        assert_eq!(div_type(&[Float32, Float64]).unwrap(), Float64);
        assert_eq!(div_type(&[Utf8, Int64]).unwrap(), Float64);
        // Numeric(18, 2) / Long: 16 whole digits, 22 places
        assert_eq!(
            div_type(&[Decimal128(18, 2), Int64]).unwrap(),
            Decimal128(38, 22)
        );
        // CDec's Decimal(38, 10) keeps 10 places
        assert_eq!(
            div_type(&[Decimal128(38, 10), Float64]).unwrap(),
            Decimal128(38, 10)
        );
    }
}
