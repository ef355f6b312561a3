//! `jetsql dump` and `jetsql migrate`: a whole Access database — tables
//! with their types, NOT NULL, defaults and auto-numbers, primary keys,
//! indexes, enforced relationships and the data — as a SQL script for
//! SQLite, PostgreSQL, DuckDB or MySQL, or written straight into a new
//! SQLite file or a PostgreSQL database.
//!
//! Modules: [`schema`] reads the target-neutral model from the storage
//! catalog; [`types`] maps Access types per target (the table is in its
//! docs); [`dialect`] quotes names and literals; [`ddl`] writes the
//! schema statements; [`data`] reads rows as target-neutral values and
//! says which a target cannot hold; [`script`] writes a dump;
//! [`sqlite`] and [`postgres`] write into the databases; [`views`] turns
//! saved select queries into the target's SQL (migrate creates those the
//! target accepts as views; a dump lists the queries as comments).
//!
//! All or nothing: a SQLite target is built beside the path and renamed
//! into place, a PostgreSQL target is written in one transaction; values a
//! target cannot hold (NaN in SQLite, NUL characters in PostgreSQL text,
//! dates before 1000 in MySQL) are listed by table, column and row, and
//! the migration then writes nothing and fails. A dump still writes its
//! script (those values as NULL) and exits with failure.
//!
//! DuckDB is a `dump` target only: no DuckDB crate builds within the
//! project's CI budget; `jetsql export --format parquet` feeds DuckDB too.

pub mod data;
pub mod ddl;
pub mod dialect;
pub mod postgres;
pub mod schema;
pub mod script;
pub mod sqlite;
pub mod types;
pub mod views;

use crate::session::{OpenRequest, open_database};
use data::Problem;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use jet_storage::Database;
use std::io::{IsTerminal, Write};
use std::path::Path;
pub use types::Target;

/// Why a migration wrote nothing.
#[derive(Debug)]
pub enum Failure {
    /// Values the target cannot hold.
    Values(Vec<Problem>),
    /// Anything else, as a message.
    Other(String),
}

/// Most problem values listed one by one.
const SHOWN_PROBLEMS: usize = 50;

/// The message of failed values: the first ones, one a line, and a count.
pub fn describe_problems(problems: &[Problem], wrote_anyway: bool) -> String {
    let mut s = String::new();
    for p in problems.iter().take(SHOWN_PROBLEMS) {
        s.push_str(&format!("{p}\n"));
    }
    if problems.len() > SHOWN_PROBLEMS {
        s.push_str(&format!("… and {} more\n", problems.len() - SHOWN_PROBLEMS));
    }
    s.push_str(&format!(
        "{} value{} the target cannot hold{}",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        if wrote_anyway {
            " (written as NULL)"
        } else {
            "; nothing was written"
        }
    ));
    s
}

/// A progress bar over the data pages of every table, drawn on standard
/// error only when it is a terminal.
fn progress(db: &Database, model: &schema::Model) -> Result<ProgressBar, String> {
    if !std::io::stderr().is_terminal() {
        return Ok(ProgressBar::hidden());
    }
    let mut pages = 0u64;
    for t in &model.tables {
        let table = db.table(&t.name).map_err(|e| e.to_string())?;
        pages += table.data_pages().map_err(|e| e.to_string())?.len() as u64;
    }
    let bar = ProgressBar::with_draw_target(Some(pages), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} pages, {elapsed_precise}")
            .map_err(|e| e.to_string())?
            .progress_chars("=> "),
    );
    Ok(bar)
}

fn open(file: &Path, req: &OpenRequest) -> Result<(Database, schema::Model), String> {
    let db = open_database(file, req)?;
    let model = schema::read(&db).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok((db, model))
}

fn print_notes(notes: &[String]) {
    for n in notes {
        eprintln!("note: {}", n.lines().next().unwrap_or_default());
    }
}

/// `jetsql dump FILE --to TARGET [-o OUT]`: the script to standard output,
/// or to `out` (written beside and renamed when complete).
pub fn dump(
    file: &Path,
    target: Target,
    out: Option<&Path>,
    req: &OpenRequest,
) -> Result<(), String> {
    let (db, model) = open(file, req)?;
    let (model, renamed) = schema::for_target(&model, target);
    print_notes(&renamed);
    let bar = progress(&db, &model)?;
    let problems = match out {
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
            let p = script::dump(&db, &model, target, &mut w, &bar)?;
            w.flush().map_err(|e| e.to_string())?;
            p
        }
        Some(path) => {
            let partial = sqlite::partial_path(path);
            let f = std::fs::File::create(&partial)
                .map_err(|e| format!("{}: {e}", partial.display()))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            let written = script::dump(&db, &model, target, &mut w, &bar).and_then(|p| {
                let f = w.into_inner().map_err(|e| e.to_string())?;
                f.sync_all().map_err(|e| e.to_string())?;
                Ok(p)
            });
            match written {
                Ok(p) => {
                    std::fs::rename(&partial, path)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    p
                }
                Err(e) => {
                    let _ = std::fs::remove_file(&partial);
                    return Err(e);
                }
            }
        }
    };
    bar.finish_and_clear();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(describe_problems(&problems, true))
    }
}

/// `jetsql migrate FILE TARGET`: into a PostgreSQL database when TARGET is
/// a connection URL or string ([`postgres::is_postgres`]), else into a
/// new SQLite file at that path. Prints what was migrated.
pub fn migrate(file: &Path, target: &str, req: &OpenRequest) -> Result<String, String> {
    let (db, model) = open(file, req)?;
    let bar = progress(&db, &model)?;
    let started = std::time::Instant::now();
    let pg = postgres::is_postgres(target);
    let dialect = if pg { Target::Postgres } else { Target::Sqlite };
    let views = views::translate(file, req, dialect, &model.queries)?;
    let (model, renamed) = schema::for_target(&model, dialect);
    print_notes(&renamed);
    let result = if pg {
        postgres::migrate(&db, &model, &views, target, &bar)
    } else {
        sqlite::migrate(&db, &model, &views, Path::new(target), &bar)
    };
    bar.finish_and_clear();
    match result {
        Ok(notes) => {
            print_notes(&notes);
            let indexes: usize = model.tables.iter().map(|t| t.indexes.len()).sum();
            let (fks, _) = ddl::usable_foreign_keys(&model);
            Ok(format!(
                "{} tables, {} indexes, {} foreign keys migrated in {:.1?}",
                model.tables.len(),
                indexes,
                fks.len(),
                started.elapsed()
            ))
        }
        Err(Failure::Values(p)) => Err(describe_problems(&p, false)),
        Err(Failure::Other(e)) => Err(e),
    }
}
