//! Statements prepared once and run with `$n` values (the entry points a
//! wire-protocol server uses: `JetSession::prepare`, `describe`,
//! `frame_for`, `kind_of`), checked against the same statement with the
//! values written as literals, in both dialects; a write with parameters
//! goes through the journal like any other; `server_session` offers no
//! way to the server's files.

use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::{ParamValues, ScalarValue};
use datafusion::sql::parser::Statement as DFStatement;
use jet_provider::session::{StatementKind, new_session, server_session};
use jet_provider::{JetOptions, JetSession, SqlDialect};
use std::path::{Path, PathBuf};

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sample.mdb")
}

/// A writable copy of the sample in a fresh folder named after `tag` and
/// this process: the folder (the test removes it) and the copy's path.
fn copy_of_sample(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sample.mdb");
    std::fs::copy(sample(), &path).unwrap();
    (dir, path)
}

fn session(path: &Path, writable: bool, dialect: SqlDialect) -> JetSession {
    let s = new_session(1 << 30).unwrap();
    s.register(
        "db",
        path,
        JetOptions {
            writable,
            ..JetOptions::default()
        },
        true,
    )
    .unwrap();
    s.set_dialect(dialect);
    s
}

async fn literal(s: &JetSession, sql: &str) -> String {
    pretty_format_batches(&s.sql(sql).await.unwrap())
        .unwrap()
        .to_string()
}

/// The one statement `sql` holds, prepared.
async fn one(s: &JetSession, sql: &str) -> DFStatement {
    let mut stmts = s.prepare(sql).await.unwrap();
    assert_eq!(stmts.len(), 1, "{sql}");
    stmts.pop().unwrap()
}

/// `stmt` run with `values`: its rows as a table, or the error of
/// `frame_for`.
async fn run(
    s: &JetSession,
    stmt: DFStatement,
    values: Vec<ScalarValue>,
) -> Result<String, String> {
    let frame = s
        .frame_for(stmt, Some(ParamValues::from(values)))
        .await
        .map_err(|e| e.to_string())?;
    Ok(pretty_format_batches(&frame.collect().await.unwrap())
        .unwrap()
        .to_string())
}

async fn prepared(s: &JetSession, sql: &str, values: Vec<ScalarValue>) -> String {
    run(s, one(s, sql).await, values).await.unwrap()
}

/// A query planned once with placeholders answers as the literal query
/// does, for several values, in both dialects.
#[tokio::test]
async fn parameters_answer_as_literals() {
    let cases: [(&str, &str, Vec<ScalarValue>); 4] = [
        (
            "SELECT CustomerID, Company FROM Customers WHERE CustomerID = $1",
            "SELECT CustomerID, Company FROM Customers WHERE CustomerID = 7",
            vec![ScalarValue::Int32(Some(7))],
        ),
        (
            "SELECT CustomerID FROM Customers WHERE City = $1 AND CustomerID > $2 ORDER BY CustomerID",
            "SELECT CustomerID FROM Customers WHERE City = 'Madrid' AND CustomerID > 10 ORDER BY CustomerID",
            vec![
                ScalarValue::Utf8(Some("Madrid".into())),
                ScalarValue::Int64(Some(10)),
            ],
        ),
        (
            "SELECT COUNT(*) AS n FROM Customers WHERE Active = $1",
            "SELECT COUNT(*) AS n FROM Customers WHERE Active = true",
            vec![ScalarValue::Boolean(Some(true))],
        ),
        (
            "SELECT CustomerID FROM Customers WHERE CustomerID BETWEEN $1 AND $2 ORDER BY CustomerID",
            "SELECT CustomerID FROM Customers WHERE CustomerID BETWEEN 3 AND 9 ORDER BY CustomerID",
            vec![ScalarValue::Int32(Some(3)), ScalarValue::Int32(Some(9))],
        ),
    ];
    for dialect in [SqlDialect::Access, SqlDialect::DataFusion] {
        let s = session(&sample(), false, dialect);
        for (with, without, values) in &cases {
            let want = literal(&s, without).await;
            assert!(want.lines().count() > 4, "{without}: no rows\n{want}");
            // run twice: a prepared statement is reusable
            for _ in 0..2 {
                assert_eq!(
                    prepared(&s, with, values.clone()).await,
                    want,
                    "{dialect:?}: {with}"
                );
            }
        }
    }
}

