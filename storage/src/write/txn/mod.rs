//! Transactions: the one way rows and schema change.
//!
//! [`Writer::transaction`] runs a closure on a [`Transaction`]; `Ok` turns
//! the transaction's pages into [`ImageChanges`] handed to the writer's
//! [`WriteTarget`] (the journaled file, or memory); `Err` discards them.

use super::lval::{self, LvalTarget};
use super::row::{self, Cell};
use super::tdef::{self as wtdef, ColumnSpec, TableSpec, TdefExtra};
use super::{IndexMaintainer, IndexPages, WResult, WriteError, alloc, catalog, data_page, default};
use crate::catalog::{CatalogEntry, ObjectKind};
use crate::database::{Database, MSYS_OBJECTS_PAGE};
use crate::format::{JetVersion, Layout, page_type};
use crate::image::{CommitTarget, ImageChanges, MemImage, PageStore};
use crate::index::Bookmark;
use crate::page::crypt::{CipherPageSource, Unlocked};
use crate::page::{MemPageSource, PageSource};
use crate::props::{Property, PropertyMaps};
use crate::scan::{CrackedRow, OwnedField, RawField};
use crate::tdef::{self, RealIndex, TableDef};
use crate::types::JetType;
use crate::write::overlay::PageOverlay;
use arrow_array::RecordBatch;
use jet_kernels::row_slot::pack_row_pointer;
use std::collections::HashMap;
use std::sync::Arc;

mod alter_type;
mod cascade;
mod columns;
mod complex;
pub(crate) mod copy;
mod index_ddl;
pub use index_ddl::IndexBuilt;
mod relations;
mod relationship_ddl;
pub use relationship_ddl::RelationshipSpec;
mod rename;

/// A [`CommitTarget`] the writer can also read the committed image from.
pub trait WriteTarget: CommitTarget {
    /// The committed image as pages (after the last successful commit).
    fn source(&self) -> crate::Result<Arc<dyn PageSource>>;
}

impl WriteTarget for MemImage {
    fn source(&self) -> crate::Result<Arc<dyn PageSource>> {
        let ps = crate::database::read_header(&self.bytes[..self.bytes.len().min(4096)])?
            .version
            .layout()
            .page_size;
        Ok(Arc::new(MemPageSource::new(self.bytes.clone(), ps)))
    }
}

/// A database open for writing through a [`WriteTarget`].
pub struct Writer<T: WriteTarget> {
    target: T,
    /// The unlocked protection of page 0: the page cipher of an encrypted
    /// file (pages are decrypted when read, encrypted when committed).
    unlocked: Unlocked,
    version: JetVersion,
    maintainer: Option<Box<dyn IndexMaintainer>>,
    clock: i64,
    now: Option<i64>,
    text_layout: row::TextLayout,
}

/// 2000-01-01T00:00:00 in microseconds since 1970, the default time stamp
/// of catalog rows (fixed so that generated files are deterministic).
pub const DEFAULT_CLOCK: i64 = 946_684_800_000_000;

impl<T: WriteTarget> Writer<T> {
    /// Opens the committed image of `target` for writing. Refuses
    /// Microsoft Money files and files that need a password (see
    /// [`Writer::with_password`]). Jet3 (Access 97) files take row inserts,
    /// updates and deletes; their schema changes are refused by name.
    pub fn new(target: T) -> crate::Result<Writer<T>> {
        Writer::with_password(target, None)
    }

    /// Opens the committed image of `target` for writing, with the password
    /// of an encrypted file (checked before any page is decoded). The
    /// writer and its journal work on pages as stored: every page a
    /// transaction changes is encrypted with its page key before it is
    /// committed, so a crash leaves the exact old or new encrypted image.
    /// Refuses Microsoft Money files; on Jet3 (Access 97) files, refuses
    /// schema changes (see [`Transaction::create_table`]).
    pub fn with_password(
        target: T,
        password: Option<&crate::page::crypt::Password>,
    ) -> crate::Result<Writer<T>> {
        let src = target.source()?;
        let page0 = src.read_page(0)?;
        let h = crate::database::read_header(&page0)?;
        if h.msisam {
            return Err(crate::error::FormatError::Encrypted(
                "writing Microsoft Money (MSISAM) files",
            )
            .into());
        }
        let unlocked = crate::database::unlock_page0(&page0, &h, password)?;
        Ok(Writer {
            target,
            unlocked,
            version: h.version,
            maintainer: Some(Box::new(super::maintain::BTreeMaintainer::new(h.version))),
            clock: DEFAULT_CLOCK,
            now: None,
            text_layout: row::TextLayout::Standard,
        })
    }

