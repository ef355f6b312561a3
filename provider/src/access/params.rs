//! Parameter values bound by name: `[Enter a date]` in Access SQL, bound
//! from the shell (`\param`) or the library ([`crate::JetSession::bind`]).
//! Names match ignoring case, as Access matches them.

use super::ast;
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::sql::sqlparser::ast::Expr;
use std::collections::HashMap;

/// The bound parameters of a session.
#[derive(Debug, Clone, Default)]
pub struct Params(HashMap<String, ParamValue>);

/// One bound value.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamValue(pub ScalarValue);

impl Params {
    /// Binds `name` (replacing an earlier value).
    pub fn bind(&mut self, name: &str, value: ScalarValue) {
        self.0.insert(name.to_lowercase(), ParamValue(value));
    }

    /// Removes every binding.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// The value bound to `name`.
    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.0.get(&name.to_lowercase())
    }

    /// Bound names, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.0.keys().cloned().collect();
        v.sort();
        v
    }
}

impl ParamValue {
    /// The value as a literal of the statement.
    pub fn to_expr(&self) -> Result<Expr> {
        use ScalarValue as S;
        let v = &self.0;
        if v.is_null() {
            return Ok(ast::null());
        }
        Ok(match v {
            S::Boolean(Some(b)) => ast::boolean(*b),
            S::Int8(_)
            | S::Int16(_)
            | S::Int32(_)
            | S::Int64(_)
            | S::UInt8(_)
            | S::UInt16(_)
            | S::UInt32(_)
            | S::UInt64(_)
            | S::Decimal128(..) => ast::number(&v.to_string()),
            S::Float32(Some(f)) if f.is_finite() => ast::number(&format!("{f:?}")),
            S::Float64(Some(f)) if f.is_finite() => ast::number(&format!("{f:?}")),
            S::Utf8(Some(s)) | S::LargeUtf8(Some(s)) | S::Utf8View(Some(s)) => ast::string(s),
            S::TimestampMicrosecond(Some(_), None)
            | S::TimestampMillisecond(Some(_), None)
            | S::TimestampSecond(Some(_), None)
            | S::TimestampNanosecond(Some(_), None)
            | S::Date32(Some(_)) => ast::call(
                "arrow_cast",
                vec![
                    ast::string(&datafusion::arrow::util::display::array_value_to_string(
                        &v.to_array()?,
                        0,
                    )?),
                    ast::string("Timestamp(Microsecond, None)"),
                ],
            ),
            other => {
                return Err(DataFusionError::Plan(format!(
                    "a parameter value of type {} cannot be used in a query",
                    other.data_type()
                )));
            }
        })
    }
}

/// Reads a parameter value as typed in the shell: a number, `True` /
/// `False`, `#date#`, `NULL`, or text (quotes optional).
pub fn parse_param_value(text: &str) -> ScalarValue {
    let t = text.trim();
    if t.eq_ignore_ascii_case("null") {
        return ScalarValue::Null;
    }
    if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("yes") {
        return ScalarValue::Boolean(Some(true));
    }
    if t.eq_ignore_ascii_case("false") || t.eq_ignore_ascii_case("no") {
        return ScalarValue::Boolean(Some(false));
    }
    if let Ok(i) = t.parse::<i64>() {
        return ScalarValue::Int64(Some(i));
    }
    if t.contains('.')
        && let Ok(f) = t.parse::<f64>()
        && f.is_finite()
    {
        return ScalarValue::Float64(Some(f));
    }
    if let Some(inner) = t.strip_prefix('#').and_then(|s| s.strip_suffix('#'))
        && let Some(d) = super::datelit::parse_date_literal(inner)
    {
        let micros = chrono_micros(&d);
        return ScalarValue::TimestampMicrosecond(Some(micros), None);
    }
    let unquoted = t
        .strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .or_else(|| t.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
        .unwrap_or(t);
    ScalarValue::Utf8(Some(unquoted.to_string()))
}

/// Microseconds since 1970 of a validated date (proleptic Gregorian).
fn chrono_micros(d: &super::datelit::AccessDateTime) -> i64 {
    // days from civil (Howard Hinnant's algorithm)
    let y = i64::from(d.year) - i64::from(d.month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(d.month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d.day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs =
        days * 86_400 + i64::from(d.hour) * 3600 + i64::from(d.minute) * 60 + i64::from(d.second);
    secs * 1_000_000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_values() {
        assert_eq!(parse_param_value("42"), ScalarValue::Int64(Some(42)));
        assert_eq!(
            parse_param_value("'x y'"),
            ScalarValue::Utf8(Some("x y".into()))
        );
        assert_eq!(
            parse_param_value("London"),
            ScalarValue::Utf8(Some("London".into()))
        );
        assert_eq!(parse_param_value("NULL"), ScalarValue::Null);
        // 1998-01-01 is 10,227 days after 1970-01-01
        assert_eq!(
            parse_param_value("#1/1/1998#"),
            ScalarValue::TimestampMicrosecond(Some(10_227 * 86_400_000_000), None)
        );
    }
}
