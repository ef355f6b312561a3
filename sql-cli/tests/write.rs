//! `jetsql --write`: SQL writes from the command line, end to end. A
//! Parquet file made with `COPY … TO` is inserted into a copy of the
//! generated sample database with `INSERT INTO … SELECT … FROM
//! 'data.parquet'`; mdb-export then reads the new rows and they equal the
//! rows they were copied from. Without `--write` every write is refused
//! and the file is unchanged byte for byte.

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use std::path::{Path, PathBuf};

use crate::common;
use common::jetsql;

/// A copy of the generated `fixtures/sample.mdb` in `dir`.
fn sample_copy(dir: &Path) -> PathBuf {
    let src = jet_tests::workspace_root().join("fixtures/sample.mdb");
    let dst = dir.join("copy.mdb");
    std::fs::copy(&src, &dst).unwrap();
    dst
}

/// `mdb-export` of `table`, split into (header, rows).
fn export(prog: &Path, file: &Path, table: &str) -> (String, Vec<String>) {
    let out = jet_tests::run_mdb_export(prog, &[], file, table).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.stderr, "", "mdb-export warnings");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv_records(&text);
    let header = lines.remove(0);
    (header, lines)
}

/// The records of CSV text (a quoted field may hold line breaks).
fn csv_records(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in text.chars() {
        if ch == '"' {
            quoted = !quoted;
        }
        if ch == '\n' && !quoted {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(ch);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The record without its first field (the auto-number).
fn without_id(record: &str) -> &str {
    record.split_once(',').map(|(_, r)| r).unwrap_or("")
}

#[test]
fn insert_from_parquet_then_mdbtools_reads_the_rows() {
    let Some((prog, _)) = jet_tests::require_mdb_export() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = sample_copy(dir.path());
    let parquet = dir.path().join("data.parquet");
    let (_, before) = export(&prog, &db, "Customers");
    assert_eq!(before.len(), 250);

    // the Parquet file, written from the database (read-only is enough)
    jetsql()
        .arg(&db)
        .args([
            "-c",
            &format!(
                "COPY (SELECT * FROM \"Customers\" ORDER BY \"CustomerID\") TO '{}'",
                parquet.display()
            ),
        ])
        .assert()
        .success();
    let cols = "\"Company\", \"Contact\", \"City\", \"Country\", \"Phone\", \"Email\", \
                \"CustomerSince\", \"CreditLimit\", \"Active\", \"Notes\"";
    let insert = format!(
        "INSERT INTO \"Customers\" ({cols}) SELECT {cols} FROM '{}' ORDER BY \"CustomerID\"",
        parquet.display()
    );

    // without --write: refused, saying how to allow it; the file is unchanged
    let image = std::fs::read(&db).unwrap();
    jetsql()
        .arg(&db)
        .args(["-c", &insert])
        .assert()
        .failure()
        .code(1)
        .stderr(contains("read-only").and(contains("--write")));
    assert!(std::fs::read(&db).unwrap() == image, "the file changed");

    // with --write: one statement, 250 rows
    jetsql()
        .arg("--write")
        .arg(&db)
        .args(["-c", &insert])
        .assert()
        .success()
        .stdout("count\n250\n");

    // mdb-export reads the result: the original rows unchanged, then the
    // copies with new auto-numbers 251..500 and every other field equal
    let (_, after) = export(&prog, &db, "Customers");
    assert_eq!(after.len(), 500);
    assert_eq!(&after[..250], &before[..]);
    for (i, (new, old)) in after[250..].iter().zip(&before).enumerate() {
        assert!(
            new.starts_with(&format!("{},", 251 + i)),
            "row {i}: auto-number: {new}"
        );
        assert_eq!(without_id(new), without_id(old), "row {i}");
    }

    // CREATE TABLE … AS SELECT from the Parquet file, and our own reading
    // of it equals mdb-export's row count and key values
    jetsql()
        .arg("--write")
        .arg(&db)
        .args([
            "-c",
            &format!(
                "CREATE TABLE imported AS SELECT \"CustomerID\", \"Company\", \"CreditLimit\" FROM '{}' WHERE \"Active\"",
                parquet.display()
            ),
        ])
        .assert()
        .success();
    let (header, rows) = export(&prog, &db, "imported");
    assert_eq!(header, "CustomerID,Company,CreditLimit");
    let active: Vec<&String> = before
        .iter()
        .filter(|r| {
            // Active is the tenth field; Notes (quoted) follows it
            let fields: Vec<&str> = r.splitn(11, ',').collect();
            fields.get(9) == Some(&"1")
        })
        .collect();
    assert_eq!(rows.len(), active.len());
    for (r, a) in rows.iter().zip(&active) {
        let f: Vec<&str> = a.splitn(11, ',').collect();
        assert_eq!(r, &format!("{},{},{}", f[0], f[1], f[8]));
    }
}

#[test]
fn transactions_and_refusals_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = sample_copy(dir.path());
    let image = std::fs::read(&db).unwrap();
    // every write is refused without --write, and BEGIN says why
    for sql in [
        "DELETE FROM \"Orders\" WHERE \"OrderID\" = 1",
        "UPDATE \"Orders\" SET \"Status\" = 1",
        "DROP TABLE \"Orders\"",
        "CREATE TABLE copy.public.t (a INT)",
        "BEGIN",
    ] {
        jetsql()
            .arg(&db)
            .args(["-c", sql])
            .assert()
            .failure()
            .stderr(contains("--write"));
    }
    assert!(std::fs::read(&db).unwrap() == image, "the file changed");

    // -c statements in order: a rolled-back transaction leaves the file
    jetsql()
        .arg("--write")
        .arg(&db)
        .args([
            "-c",
            "BEGIN",
            "-c",
            "DELETE FROM \"Orders\"",
            "-c",
            "ROLLBACK",
            "-c",
            "SELECT count(*) AS n FROM \"Orders\"",
        ])
        .assert()
        .success()
        .stdout("count\n1500\nn\n1500\n");
    assert!(
        std::fs::read(&db).unwrap() == image,
        "ROLLBACK changed the file"
    );

    // a committed one is one change; a script through -f
    let script = dir.path().join("w.sql");
    std::fs::write(
        &script,
        "BEGIN;\nCREATE TABLE notes (id COUNTER PRIMARY KEY, body MEMO);\n\
         INSERT INTO notes (body) VALUES ('a'), ('b');\nCOMMIT;\n\
         SELECT id, body FROM notes ORDER BY id;\n",
    )
    .unwrap();
    jetsql()
        .arg("--write")
        .arg(&db)
        .arg("-f")
        .arg(&script)
        .assert()
        .success()
        .stdout("count\n2\nid,body\n1,a\n2,b\n");
    // a constraint failure names table and column, exit status 1
    jetsql()
        .arg("--write")
        .arg(&db)
        .args([
            "-c",
            "INSERT INTO \"Orders\" (\"ShipCity\") VALUES ('a city name longer than thirty characters')",
        ])
        .assert()
        .failure()
        .stderr(contains(
            "table \"Orders\", column \"ShipCity\": value \"a city name longer than thirty character\"… (41 characters) refused",
        ));
}
