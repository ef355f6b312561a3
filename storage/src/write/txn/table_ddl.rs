//! Table DDL: CREATE TABLE (the TDEF, usage maps, index roots and the
//! MSysObjects row), DROP TABLE, ADD COLUMN, and the column rules
//! (`Required`, `DefaultValue`) kept in a table's property map; with the
//! usage-map rows a new table or index gets ([`MapPages`]) and the empty
//! root leaf of a new index ([`empty_leaf`]).

use super::{TableState, Transaction};
use crate::error::{WResult, WriteError};
use crate::format::{Layout, OwnedField, page_type};
use crate::index::Bookmark;
use crate::page::image::PageStore;
use crate::schema::catalog::{CatalogEntry, ObjectKind};
use crate::schema::props::{Property, PropertyMaps};
use crate::schema::tdef;
use crate::write::lval::LvalTarget;
use crate::write::overlay::PageOverlay;
use crate::write::row::Cell;
use crate::write::tdef::{self as wtdef, ColumnSpec, TableSpec, TdefExtra};
use crate::write::{alloc, catalog, data_page};
use jet_kernels::row_slot::pack_row_pointer;

impl Transaction<'_> {
    /// Creates a user table: its TDEF, usage maps, an empty root page per
    /// real index, and its MSysObjects row. Returns the TDEF page.
    pub fn create_table(&mut self, spec: &TableSpec) -> WResult<u32> {
        self.flush_indexes()?;
        if self.entry(&spec.name).is_some()
            || self
                .catalog
                .iter()
                .any(|e| e.name.eq_ignore_ascii_case(&spec.name))
        {
            return Err(WriteError::TableExists(spec.name.clone()));
        }
        let blob = self.check_rules(spec)?;
        let page = self.create_table_inner(spec, false)?;
        let mut row = catalog::object_row(
            page as i32,
            catalog::TABLES_ID,
            &spec.name,
            crate::schema::catalog::TYPE_TABLE,
            0,
            self.clock,
        );
        if let Some(b) = &blob {
            row.push(("LvProp", Cell::Bytes(b.clone())));
        }
        self.insert_named("MSysObjects", row)?;
        self.catalog.push(CatalogEntry {
            name: spec.name.clone(),
            id: page as i32,
            parent_id: catalog::TABLES_ID,
            kind: ObjectKind::Table,
            flags: 0,
            props: blob.unwrap_or_default(),
        });
        Ok(page)
    }

    /// Checks the NOT NULL and default rules of `spec`'s columns: every
    /// default must be an expression this writer evaluates, of a value the
    /// column holds. Returns the table's property blob (`LvProp`) holding
    /// `Required` and `DefaultValue` for the columns that have them, or
    /// `None` when no column has either.
    fn check_rules(&self, spec: &TableSpec) -> WResult<Option<Vec<u8>>> {
        let def = wtdef::layout(self.version, spec, 0, false)?;
        let mut maps = PropertyMaps::default();
        for (c, col) in spec.columns.iter().zip(&def.columns) {
            if let Some(expr) = &c.default_value {
                self.default_cell(&spec.name, col, expr)?;
                maps.set(
                    &c.name,
                    Property::memo(crate::schema::props::DEFAULT_VALUE, expr),
                );
            }
            if c.not_null {
                maps.set(
                    &c.name,
                    Property::boolean(crate::schema::props::REQUIRED, true),
                );
            }
        }
        if maps.maps.is_empty() {
            return Ok(None);
        }
        self.refuse_jet3_schema(&format!(
            "NOT NULL or DEFAULT on columns of table {:?} (Access 97 property maps are not written)",
            spec.name
        ))?;
        maps.encode_jet4()
            .map(Some)
            .ok_or_else(|| WriteError::BadDefinition {
                table: spec.name.clone(),
                why: "a column name or default is too long for the property map".into(),
            })
    }

    /// Creates the pages of a table (no catalog row).
    pub(crate) fn create_table_inner(&mut self, spec: &TableSpec, system: bool) -> WResult<u32> {
        let l = self.layout();
        let tdef_page = alloc::append_page(&mut self.ov)?;
        let mut def = wtdef::layout(self.version, spec, tdef_page, system)?;
        wtdef::set_jet3_descriptor_fields(&mut def, self.tdef_format());
        // usage-map rows: owned + free for the table, one per real index,
        // owned + free per long-value column
        let mut maps = MapPages::default();
        def.usage_map = maps.add(&mut self.ov, l, &alloc::empty_reference(l))?;
        def.free_map = maps.add(&mut self.ov, l, &alloc::empty_reference(l))?;
        for i in 0..def.real_indexes.len() {
            let root = alloc::append_page(&mut self.ov)?;
            self.ov.write(root, &empty_leaf(l, tdef_page))?;
            let mut m = alloc::empty_inline(l, root);
            m[5] = 1;
            def.real_indexes[i].usage_map = maps.add(&mut self.ov, l, &m)?;
            def.real_indexes[i].root_page = root;
        }
        let mut extra = TdefExtra::default();
        let lcols: Vec<u16> = def
            .columns
            .iter()
            .filter(|c| c.jet_type.is_long_value())
            .map(|c| c.col_num)
            .collect();
        for c in lcols {
            let owned = maps.add(&mut self.ov, l, &alloc::empty_reference(l))?;
            let free = maps.add(&mut self.ov, l, &alloc::empty_reference(l))?;
            extra.lval_maps.push((c, owned, free));
        }
        let bytes = wtdef::encode(self.tdef_format(), &def, &extra)?;
        wtdef::write_chain(&mut self.ov, tdef_page, &bytes, false)?;
        let lval = extra
            .lval_maps
            .iter()
            .map(|&(c, owned, free)| {
                (
                    c,
                    LvalTarget {
                        owned,
                        free,
                        current: None,
                    },
                )
            })
            .collect();
        self.tables.insert(
            spec.name.to_lowercase(),
            TableState {
                name: spec.name.clone(),
                def,
                extra,
                lval,
                hint: None,
                counters_dirty: false,
            },
        );
        Ok(tdef_page)
    }

    /// Registers a table created by [`Transaction::create_table_inner`] in
    /// the transaction's catalog view.
    pub(crate) fn note_catalog(&mut self, e: CatalogEntry) {
        self.catalog.push(e);
    }

    /// Drops a user table: removes its MSysObjects row. Its pages are no
    /// longer referenced by any table (the file does not shrink).
    pub fn drop_table(&mut self, name: &str) -> WResult<()> {
        self.flush_indexes()?;
        let (real, page) = match self.entry(name) {
            Some(e) if !e.is_system() => (e.name.clone(), e.tdef_page()),
            Some(e) => {
                return Err(WriteError::Unsupported(format!(
                    "dropping system table {:?}",
                    e.name
                )));
            }
            None => return Err(WriteError::NoSuchTable(name.to_string())),
        };
        let bm = self.find_catalog_row(&real, page)?;
        self.delete_rows("MSysObjects", &[bm])?;
        self.catalog
            .retain(|e| !(e.name == real && e.tdef_page() == page));
        self.tables.remove(&real.to_lowercase());
        Ok(())
    }

    /// The MSysObjects row of table `name` whose TDEF is at `page`.
    pub(super) fn find_catalog_row(&mut self, name: &str, page: u32) -> WResult<Bookmark> {
        let l = self.layout();
        let st = self.state("MSysObjects")?;
        let def = st.def.clone();
        let id_col = def.columns.iter().find(|c| c.name == "Id").cloned();
        let name_col = def.columns.iter().find(|c| c.name == "Name").cloned();
        let (Some(id_col), Some(name_col)) = (id_col, name_col) else {
            return Err(WriteError::NoSuchTable("MSysObjects".into()));
        };
        for p in crate::read::usage_map::read_pages(&self.ov, l, def.usage_map)? {
            let dp = crate::read::data_page::DataPage::read(&self.ov, l, p)?;
            if dp.owner() != def.page {
                continue;
            }
            for r in 0..dp.row_count() {
                let bm = Bookmark {
                    page: p,
                    row: r as u8,
                };
                let Some(fields) = self.read_fields(&def, bm)? else {
                    continue;
                };
                let id = &fields[def
                    .columns
                    .iter()
                    .position(|c| c.col_num == id_col.col_num)
                    .unwrap_or(0)];
                let nm = &fields[def
                    .columns
                    .iter()
                    .position(|c| c.col_num == name_col.col_num)
                    .unwrap_or(0)];
                let id_ok = matches!(id, OwnedField::Bytes(b) if b.len() == 4 && u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & 0x00FF_FFFF == page);
                let mut s = String::new();
                if let OwnedField::Bytes(b) = nm {
                    if self.version.is_jet3() {
                        crate::format::text::decode_codepage(b, self.encoding, &mut s);
                    } else {
                        crate::format::text::decode_ucs2(b, &mut s);
                    }
                }
                if id_ok && s == name {
                    return Ok(bm);
                }
            }
        }
        Err(WriteError::NoSuchTable(name.to_string()))
    }

    /// Adds a column to a table; existing rows read it as NULL (a Yes/No
    /// column as No). A NOT NULL column added to a table that has rows needs
    /// a default, which is written into every existing row; without one it
    /// is refused. `Required` and `DefaultValue` go into the table's
    /// property map in MSysObjects.
    pub fn add_column(&mut self, table: &str, col: &ColumnSpec) -> WResult<()> {
        if col.not_null || col.default_value.is_some() {
            self.refuse_jet3_schema(&format!(
                "ADD COLUMN {:?} to table {table:?} with NOT NULL or DEFAULT (Access 97 \
                 property maps are not written)",
                col.name
            ))?;
        }
        self.flush_indexes()?;
        let version = self.version;
        let l = self.layout();
        let st = self.state(table)?;
        let tname = st.name.clone();
        if st
            .def
            .columns
            .iter()
            .any(|c| c.name.eq_ignore_ascii_case(&col.name))
        {
            return Err(WriteError::BadDefinition {
                table: tname,
                why: format!("column {:?} exists", col.name),
            });
        }
        if st.def.columns.len() >= 255 {
            return Err(WriteError::BadDefinition {
                table: tname,
                why: "255 columns already".into(),
            });
        }
        let (length, flags, ext_flags) = wtdef::column_shape(version, &tname, col)?;
        let mut def = st.def.clone();
        let extra0 = st.extra.clone();
        // numbers of dropped columns are never reused: rows written before
        // a drop still hold their bytes (`max_cols` counts them)
        let col_num = def
            .columns
            .iter()
            .map(|c| c.col_num + 1)
            .max()
            .unwrap_or(0)
            .max(def.max_cols);
        let fixed = flags & crate::schema::tdef::COL_FIXED != 0;
        let fixed_offset = if fixed {
            def.columns
                .iter()
                .filter(|c| c.is_fixed())
                .map(|c| c.fixed_offset + c.jet_type.fixed_size().unwrap_or(0) as u16)
                .max()
                .unwrap_or(0)
        } else {
            0
        };
        let var_index = if fixed {
            0
        } else {
            def.columns
                .iter()
                .filter(|c| !c.is_fixed())
                .map(|c| c.var_index + 1)
                .max()
                .unwrap_or(0)
        };
        def.columns.push(crate::schema::tdef::Column {
            name: col.name.clone(),
            jet_type: col.jet_type,
            col_num,
            var_index,
            fixed_offset,
            length,
            flags,
            ext_flags,
            precision: 0,
            scale: 0,
            sort_order: 0,
            code_page: 0,
            sort_order_version: 0,
            required: false,
            default_value: None,
            complex_id: None,
        });
        if let Some(c) = def.columns.last_mut() {
            wtdef::set_sort_or_precision(c, col.precision, col.scale);
            c.required = col.not_null;
            c.default_value = col.default_value.clone();
        }
        let fill = match (&col.default_value, def.columns.last()) {
            (Some(expr), Some(c)) => Some(self.default_cell(&tname, c, expr)?),
            _ => None,
        };
        let existing = if col.not_null {
            self.bookmarks(&tname)?
        } else {
            Vec::new()
        };
        if !existing.is_empty() && fill.is_none() {
            return Err(WriteError::BadDefinition {
                table: tname,
                why: format!(
                    "NOT NULL column {:?} added to a table with {} rows needs a default for them",
                    col.name,
                    existing.len()
                ),
            });
        }
        def.max_cols = def.max_cols.max(col_num + 1);
        if !fixed {
            def.num_var_cols += 1;
        }
        wtdef::set_jet3_descriptor_fields(&mut def, self.tdef_format());
        let mut extra = extra0;
        let page = def.page;
        let old_def = self.state(table)?.def.clone();
        // Access 97 definitions are changed in place (their bytes kept):
        // a dry run refuses one that cannot be before any page is written
        let chain = if version.is_jet3() {
            let chain = tdef::read_chain(&self.ov, page)?;
            let lval = col.jet_type.is_long_value().then_some((0, 0));
            wtdef::columns::with_added_column(
                self.tdef_format(),
                &tname,
                &old_def,
                &chain,
                &def,
                lval,
            )?;
            Some(chain)
        } else {
            None
        };
        let mut lval = None;
        if col.jet_type.is_long_value() {
            let mut maps = MapPages::default();
            let owned = maps.add(&mut self.ov, l, &alloc::empty_reference(l))?;
            let free = maps.add(&mut self.ov, l, &alloc::empty_reference(l))?;
            extra.lval_maps.push((col_num, owned, free));
            lval = Some((owned, free));
        }
        let bytes = match &chain {
            Some(chain) => wtdef::columns::with_added_column(
                self.tdef_format(),
                &tname,
                &old_def,
                chain,
                &def,
                lval,
            )?,
            None => wtdef::encode(self.tdef_format(), &def, &extra)?,
        };
        wtdef::write_chain(&mut self.ov, page, &bytes, true)?;
        let st = self.state(table)?;
        for &(c, owned, free) in &extra.lval_maps {
            st.lval.entry(c).or_insert(LvalTarget {
                owned,
                free,
                current: None,
            });
        }
        st.def = def.clone();
        st.extra = extra;
        if let Some(cell) = fill.filter(|_| col.not_null) {
            let mut cells = vec![None; def.columns.len()];
            cells[def.columns.len() - 1] = Some(cell);
            for bm in existing {
                self.update_row(&tname, &tname, &def, bm, &cells)?;
            }
        }
        if col.not_null || col.default_value.is_some() {
            self.set_column_rules(&tname, page, col)?;
        }
        Ok(())
    }

    /// Writes `col`'s `Required` and `DefaultValue` into the property map
    /// (`LvProp`) of table `tname`'s MSysObjects row.
    fn set_column_rules(&mut self, tname: &str, page: u32, col: &ColumnSpec) -> WResult<()> {
        let Some(entry) = self
            .catalog
            .iter_mut()
            .find(|e| e.name == tname && e.tdef_page() == page)
        else {
            return Err(WriteError::NoSuchTable(tname.to_string()));
        };
        let mut maps = PropertyMaps::parse(&entry.props, true, encoding_rs::WINDOWS_1252);
        if let Some(expr) = &col.default_value {
            maps.set(
                &col.name,
                Property::memo(crate::schema::props::DEFAULT_VALUE, expr),
            );
        }
        if col.not_null {
            maps.set(
                &col.name,
                Property::boolean(crate::schema::props::REQUIRED, true),
            );
        }
        let blob = maps
            .encode_jet4()
            .ok_or_else(|| WriteError::BadDefinition {
                table: tname.to_string(),
                why: "a column name or default is too long for the property map".into(),
            })?;
        entry.props = blob.clone();
        let bm = self.find_catalog_row(tname, page)?;
        let cat = self.state("MSysObjects")?.def.clone();
        let mut cells = vec![None; cat.columns.len()];
        let i = cat
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case("LvProp"))
            .ok_or_else(|| WriteError::NoSuchColumn {
                table: "MSysObjects".into(),
                column: "LvProp".into(),
            })?;
        cells[i] = Some(Cell::Bytes(blob));
        self.update_row("MSysObjects", "MSysObjects", &cat, bm, &cells)
    }
}

