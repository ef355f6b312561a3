//! `jetsql migrate FILE out.sqlite` and `jetsql dump --to sqlite`, checked
//! in SQLite itself: every readable corpus database migrates, and every
//! value read back from SQLite (typed by the Access column) agrees with
//! mdb-reader or mdbtools as `tests/tests/storage/oracle_mdb_reader.rs` requires
//! of jetsql; nwind's primary keys, indexes and foreign keys equal
//! `mdb-schema`'s, SQLite enforces the foreign keys, the auto-number
//! counters continue; a killed migration leaves no target file; the
//! script loads in the `sqlite3` shell.

use crate::migrate_support;

use jet_storage::JetType;
use migrate_support::oracle_values::Ours;
use migrate_support::*;
use rusqlite::Connection;
use rusqlite::types::ValueRef;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// One SQLite value as the comparison's typed value, read as the Access
/// column type `jet` says it was written.
fn ours(v: ValueRef<'_>, jet: JetType, scale: i8) -> Ours {
    use JetType as J;
    match (v, jet) {
        (ValueRef::Null, _) => Ours::Null,
        (ValueRef::Integer(i), J::Boolean) => Ours::Bool(i != 0),
        (ValueRef::Integer(i), J::Byte | J::Integer | J::Long | J::BigInt) => Ours::Int(i.into()),
        (ValueRef::Real(x), J::Single) => Ours::F32(x as f32),
        (ValueRef::Real(x), J::Double) => Ours::F64(x),
        (ValueRef::Integer(i), J::Currency | J::Numeric) => {
            Ours::Dec(i128::from(i) * 10i128.pow(scale.max(0) as u32), scale)
        }
        (ValueRef::Real(x), J::Currency | J::Numeric) => {
            match parse_decimal(&format!("{x}"), scale) {
                Some(d) => Ours::Dec(d, scale),
                None => Ours::Other(format!("REAL {x}")),
            }
        }
        (ValueRef::Text(t), J::Currency | J::Numeric) => {
            let s = String::from_utf8_lossy(t);
            match parse_decimal(&s, scale) {
                Some(d) => Ours::Dec(d, scale),
                None => Ours::Other(format!("TEXT {s}")),
            }
        }
        (ValueRef::Text(t), J::DateTime | J::ExtDateTime) => {
            let s = String::from_utf8_lossy(t);
            match parse_timestamp(&s) {
                Some(m) if jet == J::ExtDateTime => Ours::ExtMicros(m),
                Some(m) => Ours::Micros(m),
                None => Ours::Other(format!("TEXT {s}")),
            }
        }
        (ValueRef::Text(t), J::Guid) => Ours::Guid(String::from_utf8_lossy(t).into_owned()),
        (ValueRef::Text(t), J::Text | J::Memo) => {
            Ours::Text(String::from_utf8_lossy(t).into_owned())
        }
        (ValueRef::Blob(b), J::Binary | J::Ole | J::Unknown(_)) => Ours::Bytes(b.to_vec()),
        (v, j) => Ours::Other(format!("{:?} in a {j:?} column", v.data_type())),
    }
}

/// The values of table `t` in `conn`, by column, in insertion order.
fn read_table(conn: &Connection, path: &Path, t: &SourceTable) -> Result<Vec<Vec<Ours>>, String> {
    let cols: Vec<String> = t.columns.iter().map(|c| quote(&c.0)).collect();
    let scales: Vec<i8> = t
        .columns
        .iter()
        .map(|c| match c.1 {
            JetType::Currency | JetType::Numeric => scale_of(path, &t.name, &c.0),
            _ => 0,
        })
        .collect();
    let sql = format!(
        "SELECT {} FROM {} ORDER BY rowid",
        cols.join(", "),
        quote(&t.name)
    );
    let mut stmt = conn.prepare(&sql).map_err(|e| format!("{sql}: {e}"))?;
    let mut out = vec![Vec::new(); t.columns.len()];
    let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
    while let Some(r) = rows.next().map_err(|e| e.to_string())? {
        for (i, c) in t.columns.iter().enumerate() {
            let v = r.get_ref(i).map_err(|e| e.to_string())?;
            out[i].push(ours(v, c.1, scales[i]));
        }
    }
    Ok(out)
}

