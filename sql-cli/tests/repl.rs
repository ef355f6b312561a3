//! The interactive shell in a pseudo-terminal: multi-line statements,
//! `\d`, history recall (in the session and from the history file),
//! Ctrl-C cancelling a long query while the session stays, and the
//! progress bar of `jetsql export` on a terminal.

use expectrl::{ControlCode, Session};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const UP: &str = "\x1b[A";

fn spawn(args: &[&std::ffi::OsStr], history: &Path) -> Session {
    spawn_with(args, history, &[])
}

/// [`spawn`] with extra environment variables.
fn spawn_with(args: &[&std::ffi::OsStr], history: &Path, env: &[(&str, &str)]) -> Session {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_jetsql"));
    cmd.args(args)
        .env("JETSQL_HISTORY", history)
        .env("TERM", "xterm")
        .env_remove("JETSQL_SAMPLE")
        .env_remove("PAGER");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut s = Session::spawn(cmd).expect("spawn jetsql in a pty");
    s.set_expect_timeout(Some(Duration::from_secs(30)));
    s
}

/// Waits (at most 60 s: the whole suite runs beside it on two cores) for
/// the process to end.
fn ends(s: &mut Session) {
    let start = std::time::Instant::now();
    while s.is_alive().unwrap_or(false) {
        if start.elapsed() > Duration::from_secs(60) {
            panic!("jetsql did not exit\n{}", where_it_waits(s));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What a process that did not exit is doing: its state and, where gdb
/// is installed, every thread's stack (so a hang in CI can be read).
fn where_it_waits(s: &Session) -> String {
    let pid = s.get_process().pid().as_raw();
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let state = status
        .lines()
        .filter(|l| l.starts_with("State") || l.starts_with("Threads"))
        .collect::<Vec<_>>()
        .join("; ");
    let stacks = Command::new("gdb")
        .args([
            "-p",
            &pid.to_string(),
            "-batch",
            "-ex",
            "thread apply all bt 30",
        ])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_else(|e| format!("(gdb: {e})"));
    format!("pid {pid}: {state}\n{stacks}")
}

fn nwind() -> Option<PathBuf> {
    Some(jet_tests::corpus()?.join("mdbtools/nwind.mdb"))
}

#[test]
fn multi_line_describe_history_and_ctrl_c() {
    let Some(db) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history");
    let mut s = spawn(&[db.as_os_str()], &history);
    s.expect("\\? for help").unwrap();
    s.expect("nwind> ").unwrap();

    // A statement over two lines runs once its ';' arrives.
    s.send("SELECT count(*) AS n\r").unwrap();
    s.send("FROM \"Order Details\";\r").unwrap();
    s.expect("2155").unwrap();
    s.expect("1 row (").unwrap();
    s.expect("nwind> ").unwrap();

    s.send("\\d\r").unwrap();
    s.expect("| nwind    | Order Details                   | 5       | 5       | table ")
        .unwrap();
    s.expect(
        "| nwind    | Order Subtotals                 |         |         | view (select query)",
    )
    .unwrap();
    s.expect("nwind> ").unwrap();

    // Up twice recalls the two-line statement; Enter runs it again.
    s.send(UP).unwrap();
    s.send(UP).unwrap();
    s.send("\r").unwrap();
    s.expect("2155").unwrap();
    s.expect("1 row (").unwrap();
    s.expect("nwind> ").unwrap();

    // A cross join of three copies of Order Details (10^10 rows) runs for
    // hours; Ctrl-C cancels it and the prompt returns. (The product is
    // taken in BIGINT: three Integer quantities multiply as an Integer in
    // Access SQL and overflow it.)
    s.send(
        "SELECT count(*), sum(CAST(a.\"Quantity\" AS BIGINT) * b.\"Quantity\" * c.\"Quantity\") \
         FROM \"Order Details\" a, \"Order Details\" b, \"Order Details\" c;\r",
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let start = std::time::Instant::now();
    s.send(ControlCode::EndOfText).unwrap();
    s.expect("query cancelled").unwrap();
    s.expect("nwind> ").unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "cancel took {:?}",
        start.elapsed()
    );
    // Meta-commands typed inside an unfinished statement run at once
    // (psql's rule): \p prints it, \g runs it, \r drops it.
    s.send("SELECT count(*) AS n\r").unwrap();
    s.expect("nwind-> ").unwrap();
    s.send("FROM Shippers\r").unwrap();
    s.expect("nwind-> ").unwrap();
    s.send("\\p\r").unwrap();
    s.expect("SELECT count(*) AS n\r\nFROM Shippers").unwrap();
    s.send("\\g\r").unwrap();
    s.expect("| 3 |").unwrap();
    s.expect("nwind> ").unwrap();
    s.send("SELECT junk\r").unwrap();
    s.expect("nwind-> ").unwrap();
    s.send("\\r\r").unwrap();
    s.expect("unfinished statement was dropped").unwrap();
    s.expect("nwind> ").unwrap();

    // The session is still usable.
    s.send("SELECT 40 + 2 AS answer;\r").unwrap();
    s.expect("|     42 |").unwrap();
    s.expect("nwind> ").unwrap();

    // Ctrl-C at the prompt clears the line; \q leaves.
    s.send("SELECT junk").unwrap();
    s.expect("SELECT junk").unwrap();
    s.send(ControlCode::EndOfText).unwrap();
    s.expect("nwind> ").unwrap();
    s.send("\\q\r").unwrap();
    ends(&mut s);

    // The history file keeps the statements for the next session.
    let saved = std::fs::read_to_string(&history).unwrap();
    assert!(saved.contains("FROM \"Order Details\";"), "{saved}");
    let mut s = spawn(&[db.as_os_str()], &history);
    s.expect("nwind> ").unwrap();
    // The newest entry is \q; the one before it the last query.
    s.send(UP).unwrap();
    s.send(UP).unwrap();
    s.expect("SELECT 40 + 2 AS answer;").unwrap();
    s.send("\r").unwrap();
    s.expect("|     42 |").unwrap();
    // Ctrl-D only once the prompt is back: typed while the result is still
    // printing, the terminal is not yet in the line editor's raw mode, and
    // the line discipline's end-of-file goes to nobody (the shell then
    // waits at its prompt, which is what this test saw under load).
    s.expect("nwind> ").unwrap();
    s.send(ControlCode::EndOfTransmission).unwrap();
    ends(&mut s);
}

/// In the Access dialect `--` before a digit is two minus signs (issue
/// 45): `SELECT 30--7 AS x;` is complete when Enter is pressed (the `;`
/// is no comment's), while `-- note` still comments to the end of the line.
#[test]
fn double_minus_before_a_digit_ends_at_its_semicolon() {
    let db = jet_tests::workspace_root().join("fixtures/sample.accdb");
    let dir = tempfile::tempdir().unwrap();
    let mut s = spawn(&[db.as_os_str()], &dir.path().join("h"));
    s.expect("sample> ").unwrap();
    s.send("SELECT 30--7 AS x;\r").unwrap();
    s.expect("37 |").unwrap();
    s.expect("sample> ").unwrap();
    // a comment hides the `;` after it: the statement waits for its own
    s.send("SELECT 2 AS y -- note;\r").unwrap();
    s.expect("sample-> ").unwrap();
    s.send(";\r").unwrap();
    s.expect("2 |").unwrap();
    s.expect("sample> ").unwrap();
    s.send("\\q\r").unwrap();
    ends(&mut s);
}

#[test]
fn completion_of_tables_columns_and_keywords() {
    let Some(db) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut s = spawn(&[db.as_os_str()], &dir.path().join("h"));
    s.expect("nwind> ").unwrap();
    // "sel" completes to select, "\"Order D" to the quoted table name,
    // "\"Unit" to the column.
    s.send("sel\t count(\"Unit\t) AS n FROM \"Order D\t;\r")
        .unwrap();
    s.expect("2155").unwrap();
    s.expect("nwind> ").unwrap();
    s.send("\\q\r").unwrap();
    ends(&mut s);
}

/// The largest corpus database that opens.
fn largest(corpus: &Path) -> PathBuf {
    let mut files: Vec<(u64, PathBuf)> = jet_tests::list_files(corpus)
        .into_iter()
        .map(|rel| corpus.join(rel))
        .filter(|p| jet_storage::Database::open(p, jet_storage::OpenOptions::default()).is_ok())
        .map(|p| (std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0), p))
        .collect();
    files.sort();
    files.pop().expect("an openable corpus file").1
}

#[test]
fn export_shows_progress_on_a_terminal() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let file = largest(&corpus);
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("out");
    let mut s = spawn(
        &[
            "export".as_ref(),
            file.as_os_str(),
            "--to".as_ref(),
            to.as_os_str(),
            "--format".as_ref(),
            "parquet".as_ref(),
        ],
        &dir.path().join("h"),
    );
    // The bar ends with every page of every table done.
    let done = s
        .expect(expectrl::Regex(
            r"(\d+) tables \[=+\] (\d+)/(\d+) pages, (\d+) rows",
        ))
        .unwrap();
    let pages = String::from_utf8_lossy(&done[2]).to_string();
    let total = String::from_utf8_lossy(&done[3]).to_string();
    assert_eq!(pages, total, "{}", file.display());
    ends(&mut s);
    assert!(std::fs::read_dir(&to).unwrap().count() > 0);
}

/// Passwords asked at the terminal: `jetsql encrypt` asks twice (a
/// mismatch changes nothing), the shell asks for a protected file's
/// password and asks again after a wrong one; nothing typed at those
/// prompts is echoed or kept in the history file.
#[test]
fn passwords_are_asked_without_echo() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("history");
    let db = dir.path().join("enc.accdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.accdb"),
        &db,
    )
    .unwrap();
    let plain = std::fs::read(&db).unwrap();
    let encrypt = std::ffi::OsStr::new("encrypt");

    // two different passwords: nothing changes
    let mut s = spawn(&[encrypt, db.as_os_str()], &history);
    s.expect("New password for").unwrap();
    s.send("Zebra-41\r").unwrap();
    s.expect("Type it again: ").unwrap();
    s.send("zebra-41\r").unwrap();
    let c = s.expect("the two passwords differ").unwrap();
    assert!(!String::from_utf8_lossy(c.before()).contains("ebra-41"));
    ends(&mut s);
    assert!(std::fs::read(&db).unwrap() == plain);

    let mut s = spawn(&[encrypt, db.as_os_str()], &history);
    s.expect("New password for").unwrap();
    s.send("Zebra-41\r").unwrap();
    s.expect("Type it again: ").unwrap();
    s.send("Zebra-41\r").unwrap();
    let c = s.expect("encrypted: Office Agile").unwrap();
    assert!(!String::from_utf8_lossy(c.before()).contains("ebra-41"));
    ends(&mut s);
    assert!(std::fs::read(&db).unwrap() != plain);

    // the shell asks; a wrong password is refused and asked again
    let mut s = spawn(&[db.as_os_str()], &history);
    s.expect("Password for").unwrap();
    s.send("Wrong-77\r").unwrap();
    s.expect("not this database's password").unwrap();
    s.expect("Password for").unwrap();
    s.send("Zebra-41\r").unwrap();
    let c = s.expect("enc> ").unwrap();
    assert!(!String::from_utf8_lossy(c.before()).contains("ebra-41"));
    s.send("SELECT count(*) AS n FROM Customers;\r").unwrap();
    s.expect("1 row (").unwrap();
    s.expect("enc> ").unwrap();
    s.send("\\q\r").unwrap();
    ends(&mut s);
    let saved = std::fs::read_to_string(&history).unwrap_or_default();
    assert!(
        saved.contains("FROM Customers")
            && !saved.contains("ebra-41")
            && !saved.contains("Wrong-77"),
        "{saved}"
    );
}

