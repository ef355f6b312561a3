//! Complex columns as Arrow lists: the list type of each kind, a table
//! schema with its complex columns typed as lists, and the per-batch
//! expansion of complex ids into list arrays.
//!
//! | kind          | Arrow type                                                                                          |
//! |---------------|-----------------------------------------------------------------------------------------------------|
//! | multi-value   | `List<T>`, `T` the value column's type (Text → Utf8, Long → Int32, …)                               |
//! | attachments   | `List<Struct<file_name: Utf8, file_type: Utf8, file_data: LargeBinary, file_url: Utf8, file_timestamp: Timestamp(µs), file_flags: Int32>>` |
//! | version history | `List<Struct<value: Utf8, modified: Timestamp(µs)>>`, newest first                                |
//!
//! A template this reader does not recognise keeps its Int32 complex id.
//! A parent row whose complex id is NULL, 0 or one no hidden row carries
//! has an empty list (Access shows such a field empty).
//!
//! Bounds: an id is only a hash-map key (a hostile id allocates nothing);
//! a batch decodes each hidden row at most once (two rows of one batch
//! sharing a complex id that has values is a [`ComplexError::SharedId`]:
//! Access gives every row its own id), so a batch's lists are never
//! larger than the hidden table's decoded values, and each attachment is
//! decoded within [`super::decode_file_data`]'s bounds.

use super::values::{binary_at, distinct, micros_at};
use super::{ComplexColumn, ComplexKind, ComplexValues, int_at, text_at};
use crate::error::{ComplexError, Result};
use crate::index::Bookmark;
use crate::read::database::Database;
use arrow_array::builder::{
    Int32Builder, LargeBinaryBuilder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, ListArray, RecordBatch, RecordBatchOptions, StructArray};
use arrow_buffer::OffsetBuffer;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use std::collections::HashMap;
use std::sync::Arc;

/// Field metadata key naming what a complex column holds (`attachments`,
/// `multiple values`, `a version history`) in [`list_schema`].
pub const COMPLEX_METADATA_KEY: &str = "jet.complex";

/// The struct fields of one attachment, in this order: `file_name`,
/// `file_type` (the extension without a dot), `file_data` (the decoded
/// file), `file_url`, `file_timestamp` (zone-less, microseconds) and
/// `file_flags`, each nullable, as the hidden table's `FileName`,
/// `FileType`, `FileData`, `FileURL`, `FileTimeStamp` and `FileFlags`.
pub fn attachment_fields() -> Fields {
    Fields::from(vec![
        Field::new("file_name", DataType::Utf8, true),
        Field::new("file_type", DataType::Utf8, true),
        Field::new("file_data", DataType::LargeBinary, true),
        Field::new("file_url", DataType::Utf8, true),
        Field::new(
            "file_timestamp",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        ),
        Field::new("file_flags", DataType::Int32, true),
    ])
}

/// The struct fields of one version of an append-only memo: `value`
/// (the text) and `modified` (zone-less, microseconds), both nullable.
pub fn version_fields() -> Fields {
    Fields::from(vec![
        Field::new("value", DataType::Utf8, true),
        Field::new(
            "modified",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            true,
        ),
    ])
}

impl ComplexColumn {
    /// The Arrow list type of this column's values (see the module
    /// documentation), `None` for a kind this reader does not decode.
    pub fn list_type(&self) -> Option<DataType> {
        let item = match &self.kind {
            ComplexKind::MultiValue(_) => self.layout.value_type.clone()?,
            ComplexKind::Attachment => DataType::Struct(attachment_fields()),
            ComplexKind::VersionHistory { .. } => DataType::Struct(version_fields()),
            ComplexKind::Unsupported(_) => return None,
        };
        Some(DataType::List(Arc::new(Field::new("item", item, true))))
    }
}

/// `table_schema` (a table's schema, complex columns as Int32 ids) with
/// each of `columns` (its complex columns) that has a
/// [`ComplexColumn::list_type`] typed as that list: nullable, its
/// metadata kept plus [`COMPLEX_METADATA_KEY`]. Other fields unchanged.
pub fn list_schema(table_schema: &Schema, columns: &[ComplexColumn]) -> Schema {
    let fields: Vec<Field> = table_schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let listed = columns
                .iter()
                .find(|c| c.position == i)
                .and_then(|c| Some((c, c.list_type()?)));
            match listed {
                Some((c, ty)) => {
                    let mut md = f.metadata().clone();
                    md.insert(COMPLEX_METADATA_KEY.to_string(), c.kind.name().to_string());
                    Field::new(f.name(), ty, true).with_metadata(md)
                }
                None => f.as_ref().clone(),
            }
        })
        .collect();
    Schema::new_with_metadata(fields, table_schema.metadata().clone())
}