/// Primary keys, indexes and foreign keys of a SQLite database.
fn sqlite_keys(conn: &Connection) -> Keys {
    let mut k = Keys::default();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for t in tables {
        let lt = t.to_lowercase();
        let pk: Vec<String> = conn
            .prepare("SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk")
            .unwrap()
            .query_map([&t], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|n| n.unwrap().to_lowercase())
            .collect();
        if !pk.is_empty() {
            k.primary.insert((lt.clone(), pk));
        }
        let idx: Vec<(String, bool)> = conn
            .prepare("SELECT name, \"unique\" FROM pragma_index_list(?1) WHERE origin = 'c'")
            .unwrap()
            .query_map([&t], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (name, unique) in idx {
            let cols: Vec<String> = conn
                .prepare(
                    "SELECT name, \"desc\" FROM pragma_index_xinfo(?1) WHERE key = 1 ORDER BY seqno",
                )
                .unwrap()
                .query_map([&name], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))
                .unwrap()
                .map(|x| {
                    let (n, d) = x.unwrap();
                    let n = n.to_lowercase();
                    if d { format!("{n} DESC") } else { n }
                })
                .collect();
            k.indexes.insert((lt.clone(), cols, unique));
        }
        // id → (referenced table, columns, referenced columns, on update
        // cascade, on delete cascade)
        type Fk = (String, Vec<String>, Vec<String>, bool, bool);
        let mut fks: std::collections::BTreeMap<i64, Fk> = Default::default();
        let rows: Vec<(i64, String, String, String, String, String)> = conn
            .prepare(
                "SELECT id, \"table\", \"from\", \"to\", on_update, on_delete \
                 FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
            )
            .unwrap()
            .query_map([&t], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (id, rt, from, to, upd, del) in rows {
            let e = fks.entry(id).or_insert_with(|| {
                (
                    rt.to_lowercase(),
                    Vec::new(),
                    Vec::new(),
                    upd == "CASCADE",
                    del == "CASCADE",
                )
            });
            e.1.push(from.to_lowercase());
            e.2.push(to.to_lowercase());
        }
        for (_, (rt, from, to, upd, del)) in fks {
            k.foreign.insert((lt.clone(), from, rt, to, upd, del));
        }
    }
    k
}

#[test]
fn nwind_keeps_keys_indexes_relationships_and_counters() {
    let Some(nwind) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("nwind.sqlite");
    let out = migrate(&nwind, target.to_str().unwrap());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.path().join(".nwind.sqlite.jetsql-partial").exists());
    let conn = Connection::open(&target).unwrap();
    // written with 16 KiB pages, in rollback-journal mode, and whole
    let page_size: i64 = conn
        .query_row("PRAGMA page_size", [], |r| r.get(0))
        .unwrap();
    assert_eq!(page_size, 16_384);
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "delete");
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let ours = sqlite_keys(&conn);
    let theirs = mdb_schema_keys(&nwind);
    assert_eq!(ours.primary, theirs.primary, "primary keys");
    assert_eq!(ours.indexes, theirs.indexes, "indexes");
    assert_eq!(ours.foreign, theirs.foreign, "foreign keys");
    assert!(!ours.foreign.is_empty());
    // SQLite enforces them (with its foreign_keys switch on)
    conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
    let check: i64 = conn
        .query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(check, 0, "the migrated rows satisfy the foreign keys");
    let orphan = conn.execute(
        "INSERT INTO \"Order Details\" (OrderID, ProductID, UnitPrice, Quantity, Discount) \
         VALUES (999999, 1, 1, 1, 0)",
        [],
    );
    let e = orphan.expect_err("an orphan insert fails");
    assert!(e.to_string().contains("FOREIGN KEY"), "{e}");
    // deleting an order cascades to its details, as in Access
    let details: i64 = conn
        .query_row(
            "SELECT count(*) FROM \"Order Details\" WHERE OrderID = 10248",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(details > 0);
    conn.execute("DELETE FROM Orders WHERE OrderID = 10248", [])
        .unwrap();
    let after: i64 = conn
        .query_row(
            "SELECT count(*) FROM \"Order Details\" WHERE OrderID = 10248",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(after, 0);
    // the auto-number continues past the largest key mdb-export prints
    let (prog, _) = jet_tests::require_mdb_export().unwrap();
    let csv = jet_tests::run_mdb_export(&prog, &[], &nwind, "Orders").unwrap();
    let max = oracle_values::parse_csv(&csv.stdout)
        .unwrap()
        .rows
        .iter()
        .filter_map(|r| r[0].as_deref()?.parse::<i64>().ok())
        .max()
        .unwrap();
    conn.execute("INSERT INTO Orders (CustomerID) VALUES ('ALFKI')", [])
        .unwrap();
    assert!(conn.last_insert_rowid() > max);
}

use migrate_support::oracle_values;

#[test]
fn every_readable_corpus_database_migrates_with_every_value() {
    let Some(files) = readable_corpus() else {
        return;
    };
    if jet_tests::mdb_reader::require_mdb_reader().is_none()
        || jet_tests::require_mdb_export().is_none()
    {
        return;
    }
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut run = Run::new();
    for (n, (rel, path)) in files.iter().enumerate() {
        let target = dir.path().join(format!("{n}.sqlite"));
        let out = migrate(path, target.to_str().unwrap());
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
        let conn = Connection::open(&target).unwrap();
        for t in &tables {
            match read_table(&conn, path, t) {
                Ok(cols) => compare_table(rel, t, &cols, &o, &mut run),
                Err(e) => run.failures.push(format!("{rel}: {:?}: {e}", t.name)),
            }
        }
    }
    println!("{:.1?}", started.elapsed());
    run.finish("SQLite");
    assert!(
        run.tally.files > 50 && run.tally.values > 40_000,
        "too little compared: {:?}",
        run.tally
    );
}

#[test]
fn a_killed_migration_leaves_no_target_file() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("big.mdb");
    let rows = 300_000;
    std::fs::write(
        &src,
        jet_fixtures::bench(jet_storage::JetVersion::Jet4, rows, true).unwrap(),
    )
    .unwrap();
    let target = dir.path().join("big.sqlite");
    let partial = dir.path().join(".big.sqlite.jetsql-partial");
    let mut child = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .arg("migrate")
        .arg(&src)
        .arg(&target)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // kill it while rows are going in: the partial file has grown
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::metadata(&partial).map_or(0, |m| m.len()) < 2 << 20 {
        assert!(
            Instant::now() < deadline,
            "the migration never started writing"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the kill"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!target.exists(), "a killed migration left the target");
    // a new run replaces the leftover and completes
    let out = migrate(&src, target.to_str().unwrap());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!partial.exists());
    let conn = Connection::open(&target).unwrap();
    let n: i64 = conn
        .query_row("SELECT count(*) FROM Bench", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, rows as i64);
    // an existing target is refused, and left alone
    let again = migrate(&src, target.to_str().unwrap());
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
}

#[test]
fn the_sqlite_script_loads_in_the_sqlite3_shell() {
    let Some(nwind) = nwind() else { return };
    if Command::new("sqlite3").arg("--version").output().is_err() {
        return jet_tests::skip_or_fail::<()>("sqlite3 is not installed").unwrap_or(());
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("nwind.sql");
    let out = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .args(["dump", nwind.to_str().unwrap(), "--to", "sqlite", "-o"])
        .arg(&script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let db = dir.path().join("loaded.sqlite");
    let load = Command::new("sqlite3")
        .arg("-bail")
        .arg(&db)
        .stdin(std::fs::File::open(&script).unwrap())
        .output()
        .unwrap();
    assert!(
        load.status.success(),
        "sqlite3: {}",
        String::from_utf8_lossy(&load.stderr)
    );
    let conn = Connection::open(&db).unwrap();
    let keys = sqlite_keys(&conn);
    let theirs = mdb_schema_keys(&nwind);
    assert_eq!(keys, theirs);
    // row counts as mdb-export counts them
    let (prog, _) = jet_tests::require_mdb_export().unwrap();
    for t in source_tables(&nwind) {
        let csv = jet_tests::run_mdb_export(&prog, ISO_ARGS, &nwind, &t.name).unwrap();
        let want = oracle_values::parse_csv(&csv.stdout).unwrap().rows.len() as i64;
        let got: i64 = conn
            .query_row(
                &format!("SELECT count(*) FROM {}", quote(&t.name)),
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(got, want, "{}", t.name);
    }
}

#[test]
fn every_nwind_view_returns_jetsqls_rows() {
    let Some(nwind) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("nwind.sqlite");
    let out = migrate(&nwind, target.to_str().unwrap());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = Connection::open(&target).unwrap();
    let views: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    println!("views: {views:?}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(!views.is_empty(), "no saved query became a view");
    let mut failures = Vec::new();
    for v in &views {
        let want = jetsql_rows(&nwind, v).unwrap();
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {}", quote(v)))
            .unwrap();
        let n = stmt.column_count();
        let mut got: Vec<Vec<String>> = stmt
            .query_map([], |r| {
                Ok((0..n)
                    .map(|i| match r.get_ref(i).unwrap() {
                        ValueRef::Null => norm_cell(None),
                        ValueRef::Integer(x) => norm_cell(Some(&x.to_string())),
                        ValueRef::Real(x) => norm_cell(Some(&x.to_string())),
                        ValueRef::Text(t) => norm_cell(Some(&String::from_utf8_lossy(t))),
                        ValueRef::Blob(b) => format!("{b:02x?}"),
                    })
                    .collect())
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        got.sort();
        if got != want {
            let first = got.iter().zip(&want).find(|(a, b)| a != b);
            failures.push(format!(
                "{v}: SQLite {} rows, jetsql {}; first difference {first:?}",
                got.len(),
                want.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every value of every table of `conn` with its storage class, row by
/// row in rowid order (the order both writers insert in): `i:`, `r:`
/// (the double's exact text), `t:`, `b:` (hex) or `NULL`.
fn stored_rows(conn: &Connection) -> Vec<(String, Vec<String>)> {
    let mut names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM {} ORDER BY rowid", quote(&name)))
            .unwrap();
        let width = stmt.column_count();
        let types: Vec<String> = conn
            .prepare("SELECT name || ' ' || type || ' ' || \"notnull\" FROM pragma_table_info(?1)")
            .unwrap()
            .query_map([&name], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut rows = vec![types.join(", ")];
        let mut q = stmt.query([]).unwrap();
        while let Some(r) = q.next().unwrap() {
            let cells: Vec<String> = (0..width)
                .map(|i| match r.get_ref(i).unwrap() {
                    ValueRef::Null => "NULL".to_string(),
                    ValueRef::Integer(v) => format!("i:{v}"),
                    ValueRef::Real(v) => format!("r:{v:?}"),
                    ValueRef::Text(t) => format!("t:{}", String::from_utf8_lossy(t)),
                    ValueRef::Blob(b) => {
                        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                        format!("b:{hex}")
                    }
                })
                .collect();
            rows.push(cells.join(" | "));
        }
        out.push((name, rows));
    }
    out
}

/// Issue 36: `migrate`'s bulk path (values bound straight from the Arrow
/// columns, multi-row INSERTs) stores exactly what the plain path stores:
/// the `dump --to sqlite` script of the same file, SQL text loaded by the
/// `sqlite3` shell. Same tables, declared types, rows in the same order,
/// and every value with the same storage class (INTEGER, REAL to the bit,
/// TEXT, BLOB, NULL), over every readable corpus database and the
/// project's sample files, whose tables hold every Access type.
#[test]
fn migrate_stores_what_the_script_stores() {
    let Some(mut files) = readable_corpus() else {
        return;
    };
    if Command::new("sqlite3").arg("--version").output().is_err() {
        return jet_tests::skip_or_fail::<()>("sqlite3 is not installed").unwrap_or(());
    }
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
        let fast = dir.path().join(format!("{n}.fast.sqlite"));
        let out = migrate(path, fast.to_str().unwrap());
        if !out.status.success() {
            failures.push(format!(
                "{rel}: migrate failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
            continue;
        }
        let script = dir.path().join(format!("{n}.sql"));
        let dump = Command::new(env!("CARGO_BIN_EXE_jetsql"))
            .arg("dump")
            .arg(path)
            .args(["--to", "sqlite", "-o"])
            .arg(&script)
            .output()
            .unwrap();
        if !dump.status.success() {
            failures.push(format!(
                "{rel}: dump failed: {}",
                String::from_utf8_lossy(&dump.stderr).trim()
            ));
            continue;
        }
        let plain = dir.path().join(format!("{n}.plain.sqlite"));
        let load = Command::new("sqlite3")
            .arg("-bail")
            .arg(&plain)
            .stdin(std::fs::File::open(&script).unwrap())
            .output()
            .unwrap();
        if !load.status.success() {
            failures.push(format!(
                "{rel}: sqlite3 refused the script: {}",
                String::from_utf8_lossy(&load.stderr).trim()
            ));
            continue;
        }
        let a = stored_rows(&Connection::open(&fast).unwrap());
        let b = stored_rows(&Connection::open(&plain).unwrap());
        if let Some(n) = compare_stored(rel, &a, &b, &mut failures) {
            compared += 1;
            rows += n;
        }
    }
    println!("{compared} databases, {rows} rows compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compared > 90 && rows > 20_000,
        "too little compared: {compared} databases, {rows} rows"
    );
}
