//! Action queries (issue 20): `EXECUTE [Saved Query] [values…]` runs an
//! append, update, delete or make-table query as one journaled
//! transaction of a writable database; a failure leaves the file
//! byte-identical; a read-only database refuses it. Access's own action
//! forms typed directly (`DELETE T.* FROM T`, `SELECT … INTO`) run too.
//!
//! The files are UCanAccess's `parameters.accdb` (its saved append and
//! update queries, written by Access) and Jackcess's `queryTestV2007.accdb`.
//! Expected rows are read back from the written file by `mdb-export`
//! (mdbtools), a reader independent of jetsql; the index/scan consistency
//! check runs after every change.
//!
//! Microsoft's reference for the statement: "EXECUTE statement (Microsoft
//! Access SQL)" — `EXECUTE procedure [param1[, param2[, …]]]`, values bind
//! the procedure's declared parameters in order.

use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::UInt64Type;
use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};
use jet_storage::{Database, OpenOptions};
use std::path::{Path, PathBuf};

/// A copy of the corpus file `rel` in a fresh temporary directory.
fn copy_of(rel: &str) -> Option<(tempfile::TempDir, PathBuf)> {
    let corpus = jet_tests::corpus()?;
    let dir = tempfile::tempdir().unwrap();
    let name = Path::new(rel).file_name().unwrap();
    let path = dir.path().join(name);
    std::fs::copy(corpus.join(rel), &path).unwrap();
    // the corpus files are read-only; the copy is to be written (owner
    // read-write)
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    Some((dir, path))
}

fn session(db: &Path, writable: bool) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(
        SessionConfig::new()
            .with_information_schema(true)
            .with_default_catalog_and_schema("datafusion", "public"),
    ));
    let options = JetOptions {
        writable,
        ..JetOptions::default()
    };
    s.register("db", db, options, true).unwrap();
    s.set_dialect(SqlDialect::Access);
    s
}

