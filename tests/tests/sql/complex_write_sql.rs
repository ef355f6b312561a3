//! Complex columns written through SQL: `INSERT` and `UPDATE` with list
//! values (`make_array`, `[...]`, a list of `named_struct` attachments)
//! and `DELETE`, on a copy of UCanAccess's `complex.accdb`.
//!
//! Expected values come from `mdb-export`, which reads the hidden flat
//! tables (each value and the complex id of its parent row) and the
//! parent table; after every statement every table passes the index/scan
//! consistency check. Without the corpus or mdbtools the tests skip,
//! except under `CI=true`.

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::prelude::SessionContext;
use jet_provider::{JetOptions, JetSession};
use jet_storage::{Database, OpenOptions};
use jet_tests::agree::consistency;
use std::path::{Path, PathBuf};

const TABLE: &str = "t_complex";
const MULTI: &str = "multi-value-data";
const ATTACH: &str = "attach-data";
const HISTORY: &str = "VersionHistory_F5F8918F-0A3F-4DA9-AE71-184EE5012880";
/// The flat tables of `multi-value-data` and `attach-data` (mdb-tables).
const MULTI_FLAT: &str = "f_FCC66D28D650455480D923D1BD446BA6_multi-value-data";
const ATTACH_FLAT: &str = "f_3B07F994AD0A4B56A3A1E13B3A1D3B70_attach-data";
const HISTORY_FLAT: &str = "f_0BFE159C44334BFB968A820EA89C2D7E_VersionHistory_F5F8918F-0A3F-";

/// A writable copy of the corpus file and a session over it.
fn setup(dir: &Path) -> Option<(PathBuf, JetSession)> {
    let src = jet_tests::corpus()?.join("ucanaccess/complex.accdb");
    jet_tests::require_mdb_export()?;
    let copy = dir.join("complex.accdb");
    std::fs::copy(&src, &copy).unwrap();
    let mut perms = std::fs::metadata(&copy).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o600);
    std::fs::set_permissions(&copy, perms).unwrap();
    let s = JetSession::new(SessionContext::new());
    let options = JetOptions {
        writable: true,
        ..JetOptions::default()
    };
    s.register("db", &copy, options, true).unwrap();
    Some((copy, s))
}

/// Header and rows of `table` per `mdb-export` (binary as hex).
fn export(file: &Path, table: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let (prog, _) = jet_tests::require_mdb_export().unwrap();
    let out = jet_tests::run_mdb_export(
        &prog,
        &["-Q", "-d", "\u{1f}", "-R", "\u{1e}\n", "-b", "hex"],
        file,
        table,
    )
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text
        .split("\u{1e}\n")
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\u{1f}').map(str::to_string).collect::<Vec<_>>());
    let header = lines.next().unwrap_or_default();
    (header, lines.collect())
}

/// The values of column `value` of flat table `flat` whose parent complex
/// id (the column named `_…`, as Access names it) is `id`, sorted.
fn flat_values(file: &Path, flat: &str, id: &str, value: &str) -> Vec<String> {
    let (header, rows) = export(file, flat);
    let fk = header.iter().position(|h| h.starts_with('_')).unwrap();
    let v = header.iter().position(|h| h == value).unwrap();
    let mut out: Vec<String> = rows
        .iter()
        .filter(|r| r[fk] == id)
        .map(|r| r[v].clone())
        .collect();
    out.sort();
    out
}

/// The complex id stored in `TABLE`'s row `key` (its `multi-value-data`).
fn parent_id(file: &Path, key: &str) -> Option<String> {
    let (header, rows) = export(file, TABLE);
    let k = header.iter().position(|h| h == "id").unwrap();
    let c = header.iter().position(|h| h == MULTI).unwrap();
    rows.iter().find(|r| r[k] == key).map(|r| r[c].clone())
}

fn check(file: &Path, ctx: &str) {
    let db = Database::open(file, OpenOptions::default()).unwrap();
    consistency(&db, ctx);
}

