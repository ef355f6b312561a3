//! The `jetdb` crate (a Rust Access reader on crates.io) doing the same work
//! as jetsql, for the side-by-side comparison (`benches/compare.py`).
//!
//! `cargo run --release -p jet-benches --features examples --example jetdb_scan -- MODE FILE TABLE`
//!
//! - `scan`: read every row of TABLE into jetdb's `Value`s, one row at a time
//!   (its streaming `TableRows` API), and count them;
//! - `csv`: export TABLE as CSV to standard output with `jetdb::write_csv`.
//!
//! Prints `rows=<n> secs=<s>` on standard error; `secs` runs from opening the
//! file to the last row (process start-up excluded).

use jetdb::{CsvOptions, PageReader, TableRows, calculated_column_types, read_catalog};
use jetdb::{read_table_def, write_csv};
use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

fn run(mode: &str, file: &str, table: &str) -> Result<usize, Box<dyn std::error::Error>> {
    let mut reader = PageReader::open(file)?;
    let catalog = read_catalog(&mut reader)?;
    let entry = jetdb::find_table(&catalog, table)?;
    let def = read_table_def(&mut reader, &entry.name, entry.table_page)?;
    match mode {
        "scan" => {
            let calculated = calculated_column_types(&mut reader, &def);
            let mut rows = TableRows::new(&def, &calculated);
            let mut n = 0usize;
            while let Some(row) = rows.next_row(&mut reader)? {
                std::hint::black_box(&row.values);
                n += 1;
            }
            Ok(n)
        }
        "csv" => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
            let skipped = write_csv(
                &mut reader,
                &catalog,
                &def,
                &CsvOptions::default(),
                &mut out,
                None,
            )?;
            out.flush()?;
            if skipped > 0 {
                eprintln!("jetdb_scan: {skipped} rows skipped");
            }
            Ok(0)
        }
        other => Err(format!("unknown mode {other:?} (scan|csv)").into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, file, table] = args.as_slice() else {
        eprintln!("usage: jetdb_scan scan|csv FILE TABLE");
        return ExitCode::from(2);
    };
    let start = Instant::now();
    match run(mode, file, table) {
        Ok(rows) => {
            eprintln!("rows={rows} secs={:.6}", start.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("jetdb_scan: {e}");
            ExitCode::FAILURE
        }
    }
}