/// The table view on a 100-column, 20-line terminal: a wide row is shown
/// expanded (line breaks as ↵, the OLE photo summarised), `\\x off` elides
/// columns and says so, NULL is distinct and configurable, dates and
/// currency read as Access shows them, numbers right-aligned, long
/// results go through the pager until `\\pset pager off`; an unfinished
/// statement shows the continuation prompt and `exit` drops it.
#[test]
fn results_fit_the_terminal_and_read_as_in_access() {
    let Some(db) = nwind() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut s = spawn_with(
        &[db.as_os_str()],
        &dir.path().join("h"),
        &[
            ("COLUMNS", "100"),
            ("LINES", "20"),
            ("PAGER", "sed s/^/PAGED:/"),
        ],
    );
    s.expect("nwind> ").unwrap();
    s.send("SELECT * FROM Employees WHERE EmployeeID = 1;\r")
        .unwrap();
    s.expect("-[ RECORD 1 ]").unwrap();
    s.expect("Address         | 507 - 20th Ave. E.↵Apt. 2A")
        .unwrap();
    s.expect("Photo           | <OLE: Bitmap Image, 21,626 bytes>")
        .unwrap();
    s.expect("ReportsTo       | 2").unwrap();
    s.expect("1 row").unwrap();
    s.expect("nwind> ").unwrap();

    s.send("\\x off\r").unwrap();
    s.expect("Expanded display is off.").unwrap();
    s.send("SELECT * FROM Orders WHERE OrderID = 10248;\r")
        .unwrap();
    s.expect("| … |").unwrap();
    s.expect("columns not shown (\\x shows every column)")
        .unwrap();
    s.expect("nwind> ").unwrap();

    // 10248: shipped to Reims, no region; freight 32.38 (mdb-export)
    s.send("SELECT OrderDate, Freight, ShipRegion FROM Orders WHERE OrderID = 10248;\r")
        .unwrap();
    s.expect("| 1994-08-04 |   32.38 | NULL       |").unwrap();
    s.expect("nwind> ").unwrap();
    // typed ahead: the second line must not be lost while the first runs
    s.send("\\null (none)\r").unwrap();
    s.send("SELECT ShipRegion FROM Orders WHERE OrderID = 10248;\r")
        .unwrap();
    s.expect("| (none)     |").unwrap();
    s.expect("nwind> ").unwrap();

    // 31 rows are taller than 20 lines: through $PAGER, then not
    s.send("SELECT OrderID FROM Orders WHERE OrderID < 10279 ORDER BY OrderID;\r")
        .unwrap();
    s.expect("PAGED:|   10248 |").unwrap();
    s.expect("31 rows").unwrap();
    s.expect("nwind> ").unwrap();
    s.send("\\pset pager off\r").unwrap();
    s.expect("Pager is off.").unwrap();
    s.send("SELECT OrderID FROM Orders WHERE OrderID < 10279 ORDER BY OrderID;\r")
        .unwrap();
    let c = s.expect("31 rows").unwrap();
    let shown = String::from_utf8_lossy(c.before()).into_owned();
    assert!(
        shown.contains("|   10278 |") && !shown.contains("PAGED:"),
        "{shown}"
    );
    s.expect("nwind> ").unwrap();

    s.send("SELECT 1 AS one\r").unwrap();
    s.expect("nwind-> ").unwrap();
    s.send("exit\r").unwrap();
    s.expect("the unfinished statement was dropped").unwrap();
    ends(&mut s);
}

