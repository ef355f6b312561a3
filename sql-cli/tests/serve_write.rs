//! `jetsql serve --write`: clients write through the journal, one writer
//! at a time. Rows inserted by many clients at once are all there,
//! counted by mdbtools in the file after the server stops; a transaction's
//! rows are seen by others only after COMMIT, never after ROLLBACK or a
//! client that goes away; a writer waits for another's transaction and
//! gives up after --lock-wait (55P03); read-only users, servers and
//! transactions refuse writes (25006) and the file is unchanged.

use crate::serve::{Server, runtime, sample};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};

/// A copy of the bundled sample in a temporary directory.
fn copy_of_sample(dir: &Path) -> PathBuf {
    let p = dir.join("sample.mdb");
    std::fs::copy(sample(), &p).unwrap();
    p
}

/// Rows of `table` in `file`, counted by mdbtools.
fn mdb_count(file: &Path, table: &str) -> u64 {
    let out = std::process::Command::new("mdb-count")
        .arg(file)
        .arg(table)
        .output()
        .expect("mdb-count runs (apt mdbtools)");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

async fn connect(server: &Server, user: &str, password: Option<&str>) -> Client {
    let mut conninfo = format!(
        "host=127.0.0.1 port={} user={user} dbname=sample",
        server.port
    );
    if let Some(p) = password {
        conninfo.push_str(&format!(" password={p}"));
    }
    let (client, conn) = tokio_postgres::connect(&conninfo, NoTls).await.unwrap();
    tokio::spawn(conn);
    client
}

async fn count(c: &Client) -> i64 {
    c.query_one("SELECT count(*) FROM Customers", &[])
        .await
        .unwrap()
        .get(0)
}

#[test]
fn many_clients_insert_and_every_row_reaches_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_of_sample(dir.path());
    let before = mdb_count(&file, "Customers");
    let server = Server::start(&[&file], &["--write"]);
    let (clients, each) = (8, 25);
    runtime().block_on(async {
        let mut tasks = Vec::new();
        for c in 0..clients {
            let client = connect(&server, "tester", None).await;
            tasks.push(tokio::spawn(async move {
                let insert = client
                    .prepare(
                        "INSERT INTO Customers (CustomerID, Company, Active) VALUES ($1, $2, $3)",
                    )
                    .await
                    .unwrap();
                for i in 0..each {
                    let id: i32 = 10_000 + c * 100 + i;
                    let n = client
                        .execute(&insert, &[&id, &format!("client {c} row {i}"), &true])
                        .await
                        .unwrap();
                    assert_eq!(n, 1);
                    // a client sees its own commit at once
                    let got: String = client
                        .query_one(
                            "SELECT Company FROM Customers WHERE CustomerID = $1",
                            &[&id],
                        )
                        .await
                        .unwrap()
                        .get(0);
                    assert_eq!(got, format!("client {c} row {i}"));
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let c = connect(&server, "tester", None).await;
        assert_eq!(count(&c).await, (before + (clients * each) as u64) as i64);
    });
    drop(server);
    assert_eq!(
        mdb_count(&file, "Customers"),
        before + (clients * each) as u64
    );
}

#[test]
fn transactions_are_seen_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_of_sample(dir.path());
    let before = mdb_count(&file, "Customers") as i64;
    let server = Server::start(&[&file], &["--write", "--lock-wait", "2"]);
    runtime().block_on(async {
        let a = connect(&server, "tester", None).await;
        let b = connect(&server, "tester", None).await;
        let insert = "INSERT INTO Customers (CustomerID, Company, Active) VALUES ($1, 'tx', TRUE)";
        // ROLLBACK leaves nothing
        a.batch_execute("BEGIN").await.unwrap();
        a.execute(insert, &[&20_001i32]).await.unwrap();
        a.execute(insert, &[&20_002i32]).await.unwrap();
        assert_eq!(count(&a).await, before + 2, "the writer reads its own rows");
        // another writer waits for the transaction, then gives up
        let started = Instant::now();
        let e = b.execute(insert, &[&20_003i32]).await.unwrap_err();
        assert_eq!(e.code(), Some(&SqlState::LOCK_NOT_AVAILABLE), "{e}");
        assert!(started.elapsed() >= Duration::from_millis(1900));
        a.batch_execute("ROLLBACK").await.unwrap();
        assert_eq!(count(&b).await, before);
        assert_eq!(count(&a).await, before);
        // COMMIT shows both rows to the others
        a.batch_execute("BEGIN").await.unwrap();
        a.execute(insert, &[&20_004i32]).await.unwrap();
        a.execute(insert, &[&20_005i32]).await.unwrap();
        let reader = tokio::spawn(async move {
            // waits for the commit, then reads both rows
            count(&b).await
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        a.batch_execute("COMMIT").await.unwrap();
        assert_eq!(reader.await.unwrap(), before + 2);
        // a failed statement fails the transaction: COMMIT rolls back
        a.batch_execute("BEGIN").await.unwrap();
        a.execute(insert, &[&20_006i32]).await.unwrap();
        assert!(a.execute("SELECT * FROM NoSuchTable", &[]).await.is_err());
        let e = a.execute(insert, &[&20_007i32]).await.unwrap_err();
        assert_eq!(e.code(), Some(&SqlState::IN_FAILED_SQL_TRANSACTION), "{e}");
        a.batch_execute("COMMIT").await.unwrap();
        assert_eq!(count(&a).await, before + 2);
        // a client that goes away mid-transaction leaves nothing
        let c = connect(&server, "tester", None).await;
        c.batch_execute("BEGIN").await.unwrap();
        c.execute(insert, &[&20_008i32]).await.unwrap();
        drop(c);
        let d = connect(&server, "tester", None).await;
        assert_eq!(count(&d).await, before + 2);
        // and the gate is free again
        d.execute(insert, &[&20_009i32]).await.unwrap();
        assert_eq!(count(&a).await, before + 3);
    });
    drop(server);
    assert_eq!(mdb_count(&file, "Customers") as i64, before + 3);
}

#[test]
fn read_only_users_servers_and_transactions_refuse_writes() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_of_sample(dir.path());
    let hash = |p: &str| {
        let out = crate::common::jetsql()
            .args(["serve", "--hash-password"])
            .write_stdin(format!("{p}\n"))
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let users = dir.path().join("users");
    std::fs::write(
        &users,
        format!("reader read {}\nwriter write {}\n", hash("r"), hash("w")),
    )
    .unwrap();
    let image = std::fs::read(&file).unwrap();
    let insert = "INSERT INTO Customers (CustomerID, Company, Active) VALUES (30001, 'no', TRUE)";
    let refused = |e: tokio_postgres::Error| {
        assert_eq!(e.code(), Some(&SqlState::READ_ONLY_SQL_TRANSACTION), "{e}");
    };
    {
        let server = Server::start(&[&file], &["--write", "--users", users.to_str().unwrap()]);
        runtime().block_on(async {
            let r = connect(&server, "reader", Some("r")).await;
            for write in [
                insert,
                "UPDATE Customers SET Company = 'no'",
                "DELETE FROM Customers",
                "CREATE TABLE Nope (a INT)",
                "DROP TABLE Customers",
            ] {
                refused(r.execute(write, &[]).await.unwrap_err());
            }
            assert!(
                r.batch_execute("SET default_transaction_read_only = off")
                    .await
                    .is_err()
            );
            let w = connect(&server, "writer", Some("w")).await;
            w.batch_execute("SET transaction_read_only = on")
                .await
                .unwrap();
            refused(w.execute(insert, &[]).await.unwrap_err());
            let show: String = w
                .query_one("SHOW default_transaction_read_only", &[])
                .await
                .unwrap()
                .get(0);
            assert_eq!(show, "off");
        });
    }
    {
        let server = Server::start(&[&file], &[]);
        runtime().block_on(async {
            let c = connect(&server, "tester", None).await;
            refused(c.execute(insert, &[]).await.unwrap_err());
        });
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        image,
        "the file is unchanged"
    );
}

/// The tables `pg_class` lists to `c`.
async fn listed(c: &Client) -> Vec<String> {
    c.query(
        "SELECT c.relname FROM pg_catalog.pg_class c WHERE c.relkind = 'r' ORDER BY 1",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| r.get::<_, String>(0))
    .collect()
}

#[test]
fn the_catalog_follows_tables_created_through_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_of_sample(dir.path());
    let server = Server::start(&[&file], &["--write"]);
    runtime().block_on(async {
        let c = connect(&server, "tester", None).await;
        let before = listed(&c).await;
        assert!(before.contains(&"Customers".to_string()), "{before:?}");
        assert!(!before.contains(&"Fresh".to_string()));
        c.batch_execute("CREATE TABLE Fresh (Code INTEGER, Label TEXT(20))")
            .await
            .unwrap();
        // the same connection sees it at its next catalog statement
        let after = listed(&c).await;
        assert!(after.contains(&"Fresh".to_string()), "{after:?}");
        let cols: Vec<String> = c
            .query(
                "SELECT a.attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON a.attrelid = c.oid WHERE c.relname = 'Fresh' AND a.attnum > 0 ORDER BY a.attnum",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect();
        assert_eq!(cols, ["Code", "Label"]);
        // and so does another connection
        let d = connect(&server, "tester", None).await;
        assert!(listed(&d).await.contains(&"Fresh".to_string()));
    });
}