/// The rows of `table` as `mdb-export` prints them (header first), with
/// dates as `%Y-%m-%d`.
fn exported(db: &Path, table: &str) -> Vec<Vec<String>> {
    let (prog, _) = jet_tests::require_mdb_export().expect("mdb-export (mdbtools) is installed");
    let out =
        jet_tests::run_mdb_export(&prog, &["-D", "%Y-%m-%d", "-T", "%Y-%m-%d"], db, table).unwrap();
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(out.stdout.as_slice());
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn count_of(batches: &[datafusion::arrow::array::RecordBatch]) -> u64 {
    batches[0].column(0).as_primitive::<UInt64Type>().value(0)
}

fn consistent(path: &Path) {
    let db = Database::open(path, OpenOptions::default()).unwrap();
    // panics naming the table and index on the first inconsistency
    assert!(jet_tests::consistency(&db, "after EXECUTE") > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn append_and_update_queries_run_with_their_parameters() {
    let Some((_dir, path)) = copy_of("ucanaccess/parameters.accdb") else {
        return;
    };
    let s = session(&path, true);
    // a saved append query without parameters, by name in brackets
    let b = s.sql("EXECUTE [InsertWithoutParameters]").await.unwrap();
    assert_eq!(count_of(&b), 1);
    let rows = exported(&path, "table 1");
    assert_eq!(rows[0], ["ID", "text1", "text2", "date 1"]);
    assert_eq!(rows.len(), 1 + 3, "two rows before, one appended");
    let added = rows.last().unwrap();
    assert_eq!(&added[1..], ["ciaooooooo", "ccccccccc", "2001-10-10"]);

    // values bind the declared PARAMETERS in order (case-insensitive name)
    let b = s
        .sql("EXECUTE insertnewmembership 'Smith', 'Ann', 'Gold'")
        .await
        .unwrap();
    assert_eq!(count_of(&b), 1);
    let rows = exported(&path, "Membership");
    assert_eq!(rows.len(), 1 + 2);
    let smith = rows.iter().find(|r| r[1] == "Smith").expect("appended row");
    assert_eq!(&smith[2..], ["Ann", "Gold"]);
    let smith_id = smith[0].clone();

    // an update query: Membership.ID = prmID
    let b = s
        .sql(&format!(
            "EXECUTE UpdateMembershipLevel 'Platinum', {smith_id}"
        ))
        .await
        .unwrap();
    assert_eq!(count_of(&b), 1);
    let rows = exported(&path, "Membership");
    let levels: Vec<(&str, &str)> = rows[1..]
        .iter()
        .map(|r| (r[1].as_str(), r[3].as_str()))
        .collect();
    assert_eq!(levels, [("Amadei", "Silver"), ("Smith", "Platinum")]);

    // parameters bound by name in the session serve too
    s.bind(
        "prmLastName",
        datafusion::common::ScalarValue::Utf8(Some("Rossi".into())),
    );
    let e = s
        .sql("EXECUTE InsertNewMembership")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("prmFirstName") && e.contains("prmMembershipLevel"),
        "{e}"
    );
    assert!(
        !e.contains("[prmLastName]"),
        "a bound parameter is not missing: {e}"
    );
    drop(s);
    consistent(&path);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_and_refused_action_queries_leave_the_file_byte_identical() {
    let Some((_dir, path)) = copy_of("ucanaccess/parameters.accdb") else {
        return;
    };
    let before = std::fs::read(&path).unwrap();
    {
        let s = session(&path, true);
        // SimpleInsert appends ID 1, which the primary key already holds
        let e = s.sql("EXECUTE SimpleInsert").await.unwrap_err().to_string();
        assert!(
            e.to_lowercase().contains("primarykey") || e.contains("unique"),
            "{e}"
        );
        // too many values
        let e = s
            .sql("EXECUTE InsertWithoutParameters 1")
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("declares no parameters"), "{e}");
        // a select query runs as a query, changing nothing; its values
        // bind its PARAMETERS a DateTime, [b "] Text
        let b = s
            .sql("EXECUTE queryWithParameters #2001-01-01#, 'x'")
            .await
            .unwrap();
        assert_eq!(b.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
    }
    assert!(std::fs::read(&path).unwrap() == before, "file changed");
    {
        // read-only: refused, nothing written
        let s = session(&path, false);
        let e = s
            .sql("EXECUTE InsertWithoutParameters")
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("read-only") || e.contains("writable"), "{e}");
    }
    assert!(std::fs::read(&path).unwrap() == before, "file changed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_delete_and_make_table_forms_run() {
    let Some((_dir, path)) = copy_of("ucanaccess/parameters.accdb") else {
        return;
    };
    let s = session(&path, true);
    // make-table: a new table with the query's columns and rows
    let b = s
        .sql("SELECT [table 1].ID, [table 1].text1 INTO Copied FROM [table 1] WHERE ID >= 1")
        .await
        .unwrap();
    assert_eq!(count_of(&b), 2);
    let rows = exported(&path, "Copied");
    assert_eq!(rows[0], ["ID", "text1"]);
    assert_eq!(
        rows[1..],
        exported(&path, "table 1")[1..]
            .iter()
            .map(|r| r[..2].to_vec())
            .collect::<Vec<_>>()
    );
    // an existing table is not replaced
    let e = s
        .sql("SELECT * INTO Copied FROM [table 1]")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("already has a table"), "{e}");
    // DELETE with Access's target list deletes whole rows
    let b = s
        .sql("DELETE [table 1].* FROM [table 1] WHERE [table 1].ID = 2")
        .await
        .unwrap();
    assert_eq!(count_of(&b), 1);
    let b = s
        .sql("DELETE Copied.ID, Copied.text1 FROM Copied WHERE ID = 1")
        .await
        .unwrap();
    assert_eq!(count_of(&b), 1);
    assert_eq!(exported(&path, "table 1").len(), 1 + 1);
    assert_eq!(exported(&path, "Copied").len(), 1 + 1);
    // a target list naming another table, or a join, is refused
    let e = s
        .sql("DELETE Membership.* FROM [table 1] WHERE ID = 1")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("another table"), "{e}");
    let e = s
        .sql("DELETE Copied.* FROM Copied INNER JOIN [table 1] ON Copied.ID = [table 1].ID")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("join"), "{e}");
    assert_eq!(exported(&path, "Copied").len(), 1 + 1);
    drop(s);
    consistent(&path);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_database_s_queries_read_its_own_tables() {
    // two copies of one file; the second gets a row more. A query of the
    // second database must count the second's rows, although the first
    // database answers to bare names in the session.
    let Some((_d1, first)) = copy_of("ucanaccess/parameters.accdb") else {
        return;
    };
    let Some((_d2, second)) = copy_of("ucanaccess/parameters.accdb") else {
        return;
    };
    {
        let s = session(&second, true);
        s.sql("EXECUTE InsertWithoutParameters").await.unwrap();
    }
    let expected = exported(&second, "table 1").len() as i64 - 1;
    assert_eq!(expected, 3);
    let s = JetSession::new(jet_provider::session_context(
        SessionConfig::new().with_default_catalog_and_schema("datafusion", "public"),
    ));
    s.register("one", &first, JetOptions::default(), true)
        .unwrap();
    s.register(
        "two",
        &second,
        JetOptions {
            writable: true,
            ..JetOptions::default()
        },
        false,
    )
    .unwrap();
    s.set_dialect(SqlDialect::Access);
    s.bind("a", datafusion::common::ScalarValue::Null);
    s.bind(
        "b \"",
        datafusion::common::ScalarValue::Utf8(Some("x".into())),
    );
    let b = s
        .sql("SELECT count(*) FROM two.queryWithParameters")
        .await
        .unwrap();
    let n = b[0]
        .column(0)
        .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
        .value(0);
    assert_eq!(n, expected);
    // EXECUTE of the second database's append query writes the second file
    s.sql("EXECUTE two.InsertWithoutParameters").await.unwrap();
    assert_eq!(exported(&second, "table 1").len() as i64 - 1, expected + 1);
    assert_eq!(exported(&first, "table 1").len() - 1, 2);
}