    /// Installs the index maintainer used for tables with real indexes.
    pub fn set_index_maintainer(&mut self, m: Box<dyn IndexMaintainer>) {
        self.maintainer = Some(m);
    }

    /// Sets the time stamp written into catalog rows (µs since 1970).
    pub fn set_clock(&mut self, micros: i64) {
        self.clock = micros;
    }

    /// Sets how text is stored in columns that allow unicode compression
    /// (default [`row::TextLayout::Standard`], as Access stores it).
    pub fn set_text_layout(&mut self, layout: row::TextLayout) {
        self.text_layout = layout;
    }

    /// Fixes the time `Now()` and `Date()` defaults evaluate to (µs since
    /// 1970, zone-less wall-clock time, as Access stores dates; pass the
    /// local time to get Access's stamps). `None` (the default) uses the
    /// system clock in UTC at the start of each transaction.
    pub fn set_now(&mut self, micros: Option<i64>) {
        self.now = micros;
    }

    /// Format version of the database.
    pub fn version(&self) -> JetVersion {
        self.version
    }

    /// A read-only view of the committed image.
    pub fn database(&self) -> crate::Result<Database> {
        Database::from_page_source_unlocked(self.target.source()?, self.unlocked.clone())
    }

    /// The committed image `raw` (pages as stored) as the transaction reads
    /// it: decrypted when the file is encrypted.
    fn decoded(&self, raw: Arc<dyn PageSource>) -> Arc<dyn PageSource> {
        match &self.unlocked.cipher {
            Some(c) => Arc::new(CipherPageSource::new(raw, c.clone())),
            None => raw,
        }
    }

    /// The target (for a memory target, the committed image).
    pub fn target(&self) -> &T {
        &self.target
    }

    /// Consumes the writer, returning its target.
    pub fn into_target(self) -> T {
        self.target
    }

    /// Runs `f` in a transaction. When `f` returns `Ok`, all its changes are
    /// committed at once; when it returns `Err` (or committing fails) the
    /// committed image is unchanged.
    pub fn transaction<R>(
        &mut self,
        f: impl FnOnce(&mut Transaction<'_>) -> WResult<R>,
    ) -> crate::Result<R> {
        let raw = self.target.source()?;
        let db = Database::from_page_source_unlocked(raw.clone(), self.unlocked.clone())?;
        let base = self.decoded(raw);
        if let Some(m) = self.maintainer.as_deref_mut() {
            m.discard();
        }
        let encoding = crate::text::encoding_for_code_page(db.header().code_page);
        let mut tx = Transaction {
            ov: PageOverlay::new(base),
            version: self.version,
            encoding,
            catalog: db.catalog().to_vec(),
            tables: HashMap::new(),
            maintainer: self.maintainer.as_deref_mut(),
            clock: self.clock,
            now: self.now.unwrap_or_else(system_now_micros),
            text_layout: self.text_layout,
            cascading: Vec::new(),
        };
        // `finish` writes the index pages the maintainer holds; an
        // abandoned transaction's are dropped with the discard below
        let result = f(&mut tx).and_then(|out| Ok((out, tx.finish()?)));
        if let Some(m) = self.maintainer.as_deref_mut() {
            m.discard();
        }
        let (out, mut changes) = result.map_err(write_err)?;
        if let Some(c) = &self.unlocked.cipher {
            // pages are committed (and journaled) as they are stored
            for (&n, page) in changes.pages.iter_mut() {
                c.encrypt(n, page)?;
            }
        }
        if !changes.is_empty() {
            self.target.commit(&changes)?;
        }
        Ok(out)
    }
}

/// The system clock as µs since 1970 (UTC; callers that want Access's
/// local wall-clock stamps pass the local time to [`Writer::set_now`]).
fn system_now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn write_err(e: WriteError) -> crate::Error {
    crate::Error::Write(Box::new(e))
}

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
            crate::props::apply_column_rules(&mut def, &maps, unicode, self.encoding);
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

