//! `jetsql serve`, checked with real PostgreSQL clients: `psql` (simple
//! query protocol, text results) answers as the `jetsql` shell does over
//! the same file; tokio-postgres (extended protocol: Parse / Describe /
//! Bind / Execute, binary results, `$n` parameters) reads the values the
//! shell reads; errors carry PostgreSQL's SQLSTATE; many clients at once
//! read one shared database; the server refuses writes, unknown
//! databases and connections over its limit; psql's `\dt`, `\dn`, `\d`
//! show what they show over PostgreSQL holding the same data migrated by
//! `jetsql migrate`, and so do psycopg, pyodbc through psqlODBC and
//! SQLAlchemy's reflection (`serve_clients/*.py`).

use crate::common::{jetsql, nwind, success};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use tokio_postgres::types::{FromSql, Type};
use tokio_postgres::{NoTls, SimpleQueryMessage};

/// A `jetsql serve` process on a free loopback port, stopped on drop;
/// its standard error is kept.
pub struct Server {
    child: Child,
    pub port: u16,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Server {
    pub fn start(files: &[&Path], extra: &[&str]) -> Server {
        Server::start_at(files, "127.0.0.1:0", extra)
    }

    /// A server listening on `listen` (port 0).
    pub fn start_at(files: &[&Path], listen: &str, extra: &[&str]) -> Server {
        let bin = assert_cmd::cargo::cargo_bin("jetsql");
        let mut child = Command::new(bin)
            .arg("serve")
            .args(files)
            .args(["--listen", listen])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("jetsql serve starts");
        let mut reader = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        // keep reading, so the server never blocks on a full pipe
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = stderr.clone();
        std::thread::spawn(move || {
            for l in reader.lines().map_while(Result::ok) {
                kept.lock().unwrap().push(l);
            }
        });
        let port = line
            .split("listening on ")
            .nth(1)
            .and_then(|r| r.split(',').next())
            .and_then(|a| a.rsplit(':').next())
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server {
            child,
            port,
            stderr,
        }
    }

    /// What the server wrote to standard error after its first line.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr.lock().unwrap().clone()
    }

    /// Whether a line of standard error holding `text` arrives within
    /// 10 s (the lines are read on another thread, after the fact).
    pub fn said(&self, text: &str) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(10) {
            if self.stderr().iter().any(|l| l.contains(text)) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        false
    }

