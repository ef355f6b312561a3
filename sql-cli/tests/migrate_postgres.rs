//! `jetsql migrate FILE postgresql://…` and `jetsql dump --to postgres`,
//! checked in a real PostgreSQL server (`$JETSQL_TEST_PG`, a libpq
//! connection string to an administrative database; `.ci/run` starts a
//! throwaway cluster and sets it). Each test works in databases of its
//! own, so the tests run in parallel. Without the variable the tests
//! skip, except under `CI=true`, where they fail.
//!
//! Every readable corpus database migrates and every value read back
//! (PostgreSQL's text output, typed by the Access column) agrees with
//! mdb-reader or mdbtools; nwind's keys, indexes and foreign keys equal
//! `mdb-schema`'s and are enforced; identity columns continue past the
//! largest key; a killed migration leaves no table behind; the dump
//! script loads in `psql`.

use crate::migrate_support;

use jet_storage::JetType;
use migrate_support::oracle_values::{self, Ours};
use migrate_support::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tokio_postgres::SimpleQueryMessage;

/// A synchronous client of one database.
struct Pg {
    rt: tokio::runtime::Runtime,
    client: tokio_postgres::Client,
    conninfo: String,
}

impl Pg {
    fn connect(conninfo: &str) -> Pg {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (client, conn) = rt
            .block_on(tokio_postgres::connect(conninfo, tokio_postgres::NoTls))
            .unwrap_or_else(|e| panic!("cannot connect to {conninfo}: {e}"));
        rt.spawn(conn);
        Pg {
            rt,
            client,
            conninfo: conninfo.to_string(),
        }
    }

    /// Rows of text values (`None`: NULL).
    fn query(&self, sql: &str) -> Result<Vec<Vec<Option<String>>>, String> {
        let msgs = self
            .rt
            .block_on(self.client.simple_query(sql))
            .map_err(|e| match e.as_db_error() {
                Some(d) => d.message().to_string(),
                None => e.to_string(),
            })?;
        Ok(msgs
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(r) => {
                    Some((0..r.len()).map(|i| r.get(i).map(str::to_string)).collect())
                }
                _ => None,
            })
            .collect())
    }

    fn one(&self, sql: &str) -> String {
        self.query(sql).unwrap()[0][0].clone().unwrap_or_default()
    }
}

/// The administrative connection string, or a skip (a failure in CI).
fn admin() -> Option<String> {
    match std::env::var("JETSQL_TEST_PG") {
        Ok(v) if !v.is_empty() => Some(v),
        _ => jet_tests::skip_or_fail(
            "JETSQL_TEST_PG is not set (a libpq connection string; .ci/run starts a cluster)",
        ),
    }
}

