//! The values of one complex column: a lazy index of the flat table by
//! complex id, and typed readers of one id's rows
//! ([`Database::complex_values`] makes one).

use super::{ComplexColumn, ComplexKind, int_at, text_at};
use crate::error::{ComplexError, Error, Result};
use crate::format::OwnedField;
use crate::index::Bookmark;
use crate::read::database::Database;
use crate::read::scan::ScanOptions;
use crate::read::table::Table;
use arrow_array::cast::AsArray;
use arrow_array::types::TimestampMicrosecondType;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};
use std::collections::HashMap;

/// One attachment of a row, as stored in the flat table. Text fields are
/// `None` when NULL (or when a damaged template lacks the column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The attachment's own id (the flat table's auto-number).
    pub id: Option<i32>,
    /// `FileName`.
    pub file_name: Option<String>,
    /// `FileType`: the extension, without a dot.
    pub file_type: Option<String>,
    /// The file's bytes, decoded from the stored `FileData` (inflated when
    /// stored compressed); `None` when `FileData` is NULL.
    pub file_data: Option<Vec<u8>>,
    /// `FileURL`.
    pub file_url: Option<String>,
    /// `FileTimeStamp`: microseconds since 1970-01-01 of the stored
    /// zone-less date and time (as the table scans give Date/Time values).
    pub file_timestamp: Option<i64>,
    /// `FileFlags`.
    pub file_flags: Option<i32>,
}

/// One earlier value of an append-only Memo column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The version's own id (the flat table's auto-number).
    pub id: Option<i32>,
    /// The Memo's text at that version.
    pub value: Option<String>,
    /// When it was set: microseconds since 1970-01-01 of the stored
    /// zone-less date and time.
    pub modified: Option<i64>,
}

/// A lazy reader of one complex column's values, made by
/// [`Database::complex_values`].
///
/// Nothing is read when it is made. The first lookup scans the flat table
/// once, keeping only complex id → row addresses (no values, no long
/// values); each lookup then decodes only that id's rows. A complex id no
/// row carries (0, NULL, or one Access never wrote) has no values: an empty
/// list, as Access allows. Values come in flat-table order (the order
/// Jackcess's index on the complex id gives), except versions (newest
/// first, see [`ComplexValues::versions`]).
#[derive(Debug)]
pub struct ComplexValues {
    db: Database,
    pub(super) column: ComplexColumn,
    index: Option<FlatIndex>,
}

/// The flat table and its rows by complex id.
#[derive(Debug)]
struct FlatIndex {
    flat: Table,
    rows: HashMap<i32, Vec<Bookmark>>,
}

impl Database {
    /// A lazy reader of the values of `column` (see [`ComplexValues`]);
    /// reads nothing until values are asked for.
    pub fn complex_values(&self, column: &ComplexColumn) -> ComplexValues {
        ComplexValues::new(self.clone(), column.clone())
    }
}

impl ComplexValues {
    pub(crate) fn new(db: Database, column: ComplexColumn) -> ComplexValues {
        ComplexValues {
            db,
            column,
            index: None,
        }
    }

    /// The column whose values this reads.
    pub fn column(&self) -> &ComplexColumn {
        &self.column
    }

    /// Whether the flat table has been scanned yet (false until the first
    /// lookup).
    pub fn is_indexed(&self) -> bool {
        self.index.is_some()
    }

    /// How many values (rows of the flat table) complex id `id` has.
    pub fn count(&mut self, id: i32) -> Result<usize> {
        Ok(self.bookmarks(id)?.len())
    }

    /// The values of a multi-value column for complex id `id`: an Arrow
    /// array of the value column's type (as a scan of the flat table gives
    /// it), one element per value, in flat-table order; empty when the id
    /// has none. [`ComplexError::WrongKind`] for another kind of column.
    pub fn multi_values(&mut self, id: i32) -> Result<ArrayRef> {
        self.expect(
            matches!(self.column.kind, ComplexKind::MultiValue(_)),
            "multiple values",
        )?;
        let value = self.column.layout.parts.first().copied().flatten();
        let value = value.ok_or_else(|| self.unresolved("no value column"))?;
        let (arrays, _) = self.fetch(id, &[value])?;
        arrays
            .into_iter()
            .next()
            .ok_or_else(|| self.unresolved("the flat table scan gave no column"))
    }