    /// Whether the process still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    pub fn conninfo(&self, db: &str) -> String {
        format!("host=127.0.0.1 port={} user=tester dbname={db}", self.port)
    }

    /// `psql -X -A --csv` with `args`, its standard output (it must
    /// succeed) or its standard error.
    fn psql(&self, db: &str, args: &[&str], env: &[(&str, &str)]) -> Result<String, String> {
        let out = Command::new("psql")
            .arg(self.conninfo(db))
            .args(["-X", "-A", "--csv", "-v", "ON_ERROR_STOP=1"])
            .args(args)
            .envs(env.iter().copied())
            .output()
            .expect("psql runs (apt postgresql-client)");
        if out.status.success() {
            Ok(String::from_utf8(out.stdout).unwrap())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn nwind_or_skip() -> Option<PathBuf> {
    nwind()
}

pub fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sample.mdb")
}

/// CSV records of `text`.
fn records(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// Whether a value PostgreSQL's text form wrote (`psql`) is the value the
/// shell's CSV wrote: the same text, or the same after PostgreSQL's
/// spellings (`t`/`f`, a space before the time, `\x` before bytes), or the
/// same number.
fn same_value(pg: &str, shell: &str) -> bool {
    if pg == shell {
        return true;
    }
    let pg_norm = match pg {
        "t" => "true".to_string(),
        "f" => "false".to_string(),
        p => p.strip_prefix("\\x").unwrap_or(p).to_string(),
    };
    if pg_norm == shell || pg_norm == shell.replacen('T', " ", 1) {
        return true;
    }
    matches!((pg.parse::<f64>(), shell.parse::<f64>()), (Ok(a), Ok(b)) if a == b)
}

/// Queries of every kind over nwind, each with an ORDER BY that fixes the
/// order of its rows.
const NWIND_QUERIES: &[&str] = &[
    // seek, scan, range
    "SELECT * FROM Orders WHERE OrderID = 10248",
    "SELECT OrderID, CustomerID, OrderDate, Freight FROM Orders WHERE OrderID BETWEEN 10250 AND 10260 ORDER BY OrderID",
    "SELECT * FROM Customers ORDER BY CustomerID",
    // every type nwind has: Text, Memo, Long, Integer, Currency, Date/Time, Yes/No, OLE
    "SELECT * FROM Employees ORDER BY EmployeeID",
    "SELECT * FROM Products WHERE Discontinued = True ORDER BY ProductID",
    "SELECT CategoryID, CategoryName, Description, Picture FROM Categories ORDER BY CategoryID",
    // joins and aggregates
    "SELECT c.CompanyName, COUNT(*) AS n, SUM(o.Freight) AS freight FROM Customers c INNER JOIN Orders o ON c.CustomerID = o.CustomerID GROUP BY c.CompanyName ORDER BY c.CompanyName",
    "SELECT ProductID, SUM(Quantity * UnitPrice) AS total, AVG(Discount) AS d FROM [Order Details] GROUP BY ProductID ORDER BY ProductID",
    // NULLs, Access functions and operators
    "SELECT CustomerID, Region, IIf(IsNull(Region), 'none', Region) AS r, Len(CompanyName) AS l FROM Customers ORDER BY CustomerID",
    "SELECT OrderID, Year(OrderDate) AS y, Format(OrderDate, 'yyyy-mm-dd') AS d, DateDiff('d', OrderDate, ShippedDate) AS days FROM Orders WHERE OrderID < 10260 ORDER BY OrderID",
    "SELECT 1/2 AS half, 7 \\ 2 AS idiv, 7 MOD 3 AS m, 'a' & 'b' AS cat, 2^10 AS p",
    // saved queries as views
    "SELECT * FROM [Order Details Extended] ORDER BY OrderID, ProductID",
    "SELECT * FROM [Product Sales for 1995] ORDER BY CategoryName, ProductName",
    // empty results keep their columns
    "SELECT OrderID, Freight FROM Orders WHERE OrderID = -1",
];

/// `psql` over the wire answers every query as `jetsql` answers it over
/// the file, value by value, with the same column names.
#[test]
fn psql_answers_as_the_shell() {
    let Some(nwind) = nwind_or_skip() else { return };
    let server = Server::start(&[&nwind], &[]);
    for q in NWIND_QUERIES {
        let wire = server
            .psql("nwind", &["-c", q], &[])
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        let shell = success(jetsql().arg(&nwind).args(["--format", "csv", "-c", q])).stdout;
        let (wire, shell) = (records(&wire), records(&String::from_utf8(shell).unwrap()));
        assert_eq!(wire.len(), shell.len(), "{q}: row counts");
        assert!(!wire.is_empty(), "{q}: no header");
        assert_eq!(wire[0], shell[0], "{q}: column names");
        for (i, (w, s)) in wire.iter().zip(&shell).enumerate().skip(1) {
            assert_eq!(w.len(), s.len(), "{q}: row {i}");
            for (c, (a, b)) in w.iter().zip(s).enumerate() {
                assert!(
                    same_value(a, b),
                    "{q}: row {i} column {}: server {a:?}, shell {b:?}",
                    wire[0][c]
                );
            }
        }
    }
}

/// One simple query with several statements answers each in turn;
/// `SET jetsql.dialect` and `PGOPTIONS` choose the dialect; `SHOW` reads
/// parameters; a failed statement inside BEGIN fails the rest until
/// ROLLBACK.
#[test]
fn sessions_speak_both_dialects() {
    let server = Server::start(&[&sample()], &[]);
    let out = server
        .psql(
            "sample",
            &["-c", "SELECT COUNT(*) AS n FROM Customers; SELECT 1 AS one"],
            &[],
        )
        .unwrap();
    // psql 15 prints every result of a multi-statement -c
    assert_eq!(out, "n\n250\none\n1\n");
    // Access: "x" is a string; DataFusion: an identifier
    assert_eq!(
        server
            .psql("sample", &["-c", "SELECT \"x\" AS v"], &[])
            .unwrap(),
        "v\nx\n"
    );
    let df = [("PGOPTIONS", "-c jetsql.dialect=datafusion")];
    assert_eq!(
        server
            .psql(
                "sample",
                &[
                    "-c",
                    "SELECT \"CustomerID\" FROM \"Customers\" WHERE \"CustomerID\" = 3"
                ],
                &df
            )
            .unwrap(),
        "CustomerID\n3\n"
    );
    assert_eq!(
        server
            .psql("sample", &["-c", "SHOW jetsql.dialect"], &df)
            .unwrap(),
        "jetsql.dialect\ndatafusion\n"
    );
    assert_eq!(
        server
            .psql(
                "sample",
                &[
                    "-c",
                    "SET jetsql.dialect TO datafusion",
                    "-c",
                    "SELECT 7 / 2 AS q"
                ],
                &[]
            )
            .unwrap(),
        "SET\nq\n3\n"
    );
    let e = server
        .psql("sample", &["-c", "SET jetsql.dialect = cobol"], &[])
        .unwrap_err();
    assert!(
        e.contains("jetsql.dialect must be access or datafusion"),
        "{e}"
    );
    // 1/2 is 0.5 in Access SQL, 0 in DataFusion's
    assert_eq!(
        server
            .psql("sample", &["-c", "SELECT 1/2 AS h"], &[])
            .unwrap(),
        "h\n0.5\n"
    );
    let rt = runtime();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&server.conninfo("sample"), NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client.batch_execute("BEGIN").await.unwrap();
        let e = client
            .simple_query("SELECT nope FROM Customers")
            .await
            .unwrap_err();
        assert_eq!(e.code().unwrap().code(), "42703", "{e}");
        let e = client.simple_query("SELECT 1").await.unwrap_err();
        assert_eq!(e.code().unwrap().code(), "25P02", "{e}");
        client.batch_execute("ROLLBACK").await.unwrap();
        let rows = client.simple_query("SELECT 1 AS one").await.unwrap();
        assert!(matches!(&rows[1], SimpleQueryMessage::Row(r) if r.get(0) == Some("1")));
    });
}