/// `describe` tells the parameter types the plan fixes and the columns
/// returned, without running anything.
#[tokio::test]
async fn describe_tells_parameters_and_columns() {
    let s = session(&sample(), false, SqlDialect::Access);
    let stmt = one(
        &s,
        "SELECT CustomerID, CreditLimit, Active FROM Customers WHERE CustomerID = $1 AND City = $2",
    )
    .await;
    let d = s.describe(&stmt).await.unwrap();
    assert_eq!(
        d.parameters,
        vec![Some(DataType::Int32), Some(DataType::Utf8)]
    );
    let cols: Vec<(String, DataType)> = d
        .schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    assert_eq!(
        cols,
        vec![
            ("CustomerID".to_string(), DataType::Int32),
            ("CreditLimit".to_string(), DataType::Decimal128(19, 4)),
            ("Active".to_string(), DataType::Boolean),
        ]
    );
    assert_eq!(JetSession::kind_of(&stmt).unwrap(), StatementKind::Read);
    // a statement the entry point carries out itself describes as no rows
    let ddl = one(&s, "CREATE TABLE t (a INT)").await;
    let d = s.describe(&ddl).await.unwrap();
    assert!(d.parameters.is_empty() && d.schema.fields().is_empty());
    assert_eq!(JetSession::kind_of(&ddl).unwrap(), StatementKind::Write);
    for (sql, kind) in [
        ("BEGIN", StatementKind::Begin),
        ("COMMIT", StatementKind::Commit),
        ("ROLLBACK", StatementKind::Rollback),
        (
            "DELETE FROM Customers WHERE CustomerID = 1",
            StatementKind::Write,
        ),
        ("UPDATE Customers SET City = 'x'", StatementKind::Write),
    ] {
        let st = one(&s, sql).await;
        assert_eq!(JetSession::kind_of(&st).unwrap(), kind, "{sql}");
    }
}

