//! `jetsql migrate FILE TARGET.sqlite`: the database written into a new
//! SQLite file. The file is built beside the target under a temporary
//! name and renamed to the target when everything is in, so a failure or
//! a kill never leaves a target behind; an existing target is refused.

use super::data::{self, Problem, TargetRows, Value};
use super::ddl;
use super::schema::{Model, TableModel};
use super::types::Target;
use super::views::ViewSql;
use datafusion::arrow::array::RecordBatch;
use jet_storage::Database;
use std::path::{Path, PathBuf};

const T: Target = Target::Sqlite;

/// Rows one execution of the multi-row INSERT carries: SQLite runs its
/// program once for them (one cursor opened, one statement reset) instead
/// of once a row. At most [`MAX_PARAMETERS`] values in all.
const ROWS_PER_INSERT: usize = 64;

/// SQLite's bound on a statement's parameters (SQLITE_MAX_VARIABLE_NUMBER
/// of the bundled library).
const MAX_PARAMETERS: usize = 32_766;

/// Binds `v` to parameter `i` (from 1): numbers as numbers, Currency,
/// Decimal and dates as text written into `scratch` (SQLite copies a
/// bound text), text and bytes borrowed.
fn bind(
    stmt: &mut rusqlite::Statement<'_>,
    i: usize,
    v: Value<'_>,
    scratch: &mut String,
) -> rusqlite::Result<()> {
    match v {
        Value::Null => stmt.raw_bind_parameter(i, rusqlite::types::Null),
        Value::Bool(b) => stmt.raw_bind_parameter(i, i64::from(b)),
        Value::Int(x) => stmt.raw_bind_parameter(i, x),
        Value::F32(x) => stmt.raw_bind_parameter(i, f64::from(x)),
        Value::F64(x) => stmt.raw_bind_parameter(i, x),
        Value::Dec(u, s) => {
            scratch.clear();
            data::write_decimal(scratch, u, s);
            stmt.raw_bind_parameter(i, scratch.as_str())
        }
        Value::Micros(m) => {
            scratch.clear();
            if data::write_timestamp(scratch, m) {
                stmt.raw_bind_parameter(i, scratch.as_str())
            } else {
                stmt.raw_bind_parameter(i, rusqlite::types::Null)
            }
        }
        Value::Text(s) => stmt.raw_bind_parameter(i, s),
        Value::Bytes(b) => stmt.raw_bind_parameter(i, b),
    }
}

/// The prepared INSERTs of one table: one row, and [`ROWS_PER_INSERT`]
/// rows when that many fit SQLite's parameter bound.
struct Inserter<'c> {
    one: rusqlite::Statement<'c>,
    many: Option<rusqlite::Statement<'c>>,
    scratch: String,
}

impl<'c> Inserter<'c> {
    fn new(tx: &'c rusqlite::Transaction<'_>, t: &TableModel) -> Result<Self, String> {
        let prepare = |rows: usize| {
            let row = format!("({})", vec!["?"; t.columns.len()].join(", "));
            tx.prepare(&format!(
                "INSERT INTO {} ({}) VALUES {}",
                super::dialect::ident(T, &t.name),
                ddl::insert_columns(T, t),
                vec![row; rows].join(", ")
            ))
            .map_err(|e| format!("{}: {}", t.name, sql_err(e)))
        };
        let many = if t.columns.len() * ROWS_PER_INSERT <= MAX_PARAMETERS {
            Some(prepare(ROWS_PER_INSERT)?)
        } else {
            None
        };
        Ok(Inserter {
            one: prepare(1)?,
            many,
            scratch: String::new(),
        })
    }