/// A runtime of two worker threads for the async clients.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Any value as its raw binary bytes (a test-side reader of binary
/// results).
struct Raw(Vec<u8>);

impl<'a> FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

/// PostgreSQL's binary `numeric` as decimal text, written from the
/// protocol's documentation (`numeric_send`): ndigits, weight, sign,
/// dscale, then base-10000 digits.
fn numeric(raw: &[u8]) -> String {
    let w = |i: usize| i16::from_be_bytes([raw[2 * i], raw[2 * i + 1]]);
    let (n, weight, sign, dscale) = (w(0) as usize, w(1) as i32, w(2) as u16, w(3) as usize);
    let digits: Vec<i16> = (0..n).map(|i| w(4 + i)).collect();
    let mut value = 0f64;
    for (i, d) in digits.iter().enumerate() {
        value += f64::from(*d) * 10000f64.powi(weight - i as i32);
    }
    let text = format!("{:.*}", dscale, value);
    if sign == 0x4000 {
        format!("-{text}")
    } else {
        text
    }
}

/// tokio-postgres prepares with `$n`, reads the parameter and column
/// types Describe reports, and reads binary results equal to the shell's
/// values; one prepared statement runs many times.
#[test]
fn extended_protocol_with_parameters_and_binary_results() {
    let Some(nwind) = nwind_or_skip() else { return };
    let server = Server::start(&[&nwind], &[]);
    let shell = |q: &str| {
        records(
            &String::from_utf8(
                success(jetsql().arg(&nwind).args(["--format", "csv", "-c", q])).stdout,
            )
            .unwrap(),
        )
    };
    let rt = runtime();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&server.conninfo("nwind"), NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        let stmt = client
            .prepare("SELECT OrderID, CustomerID, EmployeeID, OrderDate, Freight, ShipName FROM Orders WHERE OrderID = $1")
            .await
            .unwrap();
        assert_eq!(stmt.params(), &[Type::INT4]);
        let types: Vec<Type> = stmt.columns().iter().map(|c| c.type_().clone()).collect();
        assert_eq!(
            types,
            vec![Type::INT4, Type::VARCHAR, Type::INT4, Type::TIMESTAMP, Type::NUMERIC, Type::VARCHAR]
        );
        let want = shell("SELECT OrderID, CustomerID, EmployeeID, OrderDate, Freight, ShipName FROM Orders WHERE OrderID BETWEEN 10248 AND 10300 ORDER BY OrderID");
        for (i, id) in (10248..=10300).enumerate() {
            let rows = client.query(&stmt, &[&id]).await.unwrap();
            assert_eq!(rows.len(), 1);
            let r = &rows[0];
            let w = &want[i + 1];
            assert_eq!(r.get::<_, i32>(0).to_string(), w[0]);
            assert_eq!(r.get::<_, &str>(1), w[1]);
            assert_eq!(r.get::<_, i32>(2).to_string(), w[2]);
            let t: std::time::SystemTime = r.get(3);
            let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
            let shown = chrono::DateTime::from_timestamp(secs, 0)
                .unwrap()
                .naive_utc()
                .format("%Y-%m-%dT%H:%M:%S")
                .to_string();
            assert_eq!(shown, w[3]);
            assert_eq!(numeric(&r.get::<_, Raw>(4).0), w[4]);
            assert_eq!(r.get::<_, &str>(5), w[5]);
        }
        // one statement, reused many times
        let count = client
            .prepare("SELECT COUNT(*) AS n FROM [Order Details] WHERE OrderID = $1 AND Quantity > $2")
            .await
            .unwrap();
        let mut total = 0i64;
        for id in 10248..10648 {
            let r = client.query_one(&count, &[&id, &5i16]).await.unwrap();
            total += r.get::<_, i64>(0);
        }
        let want = shell("SELECT COUNT(*) FROM [Order Details] WHERE OrderID >= 10248 AND OrderID < 10648 AND Quantity > 5");
        assert_eq!(total.to_string(), want[1][0]);
        // NULL parameter: no row is equal to NULL
        let none: Option<i32> = None;
        assert!(client.query(&stmt, &[&none]).await.unwrap().is_empty());
        // text parameters read as the column's type
        let r = client
            .query("SELECT ProductName FROM Products WHERE ProductName = $1", &[&"Chai"])
            .await
            .unwrap();
        assert_eq!(r.len(), 1);
        // Yes/No and OLE in binary
        let r = client
            .query_one("SELECT Discontinued, Picture FROM Categories INNER JOIN Products ON Categories.CategoryID = Products.CategoryID WHERE ProductID = $1", &[&5i32])
            .await
            .unwrap();
        assert!(r.get::<_, bool>(0));
        let picture: Vec<u8> = r.get(1);
        let shell_picture = shell("SELECT Picture FROM Categories INNER JOIN Products ON Categories.CategoryID = Products.CategoryID WHERE ProductID = 5");
        let hex: String = picture.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, shell_picture[1][0]);
        // a wrong parameter is an error naming it
        let e = client
            .query_typed("SELECT * FROM Orders WHERE OrderID = $1", &[(&"ten", Type::TEXT)])
            .await
            .unwrap_err();
        assert!(e.to_string().contains("$1"), "{e}");
    });
}

