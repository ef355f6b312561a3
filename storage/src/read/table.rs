//! A table of an open database: its definition, Arrow schema and rows.

use crate::error::{Error, Result, SchemaError};
use crate::read::scan::{ScanOptions, ScanSource, TableScan};
use crate::schema::props::PropertyMaps;
use crate::schema::tdef::{self, TableDef};
use arrow_schema::{Field, Schema, SchemaRef};
use std::collections::HashMap;
use std::sync::Arc;

/// A table of an open database: its definition and Arrow schema.
#[derive(Clone)]
pub struct Table {
    source: Arc<ScanSource>,
    name: String,
    def: Arc<TableDef>,
    schema: SchemaRef,
    props: Arc<PropertyMaps>,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("name", &self.name)
            .field("tdef_page", &self.def.page)
            .finish()
    }
}

impl Table {
    pub(crate) fn load(
        source: &Arc<ScanSource>,
        name: &str,
        page: u32,
        props: &[u8],
    ) -> Result<Table> {
        let chain = tdef::read_chain(&*source.src, page)?;
        let mut def = tdef::parse(source.version, page, &chain, name, source.encoding)?;
        let unicode = !source.version.is_jet3();
        let props = PropertyMaps::parse(props, unicode, source.encoding);
        crate::schema::props::apply_column_rules(&mut def, &props, unicode, source.encoding);
        for c in def.columns.iter_mut().filter(|c| c.is_calculated()) {
            // a calculated column's real type is its ResultType property
            if let Some(t) = props
                .get(&c.name, "ResultType")
                .and_then(|p| p.value.first())
            {
                c.jet_type = crate::format::types::JetType::from_byte(*t);
            }
        }
        let fields: Vec<Field> = def.columns.iter().map(field_for).collect();
        Ok(Table {
            source: source.clone(),
            name: name.to_string(),
            def: Arc::new(def),
            schema: Arc::new(Schema::new(fields)),
            props: Arc::new(props),
        })
    }

    /// Table name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parsed table definition.
    pub fn def(&self) -> &TableDef {
        &self.def
    }

    /// The Design View properties of the table (map `""`) and of each
    /// column (map named after it), as stored in MSysObjects; empty when the
    /// table has none.
    pub fn properties(&self) -> &PropertyMaps {
        &self.props
    }

    /// Property `prop` of map `map` (`""` for the table itself) as text, as
    /// Access shows it in Design View; `None` when it is absent or binary.
    pub fn property_text(&self, map: &str, prop: &str) -> Option<String> {
        let unicode = !self.source.version.is_jet3();
        self.props
            .get(map, prop)?
            .text(unicode, self.source.encoding)
    }

    /// The Arrow schema of all columns, with Jet metadata on each field.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The data pages this table's usage map names, in increasing order.
    pub fn data_pages(&self) -> Result<Vec<u32>> {
        crate::read::usage_map::read_pages(
            &*self.source.src,
            self.source.version.layout(),
            self.def.usage_map,
        )
        .map_err(|e| Error::from(e).in_table(&self.name))
    }

