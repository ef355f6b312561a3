//! Rows with complex values (attachments, multi-value lists): the parent
//! row, its complex id and the rows of the hidden flat tables change in
//! the one transaction, each through the ordinary row writes (so every
//! index of the parent and of the flat tables is maintained, and the
//! journal makes the whole change atomic).
//!
//! * A new row of a table with complex columns takes the table's next
//!   complex id (the TDEF counter, see [`crate::schema::tdef::TableDef`]), shared
//!   by all its complex columns; each value becomes a flat-table row
//!   holding the value and the id (its own auto-number id assigned).
//! * Setting a complex column replaces its values: the flat rows with the
//!   row's id are deleted, the new ones inserted (a row without an id
//!   first takes one).
//! * Deleting a row deletes the flat rows of every complex column (the
//!   version history too) whose id is the row's.
//!
//! Version histories of append-only memos are not written: a write that
//! would have to add a version (setting such a memo, or the history
//! column) is refused naming table and column.

use super::Transaction;
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::format::types::JetType;
use crate::index::Bookmark;
use crate::read::complex::{ComplexColumn, ComplexKind, encode_file_data, hidden_tables};
use crate::schema::tdef::TableDef;
use crate::write::complex::{NewAttachment, NewValue, not_written, values_at};
use crate::write::row::Cell;
use arrow_array::RecordBatch;
use std::collections::HashSet;

/// A batch split into the columns the row writer stores and the complex
/// columns' lists (with the complex column each names).
struct Split<'c> {
    plain: RecordBatch,
    lists: Vec<(&'c ComplexColumn, arrow_array::ArrayRef)>,
}