/// Errors carry PostgreSQL's codes; the server refuses writes, unknown
/// databases and connections past its limit, and keeps serving.
#[test]
fn refusals_carry_sqlstates() {
    let server = Server::start(&[&sample()], &["--max-connections", "2"]);
    let rt = runtime();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&server.conninfo("sample"), NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        for (sql, code) in [
            ("SELECT * FROM Nowhere", "42P01"),
            ("SELEC 1", "42601"),
            ("DELETE FROM Customers", "25006"),
            ("INSERT INTO Customers (CustomerID) VALUES (1)", "25006"),
            ("DROP TABLE Customers", "25006"),
            ("SHOW no_such_thing", "42704"),
        ] {
            let e = client.simple_query(sql).await.unwrap_err();
            assert_eq!(e.code().map(|c| c.code()), Some(code), "{sql}: {e}");
        }
        let e = tokio_postgres::connect(&server.conninfo("nope"), NoTls)
            .await
            .err()
            .expect("unknown database refused");
        assert_eq!(e.code().map(|c| c.code()), Some("3D000"), "{e}");
        // the limit: a second connection is in (once the refused one has
        // gone: a connection counts until its socket closes), a third is
        // refused
        let mut tries = 0;
        let (second, conn2) = loop {
            match tokio_postgres::connect(&server.conninfo("sample"), NoTls).await {
                Ok(c) => break c,
                Err(e) if tries < 50 && e.code().map(|c| c.code()) == Some("53300") => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                Err(e) => panic!("second connection: {e}"),
            }
        };
        tokio::spawn(conn2);
        let e = tokio_postgres::connect(&server.conninfo("sample"), NoTls)
            .await
            .err()
            .expect("third connection refused");
        assert_eq!(e.code().map(|c| c.code()), Some("53300"), "{e}");
        drop(second);
        // the first still answers
        let rows = client
            .simple_query("SELECT COUNT(*) FROM Customers")
            .await
            .unwrap();
        assert!(matches!(&rows[1], SimpleQueryMessage::Row(r) if r.get(0) == Some("250")));
    });
    // the file is untouched
    assert!(server.psql("sample", &["-c", "SELECT 1"], &[]).is_ok());
}

