//! The `jetsql` binary under hostile input (issue 17, items 4–7):
//! `COPY … TO` never overwrites a database, an existing file or a special
//! file and knows its formats; deep or huge statements fail fast with a
//! message naming the limit; oversized text functions fail with
//! "resources exhausted" under `--memory-limit`; a directory or FIFO given
//! as the database is refused with a message saying what it is.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common;
use common::nwind;

fn jetsql() -> Command {
    let mut c = common::jetsql();
    c.timeout(Duration::from_secs(60));
    c
}

/// A scratch directory holding a copy of nwind as `n.mdb`.
fn scratch(db: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("n.mdb");
    std::fs::copy(db, &copy).unwrap();
    (dir, copy)
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn copy_never_writes_over_the_open_database_or_its_journal() {
    let Some(db) = nwind() else { return };
    let (dir, copy) = scratch(&db);
    let before = std::fs::read(&copy).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&copy, dir.path().join("link.mdb")).unwrap();
    let abs = copy.display().to_string();
    let targets = [
        "n.mdb".to_string(),
        "./n.mdb".to_string(),
        abs.clone(),
        "../".to_string() + &dir.path().file_name().unwrap().to_string_lossy() + "/n.mdb",
        "link.mdb".to_string(),
        "n.mdb.jetjournal".to_string(),
        "n.mdb.jetjournal-partial".to_string(),
    ];
    for t in targets {
        for extra in ["", " OPTIONS ('overwrite' 'true')"] {
            let sql = format!("COPY (SELECT 1 AS x) TO '{t}' STORED AS CSV{extra}");
            jetsql()
                .current_dir(dir.path())
                .arg("n.mdb")
                .args(["-c", &sql])
                .assert()
                .code(1)
                .stderr(contains("open database or its journal"));
        }
    }
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        before,
        "the database changed"
    );
    let mut want = vec!["link.mdb".to_string(), "n.mdb".to_string()];
    if cfg!(not(unix)) {
        want.remove(0);
    }
    assert_eq!(names(dir.path()), want, "a file was left behind");
}

#[test]
fn copy_replaces_an_existing_file_only_when_told() {
    let Some(db) = nwind() else { return };
    let (dir, _copy) = scratch(&db);
    let out = dir.path().join("out.csv");
    std::fs::write(&out, "keep me\n").unwrap();
    jetsql()
        .current_dir(dir.path())
        .arg("n.mdb")
        .args(["-c", "COPY (SELECT 1 AS x) TO 'out.csv'"])
        .assert()
        .code(1)
        .stderr(contains("the file exists").and(contains("'overwrite' 'true'")));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me\n");
    jetsql()
        .current_dir(dir.path())
        .arg("n.mdb")
        .args([
            "-c",
            "COPY (SELECT 1 AS x) TO 'out.csv' OPTIONS ('overwrite' 'true')",
        ])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "x\n1\n");
    // a new file needs no option
    jetsql()
        .current_dir(dir.path())
        .arg("n.mdb")
        .args(["-c", "COPY (SELECT 2 AS y) TO 'new.csv'"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("new.csv")).unwrap(),
        "y\n2\n"
    );
}

#[test]
fn copy_refuses_unknown_formats() {
    let Some(db) = nwind() else { return };
    let (dir, _copy) = scratch(&db);
    for (sql, want) in [
        (
            "COPY (SELECT 1 AS x) TO 'a.csv' STORED AS BOGUS",
            "STORED AS BOGUS: unknown format",
        ),
        (
            "COPY (SELECT 1 AS x) TO 'a.mdb'",
            "the format is not known from the file name",
        ),
    ] {
        jetsql()
            .current_dir(dir.path())
            .arg("n.mdb")
            .args(["-c", sql])
            .assert()
            .code(1)
            .stderr(contains(want));
    }
    assert_eq!(names(dir.path()), vec!["n.mdb".to_string()]);
}