impl Transaction<'_> {
    /// Inserts every row of `batch` into `table` like
    /// [`Transaction::insert`], where a column named like one of the
    /// table's complex `columns` (as [`crate::Database::complex_columns`]
    /// gives them) holds each row's values as a list (see
    /// [`crate::write::complex::values_at`]; a NULL list stores no values).
    /// Every new row takes a complex id. Refuses lists for a version
    /// history or an unrecognised kind, and a value for an append-only
    /// memo whose history jetsql would have to write (the error abandons
    /// the transaction: nothing of it is committed).
    pub fn insert_complex(
        &mut self,
        table: &str,
        batch: &RecordBatch,
        columns: &[ComplexColumn],
    ) -> WResult<Vec<Bookmark>> {
        let def = self.state(table)?.def.clone();
        let split = split(table, batch, columns)?;
        refuse_versioned(table, &def, &split.plain, columns)?;
        let marks = self.insert(table, &split.plain)?;
        for (r, bm) in marks.iter().enumerate() {
            if split.lists.is_empty() {
                break;
            }
            let id = self.complex_id_at(table, &def, *bm)?;
            for (column, lists) in &split.lists {
                let values = values_at(column, lists, r).map_err(|why| refused(column, why))?;
                let (Some(values), Some(id)) = (values, id) else {
                    continue;
                };
                self.insert_flat_rows(column, id, values)?;
            }
        }
        Ok(marks)
    }

    /// Updates the rows at `bookmarks` like [`Transaction::update`], where
    /// a column of `changes` named like one of the complex `columns`
    /// replaces that column's values with row `i`'s list (a NULL list
    /// leaves it without values). Refuses what
    /// [`Transaction::insert_complex`] refuses.
    pub fn update_complex(
        &mut self,
        table: &str,
        bookmarks: &[Bookmark],
        changes: &RecordBatch,
        columns: &[ComplexColumn],
    ) -> WResult<usize> {
        let def = self.state(table)?.def.clone();
        let split = split(table, changes, columns)?;
        refuse_versioned(table, &def, &split.plain, columns)?;
        // replacing a history (even by none) is refused, as is writing one
        for (c, _) in &split.lists {
            if let Some(why) = not_written(c) {
                return Err(refused(
                    c,
                    format!("replacing its values is refused: {why}"),
                ));
            }
        }
        if split.plain.num_columns() > 0 {
            self.update(table, bookmarks, &split.plain)?;
        } else if changes.num_rows() != bookmarks.len() {
            return Err(WriteError::BadDefinition {
                table: table.to_string(),
                why: format!(
                    "{} bookmarks for {} rows of changes",
                    bookmarks.len(),
                    changes.num_rows()
                ),
            });
        }
        for (r, &bm) in bookmarks.iter().enumerate() {
            if split.lists.is_empty() {
                break;
            }
            let id = match self.complex_id_at(table, &def, bm)? {
                Some(id) => id,
                None => self.give_complex_id(table, &def, bm)?,
            };
            for (column, lists) in &split.lists {
                let values = values_at(column, lists, r).map_err(|why| refused(column, why))?;
                self.delete_flat_rows(column.flat_table.as_str(), column.layout.fk, &[id])?;
                if let Some(values) = values {
                    self.insert_flat_rows(column, id, values)?;
                }
            }
        }
        Ok(bookmarks.len())
    }

    /// Deletes the rows at `bookmarks` like [`Transaction::delete`], and
    /// with them the rows of every flat table of `columns` (the table's
    /// complex columns) that hold their complex ids.
    pub fn delete_complex(
        &mut self,
        table: &str,
        bookmarks: &[Bookmark],
        columns: &[ComplexColumn],
    ) -> WResult<usize> {
        let def = self.state(table)?.def.clone();
        let mut ids = Vec::new();
        for &bm in bookmarks {
            if let Some(id) = self.complex_id_at(table, &def, bm)? {
                ids.push(id);
            }
        }
        let n = self.delete(table, bookmarks)?;
        for flat in hidden_tables(columns) {
            let fk = columns
                .iter()
                .find(|c| c.flat_table.eq_ignore_ascii_case(&flat))
                .map(|c| c.layout.fk)
                .ok_or_else(|| WriteError::NoSuchTable(flat.clone()))?;
            self.delete_flat_rows(&flat, fk, &ids)?;
        }
        Ok(n)
    }

    /// The complex id stored in the row at `bm` (its first complex column
    /// holding one; `None` when every one is NULL).
    fn complex_id_at(&mut self, table: &str, def: &TableDef, bm: Bookmark) -> WResult<Option<i32>> {
        let fields = self.read_fields(def, bm)?.ok_or(WriteError::NoSuchRow {
            table: table.to_string(),
            page: bm.page,
            row: bm.row,
        })?;
        Ok(def
            .columns
            .iter()
            .zip(&fields)
            .filter(|(c, _)| c.jet_type == JetType::Complex)
            .find_map(|(_, f)| match f {
                OwnedField::Bytes(b) => b
                    .get(..4)
                    .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                    .filter(|id| *id > 0),
                _ => None,
            }))
    }

    /// Gives the row at `bm` (which has no complex id) the table's next
    /// complex id in all its complex columns.
    fn give_complex_id(&mut self, table: &str, def: &TableDef, bm: Bookmark) -> WResult<i32> {
        let st = self.state(table)?;
        let tname = st.name.clone();
        let next = st
            .def
            .complex_autonumber
            .checked_add(1)
            .filter(|n| *n <= i32::MAX as u32)
            .ok_or_else(|| WriteError::ValueOutOfRange {
                table: tname.clone(),
                column: "(complex columns)".into(),
                value: st.def.complex_autonumber.to_string(),
                why: "the table's complex-id counter is exhausted".into(),
            })?;
        st.def.complex_autonumber = next;
        st.counters_dirty = true;
        let old = self.read_fields(def, bm)?.ok_or(WriteError::NoSuchRow {
            table: tname.clone(),
            page: bm.page,
            row: bm.row,
        })?;
        let mut fields = old.clone();
        let mut changed = vec![false; def.columns.len()];
        let mut shown = vec!["(unchanged)".to_string(); def.columns.len()];
        for (i, c) in def.columns.iter().enumerate() {
            if c.jet_type == JetType::Complex {
                fields[i] = OwnedField::Bytes((next as i32).to_le_bytes().to_vec());
                changed[i] = true;
                shown[i] = next.to_string();
            }
        }
        self.update_row_fields(table, &tname, def, bm, old, fields, &changed, &shown)?;
        Ok(next as i32)
    }

    /// Inserts one flat-table row of `column` per value, each holding
    /// `id` as its parent's complex id.
    fn insert_flat_rows(
        &mut self,
        column: &ComplexColumn,
        id: i32,
        values: Vec<NewValue>,
    ) -> WResult<()> {
        let flat = column.flat_table.clone();
        let width = self.state(&flat)?.def.columns.len();
        let parts = &column.layout.parts;
        for v in values {
            let mut cells = vec![Cell::Null; width];
            cells[column.layout.fk] = Cell::Int(id.into());
            match v {
                NewValue::Value(c) => {
                    let p = parts.first().copied().flatten().ok_or_else(|| {
                        refused(column, "its flat table has no value column".into())
                    })?;
                    cells[p] = c;
                }
                NewValue::Attachment(a) => {
                    for (slot, cell) in attachment_cells(column, &a)? {
                        match parts.get(slot).copied().flatten() {
                            Some(p) => cells[p] = cell,
                            None if cell == Cell::Null => {}
                            None => {
                                return Err(refused(
                                    column,
                                    "its flat table lacks an attachment column".into(),
                                ));
                            }
                        }
                    }
                }
            }
            self.insert_cells(&flat, cells)?;
        }
        Ok(())
    }

    /// Deletes the rows of flat table `flat` whose complex id (column
    /// `fk`) is one of `ids`.
    fn delete_flat_rows(&mut self, flat: &str, fk: usize, ids: &[i32]) -> WResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let wanted: HashSet<i32> = ids.iter().copied().collect();
        let def = self.state(flat)?.def.clone();
        let mut rows = Vec::new();
        self.each_live_row(&def, |bm, fields| {
            if let Some(OwnedField::Bytes(b)) = fields.get(fk)
                && let Some(b) = b.get(..4)
                && wanted.contains(&i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            {
                rows.push(bm);
            }
            Ok(())
        })?;
        self.delete(flat, &rows)?;
        Ok(())
    }
}

