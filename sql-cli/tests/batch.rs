//! The `jetsql` binary in batch mode: queries in every format, statement
//! order, standard input, errors and exit codes, several databases,
//! COPY, subcommand names, the storage subcommands and the sample default.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;

use crate::common;
use common::{jetsql, nwind};

const Q: &str =
    r#"SELECT "OrderID", "CustomerID", "OrderDate" FROM orders ORDER BY "OrderID" LIMIT 2"#;

#[test]
fn version_and_help() {
    // the git revision, asked of git itself
    let rev = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(
            || "unknown".to_string(),
            |o| String::from_utf8(o.stdout).unwrap().trim().to_string(),
        );
    jetsql().arg("--version").assert().success().stdout(format!(
        "jetsql {} (git {rev})\n",
        env!("CARGO_PKG_VERSION")
    ));
    jetsql().arg("--help").assert().success().stdout(
        contains("export")
            .and(contains("-c, --command <SQL>"))
            .and(contains("Examples:")),
    );
    jetsql()
        .args(["export", "--help"])
        .assert()
        .success()
        .stdout(contains("--to <DIR>").and(contains("parquet")));
}

#[test]
fn csv_is_the_piped_default() {
    let Some(db) = nwind() else { return };
    jetsql()
        .arg(&db)
        .args(["-c", Q])
        .assert()
        .success()
        .stdout("OrderID,CustomerID,OrderDate\n10248,VINET,1994-08-04T00:00:00\n10249,TOMSP,1994-08-05T00:00:00\n")
        .stderr("");
}

#[test]
fn every_format() {
    let Some(db) = nwind() else { return };
    let run = |f: &str| {
        let out = jetsql()
            .arg(&db)
            .args(["--format", f, "-c", Q])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        run("json"),
        "[\n{\"OrderID\":10248,\"CustomerID\":\"VINET\",\"OrderDate\":\"1994-08-04T00:00:00\"},\n\
         {\"OrderID\":10249,\"CustomerID\":\"TOMSP\",\"OrderDate\":\"1994-08-05T00:00:00\"}\n]\n"
    );
    assert_eq!(
        run("ndjson"),
        "{\"OrderID\":10248,\"CustomerID\":\"VINET\",\"OrderDate\":\"1994-08-04T00:00:00\"}\n\
         {\"OrderID\":10249,\"CustomerID\":\"TOMSP\",\"OrderDate\":\"1994-08-05T00:00:00\"}\n"
    );
    assert_eq!(
        run("table"),
        "+---------+------------+------------+\n\
         | OrderID | CustomerID | OrderDate  |\n\
         +---------+------------+------------+\n\
         |   10248 | VINET      | 1994-08-04 |\n\
         |   10249 | TOMSP      | 1994-08-05 |\n\
         +---------+------------+------------+\n"
    );
    // NULL: null in JSON, empty in CSV unless --null says otherwise
    let null = "SELECT ShipRegion FROM Orders WHERE OrderID = 10248";
    let out = |args: &[&str]| {
        let o = jetsql()
            .arg(&db)
            .args(args)
            .args(["-c", null])
            .output()
            .unwrap();
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(out(&["--format", "ndjson"]), "{\"ShipRegion\":null}\n");
    assert_eq!(out(&["--format", "csv"]), "ShipRegion\n\"\"\n");
    assert_eq!(
        out(&["--format", "csv", "--null", "NA"]),
        "ShipRegion\nNA\n"
    );
    assert_eq!(
        out(&["--format", "table", "--null", "-"]),
        "+------------+\n| ShipRegion |\n+------------+\n| -          |\n+------------+\n"
    );
    // Empty results keep their shape: a header, an empty array.
    let none = r#"SELECT "OrderID" FROM orders WHERE "OrderID" < 0"#;
    let out = jetsql()
        .arg(&db)
        .args(["--format", "csv", "-c", none])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "OrderID\n");
    let out = jetsql()
        .arg(&db)
        .args(["--format", "json", "-c", none])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "[]\n");
}

