//! Table scans: usage map → data pages → row slots → row geometry →
//! column decoders → Arrow record batches.

use crate::error::{FormatError, Result, corrupt};
use crate::format::JetVersion;
use crate::page::PageSource;
use crate::read::data_page::{DataPage, SlotRow, locate_row};
use crate::read::decode::{ColumnDecoder, DecodeCtx};
use crate::read::row::{FieldPlan, PageRun};
use crate::schema::tdef::TableDef;
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use encoding_rs::Encoding;
use std::ops::Range;
use std::sync::Arc;

/// What to read from a table.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Column positions (into the table's columns) to decode; `None` = all.
    pub projection: Option<Vec<usize>>,
    /// Rows per batch (at least 1).
    pub batch_size: usize,
    /// Stop after this many rows.
    pub limit: Option<usize>,
    /// Only data pages whose numbers lie in this range (for partitioned scans).
    pub page_range: Option<Range<u32>>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            projection: None,
            batch_size: 8192,
            limit: None,
            page_range: None,
        }
    }
}

/// Everything a scan needs that outlives the database handle.
pub(crate) struct ScanSource {
    pub src: Arc<dyn PageSource>,
    pub version: JetVersion,
    pub encoding: &'static Encoding,
}

/// Counts the pages one scan reads, over the database's shared source (whose
/// own counter mixes every concurrent reader's pages).
struct CountingSource {
    inner: Arc<dyn PageSource>,
    reads: std::sync::atomic::AtomicU64,
}

impl PageSource for CountingSource {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn page_count(&self) -> u32 {
        self.inner.page_count()
    }
    fn read_page(&self, n: u32) -> Result<crate::page::Page, FormatError> {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.read_page(n)
    }
    fn pages_read(&self) -> u64 {
        self.reads.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn read_page_streaming(&self, n: u32) -> Result<crate::page::Page, FormatError> {
        self.reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.read_page_streaming(n)
    }
}

/// A streaming scan of one table: an iterator of record batches.
///
/// Memory is bounded by one batch plus one page; only projected columns are
/// decoded; deleted rows are skipped and overflow rows followed.
pub struct TableScan {
    source: Arc<ScanSource>,
    def: Arc<TableDef>,
    table: String,
    schema: SchemaRef,
    decoders: Vec<ColumnDecoder>,
    /// Where each decoder's column lies in a row (parallel to `decoders`).
    plans: Vec<FieldPlan>,
    pages: Vec<u32>,
    next_page: usize,
    current: Option<DataPage>,
    next_slot: usize,
    batch_size: usize,
    remaining: usize,
    /// The rows of the current page being decoded together.
    run: PageRun,
    /// Some projected column is variable (rows need their offset tables).
    needs_var: bool,
    done: bool,
    bookmarks: Option<std::vec::IntoIter<crate::index::Bookmark>>,
}

impl TableScan {
    pub(crate) fn new(
        source: Arc<ScanSource>,
        def: Arc<TableDef>,
        table: &str,
        schema: SchemaRef,
        pages: Vec<u32>,
        opts: &ScanOptions,
    ) -> TableScan {
        let batch_size = opts.batch_size.max(1);
        let source = Arc::new(ScanSource {
            src: Arc::new(CountingSource {
                inner: source.src.clone(),
                reads: Default::default(),
            }),
            version: source.version,
            encoding: source.encoding,
        });
        let all: Vec<usize> = (0..def.columns.len()).collect();
        let proj = opts.projection.clone().unwrap_or(all);
        let decoders = proj
            .iter()
            .filter_map(|&i| def.columns.get(i))
            .map(|c| ColumnDecoder::new(c, batch_size, source.encoding))
            .collect::<Vec<_>>();
        let plans: Vec<FieldPlan> = decoders.iter().map(|d| FieldPlan::of(d.column())).collect();
        let needs_var = plans.iter().any(FieldPlan::is_var);
        let pages = match &opts.page_range {
            Some(r) => pages.into_iter().filter(|p| r.contains(p)).collect(),
            None => pages,
        };
        TableScan {
            source,
            def,
            table: table.to_string(),
            schema,
            decoders,
            plans,
            pages,
            next_page: 0,
            current: None,
            next_slot: 0,
            batch_size,
            remaining: opts.limit.unwrap_or(usize::MAX),
            run: PageRun::default(),
            needs_var,
            done: false,
            bookmarks: None,
        }
    }

    /// A scan that reads exactly the rows at `bookmarks`, in that order
    /// (deleted rows are skipped, overflow rows followed).
    pub(crate) fn with_bookmarks(mut self, bookmarks: Vec<crate::index::Bookmark>) -> TableScan {
        self.bookmarks = Some(bookmarks.into_iter());
        self
    }

    /// Pages this scan has read so far (data pages, overflow rows and long
    /// values; only this scan's reads, whatever else reads the database
    /// concurrently).
    pub fn pages_read(&self) -> u64 {
        self.source.src.pages_read()
    }

