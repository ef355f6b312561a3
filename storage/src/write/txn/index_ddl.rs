//! `CREATE [UNIQUE] INDEX` and `DROP INDEX` on a table that may hold rows.
//!
//! Creating an index reads every live row of the table, encodes its key
//! with the same encoder the row-by-row maintainer uses
//! ([`crate::index::key::encode_key`]), sorts the entries in index order
//! (key bytes, then bookmark) and builds the B-tree bottom-up
//! ([`crate::index::write::build_index`]: full leaves, then node levels).
//! Every refusal — a bad or taken name, a second primary key, a key column
//! that cannot be a key, a duplicate key in a unique index, a NULL in a
//! primary key, a key the encoder cannot build — happens before the first
//! page is written, so a refused index leaves the transaction's pages as
//! they were. The new descriptors are the ones the writer writes at
//! `CREATE TABLE` ([`crate::write::tdef::index_def::add_index`]), spliced into the
//! existing definition so that every other byte stays as Access wrote it
//! ([`crate::write::tdef::splice`]).
//!
//! Dropping an index removes its logical descriptor and, when no other
//! logical index shares its real index, the real index too: its pages are
//! taken out of its usage map and the map's row is deleted. The pages stay
//! in the file unreferenced (the writer never reuses pages; compacting
//! drops them).

use super::{MapPages, Transaction};
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::index::Bookmark;
use crate::index::key::encode_key;
use crate::index::write::build_index;
use crate::schema::tdef::{IndexKind, RealIndex, TableDef};
use crate::write::alloc;
use crate::write::tdef::{
    self as wtdef, INDEX_IGNORE_NULLS, INDEX_REQUIRED, INDEX_UNIQUE, IndexSpec,
};
use jet_kernels::index_entry::compare_entries;
use std::cmp::Ordering;

/// What creating an index did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexBuilt {
    /// Entries written (live rows, less those an "ignore nulls" index
    /// leaves out); 0 when the index shares an existing real index.
    pub entries: usize,
    /// Index pages written (leaves and nodes); 0 when the index shares an
    /// existing real index.
    pub pages: usize,
    /// Whether a new real index (B-tree) was built; `false` when the new
    /// logical index shares the real index of an existing one with the
    /// same key columns and flags, as Access does.
    pub new_tree: bool,
}

