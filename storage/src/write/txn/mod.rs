//! Transactions: the one way rows and schema change.
//!
//! Exports: [`Transaction`], [`Writer`], [`WriteTarget`], [`DEFAULT_CLOCK`],
//! [`IndexBuilt`], [`RelationshipSpec`] and [`empty_leaf`].
//!
//! [`Writer::transaction`] runs a closure on a [`Transaction`]; `Ok` turns
//! the transaction's pages into [`ImageChanges`] handed to the writer's
//! [`WriteTarget`] (the journaled file, or memory); `Err` discards them.
//!
//! This file holds the transaction and what every statement shares: the
//! tables it has opened (`TableState`), finishing (counters patched,
//! index pages flushed), the rows it sees (stored fields, live rows,
//! overflow targets) and the index entries it keeps. The statements are
//! beside it, by kind: `writer` (the [`Writer`] and its clock), `insert`,
//! `update` (updates, deletes, row rewrites), `table_ddl` (create/drop
//! table, add column, column rules), `columns`, `alter_type`, `rename`,
//! `index_ddl`, `relationship_ddl` with `relations` and `cascade`,
//! `complex` and `copy`.

use super::lval::LvalTarget;
use super::tdef::{self as wtdef, TdefExtra};
use super::{IndexMaintainer, IndexPages, alloc, row};
use crate::error::{WResult, WriteError};
use crate::format::{JetVersion, Layout, OwnedField, RawField, page_type};
use crate::index::Bookmark;
use crate::page::PageSource;
use crate::page::image::ImageChanges;
use crate::read::objects::MSYS_OBJECTS_PAGE;
use crate::read::row::CrackedRow;
use crate::schema::catalog::{CatalogEntry, ObjectKind};
use crate::schema::props::PropertyMaps;
use crate::schema::tdef::{self, RealIndex, TableDef};
use crate::write::overlay::PageOverlay;
use arrow_array::RecordBatch;
use std::collections::HashMap;
use std::sync::Arc;

mod alter_type;
mod cascade;
mod columns;
mod complex;
pub(crate) mod copy;
mod index_ddl;
mod insert;
mod relations;
mod relationship_ddl;
mod rename;
mod table_ddl;
mod update;
mod writer;

pub use index_ddl::IndexBuilt;
pub use relationship_ddl::RelationshipSpec;
pub(crate) use table_ddl::MapPages;
pub use table_ddl::empty_leaf;
pub use writer::{DEFAULT_CLOCK, WriteTarget, Writer};

/// A table the transaction has opened: its definition as changed so far,
/// its long-value maps and where its next row goes.
struct TableState {
    name: String,
    def: TableDef,
    extra: TdefExtra,
    lval: HashMap<u16, LvalTarget>,
    hint: Option<u32>,
    counters_dirty: bool,
}

/// One index entry change.
#[derive(Clone, Copy)]
enum Entry<'a> {
    /// Add the entry; the row's values as given, per column, name a
    /// refused key in the error.
    Insert(&'a [String]),
    /// Remove the entry.
    Delete,
}

/// The changes of one transaction, in progress. See [`Writer::transaction`].
pub struct Transaction<'w> {
    ov: PageOverlay,
    version: JetVersion,
    /// The database's code page: Jet3 names, properties and the text of
    /// columns that record no code page of their own.
    encoding: &'static encoding_rs::Encoding,
    catalog: Vec<CatalogEntry>,
    tables: HashMap<String, TableState>,
    maintainer: Option<&'w mut (dyn IndexMaintainer + 'static)>,
    clock: i64,
    now: i64,
    text_layout: row::TextLayout,
    /// Tables whose rows referential actions are changing, outermost
    /// first (a cascade into one of them is a cycle, refused).
    cascading: Vec<String>,
}

/// Rows of a fresh MSysObjects-less image (used while creating a database).
pub(crate) fn bootstrap(
    base: Arc<dyn PageSource>,
    version: JetVersion,
    clock: i64,
) -> Transaction<'static> {
    Transaction {
        ov: PageOverlay::new(base),
        version,
        encoding: encoding_rs::WINDOWS_1252,
        catalog: Vec::new(),
        tables: HashMap::new(),
        maintainer: None,
        clock,
        now: clock,
        text_layout: row::TextLayout::Standard,
        cascading: Vec::new(),
    }
}

