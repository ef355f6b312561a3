//! `jetsql export`: every user table of a database to one file each, in
//! Parquet, Arrow IPC or CSV, with a progress bar (data pages and rows)
//! when standard error is a terminal. Complex columns (attachments,
//! multi-value lists, version histories) are written as the provider
//! types them: Arrow lists in Parquet and Arrow files, text in CSV (see
//! [`crate::lists_text`]).

use crate::session::{OpenRequest, open_database};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::parquet::arrow::ArrowWriter;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use jet_storage::{Database, ScanOptions};
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

/// File formats of `jetsql export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Apache Parquet (`.parquet`), the Arrow schema embedded.
    Parquet,
    /// Arrow IPC file (`.arrow`).
    Arrow,
    /// CSV with a header line (`.csv`).
    Csv,
}

impl ExportFormat {
    /// File extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Parquet => "parquet",
            ExportFormat::Arrow => "arrow",
            ExportFormat::Csv => "csv",
        }
    }
}

/// A file name for table `name`: path separators and control characters
/// become `_`, so every table lands inside the target directory.
pub fn file_name(name: &str, format: ExportFormat) -> String {
    let mut stem: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c == ':' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if stem.is_empty() || stem == "." || stem == ".." {
        stem = format!("_{stem}");
    }
    format!("{stem}.{}", format.extension())
}

/// The rows of `b` as CSV lines without a header line: batches formatted
/// one by one concatenate to what one writer makes of them all (after its
/// header line), so they can be formatted on several threads.
pub(crate) fn csv_rows(b: &RecordBatch) -> Result<Vec<u8>, ArrowError> {
    let mut buf = Vec::with_capacity(b.num_rows() * 64);
    datafusion::arrow::csv::WriterBuilder::new()
        .with_header(false)
        .build(&mut buf)
        .write(b)?;
    Ok(buf)
}

/// The CSV header line of `schema`.
pub(crate) fn csv_header(schema: &SchemaRef) -> Result<Vec<u8>, ArrowError> {
    let mut buf = Vec::new();
    // a writer writes the header before its first batch, even an empty one
    datafusion::arrow::csv::WriterBuilder::new()
        .with_header(true)
        .build(&mut buf)
        .write(&RecordBatch::new_empty(schema.clone()))?;
    Ok(buf)
}

/// An error that may cross the scan's threads.
type SendError = Box<dyn std::error::Error + Send + Sync>;

pub(crate) enum Writer {
    Parquet(ArrowWriter<BufWriter<File>>),
    Arrow(datafusion::arrow::ipc::writer::FileWriter<BufWriter<File>>),
    /// CSV lines already formatted (the header written at creation).
    Csv(BufWriter<File>),
}

/// A batch, or its rows already formatted as CSV on a scan worker.
pub(crate) enum Item {
    Batch(RecordBatch),
    Csv(Vec<u8>),
}

impl Writer {
    /// A writer of `format` into `file` for batches of `schema`.
    pub(crate) fn new(
        format: ExportFormat,
        file: File,
        schema: &SchemaRef,
    ) -> Result<Writer, String> {
        let out = BufWriter::with_capacity(1 << 20, file);
        Ok(match format {
            ExportFormat::Parquet => Writer::Parquet(
                ArrowWriter::try_new(out, schema.clone(), None).map_err(|e| e.to_string())?,
            ),
            ExportFormat::Arrow => Writer::Arrow(
                datafusion::arrow::ipc::writer::FileWriter::try_new(out, schema)
                    .map_err(|e| e.to_string())?,
            ),
            ExportFormat::Csv => {
                let mut out = out;
                let text = crate::lists_text::text_schema(schema);
                let header = csv_header(&text).map_err(|e| e.to_string())?;
                out.write_all(&header).map_err(|e| e.to_string())?;
                Writer::Csv(out)
            }
        })
    }

    /// Writes one batch (or its CSV lines).
    pub(crate) fn write(&mut self, item: &Item) -> Result<(), String> {
        match (self, item) {
            (Writer::Parquet(w), Item::Batch(b)) => w.write(b).map_err(|e| e.to_string()),
            (Writer::Arrow(w), Item::Batch(b)) => w.write(b).map_err(|e| e.to_string()),
            (Writer::Csv(w), Item::Csv(bytes)) => w.write_all(bytes).map_err(|e| e.to_string()),
            (Writer::Csv(w), Item::Batch(b)) => {
                let b = crate::lists_text::lists_as_text(b).map_err(|e| e.to_string())?;
                let bytes = csv_rows(&b).map_err(|e| e.to_string())?;
                w.write_all(&bytes).map_err(|e| e.to_string())
            }
            (_, Item::Csv(_)) => Err("CSV lines given to a Parquet or Arrow writer".into()),
        }
    }