#[test]
fn copy_fails_fast_on_targets_it_cannot_write() {
    let Some(db) = nwind() else { return };
    let (dir, _copy) = scratch(&db);
    std::fs::create_dir(dir.path().join("d.csv")).unwrap();
    let mut cases = vec![
        ("/proc/jetsql-x.csv".to_string(), "cannot create files in"),
        ("/sys/jetsql-x.csv".to_string(), "cannot create files in"),
        ("d.csv".to_string(), "is a directory"),
        ("/dev/null".to_string(), "a device"),
    ];
    #[cfg(unix)]
    {
        let fifo = dir.path().join("f.csv");
        let ok = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            cases.push(("f.csv".to_string(), "a FIFO"));
        }
    }
    for (target, want) in cases {
        for extra in ["", " OPTIONS ('overwrite' 'true')"] {
            let sql = format!("COPY (SELECT 1 AS x) TO '{target}' STORED AS CSV{extra}");
            let start = Instant::now();
            jetsql()
                .current_dir(dir.path())
                .arg("n.mdb")
                .args(["-c", &sql])
                .timeout(Duration::from_secs(20))
                .assert()
                .code(1)
                .stderr(contains(want));
            assert!(start.elapsed() < Duration::from_secs(10), "{sql}");
        }
    }
}

/// Runs `sql` in both dialects: it must end (answer or fail) within a
/// few seconds, with a clear message if it fails.
fn fast(db: &Path, sql: &str, want_err: Option<&str>) {
    for dialect in ["access", "datafusion"] {
        let start = Instant::now();
        let out = jetsql()
            .arg(db)
            .args(["--dialect", dialect])
            .write_stdin(sql)
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let took = start.elapsed();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            took < Duration::from_secs(10),
            "{dialect}: took {took:?}: {}…",
            &sql[..60.min(sql.len())]
        );
        match want_err {
            Some(w) => {
                assert_eq!(out.status.code(), Some(1), "{dialect}: {err}");
                assert!(err.contains(w), "{dialect}: {err}");
                assert_eq!(err.lines().count(), 1, "{dialect}: {err}");
            }
            None => assert!(out.status.success(), "{dialect}: {err}"),
        }
    }
}

#[test]
fn deep_and_huge_statements_fail_fast_with_the_limit() {
    let Some(db) = nwind() else { return };
    let plus = format!("SELECT 1{}", " + 1".repeat(5000));
    fast(&db, &plus, Some("5000 operators"));
    let concat = format!("SELECT 'a'{}", " || 'a'".repeat(5000));
    fast(&db, &concat, Some("the limit is 200"));
    let and = format!("SELECT 1 WHERE 1 = 1{}", " AND 1 = 1".repeat(5000));
    fast(&db, &and, Some("the limit is 200"));
    let or = format!("SELECT 1 WHERE 1 = 0{}", " OR 1 = 0".repeat(5000));
    fast(&db, &or, Some("the limit is 200"));
    let unions = format!("SELECT 1 AS x{}", " UNION ALL SELECT 1".repeat(3000));
    fast(&db, &unions, Some("the limit is 200"));
    let mut ctes = String::from("WITH c0 AS (SELECT 1 AS x)");
    for i in 1..5000 {
        ctes.push_str(&format!(", c{i} AS (SELECT x FROM c{})", i - 1));
    }
    ctes.push_str(" SELECT x FROM c4999");
    fast(&db, &ctes, Some("5001 SELECTs"));
    let casts = format!("SELECT {}1{}", "CAST(".repeat(48), " AS BIGINT)".repeat(48));
    fast(&db, &casts, Some("statement too deeply nested: 48 levels"));
    // inside the limits, statements answer
    fast(&db, &format!("SELECT 1{}", " + 1".repeat(200)), None);
    fast(
        &db,
        &format!("SELECT {}1{}", "CAST(".repeat(30), " AS BIGINT)".repeat(30)),
        None,
    );
    fast(
        &db,
        &format!("SELECT 1 AS x{}", " UNION ALL SELECT 1".repeat(200)),
        None,
    );
}

#[test]
fn oversized_text_functions_fail_with_resources_exhausted() {
    let Some(db) = nwind() else { return };
    for sql in [
        "SELECT length(repeat('x', 2000000000))",
        "SELECT length(lpad('x', 2000000000, 'y'))",
        "SELECT length(rpad('x', 2000000000, 'é'))",
        "SELECT length(lpad(\"CustomerID\", 1100000000)) FROM customers",
    ] {
        for dialect in ["access", "datafusion"] {
            jetsql()
                .arg(&db)
                .args(["--dialect", dialect, "--memory-limit", "1GiB", "-c", sql])
                .assert()
                .code(1)
                .stderr(
                    contains("Resources exhausted")
                        .and(contains("memory limit of 1.0 GiB"))
                        .and(contains("panicked").not()),
                );
        }
    }
    // within the limit the same functions answer
    jetsql()
        .arg(&db)
        .args([
            "--memory-limit",
            "1GiB",
            "-c",
            "SELECT length(repeat('ab', 1000000)) AS n",
        ])
        .assert()
        .success()
        .stdout("n\n2000000\n");
    jetsql()
        .arg(&db)
        .args(["--memory-limit", "lots", "-c", "SELECT 1"])
        .assert()
        .code(2)
        .stderr(contains("not a memory size"));
}

