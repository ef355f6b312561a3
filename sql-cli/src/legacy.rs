//! The storage-level subcommands kept from the first cut of the tool:
//! `tables`, `describe`, `scan` and `cat` read the file directly (no SQL).

use crate::session::OpenRequest;
use arrow_array::RecordBatch;
use clap::Subcommand;
use jet_storage::ScanOptions;
use std::io::Write;
use std::path::PathBuf;

/// The storage-level subcommands.
#[derive(Subcommand)]
pub enum Cmd {
    /// List the tables of a database with their row counts.
    Tables {
        /// Database file.
        file: PathBuf,
        /// Include system tables.
        #[arg(long)]
        system: bool,
    },
    /// Show a table as `\\d TABLE` does in the shell (columns, NOT NULL,
    /// defaults, indexes, keys, Design View properties), or a saved query.
    Describe {
        /// Database file.
        file: PathBuf,
        /// Table or saved query name (case-insensitive).
        table: String,
        /// Instead: the table definition as stored (TDEF page, column
        /// numbers and offsets, flags, real indexes), for format work.
        #[arg(long)]
        layout: bool,
    },
    /// Decode every column of a table to Arrow and print the row count (a
    /// full-scan benchmark without output cost).
    Scan {
        /// Database file.
        file: PathBuf,
        /// Table name.
        table: String,
        /// Use the memory-mapped page backend.
        #[arg(long)]
        mmap: bool,
    },
    /// Print the SQL of a database's saved queries (all of them, or the one
    /// named), each headed by a comment with its name and kind.
    Queries {
        /// Database file.
        file: PathBuf,
        /// One query's name (case-insensitive); none: every query.
        name: Option<String>,
        /// Include the hidden queries behind forms and reports (`~sq_…`).
        #[arg(long)]
        hidden: bool,
    },
    /// Write a table's rows to standard output.
    Cat {
        /// Database file.
        file: PathBuf,
        /// Table name.
        table: String,
        /// Output format.
        #[arg(long, default_value = "csv", value_parser = ["csv", "json"])]
        format: String,
        /// Stop after this many rows.
        #[arg(long)]
        limit: Option<usize>,
    },
}

/// An error that may cross threads.
type SendError = Box<dyn std::error::Error + Send + Sync>;

/// One batch as CSV rows without a header ([`crate::export::csv_rows`]) or
/// as JSON lines: each batch is formatted on its own, so the concatenation
/// equals one writer's output.
fn format_batch(b: &RecordBatch, json: bool) -> Result<Vec<u8>, SendError> {
    if !json {
        return Ok(crate::export::csv_rows(b)?);
    }
    let mut buf = Vec::with_capacity(b.num_rows() * 64);
    let mut w = arrow_json::LineDelimitedWriter::new(&mut buf);
    w.write(b)?;
    w.finish()?;
    Ok(buf)
}

/// Runs one storage-level subcommand, writing to standard output.
pub fn run(cmd: Cmd, req: &OpenRequest) -> Result<(), Box<dyn std::error::Error>> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match cmd {
        Cmd::Tables { file, system } => {
            let db = crate::session::open_database(&file, req)?;
            writeln!(out, "# {} ({})", file.display(), db.version())?;
            if db.protection().scheme != jet_storage::ProtectionScheme::Plain
                || db.protection().password
            {
                writeln!(out, "# protection: {}", db.protection())?;
            }
            let mut names = db.table_names();
            if system {
                names.extend(db.system_table_names());
            }
            for name in names {
                let t = db.table(&name)?;
                let mut rows = 0usize;
                for b in t.scan(ScanOptions {
                    projection: Some(vec![]),
                    ..Default::default()
                })? {
                    rows += b?.num_rows();
                }
                writeln!(out, "{name}\t{rows}")?;
            }
            for l in db.linked_tables() {
                writeln!(out, "{}\tlinked: {:?}", l.name, l.kind)?;
            }
        }
        Cmd::Queries { file, name, hidden } => {
            let db = crate::session::open_database(&file, req)?;
            let queries = match &name {
                Some(n) => vec![db.query(n)?],
                None => db
                    .queries()?
                    .into_iter()
                    .filter(|q| hidden || !q.hidden)
                    .collect(),
            };
            for (i, q) in queries.iter().enumerate() {
                if i > 0 {
                    writeln!(out)?;
                }
                writeln!(out, "-- {} ({} query)", q.name, q.kind)?;
                match &q.problem {
                    None => writeln!(out, "{}", q.sql)?,
                    Some(p) => writeln!(out, "-- cannot be shown: {}", p.what)?,
                }
            }
        }
        Cmd::Describe { file, table, .. } => {
            let db = crate::session::open_database(&file, req)?;
            let t = db.table(&table)?;
            writeln!(
                out,
                "# TDEF page {}, {} rows stated",
                t.def().page,
                t.def().stated_rows
            )?;
            for (c, f) in t.def().columns.iter().zip(t.schema().fields()) {
                writeln!(
                    out,
                    "{}\t{}({})\t{}\tcol {} var {} fixed {} flags {:#x} ext {:#x} prec {} scale {}",
                    c.name,
                    c.jet_type.name(),
                    c.length,
                    f.data_type(),
                    c.col_num,
                    c.var_index,
                    c.fixed_offset,
                    c.flags,
                    c.ext_flags,
                    c.precision,
                    c.scale
                )?;
            }
            for (n, r) in t.def().real_indexes.iter().enumerate() {
                writeln!(
                    out,
                    "real index {n}: key {:?} root page {} flags {:#04x}",
                    r.key, r.root_page, r.flags
                )?;
            }
            for i in &t.def().indexes {
                writeln!(
                    out,
                    "index {:?} kind {:?} real {}",
                    i.name, i.kind, i.real_index
                )?;
            }
        }
        Cmd::Scan { file, table, mmap } => {
            let backend = if mmap {
                jet_storage::Backend::Mmap
            } else {
                jet_storage::Backend::File
            };
            let options = jet_storage::OpenOptions {
                backend,
                ..crate::session::open_options(req, &file)
            };
            let db = jet_storage::Database::open(&file, options)?;
            let t = db.table(&table)?;
            let start = std::time::Instant::now();
            let mut rows = 0usize;
            for b in t.scan(ScanOptions::default())? {
                rows += b?.num_rows();
            }
            let secs = start.elapsed().as_secs_f64();
            writeln!(
                out,
                "{rows} rows in {secs:.3} s ({:.0} rows/s), {} page reads",
                rows as f64 / secs,
                db.pages_read()
            )?;
        }
        Cmd::Cat {
            file,
            table,
            format,
            limit,
        } => {
            let db = crate::session::open_database(&file, req)?;
            let t = db.table(&table)?;
            let opts = ScanOptions {
                limit,
                ..Default::default()
            };
            let json = format == "json";
            if !json {
                out.write_all(&crate::export::csv_header(&t.schema())?)?;
            }
            // batches are decoded and formatted on every core, and written
            // in page order
            jet_storage::read::parallel::scan_ordered(
                &t,
                &opts,
                jet_storage::read::parallel::Parallel::default(),
                |b| format_batch(&b, json),
                |chunks, _pages| {
                    for c in chunks {
                        out.write_all(&c)?;
                    }
                    Ok::<(), SendError>(())
                },
            )
            .map_err(|e| e as Box<dyn std::error::Error>)?;
        }
    }
    out.flush()?;
    Ok(())
}
