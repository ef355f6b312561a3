//! `jetsql export`: every user table of a database to one file each, in
//! Parquet, Arrow IPC or CSV, with a progress bar (data pages and rows)
//! when standard error is a terminal.

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

/// Data pages scanned per progress step.
const PAGES_PER_STEP: usize = 64;

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

enum Writer {
    Parquet(ArrowWriter<BufWriter<File>>),
    Arrow(datafusion::arrow::ipc::writer::FileWriter<BufWriter<File>>),
    Csv(datafusion::arrow::csv::Writer<BufWriter<File>>),
}

impl Writer {
    fn new(format: ExportFormat, file: File, schema: &SchemaRef) -> Result<Writer, String> {
        let out = BufWriter::with_capacity(1 << 20, file);
        Ok(match format {
            ExportFormat::Parquet => Writer::Parquet(
                ArrowWriter::try_new(out, schema.clone(), None).map_err(|e| e.to_string())?,
            ),
            ExportFormat::Arrow => Writer::Arrow(
                datafusion::arrow::ipc::writer::FileWriter::try_new(out, schema)
                    .map_err(|e| e.to_string())?,
            ),
            ExportFormat::Csv => Writer::Csv(
                datafusion::arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(out),
            ),
        })
    }

    fn write(&mut self, b: &RecordBatch) -> Result<(), String> {
        match self {
            Writer::Parquet(w) => w.write(b).map_err(|e| e.to_string()),
            Writer::Arrow(w) => w.write(b).map_err(|e| e.to_string()),
            Writer::Csv(w) => w.write(b).map_err(|e| e.to_string()),
        }
    }

    fn finish(self, schema: &SchemaRef) -> Result<(), String> {
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
            Writer::Csv(mut w) => {
                // A table without rows still gets its header line.
                w.write(&RecordBatch::new_empty(schema.clone()))
                    .map_err(|e| e.to_string())?;
                flush(w.into_inner())
            }
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
        plan.push((t, pages));
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
    for (t, pages) in plan {
        let name = t.name().to_string();
        bar.set_prefix(name.clone());
        let path = dir.join(file_name(&name, format));
        let partial = path.with_extension(format!("{}.partial", format.extension()));
        let schema = t.schema();
        let f = File::create(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
        let mut w = Writer::new(format, f, &schema)?;
        let mut rows = 0usize;
        for chunk in pages.chunks(PAGES_PER_STEP) {
            let (Some(first), Some(last)) = (chunk.first(), chunk.last()) else {
                continue;
            };
            let scan = t
                .scan(ScanOptions {
                    page_range: Some(*first..last.saturating_add(1)),
                    ..Default::default()
                })
                .map_err(|e| format!("{name}: {e}"))?;
            for b in scan {
                let b = b.map_err(|e| format!("{name}: {e}"))?;
                rows += b.num_rows();
                bar.set_message((all_rows + rows).to_string());
                w.write(&b).map_err(|e| format!("{name}: {e}"))?;
            }
            bar.inc(chunk.len() as u64);
        }
        w.finish(&schema).map_err(|e| format!("{name}: {e}"))?;
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