    /// Inserts the rows of one batch (rows `first_row + 1 …` of the
    /// table): whole runs of [`ROWS_PER_INSERT`] through the multi-row
    /// statement, the rest one by one. A refused multi-row INSERT changes
    /// nothing (SQLite undoes the statement), so its rows are tried one by
    /// one to name the row SQLite refuses.
    fn insert_batch(
        &mut self,
        t: &TableModel,
        b: &RecordBatch,
        first_row: u64,
        problems: &mut Vec<Problem>,
    ) -> Result<(), String> {
        let rows = TargetRows {
            target: T,
            table: t,
            first_row,
        };
        let cells = data::table_cells(t, b);
        let width = t.columns.len();
        let n = b.num_rows();
        let mut r = 0;
        while r < n {
            if let Some(many) = self.many.as_mut().filter(|_| n - r >= ROWS_PER_INSERT) {
                for k in 0..ROWS_PER_INSERT {
                    for (j, (c, cells)) in t.columns.iter().zip(&cells).enumerate() {
                        let v = rows.check(c, r + k, cells.value(r + k), problems);
                        bind(many, k * width + j + 1, v, &mut self.scratch).map_err(sql_err)?;
                    }
                }
                if many.raw_execute().is_err() {
                    // the rows again, one by one, for the refused one's
                    // number (their problems are already counted)
                    let mut again = Vec::new();
                    for k in 0..ROWS_PER_INSERT {
                        self.insert_row(t, &rows, &cells, r + k, &mut again)?;
                    }
                }
                r += ROWS_PER_INSERT;
            } else {
                self.insert_row(t, &rows, &cells, r, problems)?;
                r += 1;
            }
        }
        Ok(())
    }

    /// Inserts row `r` of a batch through the one-row statement.
    fn insert_row(
        &mut self,
        t: &TableModel,
        rows: &TargetRows<'_>,
        cells: &[data::Cells<'_>],
        r: usize,
        problems: &mut Vec<Problem>,
    ) -> Result<(), String> {
        for (j, (c, cells)) in t.columns.iter().zip(cells).enumerate() {
            let v = rows.check(c, r, cells.value(r), problems);
            bind(&mut self.one, j + 1, v, &mut self.scratch).map_err(sql_err)?;
        }
        self.one.raw_execute().map(|_| ()).map_err(|e| {
            format!(
                "{} row {}: {}",
                t.name,
                rows.first_row + r as u64 + 1,
                sql_err(e)
            )
        })
    }
}

/// The page size of the SQLite files migrate writes.
const PAGE_SIZE: usize = 16_384;

/// Turns off SQLite's process-wide allocation statistics before the
/// process's first connection: with them on, every allocation SQLite
/// makes (one per bound text value) takes a global mutex. Nothing here
/// reads the statistics (`sqlite3_memory_used`, the soft heap limit).
fn without_memory_statistics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: sqlite3_config must not run beside any other SQLite call
        // and only before SQLite initializes. Every use of SQLite in this
        // program goes through `build`, which calls this first, and the
        // Once makes any other thread's `build` wait here until it has
        // run; if SQLite were already initialized the call would return
        // SQLITE_MISUSE and change nothing. The variadic argument is the
        // C int SQLITE_CONFIG_MEMSTATUS takes.
        unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::ffi::c_int,
            );
        }
    });
}

/// The temporary file a migration into `target` builds.
pub fn partial_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.jetsql-partial"))
}

fn sql_err(e: rusqlite::Error) -> String {
    format!("SQLite: {e}")
}

/// Builds the SQLite database at `partial`.
fn build(
    db: &Database,
    model: &Model,
    views: &[ViewSql],
    partial: &Path,
    progress: &indicatif::ProgressBar,
    notes: &mut Vec<String>,
) -> Result<Vec<Problem>, String> {
    without_memory_statistics();
    let mut conn = rusqlite::Connection::open(partial).map_err(sql_err)?;
    // 16 KiB pages: a quarter of the b-tree pages (and their balancing)
    // of the default 4 KiB for the same rows; the index sorts on every core
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    conn.execute_batch(&format!(
        "PRAGMA page_size = {PAGE_SIZE}; PRAGMA threads = {cores};"
    ))
    .map_err(sql_err)?;
    // the file is renamed into place only when complete: no journal
    // needed; the foreign keys are checked once, after the data is in
    // (the bundled library enforces them by default)
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF;",
    )
    .map_err(sql_err)?;
    let tx = conn.transaction().map_err(sql_err)?;
    let (fks, fk_notes) = ddl::usable_foreign_keys(model);
    notes.extend(fk_notes);
    for t in &model.tables {
        tx.execute_batch(&ddl::create_table(T, t, &fks, true, notes))
            .map_err(|e| format!("{}: {}", t.name, sql_err(e)))?;
    }
    let mut problems = Vec::new();
    for t in &model.tables {
        progress.set_prefix(t.name.clone());
        let table = db.table(&t.name).map_err(|e| e.to_string())?;
        let mut inserter = Inserter::new(&tx, t)?;
        let mut rows = 0u64;
        let mut max = None;
        data::scan(&table, |b, pages| {
            inserter.insert_batch(t, b, rows, &mut problems)?;
            rows += b.num_rows() as u64;
            max = max.max(data::max_auto(t, b));
            progress.inc(pages as u64);
            Ok(())
        })?;
        if let Some(next) = t.next_auto {
            for s in ddl::carry_counter(T, t, next.max(max.unwrap_or(0) + 1)) {
                tx.execute_batch(&s).map_err(sql_err)?;
            }
        }
    }
    let mut names = ddl::IndexNames::new(T);
    for t in &model.tables {
        for s in ddl::create_indexes(T, t, &mut names) {
            tx.execute_batch(&s)
                .map_err(|e| format!("{}: {}", t.name, sql_err(e)))?;
        }
    }
    check_foreign_keys(&tx)?;
    create_views(&tx, views, notes);
    tx.commit().map_err(sql_err)?;
    conn.execute_batch("PRAGMA journal_mode = DELETE;")
        .map_err(sql_err)?;
    drop(conn);
    std::fs::File::open(partial)
        .and_then(|f| f.sync_all())
        .map_err(|e| format!("{}: {e}", partial.display()))?;
    Ok(problems)
}