/// The cells of attachment `a` in the order of an attachment layout's
/// parts: URL, name, type, data (wrapped), time stamp, flags.
fn attachment_cells(column: &ComplexColumn, a: &NewAttachment) -> WResult<Vec<(usize, Cell)>> {
    let ty = a.stored_type();
    let data = encode_file_data(&ty, &a.file_data).map_err(|why| refused(column, why))?;
    let text = |t: &Option<String>| t.clone().map_or(Cell::Null, Cell::Text);
    Ok(vec![
        (0, text(&a.file_url)),
        (1, Cell::Text(a.file_name.clone())),
        (2, Cell::Text(ty)),
        (3, Cell::Bytes(data)),
        (4, a.file_timestamp.map_or(Cell::Null, Cell::Micros)),
        (5, a.file_flags.map_or(Cell::Null, |f| Cell::Int(f.into()))),
    ])
}

/// A refused complex value, naming the table and column.
fn refused(column: &ComplexColumn, why: String) -> WriteError {
    WriteError::ValueOutOfRange {
        table: column.table.clone(),
        column: column.column.clone(),
        value: "(list)".into(),
        why,
    }
}

/// Splits `batch` into the columns of `columns` (by name, ASCII
/// case-insensitively) and the others.
fn split<'c>(table: &str, batch: &RecordBatch, columns: &'c [ComplexColumn]) -> WResult<Split<'c>> {
    let schema = batch.schema();
    let mut keep = Vec::new();
    let mut lists = Vec::new();
    for (i, f) in schema.fields().iter().enumerate() {
        match columns
            .iter()
            .find(|c| c.column.eq_ignore_ascii_case(f.name()))
        {
            Some(c) => {
                if !c.table.eq_ignore_ascii_case(table) {
                    return Err(WriteError::NoSuchColumn {
                        table: table.to_string(),
                        column: c.column.clone(),
                    });
                }
                lists.push((c, batch.column(i).clone()));
            }
            None => keep.push(i),
        }
    }
    let plain = batch
        .project(&keep)
        .map_err(|e| WriteError::BadDefinition {
            table: table.to_string(),
            why: e.to_string(),
        })?;
    Ok(Split { plain, lists })
}

