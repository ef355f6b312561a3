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
use rusqlite::types::{ToSqlOutput, ValueRef};
use std::path::{Path, PathBuf};

const T: Target = Target::Sqlite;

/// One bound parameter.
enum Param<'a> {
    Borrowed(ValueRef<'a>),
    Text(String),
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match self {
            Param::Borrowed(v) => ToSqlOutput::Borrowed(*v),
            Param::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
    }
}

fn param<'a>(v: &Value<'a>) -> Param<'a> {
    match *v {
        Value::Null => Param::Borrowed(ValueRef::Null),
        Value::Bool(b) => Param::Borrowed(ValueRef::Integer(i64::from(b))),
        Value::Int(i) => Param::Borrowed(ValueRef::Integer(i)),
        Value::F32(x) => Param::Borrowed(ValueRef::Real(f64::from(x))),
        Value::F64(x) => Param::Borrowed(ValueRef::Real(x)),
        Value::Dec(u, s) => Param::Text(data::decimal_text(u, s)),
        Value::Micros(m) => match data::timestamp_text(m) {
            Some(t) => Param::Text(t),
            None => Param::Borrowed(ValueRef::Null),
        },
        Value::Text(s) => Param::Borrowed(ValueRef::Text(s.as_bytes())),
        Value::Bytes(b) => Param::Borrowed(ValueRef::Blob(b)),
    }
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

/// Inserts the rows of one batch.
fn insert_batch(
    stmt: &mut rusqlite::Statement<'_>,
    t: &TableModel,
    b: &RecordBatch,
    first_row: u64,
    problems: &mut Vec<Problem>,
) -> Result<(), String> {
    let mut params: Vec<Param<'_>> = Vec::with_capacity(t.columns.len());
    let rows = TargetRows {
        target: T,
        table: t,
        first_row,
    };
    for r in 0..b.num_rows() {
        params.clear();
        for c in &t.columns {
            params.push(param(&rows.cell(b, c, r, problems)));
        }
        stmt.execute(rusqlite::params_from_iter(params.iter()))
            .map_err(|e| {
                format!(
                    "{} row {}: {}",
                    t.name,
                    first_row + r as u64 + 1,
                    sql_err(e)
                )
            })?;
    }
    Ok(())
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
    let mut conn = rusqlite::Connection::open(partial).map_err(sql_err)?;
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
        tx.execute_batch(&ddl::create_table(T, t, &fks, notes))
            .map_err(|e| format!("{}: {}", t.name, sql_err(e)))?;
    }
    let mut problems = Vec::new();
    for t in &model.tables {
        progress.set_prefix(t.name.clone());
        let table = db.table(&t.name).map_err(|e| e.to_string())?;
        let marks = vec!["?"; t.columns.len()].join(", ");
        let mut stmt = tx
            .prepare(&format!(
                "INSERT INTO {} ({}) VALUES ({marks})",
                super::dialect::ident(T, &t.name),
                ddl::insert_columns(T, t)
            ))
            .map_err(|e| format!("{}: {}", t.name, sql_err(e)))?;
        let mut rows = 0u64;
        let mut max = None;
        data::scan(&table, |b, pages| {
            insert_batch(&mut stmt, t, b, rows, &mut problems)?;
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