/// Migrates `db` into a new SQLite file `target`. Returns the notes on
/// what was not migrated; values SQLite cannot hold are an error listing
/// them (and no target is written).
pub fn migrate(
    db: &Database,
    model: &Model,
    views: &[ViewSql],
    target: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<Vec<String>, super::Failure> {
    if target.exists() {
        return Err(super::Failure::Other(format!(
            "{}: already exists (migrate writes a new SQLite file)",
            target.display()
        )));
    }
    let partial = partial_path(target);
    let _ = std::fs::remove_file(&partial);
    let mut notes = Vec::new();
    let result = build(db, model, views, &partial, progress, &mut notes);
    match result {
        Ok(problems) if problems.is_empty() => {
            std::fs::rename(&partial, target).map_err(|e| {
                let _ = std::fs::remove_file(&partial);
                super::Failure::Other(format!("{}: {e}", target.display()))
            })?;
            Ok(notes)
        }
        Ok(problems) => {
            let _ = std::fs::remove_file(&partial);
            Err(super::Failure::Values(problems))
        }
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            Err(super::Failure::Other(e))
        }
    }
}

/// Creates the views SQLite accepts (a view naming another is tried
/// again once that one exists); a view whose SELECT SQLite cannot compile
/// is dropped again and noted.
fn create_views(tx: &rusqlite::Transaction<'_>, views: &[ViewSql], notes: &mut Vec<String>) {
    let mut pending: Vec<(&ViewSql, String)> = Vec::new();
    for v in views {
        match &v.select {
            Ok(_) => pending.push((v, String::new())),
            Err(why) => notes.push(super::views::note(v, why)),
        }
    }
    loop {
        let mut progress = false;
        let mut still = Vec::new();
        for (v, _) in pending {
            let name = super::dialect::ident(T, &v.name);
            let select = v.select.as_deref().unwrap_or_default();
            let created = tx
                .execute_batch(&format!("CREATE VIEW {name} AS {select}"))
                .and_then(|()| tx.prepare(&format!("SELECT * FROM {name}")).map(|_| ()));
            match created {
                Ok(()) => progress = true,
                Err(e) => {
                    let _ = tx.execute_batch(&format!("DROP VIEW IF EXISTS {name}"));
                    still.push((v, sql_err(e)));
                }
            }
        }
        pending = still;
        if !progress || pending.is_empty() {
            break;
        }
    }
    for (v, why) in pending {
        notes.push(super::views::note(v, &why));
    }
}

/// Fails naming the first rows that break a foreign key (Access enforced
/// it, so a file whose rows break one is damaged).
fn check_foreign_keys(tx: &rusqlite::Transaction<'_>) -> Result<(), String> {
    let mut stmt = tx
        .prepare("SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 5")
        .map_err(sql_err)?;
    let bad: Vec<String> = stmt
        .query_map([], |r| {
            Ok(format!(
                "{} (row {}) references a missing row of {}",
                r.get::<_, String>(0)?,
                r.get::<_, Option<i64>>(1)?.unwrap_or_default(),
                r.get::<_, String>(2)?
            ))
        })
        .map_err(sql_err)?
        .collect::<Result<_, _>>()
        .map_err(sql_err)?;
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!("rows break a relationship: {}", bad.join("; ")))
    }
}
