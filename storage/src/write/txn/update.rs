//! Changing and removing rows: updates (a batch of new values, or one
//! row's cells or stored fields), deletes, and the row rewrite that keeps a
//! bookmark valid when a row outgrows its page (in place, in its overflow
//! target, or moved behind an overflow pointer); long values written and
//! freed, index entries moved, referential actions run.

use super::{Entry, Transaction, column_map, pad_row};
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::index::Bookmark;
use crate::schema::tdef::TableDef;
use crate::write::row::{self, Cell};
use crate::write::{data_page, lval};
use arrow_array::RecordBatch;
use jet_kernels::row_slot::pack_row_pointer;

impl Transaction<'_> {
    /// Deletes the rows at `bookmarks` (slot flag; long values and overflow
    /// targets are freed too). Returns how many rows were deleted. The
    /// values of complex columns stay in their hidden tables: delete rows
    /// of a table with complex columns with
    /// [`Transaction::delete_complex`].
    pub fn delete(&mut self, table: &str, bookmarks: &[Bookmark]) -> WResult<usize> {
        self.delete_rows(table, bookmarks)
    }

    /// Deletes the rows at `bookmarks` (see [`Transaction::delete`]),
    /// running the referential actions of the relationships they are in.
    pub(super) fn delete_rows(&mut self, table: &str, bookmarks: &[Bookmark]) -> WResult<usize> {
        let l = self.layout();
        let st = self.state(table)?;
        let def = st.def.clone();
        let tname = st.name.clone();
        self.check_indexes_def(&tname, &def)?;
        let mut n = 0;
        for &bm in bookmarks {
            let fields = self.read_fields(&def, bm)?.ok_or(WriteError::NoSuchRow {
                table: tname.clone(),
                page: bm.page,
                row: bm.row,
            })?;
            let cascades = self.check_referenced(&tname, &def, &fields, None, None)?;
            self.run_cascades(&tname, cascades)?;
            self.index_apply(table, &def, &fields, bm, false, &[])?;
            self.free_long_values(table, &def, &fields, None)?;
            if let Some(t) = self.overflow_target(bm)? {
                lval::edit_page(&mut self.ov, l, def.free_map, t.page, |p| {
                    data_page::delete(l, p, usize::from(t.row))
                })?;
            }
            lval::edit_page(&mut self.ov, l, def.free_map, bm.page, |p| {
                data_page::delete(l, p, usize::from(bm.row))
            })?;
            n += 1;
        }
        let st = self.state(table)?;
        st.def.stated_rows = st.def.stated_rows.saturating_sub(n as u32);
        st.counters_dirty = true;
        Ok(n)
    }

    fn free_long_values(
        &mut self,
        table: &str,
        def: &TableDef,
        fields: &[OwnedField],
        only: Option<&[bool]>,
    ) -> WResult<()> {
        let l = self.layout();
        for (i, c) in def.columns.iter().enumerate() {
            if !c.jet_type.is_long_value() || only.is_some_and(|o| !o[i]) {
                continue;
            }
            if let OwnedField::Bytes(b) = &fields[i]
                && let Some(t) = self.state(table)?.lval.get(&c.col_num).copied()
            {
                lval::free(&mut self.ov, l, &t, b)?;
            }
        }
        Ok(())
    }

    /// Updates the rows at `bookmarks`: row `i` of `changes` gives the new
    /// values of the columns `changes` names (others keep their values).
    /// A row that no longer fits its page moves to another page and its
    /// slot becomes an overflow pointer, so its bookmark stays valid.
    pub fn update(
        &mut self,
        table: &str,
        bookmarks: &[Bookmark],
        changes: &RecordBatch,
    ) -> WResult<usize> {
        let st = self.state(table)?;
        let def = st.def.clone();
        let tname = st.name.clone();
        if changes.num_rows() != bookmarks.len() {
            return Err(WriteError::BadDefinition {
                table: tname,
                why: format!(
                    "{} bookmarks for {} rows of changes",
                    bookmarks.len(),
                    changes.num_rows()
                ),
            });
        }
        self.check_indexes_def(&tname, &def)?;
        let map = column_map(&tname, &def, changes)?;
        for (_, ci) in &map {
            if def.columns[*ci].is_auto_number() {
                return Err(WriteError::ValueOutOfRange {
                    table: tname.clone(),
                    column: def.columns[*ci].name.clone(),
                    value: "(any)".into(),
                    why: "auto-number columns cannot be updated".into(),
                });
            }
        }
        for (r, &bm) in bookmarks.iter().enumerate() {
            let mut cells: Vec<Option<Cell>> = vec![None; def.columns.len()];
            for (bi, ci) in &map {
                let a = changes.column(*bi);
                cells[*ci] = Some(row::cell_from_array(a.as_ref(), r).ok_or_else(|| {
                    WriteError::TypeMismatch {
                        table: tname.clone(),
                        column: def.columns[*ci].name.clone(),
                        arrow: a.data_type().to_string(),
                        jet: def.columns[*ci].jet_type.name(),
                    }
                })?);
            }
            self.update_row(table, &tname, &def, bm, &cells)?;
        }
        Ok(bookmarks.len())
    }

    /// Rewrites the row at `bm` with `cells[i]` as the new value of column
    /// `i` where given (others keep their values): required columns and
    /// ranges checked, long values written and freed, index entries moved
    /// when a key column changed.
    pub(super) fn update_row(
        &mut self,
        table: &str,
        tname: &str,
        def: &TableDef,
        bm: Bookmark,
        cells: &[Option<Cell>],
    ) -> WResult<()> {
        let version = self.version;
        let old = self.read_fields(def, bm)?.ok_or(WriteError::NoSuchRow {
            table: tname.to_string(),
            page: bm.page,
            row: bm.row,
        })?;
        // required columns: a changed column may not become NULL
        let probe: Vec<Cell> = cells
            .iter()
            .zip(&old)
            .map(|(c, o)| match (c, o) {
                (Some(c), _) => c.clone(),
                (None, OwnedField::Null) => Cell::Null,
                _ => Cell::Int(0),
            })
            .collect();
        self.check_required(tname, def, &probe)?;
        let mut fields = old.clone();
        let mut changed = vec![false; def.columns.len()];
        for (i, c) in cells.iter().enumerate() {
            if let Some(cell) = c {
                fields[i] = row::encode_value_in(
                    version,
                    tname,
                    &def.columns[i],
                    cell,
                    self.text_layout,
                    self.encoding,
                )?;
                changed[i] = true;
            }
        }
        let shown: Vec<String> = cells
            .iter()
            .map(|c| {
                c.as_ref()
                    .map_or("(unchanged)".to_string(), Cell::to_string)
            })
            .collect();
        self.update_row_fields(table, tname, def, bm, old, fields, &changed, &shown)
    }

    /// [`Transaction::update_row`] with the new row given as stored
    /// fields: `changed` marks the columns whose field is new, `shown`
    /// names the new values for error messages. Referential actions of the
    /// relationships whose primary key changes run after the row is
    /// written.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn update_row_fields(
        &mut self,
        table: &str,
        tname: &str,
        def: &TableDef,
        bm: Bookmark,
        old: Vec<OwnedField>,
        mut fields: Vec<OwnedField>,
        changed: &[bool],
        shown: &[String],
    ) -> WResult<()> {
        let l = self.layout();
        // enforced relationships, for the key columns whose value changes
        let differs: Vec<bool> = changed
            .iter()
            .zip(fields.iter().zip(&old))
            .map(|(ch, (new, was))| *ch && new != was)
            .collect();
        self.check_references(tname, def, &fields, Some(&differs))?;
        let cascades = self.check_referenced(tname, def, &old, Some(&differs), Some(&fields))?;
        // new long values are written, replaced ones freed
        let mut fresh = fields.clone();
        for (i, ch) in changed.iter().enumerate() {
            if !ch || !def.columns[i].jet_type.is_long_value() {
                fresh[i] = OwnedField::Null;
            }
        }
        let stored = self.store_long_values(table, def, fresh)?;
        for (i, ch) in changed.iter().enumerate() {
            if *ch && def.columns[i].jet_type.is_long_value() {
                fields[i] = stored[i].clone();
            }
        }
        self.free_long_values(table, def, &old, Some(changed))?;
        let bytes = pad_row(self.version, row::assemble(self.version, def, &fields));
        let max = data_page::max_row_len(l);
        if bytes.len() > max {
            return Err(WriteError::RowTooLarge {
                table: tname.to_string(),
                len: bytes.len(),
                max,
            });
        }
        // entries move only in the indexes whose key changed
        for ri in &def.real_indexes {
            let touched = ri.key.iter().any(|(k, _)| {
                def.columns
                    .iter()
                    .zip(changed.iter())
                    .any(|(c, ch)| *ch && c.col_num == *k)
            });
            if !touched {
                continue;
            }
            let was = self.index_key(table, def, ri, &old)?;
            let now = self.index_key(table, def, ri, &fields)?;
            if was != now {
                self.index_entry(table, def, ri, &was, bm, Entry::Delete)?;
                self.index_entry(table, def, ri, &now, bm, Entry::Insert(shown))?;
            }
        }
        self.rewrite_row(table, def, bm, &bytes)?;
        self.run_cascades(tname, cascades)
    }

    /// Writes `bytes` as the row at `bm`: in place, in its current overflow
    /// target, or as a new hidden row its slot points at.
    pub(super) fn rewrite_row(
        &mut self,
        table: &str,
        def: &TableDef,
        bm: Bookmark,
        bytes: &[u8],
    ) -> WResult<()> {
        let l = self.layout();
        let free = def.free_map;
        let target = self.overflow_target(bm)?;
        // 1. in place in the original slot
        if lval::edit_page(&mut self.ov, l, free, bm.page, |p| {
            data_page::replace(l, p, usize::from(bm.row), bytes, 0)
        })? {
            if let Some(t) = target {
                lval::edit_page(&mut self.ov, l, free, t.page, |p| {
                    data_page::delete(l, p, usize::from(t.row))
                })?;
            }
            return Ok(());
        }
        // 2. in place in the current overflow target
        if let Some(t) = target
            && lval::edit_page(&mut self.ov, l, free, t.page, |p| {
                data_page::replace(l, p, usize::from(t.row), bytes, data_page::OVERFLOW_TARGET)
            })?
        {
            return Ok(());
        }
        // 3. a new hidden row elsewhere, the slot pointing at it
        let moved = self.place_row(table, bytes, data_page::OVERFLOW_TARGET)?;
        if moved.page == bm.page {
            // the page had room after all (cannot happen after step 1, but
            // never point a page at itself)
            return Err(WriteError::RowTooLarge {
                table: table.to_string(),
                len: bytes.len(),
                max: data_page::max_row_len(l),
            });
        }
        pack_row_pointer(moved.page, moved.row).ok_or(WriteError::DatabaseFull(moved.page))?;
        let ptr = data_page::overflow_row(moved.page, moved.row);
        let ok = lval::edit_page(&mut self.ov, l, free, bm.page, |p| {
            data_page::replace(l, p, usize::from(bm.row), &ptr, data_page::OVERFLOW)
        })?;
        if !ok {
            return Err(WriteError::RowTooLarge {
                table: table.to_string(),
                len: 4,
                max: 0,
            });
        }
        if let Some(t) = target {
            lval::edit_page(&mut self.ov, l, free, t.page, |p| {
                data_page::delete(l, p, usize::from(t.row))
            })?;
        }
        Ok(())
    }
}
