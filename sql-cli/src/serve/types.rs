//! The PostgreSQL type of each result column: the one `jetsql migrate`
//! gives the Access column (`migrate::postgres::binary::column_type`)
//! when the column comes straight from a table, else the type the Arrow
//! type of a computed column reads as (an `Int64` sum is `int8`, a
//! `Utf8View` concatenation `text`). A type with no PostgreSQL form of
//! its own (lists, structs, intervals) is sent as `text` in Arrow's
//! display form.

use crate::migrate::postgres::binary::column_type;
use datafusion::arrow::datatypes::{DataType, Field, TimeUnit};
use jet_storage::JetType;
use pgwire::api::Type;

/// The PostgreSQL type and type modifier (-1: none) of `field`.
pub fn pg_type(field: &Field) -> (Type, i32) {
    // catalog columns say which PostgreSQL type they are (`oid`, `name`,
    // `"char"`): clients decode by the type OID
    if let Some(ty) = field
        .metadata()
        .get("pg.type")
        .and_then(|o| o.parse::<u32>().ok())
        .and_then(Type::from_oid)
    {
        return (ty, -1);
    }
    if let Some(jet) = field
        .metadata()
        .get("jet.type")
        .and_then(|t| jet_type_named(t))
    {
        let ty = column_type(jet);
        // the type of the Arrow column must still be the table's (a
        // CAST keeps the metadata of its input on some paths)
        if agrees(&ty, field.data_type()) {
            // a Text column's length in characters depends on the file's
            // version (the catalog takes it from the table definition)
            let typmod = match field.data_type() {
                DataType::Decimal128(p, s) => numeric_typmod(*p, *s),
                _ => -1,
            };
            return (ty, typmod);
        }
    }
    of_arrow(field.data_type())
}

/// The Access type whose name (`JetType::name`, the `jet.type` field
/// metadata) is `name`.
fn jet_type_named(name: &str) -> Option<JetType> {
    use JetType as J;
    [
        J::Boolean,
        J::Byte,
        J::Integer,
        J::Long,
        J::Currency,
        J::Single,
        J::Double,
        J::DateTime,
        J::Binary,
        J::Text,
        J::Ole,
        J::Memo,
        J::Guid,
        J::Numeric,
        J::BigInt,
        J::ExtDateTime,
    ]
    .into_iter()
    .find(|t| t.name() == name)
}

/// Whether values of Arrow type `dt` are encoded as PostgreSQL type `ty`
/// by [`super::encode`].
fn agrees(ty: &Type, dt: &DataType) -> bool {
    &of_arrow(dt).0 == ty
        || matches!(
            (ty, dt),
            (
                &Type::VARCHAR | &Type::UUID,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            )
        )
}

/// `numeric(p, s)`'s type modifier.
fn numeric_typmod(p: u8, s: i8) -> i32 {
    if s < 0 {
        return -1;
    }
    ((i32::from(p) << 16) | i32::from(s)) + 4
}

/// The PostgreSQL type values of Arrow type `dt` are sent as.
pub fn of_arrow(dt: &DataType) -> (Type, i32) {
    let ty = match dt {
        DataType::Boolean => Type::BOOL,
        DataType::Int8 | DataType::Int16 | DataType::UInt8 => Type::INT2,
        DataType::Int32 | DataType::UInt16 => Type::INT4,
        DataType::Int64 | DataType::UInt32 => Type::INT8,
        DataType::UInt64 => Type::NUMERIC,
        DataType::Float16 | DataType::Float32 => Type::FLOAT4,
        DataType::Float64 => Type::FLOAT8,
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s) => {
            return (Type::NUMERIC, numeric_typmod(*p, *s));
        }
        DataType::Timestamp(_, None) => Type::TIMESTAMP,
        DataType::Date32 | DataType::Date64 => Type::DATE,
        DataType::Time32(_) | DataType::Time64(_) => Type::TIME,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => Type::BYTEA,
        DataType::FixedSizeBinary(_) => Type::BYTEA,
        DataType::List(item) | DataType::LargeList(item) => match item.data_type() {
            DataType::Boolean => Type::BOOL_ARRAY,
            DataType::Int16 => Type::INT2_ARRAY,
            DataType::Int32 => Type::INT4_ARRAY,
            DataType::Int64 => Type::INT8_ARRAY,
            DataType::Float64 => Type::FLOAT8_ARRAY,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Type::TEXT_ARRAY,
            _ => Type::TEXT,
        },
        // zoned timestamps, 256-bit decimals, intervals, lists, …: text
        _ => Type::TEXT,
    };
    (ty, -1)
}

/// The Arrow type a parameter sent as PostgreSQL type `ty` is read as
/// (`None`: read as text and cast by the plan).
pub fn arrow_of(ty: &Type) -> Option<DataType> {
    Some(match *ty {
        Type::BOOL => DataType::Boolean,
        Type::INT2 => DataType::Int16,
        Type::INT4 => DataType::Int32,
        Type::INT8 => DataType::Int64,
        Type::FLOAT4 => DataType::Float32,
        Type::FLOAT8 => DataType::Float64,
        Type::TIMESTAMP => DataType::Timestamp(TimeUnit::Microsecond, None),
        Type::DATE => DataType::Date32,
        Type::BYTEA => DataType::Binary,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn jet(dt: DataType, ty: &str, len: &str) -> Field {
        Field::new("c", dt, true).with_metadata(HashMap::from([
            ("jet.type".to_string(), ty.to_string()),
            ("jet.length".to_string(), len.to_string()),
        ]))
    }

    #[test]
    fn table_columns_take_migrates_types() {
        assert_eq!(
            pg_type(&jet(DataType::Utf8, "Text", "120")),
            (Type::VARCHAR, -1)
        );
        assert_eq!(pg_type(&jet(DataType::Utf8, "Memo", "0")), (Type::TEXT, -1));
        assert_eq!(pg_type(&jet(DataType::Utf8, "GUID", "16")).0, Type::UUID);
        assert_eq!(
            pg_type(&jet(DataType::Decimal128(19, 4), "Currency", "8")),
            (Type::NUMERIC, (19 << 16 | 4) + 4)
        );
        assert_eq!(pg_type(&jet(DataType::UInt8, "Byte", "1")).0, Type::INT2);
        assert_eq!(
            pg_type(&jet(
                DataType::Timestamp(TimeUnit::Microsecond, None),
                "DateTime",
                "8"
            ))
            .0,
            Type::TIMESTAMP
        );
        // metadata that no longer fits the values is ignored
        assert_eq!(pg_type(&jet(DataType::Int64, "Text", "20")).0, Type::INT8);
    }

    #[test]
    fn computed_columns_take_the_arrow_types() {
        assert_eq!(of_arrow(&DataType::Utf8View).0, Type::TEXT);
        assert_eq!(of_arrow(&DataType::Int64).0, Type::INT8);
        assert_eq!(of_arrow(&DataType::Float64).0, Type::FLOAT8);
        assert_eq!(of_arrow(&DataType::Date32).0, Type::DATE);
    }
}
