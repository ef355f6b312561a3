//! Issue 17: writers are serializable. Two `jetsql --write` processes
//! started together each run `INSERT INTO t SELECT n FROM t` (doubling the
//! table): run one after the other they quadruple it; a statement that
//! read the table before the other committed would leave three times the
//! rows. Every process that exits 0 must have doubled the table it saw
//! committed, so the final count is `rows × 2^(successes)`; a process that
//! could not get the file must fail with the busy error. The same for
//! `UPDATE t SET n = n + 1 WHERE id = 1` pairs (the counter ends at the
//! number of successes).
//!
//! CI runs a bounded number of trials; `JET_RACE_TRIALS=n` runs more.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

fn jetsql() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_jetsql"));
    c.env_remove("JETSQL_SAMPLE");
    c
}

fn run(db: &Path, sql: &str) -> Output {
    jetsql()
        .arg("--write")
        .arg(db)
        .args(["-c", sql])
        .output()
        .unwrap()
}

fn spawn(db: &Path, sql: &str) -> Child {
    jetsql()
        .arg("--write")
        .arg(db)
        .args(["-c", sql])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The single value `sql` returns (CSV output: header, then the value).
fn value(db: &Path, sql: &str) -> i64 {
    let out = jetsql().arg(db).args(["-c", sql]).output().unwrap();
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("{sql}: no value in {text:?}"))
}

fn trials() -> usize {
    std::env::var("JET_RACE_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

/// Runs `sql` in two processes started together; returns how many exited
/// 0. A failure must be the busy error.
fn race(db: &Path, sql: &str) -> u32 {
    let a = spawn(db, sql);
    let b = spawn(db, sql);
    let mut ok = 0;
    for c in [a, b] {
        let out = c.wait_with_output().unwrap();
        if out.status.success() {
            ok += 1;
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("is in use by"), "not the busy error: {err}");
        }
    }
    ok
}

#[test]
fn racing_writers_are_serializable() {
    let dir = tempfile::tempdir().unwrap();
    let src = jet_tests::workspace_root().join("fixtures/sample.mdb");
    let db = dir.path().join("race.mdb");
    let n = trials();
    let (mut pairs, mut busy) = (0u32, 0u32);
    for trial in 0..n {
        std::fs::copy(&src, &db).unwrap();
        let setup = run(
            &db,
            "CREATE TABLE t (id INT, n INT); INSERT INTO t VALUES (1, 0), (2, 0), (3, 0)",
        );
        assert!(
            setup.status.success(),
            "{}",
            String::from_utf8_lossy(&setup.stderr)
        );
        let ok = race(&db, "INSERT INTO t SELECT id + 10, n FROM t");
        let rows = value(&db, "SELECT count(*) FROM t");
        assert_eq!(
            rows,
            3 << ok,
            "trial {trial}: {ok} INSERT … SELECT statements succeeded, so the table must hold {} rows",
            3 << ok
        );
        let up = race(&db, "UPDATE t SET n = n + 1 WHERE id = 1");
        assert_eq!(
            value(&db, "SELECT n FROM t WHERE id = 1"),
            i64::from(up),
            "trial {trial}: UPDATE counter"
        );
        pairs += u32::from(ok == 2) + u32::from(up == 2);
        busy += (2 - ok) + (2 - up);
    }
    println!(
        "{n} trials: {} racing pairs, {pairs} pairs where both committed, {busy} busy refusals; every outcome serial",
        2 * n
    );
    assert!(pairs > 0, "no race had both writers commit");
}
