//! Type conversion functions: CBool, CByte, CCur, CDate, CDbl, CDec,
//! CInt, CLng, CSng, CStr, CVar. Each returns its Access type; whole
//! number conversions round half to even (`CInt(2.5)` = 2) and fail with
//! "overflow" outside the type's range; text must spell a number or date
//! in en-US form.

use super::types;
use super::udf::AccessScalar;
use super::udf::Call;
use super::value::{Value, to_bool, to_date, to_f64, to_i64};
use datafusion::error::Result;

/// The value itself: the result builder converts it to the function's
/// type by Access's rules (and reports a mismatch or overflow).
fn pass(c: &Call) -> Result<Value> {
    Ok(c.arg(0).clone())
}

fn cbool(c: &Call) -> Result<Value> {
    Ok(to_bool(c.name, c.arg(0))?.map_or(Value::Null, Value::Bool))
}

fn whole(c: &Call) -> Result<Value> {
    Ok(to_i64(c.name, c.arg(0))?.map_or(Value::Null, Value::Int))
}

fn cdbl(c: &Call) -> Result<Value> {
    Ok(to_f64(c.name, c.arg(0))?.map_or(Value::Null, Value::Double))
}

fn cdate(c: &Call) -> Result<Value> {
    Ok(to_date(c.name, c.arg(0))?.map_or(Value::Null, Value::Date))
}

fn number(c: &Call) -> Result<Value> {
    Ok(match c.arg(0) {
        Value::Decimal(..) | Value::Int(_) | Value::Double(_) | Value::Single(_) => {
            c.arg(0).clone()
        }
        other => to_f64(c.name, other)?.map_or(Value::Null, Value::Double),
    })
}

/// The conversion functions.
pub fn functions() -> Vec<AccessScalar> {
    use types::*;
    vec![
        AccessScalar::new("CBool", 1, 1, boolean, cbool),
        AccessScalar::new("CByte", 1, 1, uint8, whole),
        AccessScalar::new("CCur", 1, 1, currency, number),
        AccessScalar::new("CDate", 1, 1, timestamp, cdate),
        AccessScalar::new("CVDate", 1, 1, timestamp, cdate),
        AccessScalar::new("CDbl", 1, 1, float64, cdbl),
        AccessScalar::new("CDec", 1, 1, decimal, number),
        AccessScalar::new("CInt", 1, 1, int16, whole),
        AccessScalar::new("CLng", 1, 1, int32, whole),
        AccessScalar::new("CSng", 1, 1, float32, cdbl),
        AccessScalar::new("CStr", 1, 1, utf8, pass),
        AccessScalar::new("CVar", 1, 1, first, pass),
    ]
}
