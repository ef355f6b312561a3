//! `jetsql`: inspect and export Microsoft Access databases.
//!
//! This first cut lists tables and schemas and dumps tables as CSV or JSON
//! lines; the SQL REPL on DataFusion builds on the same storage crate.

use clap::{Parser, Subcommand};
use jet_storage::{Database, OpenOptions, ScanOptions};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "jetsql",
    version,
    about = "Query and export Microsoft Access (.mdb/.accdb) databases"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the tables of a database with their row counts.
    Tables {
        /// Database file.
        file: PathBuf,
        /// Include system tables.
        #[arg(long)]
        system: bool,
    },
    /// Show a table's columns and indexes.
    Describe {
        /// Database file.
        file: PathBuf,
        /// Table name.
        table: String,
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
    /// Recover a database after a crash: roll back or finish the
    /// transaction its journal (`FILE.jetjournal`) records.
    Recover {
        /// Database file.
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jetsql: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match cli.cmd {
        Cmd::Tables { file, system } => {
            let db = Database::open(&file, OpenOptions::default())?;
            writeln!(out, "# {} ({})", file.display(), db.version())?;
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
        Cmd::Describe { file, table } => {
            let db = Database::open(&file, OpenOptions::default())?;
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
            let db = Database::open(
                &file,
                OpenOptions {
                    backend,
                    ..Default::default()
                },
            )?;
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
            let db = Database::open(&file, OpenOptions::default())?;
            let t = db.table(&table)?;
            let scan = t.scan(ScanOptions {
                limit,
                ..Default::default()
            })?;
            if format == "json" {
                let mut w = arrow_json::LineDelimitedWriter::new(&mut out);
                for b in scan {
                    w.write(&b?)?;
                }
                w.finish()?;
            } else {
                let mut w = arrow_csv::WriterBuilder::new()
                    .with_header(true)
                    .build(&mut out);
                for b in scan {
                    w.write(&b?)?;
                }
            }
        }
        Cmd::Recover { file } => {
            let outcome = jet_storage::journal::recover(&file)?;
            writeln!(out, "{}: {outcome:?}", file.display())?;
        }
    }
    out.flush()?;
    Ok(())
}