#[test]
fn statements_run_in_command_line_order() {
    let Some(db) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.sql");
    std::fs::write(
        &script,
        "-- a script\nSELECT 2 AS b;\n\\format ndjson\nSELECT 3 AS c;",
    )
    .unwrap();
    jetsql()
        .arg(&db)
        .args(["-c", "SELECT 1 AS a", "-f"])
        .arg(&script)
        .args(["-c", "SELECT 4 AS d; SELECT 5 AS e"])
        .assert()
        .success()
        .stdout("a\n1\nb\n2\n{\"c\":3}\n{\"d\":4}\n{\"e\":5}\n");
}

#[test]
fn sql_from_standard_input() {
    let Some(db) = nwind() else { return };
    jetsql()
        .arg(&db)
        .write_stdin("SELECT count(*) AS n\n  FROM \"Order Details\";\nSELECT 'x;y' AS s;\n")
        .assert()
        .success()
        .stdout("n\n2155\ns\nx;y\n");
}

/// Statements split as the session's dialect reads comments (issue 45):
/// in Access SQL `--` before anything but whitespace is two minus signs,
/// so `SELECT 30--7;` ends at its `;` and the line after it is read on
/// its own, and `/*` is no comment (refused at its line and column);
/// DataFusion's SQL keeps both comment styles; after `\dialect` in a
/// script the rest of the script splits in the new dialect.
#[test]
fn statements_split_as_the_dialect_reads_comments() {
    jetsql()
        .write_stdin("SELECT 30--7 AS x;\n\\format ndjson\nSELECT 2 AS y; -- done\n")
        .assert()
        .success()
        .stdout("x\n37\n{\"y\":2}\n");
    jetsql()
        .args(["-c", "SELECT 1 /* note */ AS a"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("Access SQL has no /* */ comments").and(contains("Line: 1, Column: 10")));
    jetsql()
        .args([
            "--dialect",
            "datafusion",
            "-c",
            "SELECT 1 /* ; */ AS a; SELECT 2 AS b --;\n;",
        ])
        .assert()
        .success()
        .stdout("a\n1\nb\n2\n");
    jetsql()
        .write_stdin(
            "\\dialect datafusion\nSELECT 1 /* ; */ AS a;\n\\dialect access\nSELECT 30--7 AS x;\n",
        )
        .assert()
        .success()
        .stdout("a\n1\nx\n37\n");
}

/// A time alone (on Access's day zero, 1899-12-30) shows without its
/// date in the table view, as Access's General Date shows it (issue 45;
/// Microsoft's TimeSerial page shows `TimeSerial(18,12,10)` as
/// "6:12:10 PM", which CStr writes); CSV keeps the whole value.
#[test]
fn a_time_alone_shows_without_its_date() {
    let sql = "SELECT TimeSerial(18, 12, 10) AS t, CStr(TimeSerial(18, 12, 10)) AS s";
    jetsql()
        .args(["--format", "table", "-c", sql])
        .assert()
        .success()
        .stdout(contains("| 18:12:10 | 6:12:10 PM |").and(contains("1899").not()));
    jetsql()
        .args(["--format", "csv", "-c", sql])
        .assert()
        .success()
        .stdout("t,s\n1899-12-30T18:12:10,6:12:10 PM\n");
}

#[test]
fn errors_exit_non_zero_with_the_message_on_stderr() {
    let Some(db) = nwind() else { return };
    jetsql()
        .arg(&db)
        .args(["-c", "SELECT * FROM no_such_table"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("jetsql: ").and(contains("no_such_table")));
    // The first error stops the run: later statements do not run.
    jetsql()
        .arg(&db)
        .args(["-c", "SELECT 1 AS a; SELEC 2; SELECT 3 AS c"])
        .assert()
        .code(1)
        .stdout("a\n1\n")
        .stderr(contains("SELEC"));
    jetsql()
        .arg(&db)
        .args(["-c", "\\nope"])
        .assert()
        .code(1)
        .stderr(contains("unknown command \\nope"));
    jetsql()
        .args(["/no/such/file.mdb", "-c", "SELECT 1"])
        .assert()
        .code(1)
        .stderr(contains("/no/such/file.mdb"));
    jetsql()
        .arg(&db)
        .args(["--format", "xml", "-c", "SELECT 1"])
        .assert()
        .code(2)
        .stderr(contains("xml"));
    jetsql()
        .arg(&db)
        .args(["-f", "/no/such/script.sql"])
        .assert()
        .code(1)
        .stderr(contains("/no/such/script.sql"));
}

#[test]
fn several_databases_are_catalogs_by_stem() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let db = corpus.join("mdbtools/nwind.mdb");
    let other = corpus.join("jackcess/V2000/testV2000.mdb");
    let out = jetsql()
        .arg(&db)
        .arg(&other)
        .args([
            "-c",
            "SELECT count(*) AS n FROM orders",
            "-c",
            "SELECT count(*) AS n FROM nwind.public.\"Orders\"",
            "-c",
            "SELECT table_catalog, count(*) AS n FROM information_schema.tables \
             WHERE table_catalog = 'testv2000' GROUP BY table_catalog",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("n\n830\nn\n830\ntable_catalog,n\ntestv2000,"),
        "{text}"
    );
    // The default schema still takes session tables.
    jetsql()
        .arg(&db)
        .args(["-c", "CREATE TABLE t AS SELECT 7 AS x; SELECT x FROM t"])
        .assert()
        .success()
        .stdout(contains("x\n7\n"));
}

#[test]
fn copy_writes_parquet_arrow_and_csv() {
    let Some(db) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    let sql = format!(
        "COPY (SELECT * FROM orders) TO '{d}/o.parquet';\
         COPY (SELECT * FROM orders) TO '{d}/o.arrow';\
         COPY (SELECT \"OrderID\" FROM orders ORDER BY 1 LIMIT 3) TO '{d}/o.csv';\
         SELECT count(*) AS p FROM '{d}/o.parquet';\
         SELECT count(*) AS a FROM '{d}/o.arrow';"
    );
    jetsql()
        .arg(&db)
        .args(["-c", &sql])
        .assert()
        .success()
        .stdout("count\n830\ncount\n830\ncount\n3\np\n830\na\n830\n");
    let csv = std::fs::read_to_string(dir.path().join("o.csv")).unwrap();
    assert_eq!(csv, "OrderID\n10248\n10249\n10250\n");

    // Access text holds CR/LF (nwind's Employees addresses, as mdb-export
    // shows them): written as CSV, it reads back whole, value for value
    let sql = format!(
        "COPY (SELECT \"EmployeeID\", \"Address\" FROM employees) TO '{d}/e.csv';\
         SELECT count(*) AS n FROM '{d}/e.csv';\
         SELECT count(*) AS same FROM employees a JOIN '{d}/e.csv' b \
         ON a.\"EmployeeID\" = b.\"EmployeeID\" AND a.\"Address\" = b.\"Address\";"
    );
    jetsql()
        .arg(&db)
        .args(["-c", &sql])
        .assert()
        .success()
        .stdout("count\n9\nn\n9\nsame\n9\n");
    let csv = std::fs::read_to_string(dir.path().join("e.csv")).unwrap();
    assert!(csv.contains("\r\nApt. 2A\""), "{csv}");
}

#[test]
fn a_file_named_like_a_subcommand() {
    let Some(db) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(&db, dir.path().join("tables")).unwrap();
    // ./NAME is the file; NAME alone is the subcommand, with a hint.
    jetsql()
        .current_dir(dir.path())
        .args(["./tables", "-c", "SELECT count(*) AS n FROM shippers"])
        .assert()
        .success()
        .stdout("n\n3\n");
    jetsql()
        .current_dir(dir.path())
        .args(["tables", "-c", "SELECT 1"])
        .assert()
        .code(2)
        .stderr(contains(
            "hint: to open the file named \"tables\", write ./tables",
        ));
    // After the first FILE, a subcommand name is a file too.
    jetsql()
        .current_dir(dir.path())
        .args([
            "./tables",
            "tables",
            "-c",
            "SELECT count(*) AS n FROM tables_2.public.shippers",
        ])
        .assert()
        .success()
        .stdout("n\n3\n");
}

#[test]
fn storage_subcommands_still_work() {
    let Some(db) = nwind() else { return };
    jetsql()
        .arg("tables")
        .arg(&db)
        .assert()
        .success()
        .stdout(contains("Order Details\t2155\n"));
    jetsql()
        .args(["describe", "--layout"])
        .arg(&db)
        .arg("Orders")
        .assert()
        .success()
        .stdout(contains("OrderID\tLong(4)\tInt32"));
    // without --layout: what \d says in the shell
    jetsql()
        .arg("describe")
        .arg(&db)
        .arg("order details")
        .assert()
        .success()
        .stdout(
            contains("Table \"Order Details\" in nwind")
                .and(contains("| OrderID "))
                // the table's Description, as mdb-prop reads it
                .and(contains("| description | Details on products, quantities")),
        );
    jetsql()
        .args(["cat", "--limit", "1"])
        .arg(&db)
        .arg("Shippers")
        .assert()
        .success()
        .stdout(contains("ShipperID,CompanyName,Phone\n1,"));
    jetsql()
        .arg("scan")
        .arg(&db)
        .arg("Orders")
        .assert()
        .success()
        .stdout(contains("830 rows in"));
}

#[test]
fn passwords() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    // A Jet4 database password only masks the header: the file opens
    // (it holds no user tables).
    jetsql()
        .arg(corpus.join("ucanaccess/password.mdb"))
        .args(["--password", "ucanaccess", "-c", "\\d"])
        .assert()
        .success()
        .stdout("No tables.\n");
    // a wrong database password is refused, without echoing it
    jetsql()
        .arg(corpus.join("ucanaccess/password.mdb"))
        .args(["--password", "not-it-7", "-c", "\\d"])
        .assert()
        .code(1)
        .stderr(contains("not this database's password").and(contains("not-it-7").not()));
    // An encrypted ACCDB (Agile AES, password Test123 per the corpus
    // README): Jackcess Encrypt's test reads one row from Table1, ID 1.
    let enc = corpus.join("jackcess-encrypt/db2007-enc.accdb");
    jetsql()
        .arg(&enc)
        .args([
            "--password",
            "Test123",
            "-c",
            "SELECT count(*) AS n, min(ID) AS first_id FROM Table1",
        ])
        .assert()
        .success()
        .stdout("n,first_id\n1,1\n");
    // the password from the environment; `\d` names the protection
    jetsql()
        .env("JETSQL_PASSWORD", "Test123")
        .arg(&enc)
        .args(["-c", "\\d"])
        .assert()
        .success()
        .stdout(contains("Table1").and(contains("db2007_enc: Office Agile encryption")));
    // storage subcommands take it too
    jetsql()
        .arg("tables")
        .arg(&enc)
        .args(["--password", "Test123"])
        .assert()
        .success()
        .stdout(contains("# protection: Office Agile encryption").and(contains("Table1\t1")));
    // none, or a wrong one: each its own message, the password never shown
    jetsql()
        .arg(&enc)
        .args(["-c", "SELECT 1"])
        .assert()
        .code(1)
        .stderr(contains("db2007-enc.accdb: the file is protected").and(contains("--password")));
    jetsql()
        .arg(&enc)
        .args(["--password", "Wrong-99", "-c", "SELECT 1"])
        .assert()
        .code(1)
        .stderr(contains("not this database's password").and(contains("Wrong-99").not()));
    // writes keep the file encrypted under the same password
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("enc.accdb");
    std::fs::copy(&enc, &copy).unwrap();
    writable(&copy);
    jetsql()
        .arg(&copy)
        .args([
            "--write",
            "--password",
            "Test123",
            "-c",
            "INSERT INTO Table1 (Field1) VALUES ('bar')",
        ])
        .assert()
        .success();
    jetsql()
        .arg(&copy)
        .args([
            "--password",
            "Test123",
            "-c",
            "SELECT count(*) AS n FROM Table1",
        ])
        .assert()
        .success()
        .stdout("n\n2\n");
    jetsql()
        .arg(&copy)
        .args(["-c", "SELECT 1"])
        .assert()
        .code(1)
        .stderr(contains("the file is protected"));
}

#[test]
fn no_file_opens_the_bundled_sample() {
    // The sample is built into the binary: a copy of the binary in another
    // directory, with a temporary directory of its own, still opens it.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("jetsql");
    std::fs::copy(env!("CARGO_BIN_EXE_jetsql"), &copy).unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut c = Command::new(&copy);
    c.env_remove("JETSQL_SAMPLE")
        .env("TMPDIR", &tmp)
        .current_dir(dir.path())
        .args(["-c", "SELECT count(*) FROM customers"]);
    c.assert().success().stdout("count(*)\n250\n");
    jetsql()
        .args(["-c", "\\d"])
        .assert()
        .success()
        .stdout(contains("| sample   |"));
    jetsql()
        .env("JETSQL_SAMPLE", "/no/such/sample.accdb")
        .args(["-c", "SELECT 1"])
        .assert()
        .code(1)
        .stderr(contains("JETSQL_SAMPLE names /no/such/sample.accdb"));
}

/// `jetsql queries FILE [NAME]` prints saved queries' SQL (the
/// `mdb-queries` use case, with what `mdb-queries nwind.mdb "Order
/// Subtotals"` drops: the `AS Subtotal` alias and the GROUP BY of
/// Northwind's well-known query, as issue 20 quotes them); `\param [a b] v`
/// binds a parameter whose name holds a space.
#[test]
fn saved_queries_print_and_run() {
    let Some(db) = nwind() else { return };
    let out = jetsql()
        .args(["queries"])
        .arg(&db)
        .arg("order subtotals")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("-- Order Subtotals (select query)\n"),
        "{text}"
    );
    assert!(text.contains("AS Subtotal"), "{text}");
    assert!(text.contains("GROUP BY [Order Details].OrderID;"), "{text}");
    let all = jetsql().arg("queries").arg(&db).output().unwrap();
    let all = String::from_utf8(all.stdout).unwrap();
    assert!(all.contains("-- Employee Sales by Country (select query)"));
    assert!(all.contains("PARAMETERS [Beginning Date] DateTime, [Ending Date] DateTime;"));
    let out = jetsql()
        .arg(&db)
        .args([
            "-c",
            "\\param [Beginning Date] #1/1/1995#",
            "-c",
            "\\param [Ending Date] #12/31/1995#",
            "-c",
            "SELECT count(*) FROM [Employee Sales by Country]",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = jetsql()
        .arg("queries")
        .arg(&db)
        .arg("no such")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no saved query of that name"));
}

#[test]
fn saved_queries_are_listed_described_and_exported() {
    let Some(db) = nwind() else { return };
    // \dv: the visible queries with their kind; \dv+ the hidden ones too
    let out = jetsql().arg(&db).args(["-c", "\\dv"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Quarterly Orders by Product"), "{text}");
    assert!(text.contains("crosstab query"), "{text}");
    assert!(text.contains("[Beginning Date], [Ending Date]"), "{text}");
    assert!(!text.contains("Orders Qry"), "hidden: {text}");
    let out = jetsql().arg(&db).args(["-c", "\\dv+"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Orders Qry"), "{text}");
    // \d QUERY: SQL text and output columns
    let out = jetsql()
        .arg(&db)
        .args(["-c", "\\d [order subtotals]"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("Saved query \"Order Subtotals\" in nwind (select query, runs as view)"),
        "{text}"
    );
    assert!(
        text.contains("  GROUP BY [Order Details].OrderID;"),
        "{text}"
    );
    assert!(text.contains("| Subtotal "), "{text}");
    // a parameter query's columns wait for its parameters
    let out = jetsql()
        .arg(&db)
        .args(["-c", "\\d \"Employee Sales by Country\""])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("| [Beginning Date] | DateTime |"), "{text}");
    assert!(text.contains("Columns: unknown:"), "{text}");
    assert!(text.contains("Beginning Date"), "{text}");

    // export --views: the runnable views as files, the rest reported
    let dir = tempfile::tempdir().unwrap();
    let out = jetsql()
        .args(["export"])
        .arg(&db)
        .arg("--to")
        .arg(dir.path())
        .args(["--format", "csv", "--views"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(listed.contains("Order Subtotals\t830 rows"), "{listed}");
    assert!(listed.contains("Orders\t830 rows"), "{listed}");
    let skipped = String::from_utf8(out.stderr).unwrap();
    assert!(
        skipped.contains("Employee Sales by Country\tskipped:")
            && skipped.contains("[Beginning Date]"),
        "{skipped}"
    );
    let csv = std::fs::read_to_string(dir.path().join("Order Subtotals.csv")).unwrap();
    assert_eq!(csv.lines().next(), Some("OrderID,Subtotal"));
    assert_eq!(csv.lines().count(), 1 + 830);
    // one view by name: no table is written
    let only = tempfile::tempdir().unwrap();
    let out = jetsql()
        .args(["export"])
        .arg(&db)
        .arg("--to")
        .arg(only.path())
        .args([
            "--format",
            "csv",
            "--views",
            "--table",
            "ten most expensive products",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let files: Vec<_> = std::fs::read_dir(only.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(files, ["Ten Most Expensive Products.csv"]);
}

/// `jetsql … | head -1`: the reader closes the pipe early; jetsql ends
/// quietly with status 0 (issue 19).
#[test]
fn a_closed_stdout_ends_quietly() {
    use std::io::{BufRead, BufReader};
    let Some(db) = nwind() else { return };
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .arg(&db)
        .args([
            "-c",
            "SELECT * FROM [Order Details] a, Shippers b, Shippers c",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("OrderID,"), "{first}");
    // the reader is gone: 19,395 rows (~1 MB) meet a closed pipe
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(out.status.success(), "{:?}", out.status);
}

/// `jetsql compact FILE -o OUT` (issue 25): the copy holds the same rows
/// (read by mdbtools) in fewer bytes after a mass delete; an Access 97
/// file (nwind) compacts in place and mdbtools reads the same rows.
#[test]
fn compact_writes_a_smaller_copy_with_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sample.accdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.accdb"),
        &db,
    )
    .unwrap();
    jetsql()
        .arg(&db)
        .args(["--write", "-c", "DELETE FROM OrderLines WHERE LineID > 500"])
        .assert()
        .success();
    let out = dir.path().join("compacted.accdb");
    jetsql()
        .arg("compact")
        .arg(&db)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(contains("compacted.accdb: ").and(contains(" bytes (")));
    let (before, after) = (
        std::fs::metadata(&db).unwrap().len(),
        std::fs::metadata(&out).unwrap().len(),
    );
    assert!(after < before, "{after} < {before}");
    let (prog, _) = jet_tests::require_mdb_export().expect("mdbtools");
    for table in ["Customers", "Products", "Orders", "OrderLines"] {
        let a = jet_tests::run_mdb_export(&prog, &[], &db, table)
            .unwrap()
            .stdout;
        let b = jet_tests::run_mdb_export(&prog, &[], &out, table)
            .unwrap()
            .stdout;
        assert!(a == b, "{table} differs after compaction");
    }
    let Some(nwind) = nwind() else { return };
    let copy = dir.path().join("nwind.mdb");
    std::fs::copy(&nwind, &copy).unwrap();
    writable(&copy);
    // Access 97 files compact too, in place
    jetsql()
        .arg("compact")
        .arg(&copy)
        .assert()
        .success()
        .stdout(contains("nwind.mdb: ").and(contains(" bytes (")));
    assert!(std::fs::metadata(&copy).unwrap().len() <= std::fs::metadata(&nwind).unwrap().len());
    for table in ["Customers", "Orders", "Order Details", "Employees"] {
        let a = jet_tests::run_mdb_export(&prog, &[], &nwind, table)
            .unwrap()
            .stdout;
        let b = jet_tests::run_mdb_export(&prog, &[], &copy, table)
            .unwrap()
            .stdout;
        assert!(a == b, "nwind {table} differs after compaction");
    }
}

/// Makes a copy of a (read-only) corpus file writable.
fn writable(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

/// `jetsql encrypt` gives a plain ACCDB an Agile AES-256 / SHA-512
/// password; `jetsql decrypt` takes it away. Refusals (no password, a
/// wrong one, an MDB asked for Agile encryption) leave the file as it
/// was; the rows read the same as mdbtools reads the original.
#[test]
fn encrypt_and_decrypt_commands() {
    let dir = tempfile::tempdir().unwrap();
    let original = jet_tests::workspace_root().join("fixtures/sample.accdb");
    let db = dir.path().join("x.accdb");
    std::fs::copy(&original, &db).unwrap();
    let plain = std::fs::read(&db).unwrap();
    // no password and no terminal to ask on
    jetsql()
        .arg("encrypt")
        .arg(&db)
        .env_remove("JETSQL_PASSWORD")
        .assert()
        .code(1)
        .stderr(contains("give the new password with --password"));
    assert!(std::fs::read(&db).unwrap() == plain);
    jetsql()
        .arg("encrypt")
        .arg(&db)
        .args(["--password", "Pa ss-8"])
        .assert()
        .success()
        .stdout(
            contains("x.accdb: encrypted: Office Agile encryption (AES-CBC 256-bit, SHA-512")
                .and(contains("Pa ss-8").not()),
        );
    assert!(std::fs::read(&db).unwrap() != plain);
    jetsql()
        .arg(&db)
        .args(["-c", "SELECT 1"])
        .assert()
        .code(1)
        .stderr(contains("the file is protected"));
    // every table counts as many rows as mdb-export reads from the original
    let (prog, _) = jet_tests::require_mdb_export().expect("mdbtools");
    for table in ["Customers", "Products", "Orders", "OrderLines"] {
        let theirs = jet_tests::run_mdb_export(&prog, &[], &original, table).unwrap();
        let rows = csv::Reader::from_reader(&theirs.stdout[..])
            .records()
            .count();
        jetsql()
            .arg(&db)
            .env("JETSQL_PASSWORD", "Pa ss-8")
            .args(["-c", &format!("SELECT count(*) AS n FROM {table}")])
            .assert()
            .success()
            .stdout(format!("n\n{rows}\n"));
    }
    // a wrong password decrypts nothing and writes no output
    let out = dir.path().join("y.accdb");
    jetsql()
        .arg("decrypt")
        .arg(&db)
        .arg("-o")
        .arg(&out)
        .args(["--password", "pa ss-8"])
        .assert()
        .code(1)
        .stderr(contains("not this database's password").and(contains("pa ss-8").not()));
    assert!(!out.exists());
    jetsql()
        .arg("decrypt")
        .arg(&db)
        .arg("-o")
        .arg(&out)
        .args(["--password", "Pa ss-8"])
        .assert()
        .success()
        .stdout(contains(
            "y.accdb: decrypted: no password now (was Office Agile",
        ));
    for table in ["Customers", "Products", "Orders", "OrderLines"] {
        let a = jet_tests::run_mdb_export(&prog, &[], &original, table).unwrap();
        let b = jet_tests::run_mdb_export(&prog, &[], &out, table).unwrap();
        assert!(a.stdout == b.stdout, "{table} differs after decryption");
    }
    // in place, and a second decrypt has nothing to do
    jetsql()
        .arg("decrypt")
        .arg(&db)
        .args(["--password", "Pa ss-8"])
        .assert()
        .success();
    assert!(std::fs::read(&db).unwrap() == std::fs::read(&out).unwrap());
    jetsql()
        .arg("decrypt")
        .arg(&db)
        .assert()
        .success()
        .stdout(contains("nothing was changed"));
    // Agile encryption is for ACCDB files; an MDB is refused as it is
    let mdb = dir.path().join("s.mdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.mdb"),
        &mdb,
    )
    .unwrap();
    let before = std::fs::read(&mdb).unwrap();
    jetsql()
        .arg("encrypt")
        .arg(&mdb)
        .args(["--password", "x"])
        .assert()
        .code(1)
        .stderr(contains("only ACCDB files can be encrypted"));
    assert!(std::fs::read(&mdb).unwrap() == before);
    // a Jet4 database password is removed when given
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let pw_mdb = dir.path().join("password.mdb");
    std::fs::copy(corpus.join("ucanaccess/password.mdb"), &pw_mdb).unwrap();
    writable(&pw_mdb);
    jetsql()
        .arg("decrypt")
        .arg(&pw_mdb)
        .env_remove("JETSQL_PASSWORD")
        .assert()
        .code(1)
        .stderr(contains("give its database password"));
    jetsql()
        .arg("decrypt")
        .arg(&pw_mdb)
        .args(["--password", "ucanaccess"])
        .assert()
        .success()
        .stdout(contains("(was no encryption, database password)"));
    jetsql()
        .arg("tables")
        .arg(&pw_mdb)
        .assert()
        .success()
        .stdout(contains("# protection").not());
}