/// Turns batches holding complex ids into batches holding lists, for the
/// projected complex columns only: columns not listed pass through, and
/// a hidden table is read only when a batch reaches a column of it (each
/// column's flat table is indexed once, on its first batch).
#[derive(Debug)]
pub struct ListExpander {
    /// (position in the batch, the column's reader).
    slots: Vec<(usize, ComplexValues)>,
    schema: SchemaRef,
}

impl ListExpander {
    /// An expander for batches of `input`, whose `i`-th column is table
    /// column `positions[i]`, over the table's complex `columns`. `None`
    /// when none of those positions is a complex column with a list type
    /// (the batches need nothing done, and nothing will be read).
    pub fn new(
        db: &Database,
        columns: &[ComplexColumn],
        input: &Schema,
        positions: &[usize],
    ) -> Option<ListExpander> {
        let mut slots = Vec::new();
        let mut fields: Vec<Field> = input.fields().iter().map(|f| f.as_ref().clone()).collect();
        for (i, p) in positions.iter().enumerate() {
            let Some(c) = columns.iter().find(|c| c.position == *p) else {
                continue;
            };
            let (Some(ty), Some(f)) = (c.list_type(), fields.get_mut(i)) else {
                continue;
            };
            let mut md = f.metadata().clone();
            md.insert(COMPLEX_METADATA_KEY.to_string(), c.kind.name().to_string());
            *f = Field::new(f.name(), ty, true).with_metadata(md);
            slots.push((i, db.complex_values(c)));
        }
        if slots.is_empty() {
            return None;
        }
        let schema = Arc::new(Schema::new_with_metadata(fields, input.metadata().clone()));
        Some(ListExpander { slots, schema })
    }

    /// The schema of the batches [`ListExpander::expand`] returns.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// `batch` with each complex id column replaced by its lists.
    pub fn expand(&mut self, batch: &RecordBatch) -> Result<RecordBatch> {
        let mut columns = batch.columns().to_vec();
        for (pos, values) in &mut self.slots {
            let Some(slot) = columns.get_mut(*pos) else {
                return Err(values.unresolved("the batch lacks the column"));
            };
            *slot = values.list_array(slot.as_ref())?;
        }
        let options = RecordBatchOptions::new().with_row_count(Some(batch.num_rows()));
        Ok(RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &options,
        )?)
    }
}

