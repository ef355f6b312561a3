//! `_file` pruning: a filter that reads only the `_file` column (`=`,
//! `IN`, `LIKE`, `starts_with`, any expression over it) is evaluated on
//! the list of files when the query is planned, so only the files it
//! keeps are opened.

use super::schema::FILE_COLUMN;
use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::catalog::Session;
use datafusion::common::DFSchema;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::Expr;
use std::sync::Arc;

/// Whether `e` reads the `_file` column and no other, and gives the same
/// answer every time (no volatile function).
pub fn file_only(e: &Expr) -> bool {
    let refs = e.column_refs();
    !refs.is_empty() && refs.iter().all(|c| c.name == FILE_COLUMN) && !e.is_volatile()
}

/// The positions in `files` (the values of `_file`) that every one of
/// `filters` (each [`file_only`]) keeps: NULL counts as false, as in
/// `WHERE`.
pub fn keep(session: &dyn Session, files: &[&str], filters: &[&Expr]) -> Result<Vec<usize>> {
    let schema = Arc::new(Schema::new(vec![Field::new(
        FILE_COLUMN,
        DataType::Utf8,
        false,
    )]));
    let column: ArrayRef = Arc::new(StringArray::from(files.to_vec()));
    let batch = RecordBatch::try_new(schema.clone(), vec![column])?;
    let df_schema = DFSchema::try_from(schema.as_ref().clone())?;
    let mut keep = vec![true; files.len()];
    for f in filters {
        let expr = session.create_physical_expr((*f).clone(), &df_schema)?;
        let out = expr.evaluate(&batch)?.into_array(files.len())?;
        let bools = out.as_any().downcast_ref::<BooleanArray>().ok_or_else(|| {
            DataFusionError::Plan(format!(
                "the filter {f} on {FILE_COLUMN} is not true or false"
            ))
        })?;
        for (i, k) in keep.iter_mut().enumerate() {
            *k &= bools.is_valid(i) && bools.value(i);
        }
    }
    Ok(keep
        .iter()
        .enumerate()
        .filter(|(_, k)| **k)
        .map(|(i, _)| i)
        .collect())
}
