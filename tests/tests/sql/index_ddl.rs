//! `CREATE [UNIQUE] INDEX` on a table with rows and `DROP INDEX` through
//! SQL (issue 25): each one journaled transaction; the built index passes
//! the index/scan consistency check and answers seeks exactly as a full
//! scan does; a refused statement leaves the file byte-identical; mdbtools
//! still reads every row.

use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::Int64Type;
use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};
use jet_storage::schema::tdef::Direction;
use jet_storage::{Database, OpenOptions};
use std::path::{Path, PathBuf};

fn sample_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.accdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.accdb"),
        &path,
    )
    .unwrap();
    (dir, path)
}

fn session(db: &Path, writable: bool, pushdown: bool) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(
        SessionConfig::new().with_default_catalog_and_schema("datafusion", "public"),
    ));
    let options = JetOptions {
        writable,
        pushdown,
        ..JetOptions::default()
    };
    s.register("db", db, options, true).unwrap();
    s.set_dialect(SqlDialect::Access);
    s
}

async fn count(s: &JetSession, sql: &str) -> i64 {
    let b = s.sql(sql).await.unwrap();
    b[0].column(0).as_primitive::<Int64Type>().value(0)
}

/// The cities of Customers as `mdb-export` reads them.
fn exported_cities(db: &Path) -> Vec<String> {
    let (prog, _) = jet_tests::require_mdb_export().expect("mdb-export (mdbtools) is installed");
    let out = jet_tests::run_mdb_export(&prog, &[], db, "Customers").unwrap();
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let col = r
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "City")
        .unwrap();
    r.records()
        .map(|rec| rec.unwrap()[col].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexes_are_created_on_rows_and_dropped() {
    let (_dir, path) = sample_copy();
    let cities = exported_cities(&path);
    {
        let s = session(&path, true, true);
        s.sql("CREATE INDEX ByCity ON customers (city DESC)")
            .await
            .unwrap();
        // the same name again: refused; IF NOT EXISTS: nothing to do
        let e = s
            .sql("CREATE INDEX ByCity ON Customers (Country)")
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("already has an index named"), "{e}");
        s.sql("CREATE INDEX IF NOT EXISTS ByCity ON Customers (Country)")
            .await
            .unwrap();
    }
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    assert!(jet_tests::consistency(&db, "after CREATE INDEX") > 0);
    let t = db.table("Customers").unwrap();
    let def = t.def();
    let li = def.indexes.iter().find(|i| i.name == "ByCity").unwrap();
    let real = &def.real_indexes[li.real_index as usize];
    let city = def
        .columns
        .iter()
        .find(|c| c.name == "City")
        .unwrap()
        .col_num;
    assert_eq!(real.key, vec![(city, Direction::Descending)]);
    drop(db);
    // every city seeks to as many rows as mdb-export holds, with the index
    // and without it
    let seek = session(&path, false, true);
    let scan = session(&path, false, false);
    let mut distinct = cities.clone();
    distinct.sort();
    distinct.dedup();
    for c in distinct.iter().take(12) {
        let expected = cities.iter().filter(|x| *x == c).count() as i64;
        let sql = format!(
            "SELECT count(*) FROM Customers WHERE City = '{}'",
            c.replace('\'', "''")
        );
        assert_eq!(count(&seek, &sql).await, expected, "{c}");
        assert_eq!(count(&scan, &sql).await, expected, "{c}");
    }
    drop((seek, scan));
    // a unique index over duplicate keys is refused before anything is written
    assert!(distinct.len() < cities.len(), "the sample repeats cities");
    let before = std::fs::read(&path).unwrap();
    {
        let s = session(&path, true, true);
        let e = s
            .sql("CREATE UNIQUE INDEX OneCity ON Customers (City)")
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("two rows hold the key"), "{e}");
        let e = s
            .sql("CREATE INDEX ByNotes ON Customers (Notes)")
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("Notes"), "{e}");
    }
    assert!(
        std::fs::read(&path).unwrap() == before,
        "a refusal changed the file"
    );
    // DROP INDEX with and without the table
    {
        let s = session(&path, true, true);
        s.sql("DROP INDEX ByCity ON Customers").await.unwrap();
        s.sql("CREATE UNIQUE INDEX ByMail ON Customers (Email)")
            .await
            .unwrap();
        s.sql("DROP INDEX bymail").await.unwrap();
        let e = s.sql("DROP INDEX ByMail").await.unwrap_err().to_string();
        assert!(e.contains("no table of the database has an index"), "{e}");
        s.sql("DROP INDEX IF EXISTS ByMail").await.unwrap();
    }
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    assert!(jet_tests::consistency(&db, "after DROP INDEX") > 0);
    let names: Vec<String> = db
        .table("Customers")
        .unwrap()
        .def()
        .indexes
        .iter()
        .map(|i| i.name.clone())
        .collect();
    assert_eq!(names, ["PrimaryKey", "Company", "CountryCity"]);
    assert_eq!(
        exported_cities(&path),
        cities,
        "mdbtools reads the same rows"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_database_refuses_index_changes() {
    let (_dir, path) = sample_copy();
    let before = std::fs::read(&path).unwrap();
    let s = session(&path, false, true);
    let e = s
        .sql("CREATE INDEX ByCity ON Customers (City)")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("read-only") || e.contains("--write"), "{e}");
    let e = s
        .sql("DROP INDEX Company ON Customers")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("read-only") || e.contains("--write"), "{e}");
    drop(s);
    assert!(std::fs::read(&path).unwrap() == before);
}