impl Transaction<'_> {
    /// Creates index `spec` on table `table`, which may hold rows
    /// (`CREATE [UNIQUE] INDEX name ON table (cols [DESC])`; a primary key
    /// with [`IndexSpec::primary`]). The B-tree is built bottom-up from
    /// the live rows and holds exactly the entries row-by-row maintenance
    /// would hold, in the same order. Refused before anything is written,
    /// with [`WriteError::BadDefinition`] naming the table and index: an
    /// invalid or taken name, a second primary key, more than 32 indexes,
    /// a missing, repeated or Memo/OLE key column; with
    /// [`WriteError::Index`] naming the index and the key's values: two
    /// rows with the same key in a unique index (rows whose key columns
    /// are all NULL excepted, as Access allows), a NULL key column in a
    /// primary key; with [`WriteError::IndexKey`] a key the encoder cannot
    /// build (for example a text sort order it does not know).
    pub fn create_index(&mut self, table: &str, spec: &IndexSpec) -> WResult<IndexBuilt> {
        self.flush_indexes()?;
        let st = self.state(table)?;
        let tname = st.name.clone();
        let mut def = st.def.clone();
        self.check_indexes_def(&tname, &def)?;
        let old_def = def.clone();
        let (real, fresh) = wtdef::index_def::add_index(&mut def, &tname, spec)?;
        // the definition is changed in place (Access's bytes kept); a
        // dry run refuses a definition that cannot be changed before any
        // page is written
        let chain = crate::schema::tdef::read_chain(&self.ov, def.page)?;
        wtdef::splice::with_added_index(self.tdef_format(), &tname, &old_def, &chain, &def, fresh)?;
        let mut built = IndexBuilt {
            entries: 0,
            pages: 0,
            new_tree: fresh,
        };
        if fresh {
            let ri = def.real_indexes[real].clone();
            let entries = self.sorted_entries(&tname, &def, &ri, &spec.name)?;
            // every check is done: from here on pages are written
            let l = self.layout();
            let (root, pages) = build_index(&mut self.ov, l, def.page, &entries).map_err(|e| {
                WriteError::Index {
                    table: tname.clone(),
                    why: format!("index {:?}: building: {e}", spec.name),
                }
            })?;
            let mut maps = MapPages::default();
            let map = maps.add(&mut self.ov, l, &alloc::empty_inline(l, 0))?;
            for &p in &pages.allocated {
                alloc::set_member(&mut self.ov, l, map, p, true)?;
            }
            def.real_indexes[real].root_page = root;
            def.real_indexes[real].usage_map = map;
            built.entries = entries.len();
            built.pages = pages.allocated.len();
        }
        let bytes = wtdef::splice::with_added_index(
            self.tdef_format(),
            &tname,
            &old_def,
            &chain,
            &def,
            fresh,
        )?;
        wtdef::write_chain(&mut self.ov, def.page, &bytes, true)?;
        self.state(table)?.def = def;
        Ok(built)
    }

    /// The entries of real index `ri` for every live row of the table, in
    /// index order; refuses duplicate keys of a unique index and NULL key
    /// columns of a required (primary-key) index, naming `index`.
    fn sorted_entries(
        &mut self,
        tname: &str,
        def: &TableDef,
        ri: &RealIndex,
        index: &str,
    ) -> WResult<Vec<(Vec<u8>, Bookmark)>> {
        let codec = self.text_codec();
        let nulls = vec![OwnedField::Null; def.columns.len()];
        let null_key = self.index_key(tname, def, ri, &nulls)?;
        let positions: Vec<usize> = ri
            .key
            .iter()
            .filter_map(|(n, _)| def.columns.iter().position(|c| c.col_num == *n))
            .collect();
        let mut entries = Vec::new();
        let version = self.version;
        self.each_live_row(def, |bm, fields| {
            if ri.flags & INDEX_REQUIRED != 0
                && let Some(&p) = positions
                    .iter()
                    .find(|&&p| matches!(fields[p], OwnedField::Null))
            {
                return Err(WriteError::Index {
                    table: tname.to_string(),
                    why: format!(
                        "primary key {index:?}: column {:?} is NULL in a row (page {}, row {}); nothing was written",
                        def.columns[p].name, bm.page, bm.row
                    ),
                });
            }
            let key = encode_key(&def.columns, &ri.key, &fields, version).map_err(|source| {
                WriteError::IndexKey {
                    table: tname.to_string(),
                    source,
                }
            })?;
            if ri.flags & INDEX_IGNORE_NULLS == 0 || key != null_key {
                entries.push((key, bm));
            }
            Ok(())
        })?;
        entries.sort_by(|a, b| compare_entries(&a.0, a.1.page, a.1.row, &b.0, b.1.page, b.1.row));
        if ri.flags & INDEX_UNIQUE != 0
            && let Some(w) = entries
                .windows(2)
                .find(|w| w[0].0 == w[1].0 && w[0].0 != null_key)
        {
            let bm = w[1].1;
            let fields = self.read_fields(def, bm)?.unwrap_or_default();
            let values: Vec<String> = positions
                .iter()
                .filter_map(|&p| {
                    let f = fields.get(p)?;
                    Some(format!(
                        "{} = {}",
                        def.columns[p].name,
                        super::cascade::show(def, p, f, codec)
                    ))
                })
                .collect();
            return Err(WriteError::Index {
                table: tname.to_string(),
                why: format!(
                    "unique index {index:?}: two rows hold the key ({}); nothing was written",
                    values.join(", ")
                ),
            });
        }
        debug_assert!(entries.windows(2).all(|w| compare_entries(
            &w[0].0,
            w[0].1.page,
            w[0].1.row,
            &w[1].0,
            w[1].1.page,
            w[1].1.row
        ) == Ordering::Less));
        Ok(entries)
    }

    /// Drops index `name` of table `table` (`DROP INDEX name ON table`).
    /// The logical index is removed; its real index too when no other
    /// logical index shares it (its pages leave its usage map, whose row
    /// is deleted; the pages stay in the file unreferenced). The numbers of
    /// the other indexes do not change (relationships name them). Refused
    /// with [`WriteError::NoSuchIndex`] when the table has no such index,
    /// and with [`WriteError::BadDefinition`] when the index belongs to a
    /// relationship (this table's foreign-key index, or an index another
    /// table's relationship references).
    pub fn drop_index(&mut self, table: &str, name: &str) -> WResult<()> {
        self.flush_indexes()?;
        let st = self.state(table)?;
        let tname = st.name.clone();
        let def = st.def.clone();
        let pos = def
            .indexes
            .iter()
            .position(|li| li.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| WriteError::NoSuchIndex {
                table: tname.clone(),
                index: name.to_string(),
            })?;
        let li = def.indexes[pos].clone();
        if li.kind == IndexKind::ForeignKey {
            return Err(WriteError::BadDefinition {
                table: tname,
                why: format!(
                    "index {:?} belongs to a relationship; delete the relationship first",
                    li.name
                ),
            });
        }
        if let Some(other) = self.referencing_table(def.page, li.number)? {
            return Err(WriteError::BadDefinition {
                table: tname,
                why: format!(
                    "index {:?} is referenced by a relationship of table {other:?}; delete the relationship first",
                    li.name
                ),
            });
        }
        self.remove_logical_index(table, pos)
    }

    /// Removes logical index `pos` of `table` (no relationship checks) and
    /// its real index when no other logical index shares it.
    pub(super) fn remove_logical_index(&mut self, table: &str, pos: usize) -> WResult<()> {
        self.flush_indexes()?;
        let l = self.layout();
        let st = self.state(table)?;
        let tname = st.name.clone();
        let mut def = st.def.clone();
        let li = def.indexes[pos].clone();
        let old_def = def.clone();
        def.indexes.remove(pos);
        let real = li.real_index as usize;
        let shared = def.indexes.iter().any(|o| o.real_index as usize == real);
        let dropped_tree = !shared && real < def.real_indexes.len();
        let mut tree = None;
        if dropped_tree {
            tree = Some(def.real_indexes.remove(real));
            for o in &mut def.indexes {
                if o.real_index as usize > real {
                    o.real_index -= 1;
                }
            }
        }
        let chain = crate::schema::tdef::read_chain(&self.ov, def.page)?;
        let bytes = wtdef::splice::with_dropped_index(
            self.tdef_format(),
            &tname,
            &old_def,
            &chain,
            &def,
            pos,
            dropped_tree.then_some(real),
        )?;
        if let Some(ri) = tree {
            for p in alloc::members(&self.ov, l, ri.usage_map)? {
                alloc::set_member(&mut self.ov, l, ri.usage_map, p, false)?;
            }
            let (map_page, map_row) = jet_kernels::row_slot::unpack_row_pointer(ri.usage_map);
            self.ov.edit(map_page, |p| {
                crate::write::data_page::delete(l, p, usize::from(map_row))
            })?;
        }
        wtdef::write_chain(&mut self.ov, def.page, &bytes, true)?;
        self.state(table)?.def = def;
        Ok(())
    }

    /// The name of a table (other than the one at `page`) with a
    /// relationship index that references index `number` of the table
    /// whose TDEF is at `page`.
    pub(super) fn referencing_table(&mut self, page: u32, number: u32) -> WResult<Option<String>> {
        let names: Vec<String> = self
            .catalog
            .iter()
            .filter(|e| {
                e.kind == crate::schema::catalog::ObjectKind::Table && e.tdef_page() != page
            })
            .map(|e| e.name.clone())
            .collect();
        for n in names {
            let d = &self.state(&n)?.def;
            if d.indexes.iter().any(|o| {
                o.kind == IndexKind::ForeignKey
                    && o.rel_table_page == page
                    && o.rel_index == Some(number)
            }) {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }
}