/// INSERT and UPDATE with parameters write through the journal: another
/// session over the file reads the rows afterwards.
#[tokio::test]
async fn writes_with_parameters_reach_the_file() {
    let (dir, path) = copy_of_sample("jet-prepared");
    {
        let s = session(&path, true, SqlDialect::Access);
        let insert = "INSERT INTO Customers (CustomerID, Company, Active) VALUES ($1, $2, $3)";
        for (id, name) in [(9001, "Acme"), (9002, "Bolt")] {
            let stmt = one(&s, insert).await;
            assert_eq!(JetSession::kind_of(&stmt).unwrap(), StatementKind::Write);
            let values = vec![
                ScalarValue::Int32(Some(id)),
                ScalarValue::Utf8(Some(name.into())),
                ScalarValue::Boolean(Some(true)),
            ];
            assert!(
                run(&s, stmt, values).await.unwrap().contains("| 1 "),
                "one row inserted"
            );
        }
        prepared(
            &s,
            "UPDATE Customers SET City = $1 WHERE CustomerID = $2",
            vec![
                ScalarValue::Utf8(Some("Oslo".into())),
                ScalarValue::Int32(Some(9002)),
            ],
        )
        .await;
    }
    let s = session(&path, false, SqlDialect::Access);
    assert_eq!(
        literal(
            &s,
            "SELECT CustomerID, Company, City FROM Customers WHERE CustomerID > 9000 ORDER BY 1"
        )
        .await,
        "+------------+---------+------+\n\
         | CustomerID | Company | City |\n\
         +------------+---------+------+\n\
         | 9001       | Acme    |      |\n\
         | 9002       | Bolt    | Oslo |\n\
         +------------+---------+------+"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A missing value, a value of the wrong type, and parameters on a
/// statement that cannot take them are errors, and nothing changes.
#[tokio::test]
async fn bad_parameters_are_refused() {
    let s = session(&sample(), false, SqlDialect::Access);
    let stmt = one(
        &s,
        "SELECT CustomerID FROM Customers WHERE CustomerID = $1 AND City = $2",
    )
    .await;
    let e = run(&s, stmt.clone(), vec![ScalarValue::Int32(Some(1))])
        .await
        .unwrap_err();
    assert!(e.contains("$2"), "{e}");
    let text = |t: &str| ScalarValue::Utf8(Some(t.into()));
    let e = run(&s, stmt, vec![text("x"), text("y")]).await.unwrap_err();
    assert!(e.contains("$1"), "{e}");
    let ddl = one(&s, "CREATE TABLE t (a INT)").await;
    let e = run(&s, ddl, vec![ScalarValue::Int32(Some(1))])
        .await
        .unwrap_err();
    assert!(e.contains("parameters"), "{e}");
}

/// A server session reads no file by name and has no `jet_files`; the
/// shell's session has both.
#[tokio::test]
async fn server_session_reaches_no_files() {
    let csv = std::env::temp_dir().join(format!("jet-prepared-{}.csv", std::process::id()));
    std::fs::write(&csv, "a\n1\n").unwrap();
    let by_name = format!("SELECT * FROM '{}'", csv.display());
    let shell = new_session(1 << 30).unwrap();
    shell.set_dialect(SqlDialect::DataFusion);
    assert!(shell.sql(&by_name).await.is_ok());
    let server = server_session(1 << 30).unwrap();
    server.set_dialect(SqlDialect::DataFusion);
    assert!(server.sql(&by_name).await.is_err());
    let files = format!(
        "SELECT * FROM jet_files('{}', 'Customers')",
        sample().display()
    );
    assert!(shell.sql(&files).await.is_ok());
    let e = server.sql(&files).await.unwrap_err().to_string();
    assert!(e.contains("jet_files"), "{e}");
    std::fs::remove_file(&csv).unwrap();
}

/// A read-only view of a writable handle (what a server gives a client
/// that may only read): it sees each commit made through the handle, and
/// every kind of write through it is refused, the file unchanged.
#[tokio::test]
async fn read_only_views_see_commits_and_refuse_writes() {
    use jet_provider::JetHandle;
    use std::sync::Arc;
    let (dir, path) = copy_of_sample("jet-view");
    let db = jet_storage::Database::open(&path, jet_storage::OpenOptions::default()).unwrap();
    let handle = Arc::new(JetHandle::new(
        db,
        JetOptions {
            writable: true,
            ..JetOptions::default()
        },
    ));
    let writer = server_session(1 << 30).unwrap();
    writer.register_handle("db", handle.clone(), true).unwrap();
    let reader = server_session(1 << 30).unwrap();
    reader
        .register_handle("db", Arc::new(handle.read_only()), true)
        .unwrap();
    let count = "SELECT count(*) AS n FROM Customers";
    let before = literal(&reader, count).await;
    writer
        .sql("INSERT INTO Customers (CustomerID, Company) VALUES (9101, 'Seen')")
        .await
        .unwrap();
    let after = literal(&reader, count).await;
    assert_ne!(before, after, "the view reads the commit");
    assert!(
        literal(
            &reader,
            "SELECT Company FROM Customers WHERE CustomerID = 9101"
        )
        .await
        .contains("Seen")
    );
    let image = std::fs::read(&path).unwrap();
    for write in [
        "INSERT INTO Customers (CustomerID, Company) VALUES (9102, 'No')",
        "UPDATE Customers SET Company = 'No'",
        "DELETE FROM Customers",
        "CREATE TABLE db.Nope (a INT)",
        "DROP TABLE Customers",
        "BEGIN TRANSACTION",
    ] {
        let e = reader.sql(write).await.unwrap_err().to_string();
        assert!(e.contains("read-only"), "{write}: {e}");
    }
    // a bare name would be a session table of DataFusion's, which a
    // server's session has no place for: refused too
    assert!(reader.sql("CREATE TABLE Nope (a INT)").await.is_err());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        image,
        "the file is unchanged"
    );
    assert_eq!(literal(&reader, count).await, after);
    drop((reader, writer, handle));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A query planned once runs with each set of values as the statement
/// run afresh does; after a write (the image replaced) or a switch of
/// dialect the plan is refused (`None`), and planned again it reads the
/// new rows. Statements other than queries are not planned ahead.
#[tokio::test]
async fn planned_queries_answer_as_fresh_ones_until_the_database_changes() {
    let (dir, path) = copy_of_sample("jet-planned");
    let s = session(&path, true, SqlDialect::Access);
    let sql =
        "SELECT CustomerID, Company FROM Customers WHERE CustomerID >= $1 ORDER BY CustomerID";
    let stmt = one(&s, sql).await;
    let planned = s
        .plan_query(&stmt)
        .await
        .unwrap()
        .expect("a query is planned");
    let rows = |f: datafusion::prelude::DataFrame| async move {
        pretty_format_batches(&f.collect().await.unwrap())
            .unwrap()
            .to_string()
    };
    for id in [1, 17, 249, 400] {
        let values = ParamValues::from(vec![ScalarValue::Int32(Some(id))]);
        let cached = s
            .frame_for_planned(&planned, Some(&values))
            .unwrap()
            .expect("nothing changed");
        let fresh = s.frame_for(stmt.clone(), Some(values)).await.unwrap();
        assert_eq!(rows(cached).await, rows(fresh).await, "id {id}");
    }
    // a value of another type is cast or refused as frame_for does
    let text = ParamValues::from(vec![ScalarValue::Utf8(Some("249".into()))]);
    assert!(
        s.frame_for_planned(&planned, Some(&text))
            .unwrap()
            .is_some()
    );
    let bad = ParamValues::from(vec![ScalarValue::Utf8(Some("many".into()))]);
    assert!(s.frame_for_planned(&planned, Some(&bad)).is_err());
    // a write replaces the image: the old plan is refused
    s.sql("INSERT INTO Customers (CustomerID, Company, Active) VALUES (9201, 'New', TRUE)")
        .await
        .unwrap();
    let values = ParamValues::from(vec![ScalarValue::Int32(Some(9201))]);
    assert!(
        s.frame_for_planned(&planned, Some(&values))
            .unwrap()
            .is_none()
    );
    let again = s.plan_query(&stmt).await.unwrap().unwrap();
    let f = s.frame_for_planned(&again, Some(&values)).unwrap().unwrap();
    assert!(rows(f).await.contains("New"));
    // a switch of dialect too
    s.set_dialect(SqlDialect::DataFusion);
    assert!(
        s.frame_for_planned(&again, Some(&values))
            .unwrap()
            .is_none()
    );
    s.set_dialect(SqlDialect::Access);
    // statements other than queries are planned when they run
    let insert = one(
        &s,
        "INSERT INTO Customers (CustomerID, Company, Active) VALUES ($1, 'x', TRUE)",
    )
    .await;
    assert!(s.plan_query(&insert).await.unwrap().is_none());
    drop(s);
    std::fs::remove_dir_all(&dir).unwrap();
}