/// Refuses a value for an append-only memo whose history is a complex
/// column of `columns`: Access records each value set in the history,
/// which this writer does not write.
fn refuse_versioned(
    table: &str,
    def: &TableDef,
    plain: &RecordBatch,
    columns: &[ComplexColumn],
) -> WResult<()> {
    for c in columns {
        let ComplexKind::VersionHistory { versioned_column } = &c.kind else {
            continue;
        };
        let given = plain
            .schema()
            .fields()
            .iter()
            .position(|f| f.name().eq_ignore_ascii_case(versioned_column));
        if let Some(i) = given
            && plain.column(i).null_count() < plain.num_rows()
        {
            let name = def
                .columns
                .iter()
                .find(|d| d.name.eq_ignore_ascii_case(versioned_column))
                .map_or(versioned_column.clone(), |d| d.name.clone());
            return Err(WriteError::Unsupported(format!(
                "table {table:?}, column {name:?}: it is an append-only memo whose version history (complex column {:?}) jetsql does not write",
                c.column
            )));
        }
    }
    Ok(())
}

/// The complex id of a new row of `def` (`None` when the table has no
/// complex column): the one given in its complex columns (all the same,
/// at least 1), else the next of the table's counter, which `def` then
/// records. Every complex cell of `cells` is set to the id.
pub(super) fn complex_id_of_row(
    table: &str,
    def: &mut TableDef,
    cells: &mut [Cell],
) -> WResult<Option<i32>> {
    let complex: Vec<usize> = (0..def.columns.len())
        .filter(|&i| def.columns[i].jet_type == JetType::Complex)
        .collect();
    let Some(&first) = complex.first() else {
        return Ok(None);
    };
    let refuse = |i: usize, value: String, why: &str| WriteError::ValueOutOfRange {
        table: table.to_string(),
        column: def.columns[i].name.clone(),
        value,
        why: why.to_string(),
    };
    let mut given: Option<i32> = None;
    for &i in &complex {
        match &cells[i] {
            Cell::Null => {}
            Cell::Int(v) if *v >= 1 && *v <= i128::from(i32::MAX) => {
                let v = *v as i32;
                if given.is_some_and(|g| g != v) {
                    return Err(refuse(
                        i,
                        v.to_string(),
                        "the complex columns of one row share one complex id",
                    ));
                }
                given = Some(v);
            }
            c => {
                return Err(refuse(
                    i,
                    c.to_string(),
                    "a complex id is a whole number from 1 to 2147483647",
                ));
            }
        }
    }
    let id = match given {
        Some(v) => {
            def.complex_autonumber = def.complex_autonumber.max(v as u32);
            v
        }
        None => {
            let next = def
                .complex_autonumber
                .checked_add(1)
                .filter(|n| *n <= i32::MAX as u32)
                .ok_or_else(|| {
                    refuse(
                        first,
                        def.complex_autonumber.to_string(),
                        "the table's complex-id counter is exhausted",
                    )
                })?;
            def.complex_autonumber = next;
            next as i32
        }
    };
    for &i in &complex {
        cells[i] = Cell::Int(id.into());
    }
    Ok(Some(id))
}
