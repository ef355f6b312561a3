//! `jetsql migrate FILE postgresql://…`: the database written into a
//! PostgreSQL database in one transaction — tables, then the data of each
//! through `COPY … FROM STDIN (FORMAT binary, FREEZE)` (each value in
//! the column type's binary form, which the server stores without parsing
//! text; the rows written frozen, as the table is new in this
//! transaction: no later vacuum rewrites them, and they are all-visible
//! for index-only scans from the start),
//! then the auto-number counters, primary keys, indexes and foreign keys
//! (each key and index built once over the loaded rows). Any failure (or a kill: the server
//! rolls back a transaction whose client went away) leaves the database
//! as it was.

use super::data::{self, Problem};
use super::ddl;
use super::dialect::ident;
use super::schema::Model;
use super::types::Target;
use super::views::ViewSql;
use bytes::{BufMut, BytesMut};
use futures::SinkExt;
use jet_storage::Database;
use tokio_postgres::types::Type;

const T: Target = Target::Postgres;

/// Bytes of COPY data gathered before they are handed to the connection:
/// the socket sees a few large writes instead of one every 4 KiB (the
/// row-at-a-time writer's chunk), and encoding the next chunk overlaps
/// the server's reading of this one.
const CHUNK: usize = 1 << 20;

pub mod binary;

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
        exec(&ddl::create_table(T, t, &fks, false, notes))
            .map_err(|e| format!("{}: {e}", t.name))?;
    }
    let mut problems = Vec::new();
    for t in &model.tables {
        progress.set_prefix(t.name.clone());
        let table = db.table(&t.name).map_err(|e| e.to_string())?;
        let copy = format!(
            "COPY {} ({}) FROM STDIN (FORMAT binary, FREEZE)",
            ident(T, &t.name),
            ddl::insert_columns(T, t)
        );
        let mut sink = Box::pin(
            rt.block_on(client.copy_in::<_, bytes::Bytes>(copy.as_str()))
                .map_err(|e| format!("{}: {}", t.name, pg_err(e)))?,
        );
        let mut send = |buf: &mut BytesMut| {
            rt.block_on(sink.as_mut().send(buf.split().freeze()))
                .map_err(|e| format!("{}: {}", t.name, pg_err(e)))
        };
        let types: Vec<Type> = t
            .columns
            .iter()
            .map(|c| binary::column_type(c.jet))
            .collect();
        let mut buf = BytesMut::with_capacity(2 * CHUNK);
        buf.put_slice(binary::COPY_HEADER);
        let mut rows = 0u64;
        let mut max = None;
        data::scan(&table, |b, pages| {
            binary::encode_batch(&mut buf, t, &types, b, rows, &mut problems)?;
            if buf.len() >= CHUNK {
                send(&mut buf)?;
            }
            rows += b.num_rows() as u64;
            max = max.max(data::max_auto(t, b));
            progress.inc(pages as u64);
            Ok(())
        })?;
        buf.put_i16(binary::COPY_TRAILER);
        send(&mut buf)?;
        rt.block_on(sink.as_mut().finish())
            .map_err(|e| format!("{}: {}", t.name, pg_err(e)))?;
        if let Some(next) = t.next_auto {
            for s in ddl::carry_counter(T, t, next.max(max.unwrap_or(0) + 1)) {
                exec(&s)?;
            }
        }
    }
    // keys, then indexes, then the foreign keys that need the keys
    for t in &model.tables {
        if let Some(s) = ddl::add_primary_key(T, t) {
            exec(&s).map_err(|e| format!("{}: {e}", t.name))?;
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
    fn postgres_targets_are_recognised() {
        assert!(is_postgres("postgresql://u@h/db"));
        assert!(is_postgres("host=/tmp user=x dbname=y"));
        assert!(!is_postgres("out.sqlite"));
    }
}