/// Many clients at once over one shared database each get their own
/// answers.
#[test]
fn concurrent_clients_share_one_database() {
    let Some(nwind) = nwind_or_skip() else { return };
    let server = Server::start(&[&nwind, &sample()], &[]);
    let rt = runtime();
    rt.block_on(async {
        let mut tasks = Vec::new();
        for k in 0..16i32 {
            let info = server.conninfo(if k % 2 == 0 { "nwind" } else { "sample" });
            tasks.push(tokio::spawn(async move {
                let (client, conn) = tokio_postgres::connect(&info, NoTls).await.unwrap();
                tokio::spawn(conn);
                for j in 0..20i32 {
                    if k % 2 == 0 {
                        let id = 10248 + k * 20 + j;
                        let r = client
                            .query_one("SELECT OrderID FROM Orders WHERE OrderID = $1", &[&id])
                            .await
                            .unwrap();
                        assert_eq!(r.get::<_, i32>(0), id);
                    } else {
                        let id = 1 + (k * 20 + j) % 250;
                        let r = client
                            .query_one(
                                "SELECT CustomerID FROM Customers WHERE CustomerID = $1",
                                &[&id],
                            )
                            .await
                            .unwrap();
                        assert_eq!(r.get::<_, i32>(0), id);
                    }
                }
                // the other database is a catalog of its own
                let other = if k % 2 == 0 {
                    "sample.public.Customers"
                } else {
                    "nwind.public.Orders"
                };
                let rows = client
                    .simple_query(&format!("SELECT COUNT(*) FROM {other}"))
                    .await
                    .unwrap();
                assert!(matches!(&rows[1], SimpleQueryMessage::Row(_)));
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

/// `$JETSQL_TEST_PG`, the administrative connection string, or a skip (a
/// failure under `CI=true`).
pub fn pg_admin() -> Option<String> {
    match std::env::var("JETSQL_TEST_PG") {
        Ok(v) if !v.is_empty() => Some(v),
        _ => jet_tests::skip_or_fail(
            "JETSQL_TEST_PG is not set (a libpq connection string; .ci/run starts a cluster)",
        ),
    }
}

/// `psql` of a connection string, unaligned: its output (it must succeed).
pub fn psql_at(conninfo: &str, command: &str) -> String {
    let out = Command::new("psql")
        .arg(conninfo)
        .args(["-X", "-A", "-c", command])
        .env_remove("PGPORT")
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The parts of psql's `\d`, `\dt`, `\dn` output the server answers:
/// every line but the owner (the server's role is `jetsql`), a column's
/// default, and the foreign-key sections (not in the catalog yet).
fn described(text: &str, owner_field: Option<usize>) -> Vec<String> {
    let mut out = Vec::new();
    let mut skipping = false;
    for line in text.lines() {
        if line == "Foreign-key constraints:" || line == "Referenced by:" {
            skipping = true;
            continue;
        }
        if skipping && line.starts_with(char::is_whitespace) {
            continue;
        }
        skipping = false;
        let mut fields: Vec<&str> = line.split('|').collect();
        if let Some(i) = owner_field
            && fields.len() > i
        {
            fields.remove(i);
        }
        // Column|Type|Collation|Nullable|Default: the default left out
        if owner_field.is_none() && fields.len() == 5 {
            fields.truncate(4);
        }
        out.push(fields.join("|"));
    }
    out
}

/// psql's `\dt`, `\dn` and `\d TABLE` over the server show what they show
/// over PostgreSQL holding the same database made by `jetsql migrate`:
/// tables, column names, types (with lengths and precisions), NOT NULL,
/// and indexes with their definitions.
#[test]
fn psql_describes_as_postgresql_describes_the_migrated_database() {
    let Some(nwind) = nwind_or_skip() else { return };
    let Some(admin) = pg_admin() else { return };
    let name = crate::migrate_support::unique_name("jetsql_serve");
    psql_at(&admin, &format!("CREATE DATABASE {name}"));
    let migrated = format!("{admin} dbname={name}");
    success(jetsql().args(["migrate"]).arg(&nwind).arg(&migrated));
    let server = Server::start(&[&nwind], &[]);
    let ours = |c: &str| psql_at(&server.conninfo("nwind"), c);
    let tables = described(&psql_at(&migrated, "\\dt"), Some(3));
    assert!(tables.len() > 9, "{tables:?}");
    assert_eq!(described(&ours("\\dt"), Some(3)), tables);
    assert_eq!(
        described(&ours("\\dn"), Some(1)),
        described(&psql_at(&migrated, "\\dn"), Some(1))
    );
    let names: Vec<String> = tables
        .iter()
        .filter_map(|l| l.split('|').nth(1).map(str::to_string))
        .filter(|n| n != "Name" && !n.is_empty() && !n.starts_with('('))
        .collect();
    assert_eq!(names.len(), 9, "{names:?}");
    for t in names {
        let command = format!("\\d \"{t}\"");
        assert_eq!(
            described(&ours(&command), None),
            described(&psql_at(&migrated, &command), None),
            "{command}"
        );
    }
    psql_at(&admin, &format!("DROP DATABASE {name} WITH (FORCE)"));
}

/// The value of `key` in a libpq `key=value` connection string.
fn conninfo_value(conninfo: &str, key: &str) -> Option<String> {
    conninfo
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")).map(str::to_string))
}

/// `python3 sql-cli/tests/serve_clients/SCRIPT args…`: its standard output.
fn python(script: &str, args: &[String]) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/serve_clients")
        .join(script);
    let out = Command::new("python3")
        .arg(&path)
        .args(args)
        .env_remove("PGPORT")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// psycopg (text, binary, prepared with parameters), pyodbc through
/// psqlODBC (`?` parameters, SQLTables, SQLColumns), SQLAlchemy's
/// reflection (tables, column types and nullability, keys, indexes,
/// foreign keys) and pgjdbc's DatabaseMetaData (tables, columns, primary
/// keys, indexes, imported keys) and prepared statements read from the
/// server exactly what they read from PostgreSQL holding the same data
/// made by `jetsql migrate`.
#[test]
fn client_libraries_read_what_they_read_from_postgresql() {
    let _timing = crate::common::timing_exclusive();
    let Some(nwind) = nwind_or_skip() else { return };
    let Some(admin) = pg_admin() else { return };
    let ready = Command::new("python3")
        .args(["-c", "import psycopg, pyodbc, sqlalchemy"])
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        let _: Option<()> = jet_tests::skip_or_fail(
            "python3 lacks psycopg, pyodbc or sqlalchemy (.ci/run installs them)",
        );
        return;
    }
    let name = crate::migrate_support::unique_name("jetsql_clients");
    psql_at(&admin, &format!("CREATE DATABASE {name}"));
    let migrated = format!("{admin} dbname={name}");
    success(jetsql().args(["migrate"]).arg(&nwind).arg(&migrated));
    let server = Server::start(&[&nwind], &[]);
    let host = conninfo_value(&admin, "host").unwrap_or_else(|| "localhost".into());
    let port = conninfo_value(&admin, "port").unwrap_or_else(|| "5432".into());
    let user = conninfo_value(&admin, "user").unwrap_or_else(|| "postgres".into());

    // reflection
    let ours = python(
        "reflect.py",
        &[format!(
            "postgresql+psycopg://me@127.0.0.1:{}/nwind",
            server.port
        )],
    );
    let theirs = python(
        "reflect.py",
        &[format!(
            "postgresql+psycopg://{user}@/{name}?host={host}&port={port}"
        )],
    );
    assert!(ours.contains("\"Order Details\""), "{ours}");
    assert_eq!(ours, theirs, "SQLAlchemy's reflection differs");

    // rows through the client libraries, the server in the datafusion
    // dialect (the queries quote names as PostgreSQL does)
    let ours = python(
        "clients.py",
        &[
            format!(
                "host=127.0.0.1 port={} dbname=nwind user=me options='-c jetsql.dialect=datafusion'",
                server.port
            ),
            format!(
                "DRIVER={{PostgreSQL Unicode}};SERVER=127.0.0.1;PORT={};DATABASE=nwind;UID=me;PWD=x;ConnSettings=SET jetsql.dialect%3Ddatafusion",
                server.port
            ),
        ],
    );
    let theirs = python(
        "clients.py",
        &[
            migrated.clone(),
            format!(
                "DRIVER={{PostgreSQL Unicode}};SERVER={host};PORT={port};DATABASE={name};UID={user};PWD=x"
            ),
        ],
    );
    assert!(
        ours.contains("odbc columns") && ours.contains("32.38"),
        "{ours}"
    );
    assert_eq!(ours, theirs, "the client libraries read other values");

    // PostgreSQL's JDBC driver: DatabaseMetaData (what DBeaver browses
    // with) and a prepared statement; PostgreSQL reached over TCP through
    // a relay to its Unix socket (pgjdbc speaks TCP only)
    let jar = Path::new("/usr/share/java/postgresql.jar");
    let java = Command::new("javac").arg("-version").output().is_ok();
    if !(java && jar.exists()) {
        let _: Option<()> = jet_tests::skip_or_fail(
            "no JDK or pgjdbc (apt default-jdk-headless libpostgresql-jdbc-java; .ci/run installs them)",
        );
    } else {
        let jdbc = |url: String, user: &str| {
            let out = Command::new("java")
                .arg("-cp")
                .arg(jar)
                .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/serve_clients/Jdbc.java"))
                .args([url.as_str(), user, "x"])
                .output()
                .expect("java runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8(out.stdout).unwrap()
        };
        let ours = jdbc(
            format!(
                "jdbc:postgresql://127.0.0.1:{}/nwind?options=-c%20jetsql.dialect=datafusion",
                server.port
            ),
            "me",
        );
        let relay = unix_relay(&format!("{host}/.s.PGSQL.{port}"));
        let theirs = jdbc(format!("jdbc:postgresql://127.0.0.1:{relay}/{name}"), &user);
        assert!(ours.contains("table Order Details"), "{ours}");
        // the one difference: the server's row descriptions name no table
        // column yet, so pgjdbc cannot tell an identity column and calls
        // OrderID int4 where PostgreSQL's own answer lets it say serial
        let theirs = theirs.replace("OrderID:serial", "OrderID:int4");
        assert_eq!(ours, theirs, "pgjdbc reads another catalog or other values");
    }
    psql_at(&admin, &format!("DROP DATABASE {name} WITH (FORCE)"));
}

/// A TCP port on 127.0.0.1 relaying each connection to the Unix socket
/// at `path` (for clients that speak TCP only); it lives as long as the
/// test process.
fn unix_relay(path: &str) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let path = path.to_string();
    std::thread::spawn(move || {
        for tcp in listener.incoming().map_while(Result::ok) {
            let Ok(unix) = std::os::unix::net::UnixStream::connect(&path) else {
                continue;
            };
            let (mut t2, mut u2) = (tcp.try_clone().unwrap(), unix.try_clone().unwrap());
            let (mut t1, mut u1) = (tcp, unix);
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut t1, &mut u1);
                let _ = u1.shutdown(std::net::Shutdown::Write);
            });
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut u2, &mut t2);
                let _ = t2.shutdown(std::net::Shutdown::Write);
            });
        }
    });
    port
}
