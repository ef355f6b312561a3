//! `ALTER TABLE` through SQL (issue 25) on copies of the generated sample
//! databases (Jet4 `.mdb` and ACE12 `.accdb`): mdbtools reads the altered
//! tables with the values they held before (renamed, dropped, widened and
//! added columns; a cascade delete through a relationship added by SQL),
//! compared against `mdb-export` of the original file; refused statements
//! leave the file byte-identical and say why in words.

use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};
use jet_storage::{Database, OpenOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn copy(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(fixture);
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures").join(fixture),
        &path,
    )
    .unwrap();
    (dir, path)
}

fn session(db: &Path, writable: bool, dialect: SqlDialect) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(SessionConfig::new()));
    let options = JetOptions {
        writable,
        ..JetOptions::default()
    };
    s.register("db", db, options, true).unwrap();
    s.set_dialect(dialect);
    s
}

/// A table as `mdb-export` reads it: the header and the records.
fn export(db: &Path, table: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let (prog, _) = jet_tests::require_mdb_export().expect("mdb-export (mdbtools) is installed");
    let out = jet_tests::run_mdb_export(&prog, &[], db, table).unwrap();
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

/// The records of an export as maps from column name to value.
fn by_name(header: &[String], rows: &[Vec<String>]) -> Vec<HashMap<String, String>> {
    rows.iter()
        .map(|r| header.iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

async fn altered_file_reads_back(fixture: &str) {
    let (_dir, path) = copy(fixture);
    let (p_header, p_rows) = export(&path, "Products");
    let (o_header, o_rows) = export(&path, "Orders");
    let (_, c_rows) = export(&path, "Customers");
    assert!(!p_rows.is_empty() && !o_rows.is_empty() && !c_rows.is_empty());
    // the customer of the first order, and the orders it has
    let cust_col = o_header.iter().position(|h| h == "CustomerID").unwrap();
    let victim = o_rows[0][cust_col].clone();
    let kept_orders: Vec<Vec<String>> = o_rows
        .iter()
        .filter(|r| r[cust_col] != victim)
        .cloned()
        .collect();
    assert!(kept_orders.len() < o_rows.len());
    {
        let s = session(&path, true, SqlDialect::Access);
        for sql in [
            "ALTER TABLE Products ALTER COLUMN UnitsInStock LONG",
            "ALTER TABLE products ALTER weightkg DOUBLE",
            "ALTER TABLE Products DROP COLUMN Description",
            "ALTER TABLE Products ADD COLUMN Reorder SHORT NOT NULL DEFAULT 5",
            "ALTER TABLE Products ALTER COLUMN ProductName TEXT(120)",
        ] {
            s.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        s.set_dialect(SqlDialect::DataFusion);
        for sql in [
            "ALTER TABLE Products RENAME COLUMN Category TO Kind",
            "ALTER TABLE Orders ADD CONSTRAINT CustomersOrders FOREIGN KEY (CustomerID) \
             REFERENCES Customers (CustomerID) ON DELETE CASCADE",
            "ALTER TABLE OrderLines RENAME TO Lines",
        ] {
            s.sql(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        let deleted = format!("DELETE FROM Customers WHERE CustomerID = {victim}");
        s.sql(&deleted).await.unwrap();
    }
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    jet_tests::consistency(&db, &format!("{fixture} after ALTER TABLE"));
    assert!(db.table_names().iter().any(|t| t == "Lines"));
    assert!(!db.table_names().iter().any(|t| t == "OrderLines"));
    drop(db);

    // Products: the same rows, columns renamed, dropped, widened, added
    let (header, rows) = export(&path, "Products");
    let expected_header: Vec<String> = p_header
        .iter()
        .filter(|h| *h != "Description")
        .map(|h| if h == "Category" { "Kind" } else { h.as_str() })
        .map(str::to_string)
        .chain(["Reorder".to_string()])
        .collect();
    assert_eq!(header, expected_header, "{fixture}");
    assert_eq!(rows.len(), p_rows.len(), "{fixture}");
    // a widened row that no longer fits its page moves: compare by key
    let key = |m: &HashMap<String, String>| m["ProductID"].parse::<i64>().unwrap();
    let mut olds = by_name(&p_header, &p_rows);
    let mut news = by_name(&header, &rows);
    olds.sort_by_key(key);
    news.sort_by_key(key);
    for (old, new) in olds.iter().zip(news.iter()) {
        for (col, v) in old {
            match col.as_str() {
                "Description" => assert!(!new.contains_key(col)),
                "Category" => assert_eq!(&new["Kind"], v, "{fixture}"),
                // a Single widened to a Double holds the same number
                "WeightKg" => assert_eq!(
                    new[col].parse::<f32>().ok(),
                    v.parse::<f32>().ok(),
                    "{fixture}: WeightKg {v} became {}",
                    new[col]
                ),
                _ => assert_eq!(&new[col], v, "{fixture}: column {col}"),
            }
        }
        assert_eq!(new["Reorder"], "5", "{fixture}");
    }
    // Orders: every order of the deleted customer went with it, nothing else
    let (header, rows) = export(&path, "Orders");
    assert_eq!(header, o_header);
    let (mut rows, mut kept_orders) = (rows, kept_orders);
    rows.sort();
    kept_orders.sort();
    assert_eq!(rows, kept_orders, "{fixture}: cascade delete");
    let (_, customers) = export(&path, "Customers");
    assert_eq!(customers.len(), c_rows.len() - 1);
    let (_, lines) = export(&path, "Lines");
    assert!(!lines.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn altered_tables_read_back_in_mdbtools_jet4() {
    altered_file_reads_back("sample.mdb").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn altered_tables_read_back_in_mdbtools_ace12() {
    altered_file_reads_back("sample.accdb").await;
}

/// No Rust debug text or writer-internal names in a message.
fn readable(e: &str) {
    for bad in [
        "BadDefinition",
        "Unsupported(",
        "WriteError",
        "NoSuchColumn",
        " { ",
        "TDEF",
    ] {
        assert!(!e.contains(bad), "{bad:?} in {e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_leave_the_file_byte_identical() {
    let (_dir, path) = copy("sample.accdb");
    let s = session(&path, true, SqlDialect::DataFusion);
    for (sql, why) in [
        (
            "ALTER TABLE Products ALTER COLUMN UnitsInStock TYPE TINYINT",
            "from Integer to Byte",
        ),
        (
            "ALTER TABLE Customers DROP COLUMN City",
            "key column of index CountryCity",
        ),
        (
            "ALTER TABLE Customers ADD COLUMN Region VARCHAR(10) NOT NULL",
            "needs a default",
        ),
        (
            "ALTER TABLE Customers ALTER COLUMN CustomerID TYPE DOUBLE",
            "auto-number",
        ),
        ("ALTER TABLE Orders RENAME TO customers", "\"customers\""),
        (
            "ALTER TABLE OrderLines ADD CONSTRAINT q FOREIGN KEY (Quantity) REFERENCES Products (ProductID)",
            "differ in type",
        ),
        (
            "ALTER TABLE Orders ADD CONSTRAINT f FOREIGN KEY (CustomerID) REFERENCES Customers \
             ON DELETE SET DEFAULT",
            "ON DELETE SET DEFAULT is not supported",
        ),
        (
            "ALTER TABLE Customers ADD CONSTRAINT twice PRIMARY KEY (Email)",
            "primary key already",
        ),
        (
            "ALTER TABLE Customers DROP CONSTRAINT nothing",
            "no constraint",
        ),
        (
            "ALTER TABLE Customers RENAME COLUMN City TO country",
            "column \"Country\" exists",
        ),
    ] {
        let before = std::fs::read(&path).unwrap();
        let e = s
            .sql(sql)
            .await
            .err()
            .unwrap_or_else(|| panic!("{sql}: not refused"))
            .to_string();
        assert!(e.contains(why), "{sql}: {e}");
        readable(&e);
        assert!(
            std::fs::read(&path).unwrap() == before,
            "{sql}: the refusal changed the file"
        );
    }
    drop(s);
    // read-only: refused in words, nothing written
    let before = std::fs::read(&path).unwrap();
    let s = session(&path, false, SqlDialect::Access);
    for sql in [
        "ALTER TABLE Customers ADD COLUMN Region TEXT(10)",
        "ALTER TABLE Customers DROP COLUMN Notes",
        "ALTER TABLE Customers RENAME TO Clients",
    ] {
        let e = s.sql(sql).await.unwrap_err().to_string();
        assert!(
            e.contains("open read-only") && e.contains("nothing changed"),
            "{sql}: {e}"
        );
        readable(&e);
    }
    drop(s);
    assert!(std::fs::read(&path).unwrap() == before);
}