impl ComplexValues {
    /// The lists of the parent rows whose complex ids are `ids` (an Int32
    /// array, as a table scan gives the column): one list per id, of
    /// [`ComplexColumn::list_type`], empty for a NULL id or one without
    /// values. The hidden rows of all ids are fetched together, each once;
    /// two ids of `ids` being the same id with values is a
    /// [`ComplexError::SharedId`]. [`ComplexError::WrongKind`] for a
    /// column of a kind this reader does not decode.
    pub fn list_array(&mut self, ids: &dyn Array) -> Result<ArrayRef> {
        let Some(list_type) = self.column.list_type() else {
            return Err(ComplexError::WrongKind {
                table: self.column.table.clone(),
                column: self.column.column.clone(),
                holds: self.column.kind.name(),
                asked: "lists",
            }
            .into());
        };
        let DataType::List(item) = list_type else {
            return Err(self.unresolved("its list type is not a list"));
        };
        let Some(ids) = ids.as_primitive_opt::<Int32Type>() else {
            return Err(self.unresolved("its complex ids are not 32-bit integers"));
        };
        let mut marks: Vec<Bookmark> = Vec::new();
        let mut owners: Vec<i32> = Vec::new();
        let mut offsets: Vec<i32> = Vec::with_capacity(ids.len().saturating_add(1));
        offsets.push(0);
        let mut owner_row: HashMap<i32, usize> = HashMap::new();
        for r in 0..ids.len() {
            if ids.is_valid(r) {
                let id = ids.value(r);
                let rows = self.bookmarks(id)?.to_vec();
                if !rows.is_empty() {
                    if let Some(first) = owner_row.insert(id, r) {
                        return Err(ComplexError::SharedId {
                            table: self.column.table.clone(),
                            column: self.column.column.clone(),
                            complex_id: id,
                            rows: (first, r),
                        }
                        .into());
                    }
                    owners.extend(std::iter::repeat_n(id, rows.len()));
                    marks.extend(rows);
                }
            }
            let end = i32::try_from(marks.len())
                .map_err(|_| self.unresolved("a batch holds more than 2^31 values"))?;
            offsets.push(end);
        }
        let values: ArrayRef = match &self.column.kind {
            ComplexKind::MultiValue(_) => {
                let value = self.column.layout.parts.first().copied().flatten();
                let value = value.ok_or_else(|| self.unresolved("no value column"))?;
                self.fetch_rows(&marks, &[value])?
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.unresolved("the flat table scan gave no column"))?
            }
            ComplexKind::VersionHistory { .. } => self.version_structs(&marks, &offsets)?,
            ComplexKind::Attachment => self.attachment_structs(&marks, &owners)?,
            ComplexKind::Unsupported(_) => return Err(self.unresolved("no list type")),
        };
        Ok(Arc::new(ListArray::try_new(
            item,
            OffsetBuffer::new(offsets.into()),
            values,
            None,
        )?))
    }

    /// The versions at `marks` as structs, each list's (between
    /// consecutive `offsets`) newest first, as [`ComplexValues::versions`].
    fn version_structs(&mut self, marks: &[Bookmark], offsets: &[i32]) -> Result<ArrayRef> {
        let parts = &self.column.layout.parts;
        let wanted = vec![
            self.column.layout.pk,
            parts.first().copied().flatten(),
            parts.get(1).copied().flatten(),
        ];
        let (projection, slots) = distinct(&wanted);
        let arrays = self.fetch_rows(marks, &projection)?;
        let col = |slot: Option<usize>| slot.and_then(|s| arrays.get(s));
        let mut value = StringBuilder::new();
        let mut modified = TimestampMicrosecondBuilder::new();
        for w in offsets.windows(2) {
            let (start, end) = (to_index(w[0]), to_index(w[1]));
            let mut rows: Vec<(Option<i64>, Option<i32>, usize)> = (start..end)
                .map(|r| {
                    (
                        col(slots[2]).and_then(|a| micros_at(a, r)),
                        col(slots[0]).and_then(|a| int_at(a, r)),
                        r,
                    )
                })
                .collect();
            // newest first, then highest id; undated last
            rows.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
            for (when, _, r) in rows {
                value.append_option(col(slots[1]).and_then(|a| text_at(a, r)));
                modified.append_option(when);
            }
        }
        let columns: Vec<ArrayRef> = vec![Arc::new(value.finish()), Arc::new(modified.finish())];
        Ok(Arc::new(StructArray::try_new(
            version_fields(),
            columns,
            None,
        )?))
    }

    /// The attachments at `marks` (of complex ids `owners`) as structs,
    /// each file decoded; a `FileData` that does not decode is a
    /// [`ComplexError::DamagedAttachment`].
    fn attachment_structs(&mut self, marks: &[Bookmark], owners: &[i32]) -> Result<ArrayRef> {
        let parts = self.column.layout.parts.clone();
        let part = |i: usize| parts.get(i).copied().flatten();
        let wanted = vec![
            self.column.layout.pk,
            part(0),
            part(1),
            part(2),
            part(3),
            part(4),
            part(5),
        ];
        let (projection, slots) = distinct(&wanted);
        let arrays = self.fetch_rows(marks, &projection)?;
        let col = |slot: Option<usize>| slot.and_then(|s| arrays.get(s));
        let mut name = StringBuilder::new();
        let mut ty = StringBuilder::new();
        let mut data = LargeBinaryBuilder::new();
        let mut url = StringBuilder::new();
        let mut ts = TimestampMicrosecondBuilder::new();
        let mut flags = Int32Builder::new();
        for (r, owner) in owners.iter().enumerate().take(marks.len()) {
            let file = match col(slots[4]).and_then(|a| binary_at(a, r)) {
                None => None,
                Some(blob) => Some(super::decode_file_data(blob).map_err(|what| {
                    let id = col(slots[0]).and_then(|a| int_at(a, r));
                    self.damaged(*owner, id, marks.get(r).copied(), what)
                })?),
            };
            data.append_option(file);
            url.append_option(col(slots[1]).and_then(|a| text_at(a, r)));
            name.append_option(col(slots[2]).and_then(|a| text_at(a, r)));
            ty.append_option(col(slots[3]).and_then(|a| text_at(a, r)));
            ts.append_option(col(slots[5]).and_then(|a| micros_at(a, r)));
            flags.append_option(col(slots[6]).and_then(|a| int_at(a, r)));
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(name.finish()),
            Arc::new(ty.finish()),
            Arc::new(data.finish()),
            Arc::new(url.finish()),
            Arc::new(ts.finish()),
            Arc::new(flags.finish()),
        ];
        Ok(Arc::new(StructArray::try_new(
            attachment_fields(),
            columns,
            None,
        )?))
    }
}

/// A list offset (never negative: built from `usize` lengths) as an index.
fn to_index(offset: i32) -> usize {
    usize::try_from(offset).unwrap_or(0)
}
