//! `jetsql export 'archive/**/*.mdb' --to OUT`: every table of every file
//! of an archive, in a Hive layout ([`layout`]), on a pool of threads
//! (one file per thread at a time, all cores busy), resumable (a file
//! whose marker says its parts are complete and which has not changed
//! since is skipped), with one progress bar over the whole archive when
//! standard error is a terminal. A file that fails is reported and left
//! without a marker (the next run tries it again); the others go on.

mod layout;
mod marker;

use crate::export::{ExportFormat, Item, Writer};
use crate::session::{OpenRequest, open_database};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use jet_storage::ScanOptions;
use marker::Marker;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What an archive export did.
#[derive(Debug, Default)]
pub struct Summary {
    /// Files exported by this run.
    pub exported: usize,
    /// Files skipped: complete from an earlier run.
    pub skipped: usize,
    /// Files that failed, with the reason.
    pub failed: Vec<(PathBuf, String)>,
    /// Part files written by this run.
    pub parts: usize,
    /// Rows written by this run.
    pub rows: usize,
}

/// Exports the tables of every file of `files` (only `tables`, matched
/// ignoring case, when not empty) into `out` in `format`, on `jobs`
/// threads (the number of cores when 0). Opening a file never asks for
/// a password: the request's password is used for every file.
pub fn export_archive(
    files: &[PathBuf],
    out: &Path,
    format: ExportFormat,
    tables: &[String],
    req: &OpenRequest,
    jobs: usize,
) -> Result<Summary, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let values = layout::partition_values(files);
    let jobs = if jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        jobs
    }
    .min(files.len())
    .max(1);
    let req = OpenRequest::new(req.password.clone(), false);
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::with_draw_target(Some(files.len() as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "[{bar:30}] {pos}/{len} files, {msg} rows, {elapsed_precise} (eta {eta})",
        )
        .map_err(|e| e.to_string())?
        .progress_chars("=> "),
    );
    let next = AtomicUsize::new(0);
    let rows_total = AtomicUsize::new(0);
    let summary = Mutex::new(Summary::default());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(src) = files.get(i) else { break };
                    let marker_at = layout::marker_path(out, &values[i]);
                    let outcome = if Marker::complete(&marker_at, src).is_some() {
                        None
                    } else {
                        Some(
                            export_file(src, &values[i], out, format, tables, &req).and_then(
                                |done| {
                                    let m = Marker::of(src, done.clone())
                                        .map_err(|e| format!("{}: {e}", src.display()))?;
                                    m.write(&marker_at)
                                        .map_err(|e| format!("{}: {e}", marker_at.display()))?;
                                    Ok(done)
                                },
                            ),
                        )
                    };
                    let mut sum = summary.lock().unwrap_or_else(|e| e.into_inner());
                    match outcome {
                        None => sum.skipped += 1,
                        Some(Ok(done)) => {
                            let rows: usize = done.iter().map(|(_, r)| r).sum();
                            sum.exported += 1;
                            sum.parts += done.len();
                            sum.rows += rows;
                            let all = rows_total.fetch_add(rows, Ordering::SeqCst) + rows;
                            bar.set_message(all.to_string());
                        }
                        Some(Err(e)) => {
                            bar.suspend(|| eprintln!("{e}"));
                            sum.failed.push((src.clone(), e));
                        }
                    }
                    drop(sum);
                    bar.inc(1);
                }
            });
        }
    });
    bar.finish();
    if !bar.is_hidden() {
        eprintln!();
    }
    Ok(summary.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// Exports the tables of one source file; returns each table with its
/// rows. A part is written to `part-0.EXT.partial` and renamed when whole.
fn export_file(
    src: &Path,
    value: &str,
    out: &Path,
    format: ExportFormat,
    tables: &[String],
    req: &OpenRequest,
) -> Result<Vec<(String, usize)>, String> {
    let db = open_database(src, req)?;
    let names: Vec<String> = db
        .table_names()
        .into_iter()
        .filter(|n| tables.is_empty() || tables.iter().any(|t| t.eq_ignore_ascii_case(n)))
        .collect();
    let fail = |table: &str, e: &dyn std::fmt::Display| {
        format!(
            "{}: table {}: {e}",
            src.display(),
            jet_storage::error::printable(table)
        )
    };
    let mut done = Vec::new();
    for name in names {
        let t = db.table(&name).map_err(|e| fail(&name, &e))?;
        let path = layout::part_path(out, &name, value, format.extension());
        let dir = path.parent().unwrap_or(out);
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let partial = path.with_extension(format!("{}.partial", format.extension()));
        let complex = db.complex_columns(&t).map_err(|e| fail(&name, &e))?;
        let all: Vec<usize> = (0..t.schema().fields().len()).collect();
        let mut lists =
            jet_storage::read::complex::ListExpander::new(&db, &complex, &t.schema(), &all);
        let schema = match &lists {
            Some(l) => l.schema(),
            None => t.schema(),
        };
        let f =
            std::fs::File::create(&partial).map_err(|e| format!("{}: {e}", partial.display()))?;
        let mut w = Writer::new(format, f, &schema).map_err(|e| fail(&name, &e))?;
        let mut rows = 0usize;
        for b in t
            .scan(ScanOptions::default())
            .map_err(|e| fail(&name, &e))?
        {
            let b = b.map_err(|e| fail(&name, &e))?;
            let b = match &mut lists {
                Some(l) => l.expand(&b).map_err(|e| fail(&name, &e))?,
                None => b,
            };
            rows += b.num_rows();
            w.write(&Item::Batch(b)).map_err(|e| fail(&name, &e))?;
        }
        w.finish().map_err(|e| fail(&name, &e))?;
        std::fs::rename(&partial, &path).map_err(|e| format!("{}: {e}", path.display()))?;
        done.push((name, rows));
    }
    Ok(done)
}