    // ---------------------------------------------------------------- DDL

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
            crate::catalog::TYPE_TABLE,
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
                maps.set(&c.name, Property::memo(crate::props::DEFAULT_VALUE, expr));
            }
            if c.not_null {
                maps.set(&c.name, Property::boolean(crate::props::REQUIRED, true));
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

    /// The value column `col`'s default `expr` gives a row inserted now,
    /// encoded-checked against the column; a typed refusal naming the table
    /// and column when the writer cannot evaluate it or the column cannot
    /// hold it.
    fn default_cell(&self, table: &str, col: &crate::tdef::Column, expr: &str) -> WResult<Cell> {
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

    fn find_catalog_row(&mut self, name: &str, page: u32) -> WResult<Bookmark> {
        let l = self.layout();
        let st = self.state("MSysObjects")?;
        let def = st.def.clone();
        let id_col = def.columns.iter().find(|c| c.name == "Id").cloned();
        let name_col = def.columns.iter().find(|c| c.name == "Name").cloned();
        let (Some(id_col), Some(name_col)) = (id_col, name_col) else {
            return Err(WriteError::NoSuchTable("MSysObjects".into()));
        };
        for p in crate::usage_map::read_pages(&self.ov, l, def.usage_map)? {
            let dp = crate::data_page::DataPage::read(&self.ov, l, p)?;
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
                        crate::text::decode_codepage(b, self.encoding, &mut s);
                    } else {
                        crate::text::decode_ucs2(b, &mut s);
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
        let fixed = flags & crate::tdef::COL_FIXED != 0;
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
        def.columns.push(crate::tdef::Column {
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
            maps.set(&col.name, Property::memo(crate::props::DEFAULT_VALUE, expr));
        }
        if col.not_null {
            maps.set(&col.name, Property::boolean(crate::props::REQUIRED, true));
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

    // ---------------------------------------------------------------- rows

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
    /// Columns not named take their default (see [`ColumnSpec::default_value`]).
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
            if c.flags & crate::tdef::COL_AUTO_LONG != 0 && c.jet_type == JetType::Long {
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
            if c.flags & crate::tdef::COL_AUTO_GUID != 0
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
        let complex_id = complex::complex_id_of_row(&tname, &mut def, &mut cells)?;
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

    fn check_indexes_def(&self, table: &str, def: &TableDef) -> WResult<()> {
        if !def.real_indexes.is_empty() && self.maintainer.is_none() {
            return Err(WriteError::IndexMaintenanceUnavailable {
                table: table.to_string(),
                indexes: def.real_indexes.len(),
            });
        }
        Ok(())
    }

    fn check_required(&self, table: &str, def: &TableDef, cells: &[Cell]) -> WResult<()> {
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
    fn store_long_values(
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
    fn place_row(&mut self, table: &str, row: &[u8], flags: u16) -> WResult<Bookmark> {
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
        let page = crate::data_page::DataPage::read(&self.ov, l, bm.page)?;
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
        for p in crate::usage_map::read_pages(&self.ov, l, def.usage_map)? {
            let bytes = self.ov.read_page(p)?;
            if bytes[0] != page_type::DATA {
                continue;
            }
            let dp = crate::data_page::DataPage::from_page(l, p, bytes)?;
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
        page: &crate::data_page::DataPage,
        row: usize,
    ) -> WResult<Option<Vec<OwnedField>>> {
        let l = self.layout();
        let Some((p, range)) = crate::data_page::resolve_row(&self.ov, l, page, row)? else {
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
        let dp = crate::data_page::DataPage::from_page(l, bm.page, p)?;
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

    /// Deletes the rows at `bookmarks` (slot flag; long values and overflow
    /// targets are freed too). Returns how many rows were deleted. The
    /// values of complex columns stay in their hidden tables: delete rows
    /// of a table with complex columns with
    /// [`Transaction::delete_complex`].
    pub fn delete(&mut self, table: &str, bookmarks: &[Bookmark]) -> WResult<usize> {
        self.delete_rows(table, bookmarks)
    }

    fn delete_rows(&mut self, table: &str, bookmarks: &[Bookmark]) -> WResult<usize> {
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
    fn update_row(
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
    fn update_row_fields(
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

    fn rewrite_row(
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

    /// Bookmarks of the table's live rows, in page and slot order.
    pub fn bookmarks(&mut self, table: &str) -> WResult<Vec<Bookmark>> {
        let l = self.layout();
        let def = self.state(table)?.def.clone();
        let mut out = Vec::new();
        for p in crate::usage_map::read_pages(&self.ov, l, def.usage_map)? {
            let bytes = self.ov.read_page(p)?;
            if bytes[0] != page_type::DATA {
                continue;
            }
            let dp = crate::data_page::DataPage::from_page(l, p, bytes)?;
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
    fn add(&mut self, ov: &mut PageOverlay, l: &Layout, row: &[u8]) -> WResult<u32> {
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

#[allow(dead_code)]
const _MSYS: u32 = MSYS_OBJECTS_PAGE;
