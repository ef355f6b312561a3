//! Inserting rows: a batch, named values or one value per column; the
//! defaults of the columns a row leaves out, auto-numbers and generated
//! GUIDs, required columns, long values written out of the row, and the
//! row placed on a page of the table with room.

use super::{Transaction, column_map, pad_row};
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::format::types::JetType;
use crate::index::Bookmark;
use crate::schema::tdef::TableDef;
use crate::write::row::{self, Cell};
use crate::write::{alloc, data_page, default, lval, tdef as wtdef};
use arrow_array::RecordBatch;

impl Transaction<'_> {
    /// The value column `col`'s default `expr` gives a row inserted now,
    /// encoded-checked against the column; a typed refusal naming the table
    /// and column when the writer cannot evaluate it or the column cannot
    /// hold it.
    pub(super) fn default_cell(
        &self,
        table: &str,
        col: &crate::schema::tdef::Column,
        expr: &str,
    ) -> WResult<Cell> {
        let bad = |why: String| WriteError::BadDefinition {
            table: table.to_string(),
            why: format!("column {:?}: default {expr:?}: {why}", col.name),
        };
        let e = default::parse(expr).ok_or_else(|| {
            bad("not an expression this writer evaluates (number, quoted text, True/False/Yes/No, #date#, Null, Now(), Date())".into())
        })?;
        let cell = e.cell(col, self.now).map_err(bad)?;
        row::encode_value_in(
            self.version,
            table,
            col,
            &cell,
            self.text_layout,
            self.encoding,
        )
        .map_err(|e| bad(e.to_string()))?;
        Ok(cell)
    }

    /// Values for the columns a row leaves out: each column's evaluated
    /// default, or NULL (auto-numbers are assigned later).
    fn omitted_defaults(&self, table: &str, def: &TableDef, given: &[bool]) -> WResult<Vec<Cell>> {
        let mut out = vec![Cell::Null; def.columns.len()];
        for (i, c) in def.columns.iter().enumerate() {
            if given[i] || c.is_auto_number() {
                continue;
            }
            if let Some(expr) = &c.default_value {
                out[i] = self.default_cell(table, c, expr).map_err(|e| match e {
                    WriteError::BadDefinition { why, .. } => WriteError::Unsupported(format!(
                        "a row of table {table:?} without a value for {:?}: {why}; give the column a value",
                        c.name
                    )),
                    e => e,
                })?;
            }
        }
        Ok(out)
    }

    /// Inserts every row of `batch` (columns matched to the table's by name,
    /// case-insensitively; missing columns take their default
    /// (`DefaultValue`) or are NULL, auto-numbers are assigned). Returns the bookmarks of the new rows.
    pub fn insert(&mut self, table: &str, batch: &RecordBatch) -> WResult<Vec<Bookmark>> {
        let def = self.state(table)?.def.clone();
        let tname = self.state(table)?.name.clone();
        let map = column_map(&tname, &def, batch)?;
        let mut given = vec![false; def.columns.len()];
        for (_, ci) in &map {
            given[*ci] = true;
        }
        let defaults = self.omitted_defaults(&tname, &def, &given)?;
        let mut out = Vec::with_capacity(batch.num_rows());
        for r in 0..batch.num_rows() {
            let mut cells = defaults.clone();
            for (bi, ci) in &map {
                let a = batch.column(*bi);
                cells[*ci] = row::cell_from_array(a.as_ref(), r).ok_or_else(|| {
                    WriteError::TypeMismatch {
                        table: tname.clone(),
                        column: def.columns[*ci].name.clone(),
                        arrow: a.data_type().to_string(),
                        jet: def.columns[*ci].jet_type.name(),
                    }
                })?;
            }
            // a refused value names the input row it came from
            out.push(self.insert_cells(table, cells).map_err(|e| match e {
                WriteError::ValueOutOfRange {
                    table,
                    column,
                    value,
                    why,
                } => WriteError::ValueOutOfRange {
                    table,
                    column,
                    value,
                    why: format!("{why} (input row {})", r + 1),
                },
                e => e,
            })?);
        }
        Ok(out)
    }

    /// Inserts one row given as (column name, value) pairs.
    /// Columns not named take their default (see
    /// [`ColumnSpec::default_value`](crate::write::ColumnSpec::default_value)).
    pub fn insert_named(&mut self, table: &str, values: Vec<(&str, Cell)>) -> WResult<Bookmark> {
        let st = self.state(table)?;
        let (def, tname) = (st.def.clone(), st.name.clone());
        let mut given = vec![false; def.columns.len()];
        let mut named = Vec::with_capacity(values.len());
        for (name, v) in values {
            let i = def
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| WriteError::NoSuchColumn {
                    table: tname.clone(),
                    column: name.to_string(),
                })?;
            given[i] = true;
            named.push((i, v));
        }
        let mut cells = self.omitted_defaults(&tname, &def, &given)?;
        for (i, v) in named {
            cells[i] = v;
        }
        self.insert_cells(table, cells)
    }

    /// Inserts one row given as one value per column (in `TableDef::columns`
    /// order).
    pub fn insert_cells(&mut self, table: &str, cells: Vec<Cell>) -> WResult<Bookmark> {
        Ok(self.insert_cells_id(table, cells)?.0)
    }

    /// [`Transaction::insert_cells`], also returning the row's complex id
    /// (ACE tables with complex columns: a NULL complex column takes the
    /// table's next complex id, one id shared by all complex columns of
    /// the row, as Access and Jackcess give it; a given id raises the
    /// counter to at least it).
    pub(crate) fn insert_cells_id(
        &mut self,
        table: &str,
        mut cells: Vec<Cell>,
    ) -> WResult<(Bookmark, Option<i32>)> {
        let version = self.version;
        let l = self.layout();
        let st = self.state(table)?;
        let tname = st.name.clone();
        let mut def = st.def.clone();
        if cells.len() != def.columns.len() {
            return Err(WriteError::BadDefinition {
                table: tname,
                why: format!("{} values for {} columns", cells.len(), def.columns.len()),
            });
        }
        self.check_indexes_def(&tname, &def)?;
        // auto-numbers
        for (i, c) in def.columns.iter().enumerate() {
            if c.flags & crate::schema::tdef::COL_AUTO_LONG != 0 && c.jet_type == JetType::Long {
                match &cells[i] {
                    Cell::Null => {
                        let next = def
                            .autonumber
                            .checked_add(1)
                            .filter(|n| *n <= i32::MAX as u32)
                            .ok_or_else(|| WriteError::ValueOutOfRange {
                                table: tname.clone(),
                                column: c.name.clone(),
                                value: def.autonumber.to_string(),
                                why: "the auto-number counter is exhausted".into(),
                            })?;
                        def.autonumber = next;
                        cells[i] = Cell::Int(next.into());
                    }
                    Cell::Int(v) if *v > 0 && *v <= i128::from(i32::MAX) => {
                        def.autonumber = def.autonumber.max(*v as u32);
                    }
                    _ => {}
                }
            }
            // Access 97 sets the GUID auto-number bit on ordinary columns
            // (see `Column::is_auto_number`): a Jet3 NULL stays NULL
            if c.flags & crate::schema::tdef::COL_AUTO_GUID != 0
                && c.jet_type == JetType::Guid
                && !version.is_jet3()
                && cells[i] == Cell::Null
            {
                let seed = (u64::from(def.page) << 32)
                    ^ u64::from(def.stated_rows)
                    ^ (self.clock as u64).rotate_left(17);
                cells[i] = Cell::Bytes(guid_from(seed, def.stated_rows));
            }
        }
        let complex_id = super::complex::complex_id_of_row(&tname, &mut def, &mut cells)?;
        self.check_required(&tname, &def, &cells)?;
        let mut fields = Vec::with_capacity(cells.len());
        for (c, cell) in def.columns.iter().zip(&cells) {
            fields.push(row::encode_value_in(
                version,
                &tname,
                c,
                cell,
                self.text_layout,
                self.encoding,
            )?);
        }
        self.check_references(&tname, &def, &fields, None)?;
        let fields = self.store_long_values(table, &def, fields)?;
        let row_bytes = pad_row(version, row::assemble(version, &def, &fields));
        let max = data_page::max_row_len(l);
        if row_bytes.len() > max {
            return Err(WriteError::RowTooLarge {
                table: tname,
                len: row_bytes.len(),
                max,
            });
        }
        let bm = self.place_row(table, &row_bytes, 0)?;
        let shown: Vec<String> = cells.iter().map(Cell::to_string).collect();
        self.index_apply(table, &def, &fields, bm, true, &shown)?;
        let st = self.state(table)?;
        st.def.autonumber = def.autonumber;
        st.def.complex_autonumber = def.complex_autonumber;
        st.def.stated_rows = st.def.stated_rows.saturating_add(1);
        st.counters_dirty = true;
        Ok((bm, complex_id))
    }

    /// Refuses NULL where a column is required or is a key column of a
    /// required (primary-key) index.
    pub(super) fn check_required(
        &self,
        table: &str,
        def: &TableDef,
        cells: &[Cell],
    ) -> WResult<()> {
        // the columns' Required property (a Yes/No column is never NULL)
        for (c, cell) in def.columns.iter().zip(cells) {
            if c.required && *cell == Cell::Null && c.jet_type != JetType::Boolean {
                return Err(WriteError::NullRefused {
                    table: table.to_string(),
                    column: c.name.clone(),
                });
            }
        }
        // the key columns of required (primary-key) indexes
        for ri in def
            .real_indexes
            .iter()
            .filter(|r| r.flags & wtdef::INDEX_REQUIRED != 0)
        {
            for (col, _) in &ri.key {
                if let Some(i) = def.columns.iter().position(|c| c.col_num == *col)
                    && cells[i] == Cell::Null
                {
                    return Err(WriteError::NullRefused {
                        table: table.to_string(),
                        column: def.columns[i].name.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Turns long-value fields (raw bytes) into descriptors, writing LVAL
    /// rows; values stay inline only while the row fits a page.
    pub(super) fn store_long_values(
        &mut self,
        table: &str,
        def: &TableDef,
        mut fields: Vec<OwnedField>,
    ) -> WResult<Vec<OwnedField>> {
        let l = self.layout();
        let probe: Vec<OwnedField> = def
            .columns
            .iter()
            .zip(&fields)
            .map(|(c, f)| match f {
                OwnedField::Bytes(b) if c.jet_type.is_long_value() => OwnedField::Bytes(vec![
                    0;
                    jet_kernels::lval::DESCRIPTOR_LEN
                        + if b.len() <= lval::MAX_INLINE {
                            b.len()
                        } else {
                            0
                        }
                ]),
                f => f.clone(),
            })
            .collect();
        let inline_ok = row::assemble(self.version, def, &probe).len() <= data_page::max_row_len(l);
        for (i, c) in def.columns.iter().enumerate() {
            if !c.jet_type.is_long_value() {
                continue;
            }
            if let OwnedField::Bytes(b) = &fields[i] {
                let st = self.state(table)?;
                let mut t = *st
                    .lval
                    .get(&c.col_num)
                    .ok_or_else(|| WriteError::BadDefinition {
                        table: st.name.clone(),
                        why: format!(
                            "long-value column {:?} has no usage maps in its TDEF",
                            c.name
                        ),
                    })?;
                let f = lval::write(&mut self.ov, l, &mut t, b, inline_ok)?;
                self.state(table)?.lval.insert(c.col_num, t);
                fields[i] = OwnedField::Bytes(f);
            }
        }
        Ok(fields)
    }

    /// Places a row on a page of the table with room (the last page written,
    /// else a new one); `flags` are slot flags (0, or deleted for a hidden
    /// overflow target).
    pub(super) fn place_row(&mut self, table: &str, row: &[u8], flags: u16) -> WResult<Bookmark> {
        let l = self.layout();
        let st = self.state(table)?;
        let (tdef_page, owned, free, mut hint) =
            (st.def.page, st.def.usage_map, st.def.free_map, st.hint);
        if hint.is_none() {
            // first insert of this transaction: the last page with room
            // (a page the map lists that is not this table's data page is
            // never written: Access's map rows may be longer than the maps
            // it writes, and bits there are trusted only for owned pages)
            let listed = alloc::members(&self.ov, l, free)?;
            hint = None;
            for p in listed.into_iter().rev() {
                if p < self.ov.page_count() && alloc::owned_data_page(&self.ov, l, p, tdef_page)? {
                    hint = Some(p);
                    break;
                }
            }
            self.state(table)?.hint = hint;
        }
        if let Some(h) = hint {
            // the page is released before it is edited, so the edit can
            // change the transaction's copy in place
            let fits = data_page::fits_new(l, &self.ov.read_page(h)?, row.len());
            if fits
                && let Some(s) = lval::edit_page(&mut self.ov, l, free, h, |p| {
                    data_page::insert(l, p, row, flags)
                })?
            {
                return Ok(Bookmark { page: h, row: s });
            }
        }
        let n = lval::new_page(&mut self.ov, l, tdef_page, owned, free)?;
        self.state(table)?.hint = Some(n);
        let s = lval::edit_page(&mut self.ov, l, free, n, |p| {
            data_page::insert(l, p, row, flags)
        })?
        .ok_or_else(|| WriteError::RowTooLarge {
            table: table.to_string(),
            len: row.len(),
            max: data_page::max_row_len(l),
        })?;
        Ok(Bookmark { page: n, row: s })
    }
}

/// A deterministic version-4 GUID from `seed` and `n` (splitmix64).
fn guid_from(seed: u64, n: u32) -> Vec<u8> {
    let mut x = seed ^ (u64::from(n) << 1) ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut b = Vec::with_capacity(16);
    b.extend_from_slice(&next().to_le_bytes());
    b.extend_from_slice(&next().to_le_bytes());
    b[7] = (b[7] & 0x0F) | 0x40;
    b[8] = (b[8] & 0x3F) | 0x80;
    b
}
