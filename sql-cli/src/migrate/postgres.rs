//! `jetsql migrate FILE postgresql://…`: the database written into a
//! PostgreSQL database in one transaction — tables, then the data of each
//! through `COPY … FROM STDIN` (text format), then the auto-number
//! counters, indexes and foreign keys. Any failure (or a kill: the server
//! rolls back a transaction whose client went away) leaves the database
//! as it was.

use super::data::{self, Problem, TargetRows, Value};
use super::ddl;
use super::dialect::ident;
use super::schema::{Model, TableModel};
use super::types::Target;
use super::views::ViewSql;
use datafusion::arrow::array::RecordBatch;
use futures::SinkExt;
use jet_storage::Database;
use std::fmt::Write as _;
use std::io::Cursor;

const T: Target = Target::Postgres;

/// Whether a migration target names a PostgreSQL database: a
/// `postgres://` or `postgresql://` URL, or a `key=value` connection
/// string with a `host=` or `dbname=` key.
pub fn is_postgres(target: &str) -> bool {
    let l = target.to_ascii_lowercase();
    l.starts_with("postgres://")
        || l.starts_with("postgresql://")
        || l.split_whitespace()
            .any(|w| w.starts_with("host=") || w.starts_with("dbname="))
}

/// A float as COPY text.
fn float_text(out: &mut String, x: f64, real: bool) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    } else if real {
        let _ = write!(out, "{:?}", x as f32);
    } else {
        let _ = write!(out, "{x:?}");
    }
}

/// Appends `v` as a field of COPY's text format.
pub fn copy_field(out: &mut String, v: &Value<'_>) {
    match *v {
        Value::Null => out.push_str("\\N"),
        Value::Bool(b) => out.push(if b { 't' } else { 'f' }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::F32(x) => float_text(out, f64::from(x), true),
        Value::F64(x) => float_text(out, x, false),
        Value::Dec(u, s) => out.push_str(&data::decimal_text(u, s)),
        // PostgreSQL reads a year past 9999 without chrono's `+`
        Value::Micros(m) => match data::timestamp_text(m) {
            Some(t) => out.push_str(t.trim_start_matches('+')),
            None => out.push_str("\\N"),
        },
        Value::Text(s) => {
            for ch in s.chars() {
                match ch {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    // refused before (cannot_hold); never sent
                    '\0' => {}
                    c => out.push(c),
                }
            }
        }
        Value::Bytes(b) => {
            out.push_str("\\\\x");
            for x in b {
                let _ = write!(out, "{x:02x}");
            }
        }
    }
}

/// The COPY text of one batch (rows `first_row + 1 …`); values
/// PostgreSQL cannot hold are reported and sent as NULL.
fn copy_text(
    t: &TableModel,
    b: &RecordBatch,
    first_row: u64,
    problems: &mut Vec<Problem>,
) -> String {
    let mut out = String::with_capacity(b.num_rows() * 64);
    let rows = TargetRows {
        target: T,
        table: t,
        first_row,
    };
    for r in 0..b.num_rows() {
        for (i, c) in t.columns.iter().enumerate() {
            if i > 0 {
                out.push('\t');
            }
            copy_field(&mut out, &rows.cell(b, c, r, problems));
        }
        out.push('\n');
    }
    out
}

fn pg_err(e: tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(d) => format!("PostgreSQL: {}", d.message()),
        None => format!("PostgreSQL: {e}"),
    }
}