    /// The attachments of complex id `id`, in flat-table order, each file's
    /// bytes decoded (see [`super::decode_file_data`]); empty when the id
    /// has none. A `FileData` that does not decode is a
    /// [`ComplexError::DamagedAttachment`] naming the table, column, complex
    /// id, attachment id and flat-table row. [`ComplexError::WrongKind`]
    /// for another kind of column.
    pub fn attachments(&mut self, id: i32) -> Result<Vec<Attachment>> {
        self.expect(self.column.kind == ComplexKind::Attachment, "attachments")?;
        let parts = self.column.layout.parts.clone();
        let part = |i: usize| parts.get(i).copied().flatten();
        let (url, name, ty, data, ts, flags) =
            (part(0), part(1), part(2), part(3), part(4), part(5));
        let pk = self.column.layout.pk;
        let wanted: Vec<Option<usize>> = vec![pk, url, name, ty, data, ts, flags];
        let (projection, slots) = distinct(&wanted);
        let (arrays, bookmarks) = self.fetch(id, &projection)?;
        let col = |slot: Option<usize>| slot.and_then(|s| arrays.get(s));
        let rows = arrays.first().map_or(0, |a| a.len());
        let mut out = Vec::with_capacity(rows);
        for r in 0..rows {
            let attachment_id = col(slots[0]).and_then(|a| int_at(a, r));
            let file_data = match col(slots[4]).and_then(|a| binary_at(a, r)) {
                None => None,
                Some(blob) => Some(super::decode_file_data(blob).map_err(|what| {
                    self.damaged(id, attachment_id, bookmarks.get(r).copied(), what)
                })?),
            };
            out.push(Attachment {
                id: attachment_id,
                file_url: col(slots[1]).and_then(|a| text_at(a, r)),
                file_name: col(slots[2]).and_then(|a| text_at(a, r)),
                file_type: col(slots[3]).and_then(|a| text_at(a, r)),
                file_data,
                file_timestamp: col(slots[5]).and_then(|a| micros_at(a, r)),
                file_flags: col(slots[6]).and_then(|a| int_at(a, r)),
            });
        }
        Ok(out)
    }

    /// The version history of complex id `id`: newest first (by modified
    /// date and time, then by version id, highest first; undated versions
    /// last), as Jackcess's `VersionHistoryColumnInfoImpl` orders them.
    /// Empty when the id has none. [`ComplexError::WrongKind`] for another
    /// kind of column.
    pub fn versions(&mut self, id: i32) -> Result<Vec<Version>> {
        let is_history = matches!(self.column.kind, ComplexKind::VersionHistory { .. });
        self.expect(is_history, "a version history")?;
        let parts = &self.column.layout.parts;
        let wanted = vec![
            self.column.layout.pk,
            parts.first().copied().flatten(),
            parts.get(1).copied().flatten(),
        ];
        let (projection, slots) = distinct(&wanted);
        let (arrays, _) = self.fetch(id, &projection)?;
        let col = |slot: Option<usize>| slot.and_then(|s| arrays.get(s));
        let rows = arrays.first().map_or(0, |a| a.len());
        let mut out: Vec<Version> = (0..rows)
            .map(|r| Version {
                id: col(slots[0]).and_then(|a| int_at(a, r)),
                value: col(slots[1]).and_then(|a| text_at(a, r)),
                modified: col(slots[2]).and_then(|a| micros_at(a, r)),
            })
            .collect();
        // newest first; None sorts lowest, so last
        out.sort_by(|a, b| b.modified.cmp(&a.modified).then(b.id.cmp(&a.id)));
        Ok(out)
    }

    /// A [`ComplexError::WrongKind`] unless `ok`.
    fn expect(&self, ok: bool, asked: &'static str) -> Result<()> {
        if ok {
            return Ok(());
        }
        Err(ComplexError::WrongKind {
            table: self.column.table.clone(),
            column: self.column.column.clone(),
            holds: self.column.kind.name(),
            asked,
        }
        .into())
    }

    /// A [`ComplexError::DamagedAttachment`] for the attachment at `bm`.
    pub(crate) fn damaged(
        &self,
        complex_id: i32,
        attachment_id: Option<i32>,
        bm: Option<Bookmark>,
        what: String,
    ) -> Error {
        let bm = bm.unwrap_or(Bookmark { page: 0, row: 0 });
        ComplexError::DamagedAttachment {
            table: self.column.table.clone(),
            column: self.column.column.clone(),
            complex_id,
            attachment_id,
            flat_table: self.column.flat_table.clone(),
            page: bm.page,
            row: bm.row,
            what,
        }
        .into()
    }

    pub(crate) fn unresolved(&self, what: &str) -> Error {
        ComplexError::Unresolved {
            table: self.column.table.clone(),
            column: self.column.column.clone(),
            what: what.to_string(),
        }
        .into()
    }

