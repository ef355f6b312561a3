//! sqllogictest output shared by the slt runners.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::datatypes::{Float32Type, Float64Type};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use sqllogictest::{DBOutput, DefaultColumnType};

/// Query results as sqllogictest rows: integers, floating point (and
/// decimals) and text; NULL as `NULL`, an empty string as `(empty)`.
pub fn db_output(
    schema: &datafusion::arrow::datatypes::Schema,
    batches: &[datafusion::arrow::array::RecordBatch],
) -> DBOutput<DefaultColumnType> {
    output(schema, batches, false)
}

/// [`db_output`] with floating point numbers in Rust's shortest form
/// (`2`, `0.5`), as the Access files of `tests/slt/access/` spell them.
#[allow(dead_code)] // shared module: only the Access runner uses this form
pub fn db_output_shortest_floats(
    schema: &datafusion::arrow::datatypes::Schema,
    batches: &[datafusion::arrow::array::RecordBatch],
) -> DBOutput<DefaultColumnType> {
    output(schema, batches, true)
}

fn output(
    schema: &datafusion::arrow::datatypes::Schema,
    batches: &[datafusion::arrow::array::RecordBatch],
    shortest_floats: bool,
) -> DBOutput<DefaultColumnType> {
    let types = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64 => DefaultColumnType::Integer,
            DataType::Float32
            | DataType::Float64
            | DataType::Decimal128(..)
            | DataType::Decimal256(..) => DefaultColumnType::FloatingPoint,
            _ => DefaultColumnType::Text,
        })
        .collect();
    let opts = FormatOptions::default().with_null("NULL");
    let mut rows = Vec::new();
    for b in batches {
        let fmts: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            rows.push(
                fmts.iter()
                    .zip(b.columns())
                    .map(|(f, c)| {
                        let s = match c.data_type() {
                            _ if c.is_null(r) => f.value(r).to_string(),
                            DataType::Float64 if shortest_floats => {
                                c.as_primitive::<Float64Type>().value(r).to_string()
                            }
                            DataType::Float32 if shortest_floats => {
                                c.as_primitive::<Float32Type>().value(r).to_string()
                            }
                            _ => f.value(r).to_string(),
                        };
                        if s.is_empty() && !c.is_null(r) {
                            "(empty)".to_string()
                        } else {
                            s
                        }
                    })
                    .collect(),
            );
        }
    }
    if schema.fields().is_empty() {
        return DBOutput::StatementComplete(0);
    }
    DBOutput::Rows { types, rows }
}
