//! `ALTER TABLE … DROP COLUMN` and renaming a column.
//!
//! Both change the table's definition in place
//! ([`crate::write::tdef::columns`]): every other column keeps its number,
//! fixed offset and variable-table index, so no row is rewritten and every
//! bookmark and index entry stays valid. This is how Access drops a column
//! (mdbtools `HACKING.md`: a column number "includes deleted columns",
//! `max_cols` is the "max columns a row will have (deletions)"; Jackcess
//! `TableImpl._maxColumnCount`: "includes previous deletions"): the
//! dropped column's bytes stay in the rows, unreachable, until the file is
//! compacted. A column added later takes a number no earlier row has
//! (at least `max_cols`), so it never reads a dropped column's bytes.
//!
//! The table's property map (`LvProp` of its `MSysObjects` row: the
//! column's `Required`, `DefaultValue`, captions, …) loses the dropped
//! column's map, or renames the renamed column's map; the row's
//! `DateUpdate` is set to the writer's catalog clock.

use super::Transaction;
use super::rename::names_word;
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::format::types::JetType;
use crate::schema::props::PropertyMaps;
use crate::schema::tdef::TableDef;
use crate::write::row::Cell;
use crate::write::tdef as wtdef;

/// A column located for a schema change.
pub(super) struct Located {
    /// The table's name as stored.
    pub(super) table: String,
    /// The table's definition.
    pub(super) def: TableDef,
    /// Position of the column in `def.columns`.
    pub(super) pos: usize,
}