impl<'w> Transaction<'w> {
    fn layout(&self) -> &'static Layout {
        self.version.layout()
    }

    /// Pages the transaction wrote or appended so far (index pages the
    /// maintainer still holds count once it writes them, at the latest at
    /// commit).
    pub fn dirty_pages(&self) -> usize {
        self.ov.dirty_pages()
    }

    /// The pages as the transaction sees them. Index pages changed since
    /// the last schema change may still be held (decoded) by the index
    /// maintainer: they reach these pages at the latest at commit.
    pub fn pages(&self) -> &PageOverlay {
        &self.ov
    }

    pub(crate) fn finish(mut self) -> WResult<ImageChanges> {
        self.flush_indexes()?;
        let mut states: Vec<&TableState> =
            self.tables.values().filter(|s| s.counters_dirty).collect();
        states.sort_by_key(|s| s.def.page);
        let patches: Vec<(u32, u32, u32, u32)> = states
            .iter()
            .map(|s| {
                let d = &s.def;
                (d.page, d.stated_rows, d.autonumber, d.complex_autonumber)
            })
            .collect();
        for (page, rows, auto, complex) in patches {
            wtdef::patch_counters(&mut self.ov, self.version, page, rows, auto, complex)?;
        }
        Ok(self.ov.into_changes()?)
    }

    /// Writes the index pages the maintainer holds into the overlay (before
    /// commit and before schema changes, which read or free index pages).
    fn flush_indexes(&mut self) -> WResult<()> {
        match self.maintainer.as_deref_mut() {
            Some(m) => m.flush(&mut self.ov),
            None => Ok(()),
        }
    }

    fn entry(&self, name: &str) -> Option<&CatalogEntry> {
        self.catalog
            .iter()
            .filter(|e| e.is_table())
            .find(|e| e.name == name)
            .or_else(|| {
                let l = name.to_lowercase();
                self.catalog
                    .iter()
                    .filter(|e| e.is_table())
                    .find(|e| e.name.to_lowercase() == l)
            })
    }

    fn state(&mut self, name: &str) -> WResult<&mut TableState> {
        let key = name.to_lowercase();
        if !self.tables.contains_key(&key) {
            let (real_name, page, props) = match self.entry(name) {
                Some(e) if e.kind == ObjectKind::Table => {
                    (e.name.clone(), e.tdef_page(), e.props.clone())
                }
                Some(e) => {
                    return Err(WriteError::Unsupported(format!(
                        "writing to linked table {:?}",
                        e.name
                    )));
                }
                None => return Err(WriteError::NoSuchTable(name.to_string())),
            };
            let chain = tdef::read_chain(&self.ov, page)?;
            let mut def = tdef::parse(self.version, page, &chain, &real_name, self.encoding)
                .map_err(|e| WriteError::from(crate::Error::from(e)))?;
            // Jet3 property maps hold code-page text, as the reader takes them
            let unicode = !self.version.is_jet3();
            let maps = PropertyMaps::parse(&props, unicode, self.encoding);
            crate::schema::props::apply_column_rules(&mut def, &maps, unicode, self.encoding);
            if self.version.is_jet3() {
                super::row_jet3::check_table(&def, &real_name)?;
            }
            let extra = wtdef::parse_extra(&def, &chain, self.version);
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
                key.clone(),
                TableState {
                    name: real_name,
                    def,
                    extra,
                    lval,
                    hint: None,
                    counters_dirty: false,
                },
            );
        }
        self.tables
            .get_mut(&key)
            .ok_or_else(|| WriteError::NoSuchTable(name.to_string()))
    }

    /// Refuses the schema change `op` in a Jet3 (Access 97) database,
    /// before anything is written: in Access 97 files the writer writes
    /// rows, CREATE/DROP TABLE, CREATE/DROP INDEX and ADD COLUMN (without
    /// NOT NULL or DEFAULT), not property maps, relationships or the other
    /// column changes.
    pub(crate) fn refuse_jet3_schema(&self, op: &str) -> WResult<()> {
        if self.version.is_jet3() {
            return Err(WriteError::Unsupported(format!(
                "{op} in an Access 97 (Jet3) database: Access 97 files take rows, CREATE/DROP \
                 TABLE, CREATE/DROP INDEX and ADD COLUMN without NOT NULL or DEFAULT; other \
                 schema changes are written in Jet4 and ACE files only"
            )));
        }
        Ok(())
    }

    /// How this file spells table definitions (version and code page).
    pub(crate) fn tdef_format(&self) -> wtdef::TdefFormat {
        wtdef::TdefFormat {
            version: self.version,
            encoding: self.encoding,
        }
    }

    /// How stored text decodes for messages: `Some(code page)` in a Jet3
    /// database, `None` (UCS-2) otherwise.
    pub(crate) fn text_codec(&self) -> Option<&'static encoding_rs::Encoding> {
        self.version.is_jet3().then_some(self.encoding)
    }

    /// The table definition as this transaction sees it.
    pub fn table_def(&mut self, name: &str) -> WResult<TableDef> {
        Ok(self.state(name)?.def.clone())
    }

    /// Refuses rows of a table with real indexes when no index maintainer
    /// is installed.
    fn check_indexes_def(&self, table: &str, def: &TableDef) -> WResult<()> {
        if !def.real_indexes.is_empty() && self.maintainer.is_none() {
            return Err(WriteError::IndexMaintenanceUnavailable {
                table: table.to_string(),
                indexes: def.real_indexes.len(),
            });
        }
        Ok(())
    }

    /// Adds (`insert`) or removes the entries of the row at `bm` with
    /// `fields` in every real index of the table.
    fn index_apply(
        &mut self,
        table: &str,
        def: &TableDef,
        fields: &[OwnedField],
        bm: Bookmark,
        insert: bool,
        shown: &[String],
    ) -> WResult<()> {
        for ri in &def.real_indexes {
            let key = self.index_key(table, def, ri, fields)?;
            let change = if insert {
                Entry::Insert(shown)
            } else {
                Entry::Delete
            };
            self.index_entry(table, def, ri, &key, bm, change)?;
        }
        Ok(())
    }

    /// The key of a row with `fields` in index `ri`.
    fn index_key(
        &self,
        table: &str,
        def: &TableDef,
        ri: &RealIndex,
        fields: &[OwnedField],
    ) -> WResult<Vec<u8>> {
        crate::index::key::encode_key(&def.columns, &ri.key, fields, self.version).map_err(
            |source| WriteError::IndexKey {
                table: table.to_string(),
                source,
            },
        )
    }

    /// Adds or removes (`change`) the entry (`key`, `bm`) of index `ri`
    /// through the maintainer, keeping the index's usage map exact.
    fn index_entry(
        &mut self,
        table: &str,
        def: &TableDef,
        ri: &RealIndex,
        key: &[u8],
        bm: Bookmark,
        change: Entry<'_>,
    ) -> WResult<()> {
        let l = self.layout();
        let Some(m) = self.maintainer.as_deref_mut() else {
            return Err(WriteError::IndexMaintenanceUnavailable {
                table: table.to_string(),
                indexes: def.real_indexes.len(),
            });
        };
        let shown = match change {
            Entry::Insert(shown) => shown,
            Entry::Delete => &[],
        };
        let pages: IndexPages = match change {
            Entry::Insert(_) => m.insert(&mut self.ov, def, ri, key, bm.page, bm.row),
            Entry::Delete => m.delete(&mut self.ov, def, ri, key, bm.page, bm.row),
        }
        .map_err(|e| match e {
            WriteError::Index { mut why, .. } => {
                // name the refused key's values (`shown` holds the row's
                // values as given, per column)
                let values: Vec<String> = ri
                    .key
                    .iter()
                    .filter_map(|(n, _)| {
                        let i = def.columns.iter().position(|c| c.col_num == *n)?;
                        Some(format!("{} = {}", def.columns[i].name, shown.get(i)?))
                    })
                    .collect();
                if !values.is_empty() {
                    why.push_str(&format!(" (key {})", values.join(", ")));
                }
                WriteError::Index {
                    table: table.to_string(),
                    why,
                }
            }
            e => e,
        })?;
        for p in pages.allocated {
            alloc::set_member(&mut self.ov, l, ri.usage_map, p, true)?;
        }
        for p in pages.freed {
            alloc::set_member(&mut self.ov, l, ri.usage_map, p, false)?;
        }
        Ok(())
    }

    /// The stored fields of the live row at `bm` (overflow followed), or
    /// `None` for a deleted slot.
    fn read_fields(&self, def: &TableDef, bm: Bookmark) -> WResult<Option<Vec<OwnedField>>> {
        let l = self.layout();
        let page = crate::read::data_page::DataPage::read(&self.ov, l, bm.page)?;
        if page.owner() != def.page || usize::from(bm.row) >= page.row_count() {
            return Ok(None);
        }
        self.fields_at(def, &page, usize::from(bm.row))
    }

    /// Calls `f` with the bookmark and stored fields of every live row of
    /// the table `def`, in page and slot order (each page decoded once).
    fn each_live_row(
        &self,
        def: &TableDef,
        mut f: impl FnMut(Bookmark, Vec<OwnedField>) -> WResult<()>,
    ) -> WResult<()> {
        let l = self.layout();
        for p in crate::read::usage_map::read_pages(&self.ov, l, def.usage_map)? {
            let bytes = self.ov.read_page(p)?;
            if bytes[0] != page_type::DATA {
                continue;
            }
            let dp = crate::read::data_page::DataPage::from_page(l, p, bytes)?;
            if dp.owner() != def.page {
                continue;
            }
            for i in 0..dp.row_count() {
                if dp.slot(i).is_some_and(|s| !s.deleted)
                    && let Some(fields) = self.fields_at(def, &dp, i)?
                {
                    f(
                        Bookmark {
                            page: p,
                            row: i as u8,
                        },
                        fields,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// The stored fields of row `row` of data page `page` (overflow
    /// followed), or `None` for a deleted slot.
    fn fields_at(
        &self,
        def: &TableDef,
        page: &crate::read::data_page::DataPage,
        row: usize,
    ) -> WResult<Option<Vec<OwnedField>>> {
        let l = self.layout();
        let Some((p, range)) = crate::read::data_page::resolve_row(&self.ov, l, page, row)? else {
            return Ok(None);
        };
        let mut offsets = Vec::new();
        let bytes = &p.bytes[range.clone()];
        let err = |(what, r)| crate::error::corrupt(p.number, range.start, what, r);
        let cracked = CrackedRow::new(bytes, def, self.version, &mut offsets).map_err(err)?;
        let mut out = Vec::with_capacity(def.columns.len());
        for c in &def.columns {
            out.push(match cracked.field(c).map_err(err)? {
                RawField::Null => OwnedField::Null,
                RawField::Bool(b) => OwnedField::Bool(b),
                RawField::Bytes(b) => OwnedField::Bytes(b.to_vec()),
            });
        }
        Ok(Some(out))
    }

    /// The overflow target of slot `bm`, if the slot is an overflow pointer.
    fn overflow_target(&self, bm: Bookmark) -> WResult<Option<Bookmark>> {
        let l = self.layout();
        let p = self.ov.read_page(bm.page)?;
        let dp = crate::read::data_page::DataPage::from_page(l, bm.page, p)?;
        match dp.slot(usize::from(bm.row)) {
            Some(s) if s.overflow && !s.deleted => {
                let r = dp.row(usize::from(bm.row))?;
                if r.len() < 4 {
                    return Err(crate::error::corrupt(
                        bm.page,
                        0,
                        "overflow row pointer",
                        jet_kernels::Refusal::OutOfBounds,
                    )
                    .into());
                }
                Ok(Some(Bookmark {
                    page: u32::from_le_bytes([r[1], r[2], r[3], 0]),
                    row: r[0],
                }))
            }
            _ => Ok(None),
        }
    }

    /// Bookmarks of the table's live rows, in page and slot order.
    pub fn bookmarks(&mut self, table: &str) -> WResult<Vec<Bookmark>> {
        let l = self.layout();
        let def = self.state(table)?.def.clone();
        let mut out = Vec::new();
        for p in crate::read::usage_map::read_pages(&self.ov, l, def.usage_map)? {
            let bytes = self.ov.read_page(p)?;
            if bytes[0] != page_type::DATA {
                continue;
            }
            let dp = crate::read::data_page::DataPage::from_page(l, p, bytes)?;
            if dp.owner() != def.page {
                continue;
            }
            for i in 0..dp.row_count() {
                if dp.slot(i).is_some_and(|s| !s.deleted) {
                    out.push(Bookmark {
                        page: p,
                        row: i as u8,
                    });
                }
            }
        }
        Ok(out)
    }
}

/// Rows shorter than an overflow pointer (4 bytes) are padded, so any row
/// can later become a pointer in place: Jet4/ACE rows after the column
/// count (such a row has no fixed or variable data), Jet3 rows just before
/// the null mask (such a row may hold a one-byte fixed field, and no
/// variable data), where no reader looks.
fn pad_row(version: JetVersion, mut row: Vec<u8>) -> Vec<u8> {
    let at = if version.is_jet3() {
        let mask = usize::from(row.first().copied().unwrap_or(0)).div_ceil(8);
        row.len().saturating_sub(mask)
    } else {
        2
    };
    while row.len() < 4 {
        row.insert(at, 0);
    }
    row
}

/// Maps batch columns to table columns by name (case-insensitive).
fn column_map(table: &str, def: &TableDef, batch: &RecordBatch) -> WResult<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    for (bi, f) in batch.schema().fields().iter().enumerate() {
        let ci = def
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(f.name()))
            .ok_or_else(|| WriteError::NoSuchColumn {
                table: table.to_string(),
                column: f.name().clone(),
            })?;
        out.push((bi, ci));
    }
    Ok(out)
}

#[allow(dead_code)]
const _MSYS: u32 = MSYS_OBJECTS_PAGE;
