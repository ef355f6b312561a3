//! Parameter values made to fit the types a plan gives its `$n`
//! placeholders (for [`super::statement`]'s planning of statements run
//! with values).

use datafusion::arrow::datatypes::DataType;
use datafusion::common::ParamValues;
use datafusion::error::Result;
use datafusion::logical_expr::LogicalPlan;

/// `values` made to fit the types `plan` gives its placeholders: a value
/// of another type is cast (text `'12'` for an integer parameter reads as
/// 12, as PostgreSQL reads a parameter sent without a type); a value that
/// does not read as the type is an error naming the parameter.
pub(super) fn fit_parameters(plan: &LogicalPlan, values: &ParamValues) -> Result<ParamValues> {
    let ParamValues::List(list) = values else {
        return Ok(values.clone());
    };
    let types = plan.get_parameter_types()?;
    let mut fitted = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let id = format!("${}", i + 1);
        let mut v = v.clone();
        if let Some(Some(want)) = types.get(&id)
            && v.value.data_type() != *want
        {
            v.value = v.value.cast_to(want).map_err(|_| {
                crate::error::refuse(format!(
                    "parameter {id}: {} is not {}",
                    shown(&v.value),
                    type_words(want)
                ))
            })?;
        }
        fitted.push(v);
    }
    Ok(ParamValues::List(fitted))
}

/// A parameter value as a person reads it in an error.
fn shown(v: &datafusion::common::ScalarValue) -> String {
    let text = v.to_string();
    let text: String = text.chars().take(40).collect();
    match v.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => format!("'{text}'"),
        _ => text,
    }
}

/// The kind of value a type holds, in words.
fn type_words(t: &DataType) -> String {
    match t {
        DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64 => "a whole number".into(),
        DataType::Float16 | DataType::Float32 | DataType::Float64 => "a number".into(),
        DataType::Decimal32(..)
        | DataType::Decimal64(..)
        | DataType::Decimal128(..)
        | DataType::Decimal256(..) => "a decimal number".into(),
        DataType::Boolean => "true or false".into(),
        DataType::Date32 | DataType::Date64 | DataType::Timestamp(..) => "a date/time".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "text".into(),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => "binary data".into(),
        other => format!("a value of type {other}"),
    }
}