impl Transaction<'_> {
    /// Drops column `column` of user table `table` (`ALTER TABLE table DROP
    /// COLUMN column`). Only the definition changes (see the module
    /// documentation): the other columns and every row, index and bookmark
    /// read as before; the column's property map is removed. Refused before
    /// anything is written: [`WriteError::NoSuchTable`],
    /// [`WriteError::NoSuchColumn`], [`WriteError::Unsupported`] for a
    /// system table or a complex (attachment, multi-value) column, and
    /// [`WriteError::BadDefinition`] naming the obstacle for the table's
    /// only column, a column that is a key column of an index (drop the
    /// index first, as Access requires), a column a relationship
    /// (`MSysRelationships`) names, or a column a saved query names
    /// together with its table.
    pub fn drop_column(&mut self, table: &str, column: &str) -> WResult<()> {
        self.refuse_jet3_schema(&format!("DROP COLUMN {column:?} of table {table:?}"))?;
        let Located { table, def, pos } = self.locate_column(table, column, "dropping")?;
        let col = def.columns[pos].clone();
        let refuse = |why: String| WriteError::BadDefinition {
            table: table.clone(),
            why: format!("dropping column {:?}: {why}", col.name),
        };
        if def.columns.len() == 1 {
            return Err(refuse("it is the table's only column".into()));
        }
        if col.jet_type == JetType::Complex {
            return Err(WriteError::Unsupported(format!(
                "dropping complex column {:?} of table {table:?}",
                col.name
            )));
        }
        for (n, ri) in def.real_indexes.iter().enumerate() {
            if ri.key.iter().any(|(k, _)| *k == col.col_num) {
                let names: Vec<&str> = def
                    .indexes
                    .iter()
                    .filter(|li| li.real_index as usize == n)
                    .map(|li| li.name.as_str())
                    .collect();
                return Err(refuse(format!(
                    "it is a key column of index {}; drop the index first",
                    names.join(", ")
                )));
            }
        }
        self.refuse_named_column(&table, &col.name, "dropping")?;
        let mut new = def.clone();
        new.columns.remove(pos);
        let chain = crate::schema::tdef::read_chain(&self.ov, def.page)?;
        let bytes = wtdef::columns::with_dropped_column(
            self.tdef_format(),
            &table,
            &def,
            &chain,
            &new,
            col.col_num,
        )?;
        // every check is done: from here on pages are written
        wtdef::write_chain(&mut self.ov, def.page, &bytes, true)?;
        let st = self.state(&table)?;
        st.def = new;
        st.extra.lval_maps.retain(|m| m.0 != col.col_num);
        st.lval.remove(&col.col_num);
        let page = def.page;
        self.change_table_props(&table, page, |maps| {
            let before = maps.maps.len();
            maps.maps
                .retain(|(m, _)| !m.eq_ignore_ascii_case(&col.name));
            maps.maps.len() != before
        })
    }

    /// Renames column `old` of user table `table` to `new`. The
    /// definition's name bytes change (nothing else in it); index
    /// definitions refer to columns by number and stay as they are; the
    /// column's property map is renamed, and `MSysRelationships` rows that
    /// name the column (`szColumn` of a row whose `szObject` is the table,
    /// `szReferencedColumn` of a row whose `szReferencedObject` is) name
    /// the new one. A case-only rename is allowed. Refused before anything
    /// is written: [`WriteError::NoSuchTable`], [`WriteError::NoSuchColumn`],
    /// [`WriteError::Unsupported`] for a system table,
    /// [`WriteError::BadDefinition`] for an invalid name, a name another
    /// column of the table has (case-insensitively), or a column a saved
    /// query names together with its table (this writer does not rewrite
    /// query text).
    pub fn rename_column(&mut self, table: &str, old: &str, new: &str) -> WResult<()> {
        self.refuse_jet3_schema(&format!("renaming column {old:?} of table {table:?}"))?;
        let Located { table, def, pos } = self.locate_column(table, old, "renaming")?;
        let col = def.columns[pos].clone();
        wtdef::check_name(&table, "column", new)?;
        let lower = new.to_lowercase();
        if let Some(other) = def
            .columns
            .iter()
            .find(|c| c.col_num != col.col_num && c.name.to_lowercase() == lower)
        {
            return Err(WriteError::BadDefinition {
                table: table.clone(),
                why: format!(
                    "renaming column {:?}: column {:?} exists",
                    col.name, other.name
                ),
            });
        }
        if let Some(q) = self.query_naming(&table, &col.name)? {
            return Err(WriteError::BadDefinition {
                table: table.clone(),
                why: format!(
                    "renaming column {:?}: saved query {q:?} names it (this writer does not rewrite query text)",
                    col.name
                ),
            });
        }
        let mut next = def.clone();
        next.columns[pos].name = new.to_string();
        let chain = crate::schema::tdef::read_chain(&self.ov, def.page)?;
        let bytes = wtdef::columns::with_renamed_column(
            self.tdef_format(),
            &table,
            &def,
            &chain,
            &next,
            col.col_num,
            new,
        )?;
        // every check is done: from here on pages are written
        wtdef::write_chain(&mut self.ov, def.page, &bytes, true)?;
        self.state(&table)?.def = next;
        self.rename_in_relationships(&table, &col.name, new)?;
        self.change_table_props(&table, def.page, |maps| {
            let mut hit = false;
            for (m, _) in &mut maps.maps {
                if m.eq_ignore_ascii_case(&col.name) {
                    *m = new.to_string();
                    hit = true;
                }
            }
            hit
        })
    }

    /// The user table `table` and its column `column` (by name,
    /// case-insensitively), with the index maintainer's pages flushed.
    pub(super) fn locate_column(
        &mut self,
        table: &str,
        column: &str,
        doing: &str,
    ) -> WResult<Located> {
        self.flush_indexes()?;
        match self.entry(table) {
            Some(e) if e.is_system() => {
                return Err(WriteError::Unsupported(format!(
                    "{doing} a column of system table {:?}",
                    e.name
                )));
            }
            Some(_) => {}
            None => return Err(WriteError::NoSuchTable(table.to_string())),
        }
        let st = self.state(table)?;
        let (name, def) = (st.name.clone(), st.def.clone());
        let lower = column.to_lowercase();
        let pos = def
            .columns
            .iter()
            .position(|c| c.name == column)
            .or_else(|| {
                def.columns
                    .iter()
                    .position(|c| c.name.to_lowercase() == lower)
            })
            .ok_or_else(|| WriteError::NoSuchColumn {
                table: name.clone(),
                column: column.to_string(),
            })?;
        Ok(Located {
            table: name,
            def,
            pos,
        })
    }

    /// Refuses (naming it) a change to column `column` of `table` that a
    /// relationship or a saved query names.
    pub(super) fn refuse_named_column(
        &mut self,
        table: &str,
        column: &str,
        doing: &str,
    ) -> WResult<()> {
        let refuse = |why: String| WriteError::BadDefinition {
            table: table.to_string(),
            why: format!("{doing} column {column:?}: {why}"),
        };
        if let Some(rel) = self.relationship_naming(table, column)? {
            return Err(refuse(format!(
                "relationship {rel:?} names it; delete the relationship first"
            )));
        }
        if let Some(q) = self.query_naming(table, column)? {
            return Err(refuse(format!("saved query {q:?} names it")));
        }
        Ok(())
    }

    /// The relationship whose `MSysRelationships` row names column
    /// `column` of table `table` (either side).
    pub(super) fn relationship_naming(
        &mut self,
        table: &str,
        column: &str,
    ) -> WResult<Option<String>> {
        for (def, row) in self.text_rows("MSysRelationships")? {
            let col = |n: &str| {
                def.columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(n))
                    .and_then(|i| row[i].clone())
            };
            let is = |a: Option<String>, b: &str| a.is_some_and(|a| a.eq_ignore_ascii_case(b));
            if (is(col("szObject"), table) && is(col("szColumn"), column))
                || (is(col("szReferencedObject"), table) && is(col("szReferencedColumn"), column))
            {
                return Ok(Some(col("szRelationship").unwrap_or_default()));
            }
        }
        Ok(None)
    }

    /// The saved query (by name, or object id) whose `MSysQueries` rows
    /// name both `table` and `column` as words.
    fn query_naming(&mut self, table: &str, column: &str) -> WResult<Option<String>> {
        let rows = self.text_rows("MSysQueries")?;
        let Some((def, _)) = rows.first() else {
            return Ok(None);
        };
        let def = def.clone();
        let Some(id_col) = def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case("ObjectId"))
        else {
            return Ok(None);
        };
        let mut ids = Vec::new();
        self.each_live_row(&def, |_, fields| {
            ids.push(match &fields[id_col] {
                OwnedField::Bytes(b) if b.len() == 4 => {
                    Some(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                }
                _ => None,
            });
            Ok(())
        })?;
        let mut by_query: std::collections::BTreeMap<Option<i32>, (bool, bool)> =
            Default::default();
        for (k, (_, row)) in rows.iter().enumerate() {
            let e = by_query.entry(ids.get(k).copied().flatten()).or_default();
            for t in row.iter().flatten() {
                e.0 |= names_word(t, table);
                e.1 |= names_word(t, column);
            }
        }
        Ok(by_query
            .into_iter()
            .find(|(_, (t, c))| *t && *c)
            .map(|(id, _)| {
                id.and_then(|id| self.catalog.iter().find(|e| e.id == id))
                    .map_or_else(|| format!("with object id {id:?}"), |e| e.name.clone())
            }))
    }

    /// Sets `szColumn` / `szReferencedColumn` of the `MSysRelationships`
    /// rows naming column `old` of `table` to `new`.
    fn rename_in_relationships(&mut self, table: &str, old: &str, new: &str) -> WResult<()> {
        const REL: &str = "MSysRelationships";
        let rows = self.text_rows(REL)?;
        if rows.is_empty() {
            return Ok(());
        }
        let def = self.state(REL)?.def.clone();
        let mut bms = Vec::new();
        self.each_live_row(&def, |bm, _| {
            bms.push(bm);
            Ok(())
        })?;
        let at = |n: &str| {
            def.columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))
        };
        let real = self.state(REL)?.name.clone();
        for (bm, (_, row)) in bms.into_iter().zip(rows) {
            let is = |i: Option<usize>, b: &str| {
                i.and_then(|i| row[i].as_ref())
                    .is_some_and(|a| a.eq_ignore_ascii_case(b))
            };
            let mut cells = vec![None; def.columns.len()];
            let mut hit = false;
            for (obj, col) in [
                ("szObject", "szColumn"),
                ("szReferencedObject", "szReferencedColumn"),
            ] {
                if is(at(obj), table)
                    && is(at(col), old)
                    && let Some(i) = at(col)
                {
                    cells[i] = Some(Cell::Text(new.to_string()));
                    hit = true;
                }
            }
            if hit {
                self.update_row(REL, &real, &def, bm, &cells)?;
            }
        }
        Ok(())
    }

    /// Applies `change` to the property maps of table `tname` (TDEF at
    /// `page`); when it reports a change, writes them back as the
    /// `LvProp` of its `MSysObjects` row. The row's `DateUpdate` becomes
    /// the writer's catalog clock (whole milliseconds) either way.
    pub(super) fn change_table_props(
        &mut self,
        tname: &str,
        page: u32,
        change: impl FnOnce(&mut PropertyMaps) -> bool,
    ) -> WResult<()> {
        let entry = self
            .catalog
            .iter()
            .find(|e| e.name == tname && e.tdef_page() == page)
            .ok_or_else(|| WriteError::NoSuchTable(tname.to_string()))?;
        let mut maps = PropertyMaps::parse(&entry.props, true, encoding_rs::WINDOWS_1252);
        let blob = if change(&mut maps) {
            Some(
                maps.encode_jet4()
                    .ok_or_else(|| WriteError::BadDefinition {
                        table: tname.to_string(),
                        why: "a name or value is too long for the property map".into(),
                    })?,
            )
        } else {
            None
        };
        let bm = self.find_catalog_row(tname, page)?;
        let cat = self.state("MSysObjects")?.def.clone();
        let mut cells = vec![None; cat.columns.len()];
        for (i, c) in cat.columns.iter().enumerate() {
            if c.name.eq_ignore_ascii_case("DateUpdate") {
                cells[i] = Some(Cell::Micros(self.clock - self.clock.rem_euclid(1000)));
            } else if let Some(b) = blob
                .as_ref()
                .filter(|_| c.name.eq_ignore_ascii_case("LvProp"))
            {
                cells[i] = Some(Cell::Bytes(b.clone()));
            }
        }
        self.update_row("MSysObjects", "MSysObjects", &cat, bm, &cells)?;
        if let Some(b) = blob
            && let Some(e) = self
                .catalog
                .iter_mut()
                .find(|e| e.name == tname && e.tdef_page() == page)
        {
            e.props = b;
        }
        Ok(())
    }
}