    /// The schema of the batches (projected).
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Advances to the next live row a bookmark names (in its page, or
    /// moved to an overflow page); `None` after the last bookmark.
    fn next_row(&mut self) -> Result<Option<SlotRow>, FormatError> {
        let src = &*self.source.src;
        let layout = self.source.version.layout();
        let Some(marks) = self.bookmarks.as_mut() else {
            return Ok(None);
        };
        for m in marks.by_ref() {
            if self.current.as_ref().is_none_or(|p| p.number != m.page) {
                let p = DataPage::read(src, layout, m.page)?;
                if p.owner() != self.def.page {
                    return Err(corrupt(
                        m.page,
                        4,
                        "bookmark into another table's page",
                        jet_kernels::Refusal::BadCount,
                    ));
                }
                self.current = Some(p);
            }
            let Some(page) = self.current.as_ref() else {
                continue;
            };
            if usize::from(m.row) >= page.row_count() {
                return Err(corrupt(
                    m.page,
                    0,
                    "bookmark past the row slots",
                    jet_kernels::Refusal::BadCount,
                ));
            }
            match locate_row(src, layout, page, usize::from(m.row))? {
                SlotRow::Deleted => {}
                found => return Ok(Some(found)),
            }
        }
        Ok(None)
    }

    /// Decodes up to `want` rows of the current page (loading the next
    /// page first when none is current) in one run: the rows stored in
    /// place, laid out together, then each column for all of them; a row
    /// moved to an overflow page ends the run and is decoded on its own.
    /// Returns the rows decoded, `None` at the end of the table.
    fn next_run(&mut self, want: usize) -> Result<Option<usize>, FormatError> {
        let src = &*self.source.src;
        let layout = self.source.version.layout();
        while self.current.is_none() {
            let Some(&n) = self.pages.get(self.next_page) else {
                return Ok(None);
            };
            self.next_page += 1;
            let bytes = src.read_page_streaming(n)?;
            // usage maps may name pages that are no longer this table's
            // data pages: only owned data pages are read
            if bytes[0] != crate::format::page_type::DATA {
                continue;
            }
            let page = DataPage::from_page(layout, n, bytes)?;
            if page.owner() != self.def.page {
                continue;
            }
            self.current = Some(page);
            self.next_slot = 0;
        }
        let Some(page) = self.current.take() else {
            return Ok(None);
        };
        self.run.clear();
        let mut moved = None;
        while self.next_slot < page.row_count() && self.run.rows.len() < want {
            let i = self.next_slot;
            self.next_slot += 1;
            match locate_row(src, layout, &page, i)? {
                SlotRow::Deleted => {}
                SlotRow::Here(r) => self.run.rows.push(r),
                SlotRow::Moved(p, r) => {
                    moved = Some((p, r));
                    break;
                }
            }
        }
        let mut decoded = self.decode_run(&page)?;
        if let Some((p, r)) = moved {
            decoded += self.decode_one(&p, r)?;
        }
        if self.next_slot < page.row_count() {
            self.current = Some(page);
        }
        Ok(Some(decoded))
    }

    /// Decodes the rows `self.run.rows` of `page` into the decoders: lays
    /// them out, then appends each projected column for all of them.
    /// Returns the number of rows.
    fn decode_run(&mut self, page: &DataPage) -> Result<usize, FormatError> {
        let n = self.run.rows.len();
        if n == 0 {
            return Ok(0);
        }
        let version = self.source.version;
        self.run.lay_out(page, &self.def, version, self.needs_var)?;
        let ctx = DecodeCtx {
            src: &*self.source.src,
            layout: version.layout(),
            unicode: !version.is_jet3(),
            page: page.number,
            row_offset: 0,
        };
        for (d, plan) in self.decoders.iter_mut().zip(&self.plans) {
            d.append_run(&ctx, &self.run, page, plan)?;
        }
        Ok(n)
    }

    /// Decodes the one row at `range` of `page` (a row moved to an overflow
    /// page, or one a bookmark names) as a run of one.
    fn decode_one(&mut self, page: &DataPage, range: Range<usize>) -> Result<usize, FormatError> {
        self.run.clear();
        self.run.rows.push(range);
        self.decode_run(page)
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let mut rows = 0;
        if self.bookmarks.is_none() {
            while rows < self.batch_size && self.remaining > 0 {
                let want = (self.batch_size - rows).min(self.remaining);
                let Some(n) = self.next_run(want)? else {
                    break;
                };
                rows += n;
                self.remaining -= n;
            }
        }
        while self.bookmarks.is_some() && rows < self.batch_size && self.remaining > 0 {
            let Some(found) = self.next_row()? else {
                break;
            };
            let n = match found {
                SlotRow::Here(r) => {
                    // the bookmark's page stays current for the next one
                    let Some(page) = self.current.take() else {
                        break;
                    };
                    let n = self.decode_one(&page, r);
                    self.current = Some(page);
                    n?
                }
                SlotRow::Moved(p, r) => self.decode_one(&p, r)?,
                SlotRow::Deleted => continue,
            };
            rows += n;
            self.remaining -= n;
        }
        if rows == 0 {
            return Ok(None);
        }
        let arrays = self.decoders.iter_mut().map(|d| d.finish()).collect();
        let opts = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
        Ok(Some(RecordBatch::try_new_with_options(
            self.schema.clone(),
            arrays,
            &opts,
        )?))
    }
}

impl Iterator for TableScan {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e.in_table(&self.table)))
            }
        }
    }
}
