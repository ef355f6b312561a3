//! Result type rules shared by the functions (over canonical argument
//! types, see [`super::udf::canonical`]).

use super::udf::variant_type;
use datafusion::arrow::datatypes::{DataType, TimeUnit};
use datafusion::error::Result;

/// Text.
pub fn utf8(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Utf8)
}
/// Yes/No.
pub fn boolean(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Boolean)
}
/// Byte.
pub fn uint8(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::UInt8)
}
/// Integer.
pub fn int16(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Int16)
}
/// Long.
pub fn int32(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Int32)
}
/// BigInt.
pub fn int64(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Int64)
}
/// Single.
pub fn float32(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Float32)
}
/// Double.
pub fn float64(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Float64)
}
/// Currency: Decimal128(19, 4).
pub fn currency(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Decimal128(19, 4))
}
/// Decimal as `CDec` returns it: Decimal128(38, 10).
pub fn decimal(_: &[DataType]) -> Result<DataType> {
    Ok(DataType::Decimal128(38, 10))
}
/// Date/Time.
pub fn timestamp(_: &[DataType]) -> Result<DataType> {
    Ok(date_type())
}
/// The engine's Date/Time type.
pub fn date_type() -> DataType {
    DataType::Timestamp(TimeUnit::Microsecond, None)
}
/// The first argument's type (a Variant passed through).
pub fn first(t: &[DataType]) -> Result<DataType> {
    Ok(t.first().map(variant_type).unwrap_or(DataType::Null))
}
/// A number keeping the first argument's numeric type: Yes/No becomes
/// Integer, text and dates Double.
pub fn numeric_first(t: &[DataType]) -> Result<DataType> {
    Ok(match t.first() {
        Some(DataType::Boolean) => DataType::Int16,
        Some(DataType::Null) => DataType::Null,
        Some(DataType::Utf8) | Some(DataType::Timestamp(..)) | None => DataType::Float64,
        // Int, Fix and Round can carry into one more whole digit
        // (Int(-99.8) = -100), so a decimal keeps its scale and gains a
        // digit of precision.
        Some(DataType::Decimal128(p, s)) => DataType::Decimal128((*p + 1).min(38), *s),
        Some(other) => variant_type(other),
    })
}

fn is_numeric(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Boolean
            | DataType::Int64
            | DataType::Float32
            | DataType::Float64
            | DataType::Decimal128(..)
            | DataType::UInt8
            | DataType::Int16
            | DataType::Int32
    )
}

/// The type that holds every value of the given types (Nulls ignored):
/// the type itself when all agree; for numbers the widest (Double when a
/// floating type is among them, else Decimal, else BigInt); text when
/// numbers, dates and text mix.
pub fn common(types: &[&DataType]) -> DataType {
    let mut it = types
        .iter()
        .map(|t| variant_type(t))
        .filter(|t| *t != DataType::Null);
    let Some(first) = it.next() else {
        return DataType::Null;
    };
    let rest: Vec<DataType> = it.collect();
    if rest.iter().all(|t| *t == first) {
        return first;
    }
    let all: Vec<&DataType> = std::iter::once(&first).chain(rest.iter()).collect();
    if all.iter().all(|t| is_numeric(t)) {
        if all
            .iter()
            .any(|t| matches!(t, DataType::Float32 | DataType::Float64))
        {
            return DataType::Float64;
        }
        let scale = all
            .iter()
            .filter_map(|t| match t {
                DataType::Decimal128(_, s) => Some(*s),
                _ => None,
            })
            .max();
        return match scale {
            Some(s) => DataType::Decimal128(38, s),
            None => DataType::Int64,
        };
    }
    DataType::Utf8
}
