//! List columns (complex columns of Access files) as one text value per
//! row, for CSV, which has no lists: a multi-value list as its values
//! joined by `; ` (as Access shows and exports a multi-value field), a
//! list of attachments as their file names joined by `; `, a version
//! history as its texts, newest first, joined by `; `. An element that is
//! NULL is left out; a NULL list stays NULL. Every other column passes
//! through unchanged.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, RecordBatch, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use std::sync::Arc;

/// The separator between the elements of one list.
pub const SEPARATOR: &str = "; ";

/// Whether `schema` has a list column (so [`lists_as_text`] changes it).
pub fn has_lists(schema: &Schema) -> bool {
    schema
        .fields()
        .iter()
        .any(|f| matches!(f.data_type(), DataType::List(_) | DataType::LargeList(_)))
}

/// `schema` with every list column as Utf8 (name and metadata kept).
pub fn text_schema(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::List(_) | DataType::LargeList(_) => {
                Field::new(f.name(), DataType::Utf8, true).with_metadata(f.metadata().clone())
            }
            _ => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` with every list column as text (see the module documentation).
pub fn lists_as_text(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    if !has_lists(&batch.schema()) {
        return Ok(batch.clone());
    }
    let columns = batch
        .columns()
        .iter()
        .map(|c| match c.data_type() {
            DataType::List(_) => list_text(c.as_list::<i32>()),
            DataType::LargeList(_) => list_text(c.as_list::<i64>()),
            _ => Ok(c.clone()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(text_schema(&batch.schema()), columns)
}

/// One text per list.
fn list_text<O: datafusion::arrow::array::OffsetSizeTrait>(
    lists: &datafusion::arrow::array::GenericListArray<O>,
) -> Result<ArrayRef, ArrowError> {
    let mut out = StringBuilder::new();
    for r in 0..lists.len() {
        if lists.is_null(r) {
            out.append_null();
            continue;
        }
        let values = lists.value(r);
        let shown = shown_part(&values);
        let options = FormatOptions::default();
        let f = ArrayFormatter::try_new(shown.as_ref(), &options)?;
        let parts: Vec<String> = (0..shown.len())
            .filter(|&i| shown.is_valid(i))
            .map(|i| f.value(i).to_string())
            .collect();
        out.append_value(parts.join(SEPARATOR));
    }
    Ok(Arc::new(out.finish()))
}

/// What of each element is written: an attachment's `file_name`, a
/// version's `value`, else the element itself.
fn shown_part(values: &ArrayRef) -> ArrayRef {
    if let DataType::Struct(fields) = values.data_type() {
        for name in ["file_name", "value"] {
            if let Some(i) = fields.iter().position(|f| f.name() == name) {
                return values.as_struct().column(i).clone();
            }
        }
    }
    values.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int32Array, ListArray, StringArray, StructArray};
    use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
    use datafusion::arrow::datatypes::Fields;

    fn list(values: ArrayRef, offsets: Vec<i32>, nulls: Option<NullBuffer>) -> ArrayRef {
        let item = Arc::new(Field::new("item", values.data_type().clone(), true));
        Arc::new(ListArray::new(
            item,
            OffsetBuffer::new(offsets.into()),
            values,
            nulls,
        ))
    }

    #[test]
    fn lists_become_joined_text() {
        let multi = list(
            Arc::new(StringArray::from(vec![Some("a"), None, Some("b")])),
            vec![0, 3, 3, 3],
            Some(NullBuffer::from(vec![true, true, false])),
        );
        let files = StructArray::new(
            Fields::from(vec![
                Field::new("file_name", DataType::Utf8, true),
                Field::new("file_flags", DataType::Int32, true),
            ]),
            vec![
                Arc::new(StringArray::from(vec!["x.png", "y.txt"])),
                Arc::new(Int32Array::from(vec![0, 0])),
            ],
            None,
        );
        let attach = list(Arc::new(files), vec![0, 2, 2, 2], None);
        let id: ArrayRef = Arc::new(Int32Array::from(vec![1, 2, 3]));
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int32, false),
            Field::new("m", multi.data_type().clone(), true),
            Field::new("a", attach.data_type().clone(), true),
        ]);
        let b = RecordBatch::try_new(Arc::new(schema), vec![id, multi, attach]).unwrap();
        let t = lists_as_text(&b).unwrap();
        assert_eq!(t.schema().field(1).data_type(), &DataType::Utf8);
        let m = t.column(1).as_string::<i32>();
        assert_eq!(m.value(0), "a; b");
        assert_eq!(m.value(1), "");
        assert!(m.is_null(2));
        let a = t.column(2).as_string::<i32>();
        assert_eq!(a.value(0), "x.png; y.txt");
        assert_eq!(a.value(1), "");
        assert_eq!(
            t.column(0)
                .as_primitive::<datafusion::arrow::datatypes::Int32Type>()
                .value(2),
            3
        );
    }
}