    /// Ends the file and flushes it to disk.
    pub(crate) fn finish(self) -> Result<(), String> {
        let flush = |mut w: BufWriter<File>| -> Result<(), String> {
            w.flush().map_err(|e| e.to_string())?;
            w.get_ref().sync_all().map_err(|e| e.to_string())
        };
        match self {
            Writer::Parquet(w) => flush(w.into_inner().map_err(|e| e.to_string())?),
            Writer::Arrow(mut w) => {
                w.finish().map_err(|e| e.to_string())?;
                flush(w.into_inner().map_err(|e: ArrowError| e.to_string())?)
            }
            Writer::Csv(w) => flush(w),
        }
    }
}

/// What one table's export wrote.
#[derive(Debug, Clone)]
pub struct Exported {
    /// Table name.
    pub table: String,
    /// Rows written.
    pub rows: usize,
    /// The file written.
    pub path: PathBuf,
}

/// Resolves the requested tables (all user tables when `tables` is empty;
/// names match ignoring case).
fn table_list(db: &Database, tables: &[String]) -> Result<Vec<String>, String> {
    let all = db.table_names();
    if tables.is_empty() {
        return Ok(all);
    }
    tables
        .iter()
        .map(|t| {
            all.iter()
                .find(|n| *n == t)
                .or_else(|| all.iter().find(|n| n.eq_ignore_ascii_case(t)))
                .cloned()
                .ok_or_else(|| format!("no table {t:?} in the database"))
        })
        .collect()
}

/// Exports the tables of `file` (all user tables when `tables` is empty)
/// into `dir`, one file each, written to `NAME.ext.partial` and renamed
/// when complete. Progress goes to standard error only when it is a
/// terminal.
pub fn export(
    file: &Path,
    dir: &Path,
    format: ExportFormat,
    tables: &[String],
    req: &OpenRequest,
) -> Result<Vec<Exported>, String> {
    let db = open_database(file, req)?;
    let names = table_list(&db, tables)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut plan = Vec::new();
    let mut total_pages = 0u64;
    for name in &names {
        let t = db.table(name).map_err(|e| e.to_string())?;
        let pages = t.data_pages().map_err(|e| e.to_string())?;
        total_pages += pages.len() as u64;
        plan.push(t);
    }
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(total_pages), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} pages, {msg} rows, {elapsed_precise}",
        )
        .map_err(|e| e.to_string())?
        .progress_chars("=> "),
    );
    let mut done = Vec::new();
    let mut all_rows = 0usize;
    for t in plan {
        let name = t.name().to_string();
        bar.set_prefix(name.clone());
        let path = dir.join(file_name(&name, format));
        let partial = path.with_extension(format!("{}.partial", format.extension()));
        let shown = jet_storage::error::printable(&name);
        // complex ids become lists (reading the hidden tables) only for a
        // table that has complex columns
        let complex = db
            .complex_columns(&t)
            .map_err(|e| format!("{shown}: {e}"))?;
        let all: Vec<usize> = (0..t.schema().fields().len()).collect();
        let mut lists =
            jet_storage::read::complex::ListExpander::new(&db, &complex, &t.schema(), &all);
        let schema = match &lists {
            Some(l) => l.schema(),
            None => t.schema(),
        };
        let expanding = lists.is_some();
        let f = File::create(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
        let mut w = Writer::new(format, f, &schema)?;
        let mut rows = 0usize;
        // pages are decoded (and CSV formatted) on every core, and written
        // in page order
        jet_storage::read::parallel::scan_ordered(
            &t,
            &ScanOptions::default(),
            jet_storage::read::parallel::Parallel::default(),
            |b| {
                let n = b.num_rows();
                Ok::<_, SendError>(match format {
                    ExportFormat::Csv if !expanding => (n, Item::Csv(csv_rows(&b)?)),
                    _ => (n, Item::Batch(b)),
                })
            },
            |items, run_pages| {
                for (n, item) in items {
                    rows += n;
                    let item = match (&mut lists, item) {
                        (Some(l), Item::Batch(b)) => Item::Batch(l.expand(&b)?),
                        (_, item) => item,
                    };
                    w.write(&item).map_err(SendError::from)?;
                }
                bar.set_message((all_rows + rows).to_string());
                bar.inc(run_pages as u64);
                Ok(())
            },
        )
        .map_err(|e| format!("{shown}: {e}"))?;
        w.finish().map_err(|e| format!("{shown}: {e}"))?;
        std::fs::rename(&partial, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        all_rows += rows;
        done.push(Exported {
            table: name,
            rows,
            path,
        });
    }
    bar.set_prefix(format!("{} tables", done.len()));
    bar.set_message(all_rows.to_string());
    bar.finish();
    if !bar.is_hidden() {
        // End the bar's line before the file list.
        eprintln!();
    }
    Ok(done)
}
