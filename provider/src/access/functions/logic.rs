//! Choice and test functions: IIf, Nz, Switch, Choose, IsNull, IsNumeric,
//! IsDate, IsEmpty.
//!
//! IIf, Switch and Choose receive every argument already evaluated (as
//! DataFusion evaluates function arguments); an argument that fails to
//! evaluate fails the call even when it is not chosen.

use super::parse;
use super::types::{self, common};
use super::udf::{AccessScalar, Call, NULL_FIRST, NULL_NONE};
use super::value::{Value, to_bool};
use datafusion::arrow::datatypes::DataType;
use datafusion::error::Result;

/// A condition as Access tests it: Null is not true.
fn truth(c: &Call, i: usize) -> Result<bool> {
    Ok(to_bool(c.name, c.arg(i))?.unwrap_or(false))
}

fn iif(c: &Call) -> Result<Value> {
    Ok(if truth(c, 0)? {
        c.arg(1).clone()
    } else {
        c.arg(2).clone()
    })
}
fn iif_type(t: &[DataType]) -> Result<DataType> {
    Ok(common(&[&t[1], &t[2]]))
}

/// `Nz(value[, valueifnull])`: without the second argument a Null
/// becomes a zero-length string when the result is text, False for
/// Yes/No, 0 otherwise.
fn nz(c: &Call) -> Result<Value> {
    Ok(match (c.arg(0), c.has(1)) {
        (Value::Null, true) => c.arg(1).clone(),
        (Value::Null, false) => match c.ret {
            DataType::Utf8 => Value::Text(String::new()),
            DataType::Boolean => Value::Bool(false),
            DataType::Null => Value::Null,
            _ => Value::Int(0),
        },
        (v, _) => v.clone(),
    })
}
fn nz_type(t: &[DataType]) -> Result<DataType> {
    Ok(match t {
        [DataType::Null] => DataType::Utf8,
        [one] => types::first(std::slice::from_ref(one))?,
        [a, b] => common(&[a, b]),
        _ => DataType::Null,
    })
}

fn switch(c: &Call) -> Result<Value> {
    if !c.args.len().is_multiple_of(2) {
        return Err(c.err("takes pairs of expression and value"));
    }
    for pair in (0..c.args.len()).step_by(2) {
        if truth(c, pair)? {
            return Ok(c.arg(pair + 1).clone());
        }
    }
    Ok(Value::Null)
}
fn switch_type(t: &[DataType]) -> Result<DataType> {
    let values: Vec<&DataType> = t.iter().skip(1).step_by(2).collect();
    Ok(common(&values))
}

/// `Choose(index, choice1, …)`: the index is rounded to a whole number;
/// outside 1..=n the result is Null.
fn choose(c: &Call) -> Result<Value> {
    let i = c.int(0, "Index")?;
    if i < 1 || i as usize >= c.args.len() {
        return Ok(Value::Null);
    }
    Ok(c.arg(i as usize).clone())
}
fn choose_type(t: &[DataType]) -> Result<DataType> {
    let values: Vec<&DataType> = t.iter().skip(1).collect();
    Ok(common(&values))
}

fn isnull(c: &Call) -> Result<Value> {
    Ok(Value::Bool(c.arg(0).is_null()))
}

/// True for numbers, Yes/No and text that spells a number; False for
/// Null, dates and other text.
fn isnumeric(c: &Call) -> Result<Value> {
    Ok(Value::Bool(match c.arg(0) {
        Value::Null | Value::Date(_) => false,
        Value::Text(t) => parse::number(t).is_some(),
        _ => true,
    }))
}

/// True for dates and text that spells a date.
fn isdate(c: &Call) -> Result<Value> {
    Ok(Value::Bool(match c.arg(0) {
        Value::Date(_) => true,
        Value::Text(t) => parse::date(t).is_some(),
        _ => false,
    }))
}

/// A query value is never Empty (an uninitialised VBA variable), so this
/// is False for every value, Null included, as Access documents for Null.
fn isempty(_: &Call) -> Result<Value> {
    Ok(Value::Bool(false))
}

/// The logic functions.
pub fn functions() -> Vec<AccessScalar> {
    use types::*;
    vec![
        AccessScalar::new("IIf", 3, 3, iif_type, iif).nulls(NULL_NONE),
        AccessScalar::new("Nz", 1, 2, nz_type, nz).nulls(NULL_NONE),
        AccessScalar::new("Switch", 2, 64, switch_type, switch).nulls(NULL_NONE),
        AccessScalar::new("Choose", 2, 64, choose_type, choose).nulls(NULL_FIRST),
        AccessScalar::new("IsNull", 1, 1, boolean, isnull).nulls(NULL_NONE),
        AccessScalar::new("IsNumeric", 1, 1, boolean, isnumeric).nulls(NULL_NONE),
        AccessScalar::new("IsDate", 1, 1, boolean, isdate).nulls(NULL_NONE),
        AccessScalar::new("IsEmpty", 1, 1, boolean, isempty).nulls(NULL_NONE),
    ]
}