async fn run(s: &JetSession, sql: &str) -> Vec<RecordBatch> {
    s.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// An attachment literal with all six fields of the column's struct.
fn file(name: &str, hex: &str) -> String {
    format!(
        "named_struct('file_name', '{name}', 'file_type', NULL, 'file_data', X'{hex}', \
         'file_url', NULL, 'file_timestamp', NULL, 'file_flags', NULL)"
    )
}

/// INSERT with `make_array` and attachment structs, UPDATE with `[...]`,
/// DELETE: mdb-export sees each value with its parent's complex id, the
/// deleted row's values gone from every flat table, and jetsql reads the
/// lists back.
#[tokio::test]
async fn insert_update_delete_through_sql() {
    let dir = tempfile::tempdir().unwrap();
    let Some((path, s)) = setup(dir.path()) else {
        return;
    };
    run(
        &s,
        &format!(
            r#"INSERT INTO "{TABLE}" (id, "{MULTI}", "{ATTACH}") VALUES
               ('sql1', make_array('red', 'blue'), [{}, {}])"#,
            file("a.txt", "68656C6C6F"),
            file("b.zip", "504B0304")
        ),
    )
    .await;
    check(&path, "after INSERT");
    let id = parent_id(&path, "sql1").expect("the new row has a complex id");
    assert_eq!(
        flat_values(&path, MULTI_FLAT, &id, "Value"),
        ["blue", "red"]
    );
    assert_eq!(
        flat_values(&path, ATTACH_FLAT, &id, "FileName"),
        ["a.txt", "b.zip"]
    );
    assert_eq!(
        flat_values(&path, ATTACH_FLAT, &id, "FileType"),
        ["txt", "zip"]
    );
    let got = run(
        &s,
        &format!(
            r#"SELECT "{MULTI}", "{ATTACH}"[1]['file_data'], array_length("{ATTACH}") FROM "{TABLE}" WHERE id = 'sql1'"#
        ),
    )
    .await;
    let b = &got[0];
    let multi = b.column(0).as_list::<i32>().value(0);
    let multi: Vec<&str> = multi
        .as_string::<i32>()
        .iter()
        .map(Option::unwrap)
        .collect();
    assert_eq!(multi, ["red", "blue"]);
    assert_eq!(b.column(1).as_binary::<i64>().value(0), b"hello");

    // a row inserted without values still takes a complex id (as Access)
    run(
        &s,
        &format!(r#"INSERT INTO "{TABLE}" (id) VALUES ('sql2')"#),
    )
    .await;
    check(&path, "after INSERT without values");
    let id2 = parent_id(&path, "sql2").expect("a complex id");
    assert_eq!(
        id2.parse::<i32>().unwrap(),
        id.parse::<i32>().unwrap() + 1,
        "the next complex id"
    );

    // UPDATE replaces the list, keeps the other column's values
    run(
        &s,
        &format!(r#"UPDATE "{TABLE}" SET "{MULTI}" = ['green'] WHERE id = 'sql1'"#),
    )
    .await;
    check(&path, "after UPDATE");
    assert_eq!(flat_values(&path, MULTI_FLAT, &id, "Value"), ["green"]);
    assert_eq!(
        flat_values(&path, ATTACH_FLAT, &id, "FileName"),
        ["a.txt", "b.zip"]
    );
    run(
        &s,
        &format!(r#"UPDATE "{TABLE}" SET "{ATTACH}" = NULL WHERE id = 'sql1'"#),
    )
    .await;
    assert!(flat_values(&path, ATTACH_FLAT, &id, "FileName").is_empty());

    // DELETE removes the parent's values from every flat table
    let row3 = parent_id(&path, "row3").unwrap();
    assert!(!flat_values(&path, HISTORY_FLAT, &row3, "append-memo-data").is_empty());
    run(
        &s,
        &format!(r#"DELETE FROM "{TABLE}" WHERE id IN ('row3', 'sql1')"#),
    )
    .await;
    check(&path, "after DELETE");
    for flat in [MULTI_FLAT, ATTACH_FLAT, HISTORY_FLAT] {
        let (header, rows) = export(&path, flat);
        let fk = header.iter().position(|h| h.starts_with('_')).unwrap();
        assert!(
            rows.iter().all(|r| r[fk] != row3 && r[fk] != id),
            "{flat} keeps values of a deleted row"
        );
    }
}

/// What jetsql does not write is refused by name, changing nothing: a
/// version history, an append-only memo's value (Access would record a
/// version), a WHERE clause reading a complex column.
#[tokio::test]
async fn unwritten_complex_values_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let Some((path, s)) = setup(dir.path()) else {
        return;
    };
    let before = std::fs::read(&path).unwrap();
    for (sql, column) in [
        (
            format!(r#"UPDATE "{TABLE}" SET "{HISTORY}" = NULL WHERE id = 'row1'"#),
            HISTORY,
        ),
        (
            format!(r#"INSERT INTO "{TABLE}" (id, "append-memo-data") VALUES ('x', 'v1')"#),
            "append-memo-data",
        ),
        (
            format!(r#"UPDATE "{TABLE}" SET id = 'x' WHERE array_has("{MULTI}", 'value2')"#),
            MULTI,
        ),
    ] {
        let err = s.sql(&sql).await.expect_err(&sql).to_string();
        assert!(err.contains(TABLE) && err.contains(column), "{sql}: {err}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before, "nothing changed");
}