#[test]
fn directories_and_fifos_are_not_databases() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d.mdb");
    std::fs::create_dir(&d).unwrap();
    jetsql()
        .arg(&d)
        .args(["-c", "SELECT 1"])
        .assert()
        .code(1)
        .stderr(contains("is a directory, not an Access database file"));
    jetsql()
        .arg("recover")
        .arg(&d)
        .assert()
        .code(1)
        .stderr(contains("is a directory, not an Access database file"));
    jetsql()
        .args(["tables"])
        .arg(&d)
        .assert()
        .failure()
        .stderr(contains("is a directory"));
    #[cfg(unix)]
    {
        let fifo = dir.path().join("f.mdb");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            for args in [vec!["-c", "SELECT 1"], vec![]] {
                let mut c = jetsql();
                if args.is_empty() {
                    c.arg("recover");
                }
                c.arg(&fifo)
                    .args(&args)
                    .timeout(Duration::from_secs(20))
                    .assert()
                    .code(1)
                    .stderr(contains("is a FIFO, not an Access database file"));
            }
        }
        jetsql()
            .arg("/dev/null")
            .args(["-c", "SELECT 1"])
            .timeout(Duration::from_secs(20))
            .assert()
            .code(1)
            .stderr(contains(
                "/dev/null is a device, not an Access database file",
            ));
    }
    assert!(
        !Path::new(&format!("{}.jetjournal", d.display())).exists(),
        "a journal appeared"
    );
}

/// The small fixture database (Jet4), present in every checkout.
fn sample_mdb() -> PathBuf {
    jet_tests::workspace_root().join("fixtures/sample.mdb")
}

/// `-f` and `\i` refuse a script that is not a regular file, in one line
/// naming it, before any statement runs: a FIFO nobody writes (which
/// used to block for ever), a directory, a device.
#[test]
fn scripts_that_are_not_regular_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d.sql");
    std::fs::create_dir(&d).unwrap();
    let mut cases = vec![(d, "is a directory, not a script file")];
    #[cfg(unix)]
    {
        let fifo = dir.path().join("f.sql");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            cases.push((fifo, "is a FIFO, not a script file"));
        }
        cases.push((
            PathBuf::from("/dev/null"),
            "/dev/null is a device, not a script file",
        ));
    }
    for (path, want) in &cases {
        // -f: refused before the -c given first runs
        let start = Instant::now();
        let out = jetsql()
            .arg(sample_mdb())
            .args(["-c", "SELECT 1 AS x", "-f"])
            .arg(path)
            .timeout(Duration::from_secs(20))
            .output()
            .expect("jetsql ends");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", path.display());
        assert!(err.contains(want), "{}: {err}", path.display());
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(out.stdout.is_empty(), "a statement ran before the refusal");
        assert!(start.elapsed() < Duration::from_secs(10), "{want}");
        // \i inside a run: the same refusal
        let include = format!("\\i {}", path.display());
        jetsql()
            .arg(sample_mdb())
            .args(["-c", &include])
            .timeout(Duration::from_secs(20))
            .assert()
            .code(1)
            .stderr(contains(*want));
    }
}

/// `-f -` reads the statements of standard input, in its place among the
/// `-c` and `-f` inputs.
#[test]
fn script_dash_reads_standard_input() {
    jetsql()
        .arg(sample_mdb())
        .args(["-f", "-"])
        .write_stdin("SELECT 1 AS x;")
        .timeout(Duration::from_secs(20))
        .assert()
        .success()
        .stdout("x\n1\n");
    jetsql()
        .arg(sample_mdb())
        .args(["-c", "SELECT 0 AS y", "-f", "-", "-c", "SELECT 2 AS z"])
        .write_stdin("SELECT 1 AS x;\n")
        .timeout(Duration::from_secs(20))
        .assert()
        .success()
        .stdout("y\n0\nx\n1\nz\n2\n");
}