/// A fresh database: its connection string (and a client of it).
fn fresh_db(admin: &str) -> Pg {
    let name = unique_name("jetsql_test");
    Pg::connect(admin)
        .query(&format!("CREATE DATABASE {name}"))
        .unwrap();
    Pg::connect(&format!("{admin} dbname={name}"))
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// PostgreSQL's text of a value as the comparison's typed value.
fn ours(v: Option<&str>, jet: JetType, scale: i8) -> Ours {
    use JetType as J;
    let Some(s) = v else { return Ours::Null };
    let other = || Ours::Other(format!("{s:?} in a {jet:?} column"));
    match jet {
        J::Boolean => match s {
            "t" => Ours::Bool(true),
            "f" => Ours::Bool(false),
            _ => other(),
        },
        J::Byte | J::Integer | J::Long | J::BigInt => s.parse().map_or_else(|_| other(), Ours::Int),
        J::Single => s.parse().map_or_else(|_| other(), Ours::F32),
        J::Double => s.parse().map_or_else(|_| other(), Ours::F64),
        J::Currency | J::Numeric => {
            parse_decimal(s, scale).map_or_else(other, |d| Ours::Dec(d, scale))
        }
        J::DateTime => parse_timestamp(s).map_or_else(other, Ours::Micros),
        J::ExtDateTime => parse_timestamp(s).map_or_else(other, Ours::ExtMicros),
        J::Guid => Ours::Guid(s.to_string()),
        J::Text | J::Memo => Ours::Text(s.to_string()),
        J::Binary | J::Ole | J::Unknown(_) => s
            .strip_prefix("\\x")
            .and_then(unhex)
            .map_or_else(other, Ours::Bytes),
        J::Complex => other(),
    }
}

/// The column's name in PostgreSQL: its system column names (`ctid`, …)
/// get a `_` appended (README, `jetsql migrate`).
fn pg_name(t: &SourceTable, name: &str) -> String {
    const SYSTEM: &[&str] = &["tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"];
    if !SYSTEM.iter().any(|s| s.eq_ignore_ascii_case(name)) {
        return name.to_string();
    }
    let mut n = format!("{name}_");
    while t.columns.iter().any(|c| c.0.eq_ignore_ascii_case(&n)) {
        n.push('_');
    }
    n
}

fn read_table(pg: &Pg, path: &Path, t: &SourceTable) -> Result<Vec<Vec<Ours>>, String> {
    let cols: Vec<String> = t.columns.iter().map(|c| quote(&pg_name(t, &c.0))).collect();
    let scales: Vec<i8> = t
        .columns
        .iter()
        .map(|c| match c.1 {
            JetType::Currency | JetType::Numeric => scale_of(path, &t.name, &c.0),
            _ => 0,
        })
        .collect();
    let rows = pg.query(&format!(
        "SELECT {} FROM {} ORDER BY ctid",
        cols.join(", "),
        quote(&t.name)
    ))?;
    let mut out = vec![Vec::with_capacity(rows.len()); t.columns.len()];
    for r in &rows {
        for (i, c) in t.columns.iter().enumerate() {
            out[i].push(ours(r[i].as_deref(), c.1, scales[i]));
        }
    }
    Ok(out)
}

/// Primary keys, indexes and foreign keys of the `public` schema.
fn pg_keys(pg: &Pg) -> Keys {
    let mut k = Keys::default();
    let cols = |rel: &str, keys: &str, opts: Option<&str>| {
        format!(
            "(SELECT string_agg(lower(a.attname){}, ',' ORDER BY x.n) \
             FROM unnest({keys}) WITH ORDINALITY AS x(attnum, n) \
             JOIN pg_attribute a ON a.attrelid = {rel} AND a.attnum = x.attnum)",
            opts.map_or(String::new(), |o| format!(
                " || CASE WHEN ({o}[x.n - 1] & 1) = 1 THEN ' DESC' ELSE '' END"
            ))
        )
    };
    let sql = format!(
        "SELECT lower(c.relname), i.indisprimary, i.indisunique, {} \
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid \
         JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ns.nspname = 'public'",
        cols("i.indrelid", "i.indkey", Some("i.indoption"))
    );
    for r in pg.query(&sql).unwrap() {
        let t = r[0].clone().unwrap();
        let c: Vec<String> = r[3]
            .clone()
            .unwrap()
            .split(',')
            .map(str::to_string)
            .collect();
        if r[1].as_deref() == Some("t") {
            k.primary.insert((t, c));
        } else {
            k.indexes.insert((t, c, r[2].as_deref() == Some("t")));
        }
    }
    let sql = format!(
        "SELECT lower(c.relname), {}, lower(rc.relname), {}, f.confupdtype, f.confdeltype \
         FROM pg_constraint f JOIN pg_class c ON c.oid = f.conrelid \
         JOIN pg_class rc ON rc.oid = f.confrelid WHERE f.contype = 'f'",
        cols("f.conrelid", "f.conkey", None),
        cols("f.confrelid", "f.confkey", None)
    );
    for r in pg.query(&sql).unwrap() {
        let split = |s: &Option<String>| -> Vec<String> {
            s.clone().unwrap().split(',').map(str::to_string).collect()
        };
        k.foreign.insert((
            r[0].clone().unwrap(),
            split(&r[1]),
            r[2].clone().unwrap(),
            split(&r[3]),
            r[4].as_deref() == Some("c"),
            r[5].as_deref() == Some("c"),
        ));
    }
    k
}

#[test]
fn nwind_keeps_keys_indexes_relationships_and_counters() {
    let Some(admin) = admin() else { return };
    let Some(nwind) = nwind() else { return };
    let pg = fresh_db(&admin);
    let out = migrate(&nwind, &pg.conninfo);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = pg_keys(&pg);
    let theirs = mdb_schema_keys(&nwind);
    assert_eq!(ours.primary, theirs.primary, "primary keys");
    assert_eq!(ours.indexes, theirs.indexes, "indexes");
    assert_eq!(ours.foreign, theirs.foreign, "foreign keys");
    let orphan = pg.query(
        "INSERT INTO \"Order Details\" (\"OrderID\", \"ProductID\", \"UnitPrice\", \"Quantity\", \
         \"Discount\") VALUES (999999, 1, 1, 1, 0)",
    );
    let e = orphan.expect_err("an orphan insert fails");
    assert!(e.contains("foreign key"), "{e}");
    let before = pg.one("SELECT count(*) FROM \"Order Details\" WHERE \"OrderID\" = 10248");
    assert_ne!(before, "0");
    pg.query("DELETE FROM \"Orders\" WHERE \"OrderID\" = 10248")
        .unwrap();
    let after = pg.one("SELECT count(*) FROM \"Order Details\" WHERE \"OrderID\" = 10248");
    assert_eq!(after, "0", "the delete cascades as in Access");
    let (prog, _) = jet_tests::require_mdb_export().unwrap();
    let csv = jet_tests::run_mdb_export(&prog, &[], &nwind, "Orders").unwrap();
    let max = oracle_values::parse_csv(&csv.stdout)
        .unwrap()
        .rows
        .iter()
        .filter_map(|r| r[0].as_deref()?.parse::<i64>().ok())
        .max()
        .unwrap();
    let id: i64 = pg
        .one("INSERT INTO \"Orders\" (\"CustomerID\") VALUES ('ALFKI') RETURNING \"OrderID\"")
        .parse()
        .unwrap();
    assert!(id > max, "identity continues: {id} after {max}");
}

#[test]
fn every_readable_corpus_database_migrates_with_every_value() {
    let Some(admin) = admin() else { return };
    let Some(files) = readable_corpus() else {
        return;
    };
    if jet_tests::mdb_reader::require_mdb_reader().is_none()
        || jet_tests::require_mdb_export().is_none()
    {
        return;
    }
    let started = Instant::now();
    let mut run = Run::new();
    for (rel, path) in &files {
        let pg = fresh_db(&admin);
        let out = migrate(path, &pg.conninfo);
        if !out.status.success() {
            run.failures.push(format!(
                "{rel}: migrate failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        let tables = source_tables(path);
        let o = match oracles(path, &tables) {
            Ok(o) => o,
            Err(e) => {
                run.notes.push(format!("{rel}: {e}"));
                continue;
            }
        };
        run.tally.files += 1;
        for t in &tables {
            match read_table(&pg, path, t) {
                Ok(cols) => compare_table(rel, t, &cols, &o, &mut run),
                Err(e) => run.failures.push(format!("{rel}: {:?}: {e}", t.name)),
            }
        }
    }
    println!("{:.1?}", started.elapsed());
    run.finish("PostgreSQL");
    assert!(
        run.tally.files > 50 && run.tally.values > 40_000,
        "too little compared: {:?}",
        run.tally
    );
}

#[test]
fn a_killed_migration_leaves_no_table() {
    let Some(admin) = admin() else { return };
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.mdb");
    let rows = 300_000;
    std::fs::write(
        &src,
        jet_fixtures::bench(jet_storage::JetVersion::Jet4, rows, true).unwrap(),
    )
    .unwrap();
    let pg = fresh_db(&admin);
    let dbname = pg.one("SELECT current_database()");
    let mut child = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .arg("migrate")
        .arg(&src)
        .arg(&pg.conninfo)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // kill it while the rows of Bench are being copied
    let deadline = Instant::now() + Duration::from_secs(60);
    let copying = format!(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = '{dbname}' \
         AND query LIKE 'COPY \"Bench\"%'"
    );
    while pg.one(&copying) == "0" {
        assert!(
            Instant::now() < deadline,
            "the migration never started copying"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    // the server notices the client is gone and rolls back
    let gone = format!(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = '{dbname}' AND pid <> pg_backend_pid()"
    );
    while pg.one(&gone) != "0" {
        assert!(Instant::now() < deadline, "the killed session lingers");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        pg.one("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
        "0",
        "a killed migration left tables"
    );
    let out = migrate(&src, &pg.conninfo);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(pg.one("SELECT count(*) FROM \"Bench\""), rows.to_string());
}

#[test]
fn the_postgres_script_loads_in_psql() {
    let Some(admin) = admin() else { return };
    let Some(nwind) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("nwind.sql");
    let out = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .args(["dump", nwind.to_str().unwrap(), "--to", "postgres", "-o"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pg = fresh_db(&admin);
    let load = Command::new("psql")
        .arg("-v")
        .arg("ON_ERROR_STOP=1")
        .arg("-q")
        .arg("-d")
        .arg(&pg.conninfo)
        .arg("-f")
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        load.status.success(),
        "psql: {}",
        String::from_utf8_lossy(&load.stderr)
    );
    assert_eq!(pg_keys(&pg), mdb_schema_keys(&nwind));
    let (prog, _) = jet_tests::require_mdb_export().unwrap();
    for t in source_tables(&nwind) {
        let csv = jet_tests::run_mdb_export(&prog, ISO_ARGS, &nwind, &t.name).unwrap();
        let want = oracle_values::parse_csv(&csv.stdout).unwrap().rows.len();
        let got = pg.one(&format!("SELECT count(*) FROM {}", quote(&t.name)));
        assert_eq!(got, want.to_string(), "{}", t.name);
    }
}

#[test]
fn every_nwind_view_returns_jetsqls_rows() {
    let Some(admin) = admin() else { return };
    let Some(nwind) = nwind() else { return };
    let pg = fresh_db(&admin);
    let out = migrate(&nwind, &pg.conninfo);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let views: Vec<String> = pg
        .query("SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1")
        .unwrap()
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect();
    println!("views: {views:?}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(!views.is_empty(), "no saved query became a view");
    let mut failures = Vec::new();
    for v in &views {
        let want = jetsql_rows(&nwind, v).unwrap();
        let mut got: Vec<Vec<String>> = pg
            .query(&format!("SELECT * FROM {}", quote(v)))
            .unwrap()
            .iter()
            .map(|r| r.iter().map(|c| norm_cell(c.as_deref())).collect())
            .collect();
        got.sort();
        if got != want {
            let first = got.iter().zip(&want).find(|(a, b)| a != b);
            failures.push(format!(
                "{v}: PostgreSQL {} rows, jetsql {}; first difference {first:?}",
                got.len(),
                want.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The tables of `pg`'s public schema with their columns' types, and each
/// table's rows as PostgreSQL prints them (`row::text`), sorted (a heap's
/// physical order is not the order of the writes: INSERT puts a row where
/// the free-space map finds room, COPY fills pages in turn).
fn stored_rows(pg: &Pg) -> Vec<(String, Vec<String>)> {
    let tables = pg
        .query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        .unwrap();
    let mut out = Vec::new();
    for t in tables {
        let name = t[0].clone().unwrap_or_default();
        let lit = name.replace('\'', "''");
        let columns = pg
            .query(&format!(
                "SELECT column_name, data_type, character_maximum_length, numeric_precision, \
                 numeric_scale, is_nullable FROM information_schema.columns \
                 WHERE table_schema = 'public' AND table_name = '{lit}' ORDER BY ordinal_position"
            ))
            .unwrap();
        let mut rows = vec![format!("{columns:?}")];
        for r in pg
            .query(&format!("SELECT r::text FROM {} AS r", quote(&name)))
            .unwrap()
        {
            rows.push(r[0].clone().unwrap_or_default());
        }
        rows[1..].sort();
        out.push((name, rows));
    }
    out
}

/// Drops the database `pg` is connected to.
fn drop_db(admin: &str, pg: Pg) {
    let name = pg
        .conninfo
        .rsplit("dbname=")
        .next()
        .unwrap_or_default()
        .to_string();
    drop(pg);
    Pg::connect(admin)
        .query(&format!("DROP DATABASE {name} WITH (FORCE)"))
        .unwrap();
}

/// Issue 36: `migrate`'s bulk path (binary COPY, each value in its column
/// type's wire form) stores exactly what the plain path stores: the
/// `dump --to postgres` script of the same file, SQL text run by `psql`.
/// Same tables, column types, and the same rows with every value as
/// PostgreSQL prints it, over every readable corpus database and the
/// project's sample files, whose tables hold every Access type.
#[test]
fn migrate_stores_what_the_script_stores() {
    let Some(admin) = admin() else { return };
    let Some(mut files) = readable_corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    for f in ["sample.accdb", "sample.mdb", "long_text.mdb"] {
        files.push((format!("fixtures/{f}"), fixtures.join(f)));
    }
    let Some(every_type) = every_type_file(dir.path()) else {
        return;
    };
    files.push(("every type".into(), every_type));
    let (mut failures, mut rows, mut compared) = (Vec::new(), 0usize, 0usize);
    for (n, (rel, path)) in files.iter().enumerate() {
        let fast = fresh_db(&admin);
        let out = migrate(path, &fast.conninfo);
        if !out.status.success() {
            failures.push(format!(
                "{rel}: migrate failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            drop_db(&admin, fast);
            continue;
        }
        let script = dir.path().join(format!("{n}.sql"));
        let dump = Command::new(env!("CARGO_BIN_EXE_jetsql"))
            .arg("dump")
            .arg(path)
            .args(["--to", "postgres", "-o"])
            .arg(&script)
            .output()
            .unwrap();
        let plain = fresh_db(&admin);
        let load = Command::new("psql")
            .args(["-v", "ON_ERROR_STOP=1", "-q", "-d"])
            .arg(&plain.conninfo)
            .arg("-f")
            .arg(&script)
            .output()
            .unwrap();
        if !dump.status.success() || !load.status.success() {
            failures.push(format!(
                "{rel}: the script did not load: {}{}",
                String::from_utf8_lossy(&dump.stderr).trim(),
                String::from_utf8_lossy(&load.stderr).trim()
            ));
        } else {
            let a = stored_rows(&fast);
            let b = stored_rows(&plain);
            if let Some(n) = compare_stored(rel, &a, &b, &mut failures) {
                compared += 1;
                rows += n;
            }
        }
        drop_db(&admin, fast);
        drop_db(&admin, plain);
    }
    println!("{compared} databases, {rows} rows compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compared > 90 && rows > 20_000,
        "too little compared: {compared} databases, {rows} rows"
    );
}