/// Runs the whole migration inside an open transaction.
fn load(
    rt: &tokio::runtime::Runtime,
    client: &tokio_postgres::Client,
    db: &Database,
    model: &Model,
    views: &[ViewSql],
    progress: &indicatif::ProgressBar,
    notes: &mut Vec<String>,
) -> Result<Vec<Problem>, String> {
    let exec = |sql: &str| rt.block_on(client.batch_execute(sql)).map_err(pg_err);
    let (fks, fk_notes) = ddl::usable_foreign_keys(model);
    notes.extend(fk_notes);
    for t in &model.tables {
        exec(&ddl::create_table(T, t, &fks, notes)).map_err(|e| format!("{}: {e}", t.name))?;
    }
    let mut problems = Vec::new();
    for t in &model.tables {
        progress.set_prefix(t.name.clone());
        let table = db.table(&t.name).map_err(|e| e.to_string())?;
        let copy = format!(
            "COPY {} ({}) FROM STDIN",
            ident(T, &t.name),
            ddl::insert_columns(T, t)
        );
        let sink = rt
            .block_on(client.copy_in::<_, Cursor<Vec<u8>>>(copy.as_str()))
            .map_err(|e| format!("{}: {}", t.name, pg_err(e)))?;
        let mut sink = Box::pin(sink);
        let mut rows = 0u64;
        let mut max = None;
        data::scan(&table, |b, pages| {
            let text = copy_text(t, b, rows, &mut problems);
            if !text.is_empty() {
                rt.block_on(sink.as_mut().send(Cursor::new(text.into_bytes())))
                    .map_err(|e| format!("{}: {}", t.name, pg_err(e)))?;
            }
            rows += b.num_rows() as u64;
            max = max.max(data::max_auto(t, b));
            progress.inc(pages as u64);
            Ok(())
        })?;
        rt.block_on(sink.as_mut().finish())
            .map_err(|e| format!("{}: {}", t.name, pg_err(e)))?;
        if let Some(next) = t.next_auto {
            for s in ddl::carry_counter(T, t, next.max(max.unwrap_or(0) + 1)) {
                exec(&s)?;
            }
        }
    }
    let mut names = ddl::IndexNames::new(T);
    for t in &model.tables {
        for s in ddl::create_indexes(T, t, &mut names) {
            exec(&s).map_err(|e| format!("{}: {e}", t.name))?;
        }
    }
    for fk in &fks {
        exec(&ddl::add_foreign_key(T, fk))
            .map_err(|e| format!("relationship {} of {}: {e}", fk.name, fk.table))?;
    }
    create_views(rt, client, views, notes)?;
    Ok(problems)
}

/// Migrates `db` into the PostgreSQL database `url` in one transaction.
/// Returns notes on what was not migrated; values PostgreSQL cannot hold
/// are an error listing them, and nothing is committed.
pub fn migrate(
    db: &Database,
    model: &Model,
    views: &[ViewSql],
    url: &str,
    progress: &indicatif::ProgressBar,
) -> Result<Vec<String>, super::Failure> {
    use super::Failure;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(format!("cannot start the runtime: {e}")))?;
    let (client, connection) = rt
        .block_on(tokio_postgres::connect(url, tokio_postgres::NoTls))
        .map_err(|e| Failure::Other(format!("cannot connect: {}", pg_err(e))))?;
    let conn = rt.spawn(connection);
    let mut notes = Vec::new();
    rt.block_on(client.batch_execute("BEGIN"))
        .map_err(|e| Failure::Other(pg_err(e)))?;
    let result = load(&rt, &client, db, model, views, progress, &mut notes);
    let outcome = match result {
        Ok(problems) if problems.is_empty() => rt
            .block_on(client.batch_execute("COMMIT"))
            .map(|_| notes)
            .map_err(|e| Failure::Other(pg_err(e))),
        Ok(problems) => {
            let _ = rt.block_on(client.batch_execute("ROLLBACK"));
            Err(Failure::Values(problems))
        }
        Err(e) => {
            let _ = rt.block_on(client.batch_execute("ROLLBACK"));
            Err(Failure::Other(e))
        }
    };
    drop(client);
    let _ = rt.block_on(conn);
    outcome
}

/// Creates the views PostgreSQL accepts, each under a savepoint (a
/// refused one leaves the transaction usable); a view naming another is
/// tried again once that one exists.
fn create_views(
    rt: &tokio::runtime::Runtime,
    client: &tokio_postgres::Client,
    views: &[ViewSql],
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let exec = |sql: &str| rt.block_on(client.batch_execute(sql)).map_err(pg_err);
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
            let select = v.select.as_deref().unwrap_or_default();
            exec("SAVEPOINT jetsql_view")?;
            match exec(&format!("CREATE VIEW {} AS {select}", ident(T, &v.name))) {
                Ok(()) => {
                    exec("RELEASE SAVEPOINT jetsql_view")?;
                    progress = true;
                }
                Err(e) => {
                    exec("ROLLBACK TO SAVEPOINT jetsql_view")?;
                    still.push((v, e));
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_text_escapes() {
        let mut s = String::new();
        copy_field(&mut s, &Value::Text("a\tb\\c\nd"));
        assert_eq!(s, "a\\tb\\\\c\\nd");
        s.clear();
        copy_field(&mut s, &Value::Bytes(&[0, 0xff]));
        assert_eq!(s, "\\\\x00ff");
        s.clear();
        copy_field(&mut s, &Value::F64(f64::NEG_INFINITY));
        assert_eq!(s, "-Infinity");
        assert!(is_postgres("postgresql://u@h/db"));
        assert!(is_postgres("host=/tmp user=x dbname=y"));
        assert!(!is_postgres("out.sqlite"));
    }
}