/// Completion inserts the catalog's spelling (`FROM cust<Tab>` →
/// `FROM Customers`), a misspelt table gets a suggestion, the prompt shows
/// an open transaction, and sqlite3's `.tables` works. The sample holds
/// 250 customers (mdb-export).
#[test]
fn completion_suggestions_and_the_transaction_marker() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("sample.accdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.accdb"),
        &copy,
    )
    .unwrap();
    let write = std::ffi::OsStr::new("--write");
    let mut s = spawn(&[copy.as_os_str(), write], &dir.path().join("h"));
    s.expect("sample> ").unwrap();
    s.send("SELECT count(*) AS n FROM cust\t;\r").unwrap();
    s.expect("FROM Customers").unwrap();
    s.expect("| 250 |").unwrap();
    s.expect("sample> ").unwrap();
    s.send("SELECT * FROM Custmers;\r").unwrap();
    s.expect("no table or saved query is named custmers (did you mean Customers?)")
        .unwrap();
    s.expect("sample> ").unwrap();
    s.send("BEGIN;\r").unwrap();
    s.expect("sample*> ").unwrap();
    s.send("DELETE FROM Customers WHERE CustomerID = -1;\r")
        .unwrap();
    s.expect("sample*> ").unwrap();
    s.send("ROLLBACK;\r").unwrap();
    s.expect("sample> ").unwrap();
    s.send(".tables\r").unwrap();
    s.expect("| sample   | Customers ").unwrap();
    s.expect("sample> ").unwrap();
    s.send("\\q\r").unwrap();
    ends(&mut s);
}