    /// The row addresses of complex id `id`, indexing the flat table first
    /// when not done yet.
    pub(crate) fn bookmarks(&mut self, id: i32) -> Result<&[Bookmark]> {
        if self.index.is_none() {
            self.index = Some(self.build_index()?);
        }
        Ok(self
            .index
            .as_ref()
            .and_then(|i| i.rows.get(&id))
            .map_or(&[][..], Vec::as_slice))
    }

    /// One scan of the flat table: complex id → row addresses, in scan
    /// order. Rows whose complex id is NULL or not 4 bytes belong to no
    /// parent row and are left out.
    fn build_index(&self) -> Result<FlatIndex> {
        let name = &self.column.flat_table;
        let flat = self.db.table(name)?;
        if flat.def().page != self.column.flat_table_page {
            return Err(self.unresolved("the flat table changed since it was resolved"));
        }
        let fk = self.column.layout.fk;
        let mut rows: HashMap<i32, Vec<Bookmark>> = HashMap::new();
        flat.each_raw_row(|bm, fields| {
            if let Some(OwnedField::Bytes(b)) = fields.get(fk)
                && let Ok(raw) = <[u8; 4]>::try_from(b.as_slice())
            {
                rows.entry(i32::from_le_bytes(raw)).or_default().push(bm);
            }
            Ok(())
        })
        .map_err(|e| e.in_table(name))?;
        Ok(FlatIndex { flat, rows })
    }

    /// The columns at `projection` (flat-table positions) of the rows of
    /// complex id `id`, each as one array, and those rows' addresses.
    fn fetch(&mut self, id: i32, projection: &[usize]) -> Result<(Vec<ArrayRef>, Vec<Bookmark>)> {
        let bookmarks = self.bookmarks(id)?.to_vec();
        let arrays = self.fetch_rows(&bookmarks, projection)?;
        Ok((arrays, bookmarks))
    }

    /// The columns at `projection` (flat-table positions) of the flat
    /// table's rows at `bookmarks` (addresses [`Self::bookmarks`] gave),
    /// in that order, each as one array.
    pub(crate) fn fetch_rows(
        &mut self,
        bookmarks: &[Bookmark],
        projection: &[usize],
    ) -> Result<Vec<ArrayRef>> {
        if self.index.is_none() {
            self.index = Some(self.build_index()?);
        }
        let bookmarks = bookmarks.to_vec();
        let Some(index) = self.index.as_ref() else {
            return Err(self.unresolved("the flat table was not indexed"));
        };
        let name = &self.column.flat_table;
        let scan = index
            .flat
            .fetch(
                bookmarks.clone(),
                ScanOptions {
                    projection: Some(projection.to_vec()),
                    batch_size: bookmarks.len().max(1),
                    ..ScanOptions::default()
                },
            )
            .map_err(|e| e.in_table(name))?;
        let schema = scan.schema();
        let mut batches = Vec::new();
        for b in scan {
            batches.push(b.map_err(|e| e.in_table(name))?);
        }
        let batch = arrow_select::concat::concat_batches(&schema, &batches)?;
        Ok(batch.columns().to_vec())
    }
}

/// The distinct present positions of `wanted` (a projection), and for each
/// wanted entry its slot in that projection.
pub(crate) fn distinct(wanted: &[Option<usize>]) -> (Vec<usize>, Vec<Option<usize>>) {
    let mut projection: Vec<usize> = Vec::new();
    let slots = wanted
        .iter()
        .map(|w| {
            let p = (*w)?;
            Some(match projection.iter().position(|&q| q == p) {
                Some(s) => s,
                None => {
                    projection.push(p);
                    projection.len() - 1
                }
            })
        })
        .collect();
    (projection, slots)
}

/// The bytes at row `r` of a binary array, `None` when NULL.
pub(crate) fn binary_at(a: &ArrayRef, r: usize) -> Option<&[u8]> {
    if r >= a.len() || a.is_null(r) {
        return None;
    }
    match a.data_type() {
        DataType::Binary => Some(a.as_binary::<i32>().value(r)),
        DataType::LargeBinary => Some(a.as_binary::<i64>().value(r)),
        _ => None,
    }
}

/// The microsecond timestamp at row `r`, `None` when NULL or another type.
pub(crate) fn micros_at(a: &ArrayRef, r: usize) -> Option<i64> {
    (a.data_type() == &DataType::Timestamp(TimeUnit::Microsecond, None)
        && r < a.len()
        && !a.is_null(r))
    .then(|| a.as_primitive::<TimestampMicrosecondType>().value(r))
}

#[cfg(test)]
mod tests {
    use super::distinct;

    #[test]
    fn distinct_projection_slots() {
        let (p, s) = distinct(&[Some(3), None, Some(1), Some(3)]);
        assert_eq!(p, vec![3, 1]);
        assert_eq!(s, vec![Some(0), None, Some(1), Some(0)]);
    }
}
