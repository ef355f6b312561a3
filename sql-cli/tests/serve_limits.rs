//! Stopping a statement early on `jetsql serve`: a client's cancel
//! request (tokio-postgres's `CancelToken`, the protocol's
//! CancelRequest on a new connection) and the statement timeout (`SET
//! statement_timeout`, `--statement-timeout`) end a statement that would
//! run for hours with PostgreSQL's SQLSTATE 57014, and the connection
//! goes on answering.

use crate::serve::{Server, runtime, sample};
use std::time::{Duration, Instant};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Client, NoTls};

/// 250⁵ ≈ 10¹² rows to count: hours of work.
const ENDLESS: &str =
    "SELECT count(*) FROM Customers a, Customers b, Customers c, Customers d, Customers e";

async fn connect(server: &Server) -> Client {
    let conninfo = format!(
        "host=127.0.0.1 port={} user=tester dbname=sample",
        server.port
    );
    let (client, conn) = tokio_postgres::connect(&conninfo, NoTls).await.unwrap();
    tokio::spawn(conn);
    client
}

/// The error `sql` ends with, and how long it took (a minute at most:
/// the test fails rather than waits for the statement's end).
async fn stopped(c: &Client, sql: &str) -> (tokio_postgres::Error, Duration) {
    let started = Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(60), c.simple_query(sql))
        .await
        .expect("the statement was stopped within a minute");
    (r.expect_err("the statement is stopped"), started.elapsed())
}

async fn still_answers(c: &Client) {
    let row = c.query_one("SELECT 6 * 7", &[]).await.unwrap();
    assert_eq!(row.get::<_, i64>(0), 42);
}

#[test]
fn statement_timeouts_stop_long_statements() {
    let _alone = crate::common::timing_exclusive();
    let server = Server::start(&[&sample()], &[]);
    runtime().block_on(async {
        let c = connect(&server).await;
        c.batch_execute("SET statement_timeout = '700ms'")
            .await
            .unwrap();
        let (e, took) = stopped(&c, ENDLESS).await;
        assert_eq!(e.code(), Some(&SqlState::QUERY_CANCELED), "{e}");
        assert!(
            e.as_db_error()
                .unwrap()
                .message()
                .contains("statement timeout"),
            "{e}"
        );
        assert!(took >= Duration::from_millis(700), "{took:?}");
        still_answers(&c).await;
        assert!(
            c.batch_execute("SET statement_timeout = 'soon'")
                .await
                .is_err()
        );
    });
    drop(server);
    // the server's limit, which a client cannot raise
    let server = Server::start(&[&sample()], &["--statement-timeout", "1"]);
    runtime().block_on(async {
        let c = connect(&server).await;
        c.batch_execute("SET statement_timeout = '1h'")
            .await
            .unwrap();
        let (e, took) = stopped(&c, ENDLESS).await;
        assert_eq!(e.code(), Some(&SqlState::QUERY_CANCELED), "{e}");
        assert!(took >= Duration::from_secs(1), "{took:?}");
        still_answers(&c).await;
    });
}

#[test]
fn cancel_requests_stop_the_running_statement() {
    let _alone = crate::common::timing_exclusive();
    let server = Server::start(&[&sample()], &[]);
    runtime().block_on(async {
        let c = connect(&server).await;
        let token = c.cancel_token();
        let canceller = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            token.cancel_query(NoTls).await.unwrap();
        });
        let (e, _) = stopped(&c, ENDLESS).await;
        canceller.await.unwrap();
        assert_eq!(e.code(), Some(&SqlState::QUERY_CANCELED), "{e}");
        assert!(
            e.as_db_error().unwrap().message().contains("user request"),
            "{e}"
        );
        still_answers(&c).await;
        // a cancel that arrives between statements stops nothing later
        c.cancel_token().cancel_query(NoTls).await.unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        still_answers(&c).await;
        // another connection's key does not reach this one
        let other = connect(&server).await;
        let token = other.cancel_token();
        let run = tokio::spawn(async move {
            let r = c
                .query_one("SELECT count(*) FROM Customers a, Customers b", &[])
                .await;
            r.map(|row| row.get::<_, i64>(0))
        });
        token.cancel_query(NoTls).await.unwrap();
        assert_eq!(run.await.unwrap().unwrap(), 250 * 250);
    });
}