/// A read-only shell does not keep writers out: while it stays open on a
/// file, `jetsql --write` in another process inserts a row (before, the
/// shell's lock made it fail as busy), and the shell's next query sees
/// it. The counts come from mdb-export: 250 customers in the sample.
#[test]
fn a_read_only_shell_lets_writers_in_between_statements() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shared.accdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.accdb"),
        &db,
    )
    .unwrap();
    let (prog, _) = jet_tests::require_mdb_export().expect("mdbtools");
    let customers = |path: &Path| {
        let out = jet_tests::run_mdb_export(&prog, &[], path, "Customers").unwrap();
        csv::Reader::from_reader(&out.stdout[..]).records().count()
    };
    let before = customers(&db);
    let mut s = spawn(&[db.as_os_str()], &dir.path().join("h"));
    s.expect("shared> ").unwrap();
    s.send("SELECT count(*) AS n FROM Customers;\r").unwrap();
    s.expect(format!("| {before} |").as_str()).unwrap();
    s.expect("shared> ").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .arg("--write")
        .arg(&db)
        .args([
            "-c",
            "INSERT INTO Customers (Company, City) VALUES ('Written meanwhile', 'Oslo')",
        ])
        .env_remove("JETSQL_SAMPLE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the writer was kept out: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(customers(&db), before + 1);
    s.send("SELECT count(*) AS n FROM Customers;\r").unwrap();
    s.expect(format!("| {} |", before + 1).as_str()).unwrap();
    s.send("SELECT City FROM Customers WHERE Company = 'Written meanwhile';\r")
        .unwrap();
    s.expect("| Oslo ").unwrap();
    s.send("\\q\r").unwrap();
    ends(&mut s);
}