    /// A reader of the `n`-th real index (see [`TableDef::real_indexes`]).
    pub fn index(&self, n: usize) -> Result<crate::index::IndexReader<'_>> {
        let real = self
            .def
            .real_indexes
            .get(n)
            .ok_or_else(|| SchemaError::BadTdef {
                table: self.name.clone(),
                page: self.def.page,
                what: format!("no real index {n}"),
            })?;
        Ok(crate::index::IndexReader::new(
            &*self.source.src,
            self.source.version.layout(),
            &self.def,
            real,
        ))
    }

    /// The schema of the columns `projection` selects (all when `None`).
    pub fn projected_schema(&self, projection: Option<&[usize]>) -> Result<SchemaRef> {
        Ok(match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        })
    }

    /// Streams exactly the rows at `bookmarks` (for example the result of an
    /// index seek), decoding only those rows and the projected columns.
    pub fn fetch(
        &self,
        bookmarks: Vec<crate::index::Bookmark>,
        opts: ScanOptions,
    ) -> Result<TableScan> {
        let schema = self.projected_schema(opts.projection.as_deref())?;
        Ok(TableScan::new(
            self.source.clone(),
            self.def.clone(),
            &self.name,
            schema,
            Vec::new(),
            &opts,
        )
        .with_bookmarks(bookmarks))
    }

    /// Bookmarks of every live row, in scan order. A row moved to an
    /// overflow page keeps the bookmark of its original slot, which is what
    /// indexes point at.
    pub fn bookmarks(&self) -> Result<Vec<crate::index::Bookmark>> {
        let src = &*self.source.src;
        let layout = self.source.version.layout();
        let mut out = Vec::new();
        for n in self.data_pages()? {
            let bytes = src.read_page(n)?;
            if bytes[0] != crate::format::page_type::DATA {
                continue;
            }
            let page = crate::read::data_page::DataPage::from_page(layout, n, bytes)?;
            if page.owner() != self.def.page {
                continue;
            }
            for i in 0..page.row_count() {
                if page.slot(i).is_some_and(|s| !s.deleted) {
                    out.push(crate::index::Bookmark {
                        page: n,
                        row: i as u8,
                    });
                }
            }
        }
        Ok(out)
    }

    /// Calls `f` with the bookmark and raw stored fields (as
    /// [`Table::raw_row`] gives them) of every live row, in the order of
    /// [`Table::bookmarks`], decoding each data page once.
    pub fn each_raw_row(
        &self,
        mut f: impl FnMut(crate::index::Bookmark, Vec<crate::format::OwnedField>) -> Result<()>,
    ) -> Result<()> {
        let src = &*self.source.src;
        let layout = self.source.version.layout();
        for n in self.data_pages()? {
            let bytes = src.read_page(n)?;
            if bytes[0] != crate::format::page_type::DATA {
                continue;
            }
            let page = crate::read::data_page::DataPage::from_page(layout, n, bytes)?;
            if page.owner() != self.def.page {
                continue;
            }
            for i in 0..page.row_count() {
                if page.slot(i).is_none_or(|s| s.deleted) {
                    continue;
                }
                let bm = crate::index::Bookmark {
                    page: n,
                    row: i as u8,
                };
                if let Some(fields) = self.fields_on(&page, i)? {
                    f(bm, fields)?;
                }
            }
        }
        Ok(())
    }

    /// The raw fields of row `i` of data page `page` (overflow followed),
    /// `None` for a deleted slot.
    fn fields_on(
        &self,
        page: &crate::read::data_page::DataPage,
        i: usize,
    ) -> Result<Option<Vec<crate::format::OwnedField>>> {
        let src = &*self.source.src;
        let layout = self.source.version.layout();
        let Some((p, range)) = crate::read::data_page::resolve_row(src, layout, page, i)? else {
            return Ok(None);
        };
        let mut offsets = Vec::new();
        let row = &p.bytes[range.clone()];
        let err = |(what, r)| crate::error::corrupt(p.number, range.start, what, r);
        let cracked =
            crate::read::row::CrackedRow::new(row, &self.def, self.source.version, &mut offsets)
                .map_err(err)?;
        let mut out = Vec::with_capacity(self.def.columns.len());
        for c in &self.def.columns {
            out.push(match cracked.field(c).map_err(err)? {
                crate::format::RawField::Null => crate::format::OwnedField::Null,
                crate::format::RawField::Bool(b) => crate::format::OwnedField::Bool(b),
                crate::format::RawField::Bytes(b) => crate::format::OwnedField::Bytes(b.to_vec()),
            });
        }
        Ok(Some(out))
    }

    /// The raw stored content of every column of the row at `bm` (after
    /// following overflow pointers); `None` for a deleted row.
    pub fn raw_row(
        &self,
        bm: crate::index::Bookmark,
    ) -> Result<Option<Vec<crate::format::OwnedField>>> {
        let src = &*self.source.src;
        let layout = self.source.version.layout();
        let page = crate::read::data_page::DataPage::read(src, layout, bm.page)?;
        self.fields_on(&page, usize::from(bm.row))
    }

    /// Streams the table as record batches.
    pub fn scan(&self, opts: ScanOptions) -> Result<TableScan> {
        self.scan_pages(self.data_pages()?, &opts)
    }

    /// A scan of the given data pages (a subset of [`Table::data_pages`], in
    /// increasing order) as `opts` says, without reading the usage map again.
    pub(crate) fn scan_pages(&self, pages: Vec<u32>, opts: &ScanOptions) -> Result<TableScan> {
        let schema = self.projected_schema(opts.projection.as_deref())?;
        Ok(TableScan::new(
            self.source.clone(),
            self.def.clone(),
            &self.name,
            schema,
            pages,
            opts,
        ))
    }
}

/// The Arrow field of a column: name, type, nullability and Jet metadata
/// (`jet.type`, `jet.length`, `jet.flags`, `jet.auto_number`, and where they
/// apply `jet.precision`/`jet.scale`, `jet.calculated`, `jet.hyperlink`, and
/// from the property map `jet.required` and `jet.default`).
pub fn field_for(c: &tdef::Column) -> Field {
    let mut md = HashMap::new();
    md.insert("jet.type".to_string(), c.jet_type.name().to_string());
    md.insert("jet.length".to_string(), c.length.to_string());
    md.insert("jet.flags".to_string(), format!("{:#04x}", c.flags));
    if c.is_auto_number() {
        md.insert("jet.auto_number".to_string(), "true".to_string());
    }
    if c.jet_type == crate::format::types::JetType::Numeric {
        md.insert("jet.precision".to_string(), c.precision.to_string());
        md.insert("jet.scale".to_string(), c.scale.to_string());
    }
    if c.is_calculated() {
        md.insert("jet.calculated".to_string(), "true".to_string());
    }
    if c.is_hyperlink() {
        md.insert("jet.hyperlink".to_string(), "true".to_string());
    }
    if c.required {
        md.insert("jet.required".to_string(), "true".to_string());
    }
    if let Some(d) = &c.default_value {
        md.insert("jet.default".to_string(), d.clone());
    }
    let nullable = c.jet_type != crate::format::types::JetType::Boolean || c.is_calculated();
    Field::new(&c.name, c.arrow_type(), nullable).with_metadata(md)
}