/// An empty index leaf page (the root of a new real index).
pub fn empty_leaf(l: &Layout, tdef_page: u32) -> Vec<u8> {
    let mut p = vec![0u8; l.page_size];
    p[0] = page_type::INDEX_LEAF;
    p[1] = 0x01;
    let free = (l.page_size - l.index_entry_mask - l.index_entry_mask_len) as u16;
    p[2..4].copy_from_slice(&free.to_le_bytes());
    p[4..8].copy_from_slice(&tdef_page.to_le_bytes());
    p
}

/// Usage-map rows being added for one table: the data page holding them.
#[derive(Default)]
pub(crate) struct MapPages {
    current: Option<u32>,
}

impl MapPages {
    /// Adds usage-map row `row`, returning its row pointer.
    pub(super) fn add(&mut self, ov: &mut PageOverlay, l: &Layout, row: &[u8]) -> WResult<u32> {
        if let Some(c) = self.current {
            let mut p = ov.read_vec(c)?;
            if let Some(s) = data_page::insert(l, &mut p, row, 0) {
                ov.write(c, &p)?;
                return pack_row_pointer(c, s).ok_or(WriteError::DatabaseFull(c));
            }
        }
        let n = alloc::append_page(ov)?;
        let mut p = data_page::new_page(l, 0);
        let s = data_page::insert(l, &mut p, row, 0).ok_or(WriteError::DatabaseFull(n))?;
        ov.write(n, &p)?;
        self.current = Some(n);
        pack_row_pointer(n, s).ok_or(WriteError::DatabaseFull(n))
    }
}
