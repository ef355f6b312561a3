//! File names through the commands that take paths (issue 35, item 3):
//! `jetsql export` takes a path that exists literally, whatever its name
//! holds (`[`, `*`, `?`, escape sequences), and reads only a path that does
//! not exist as a pattern; and random names (Unicode, spaces, `[]*?{}`,
//! control bytes, a leading `-`) for the database, the `--to` directory
//! and the migration target round-trip through `export`, `attachments` and
//! `migrate`: what lands on disk is exactly what a plainly named run
//! writes, under exactly the names given.

use crate::common;
use assert_cmd::Command;
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn jetsql() -> Command {
    let mut c = common::jetsql();
    c.timeout(Duration::from_secs(60));
    c
}

/// A small fixture database (one table of long texts), in every checkout.
fn long_text_mdb() -> PathBuf {
    jet_tests::workspace_root().join("fixtures/long_text.mdb")
}

/// The corpus database with attachments (`Table1`, column `attach-data`).
const ATTACHMENTS: &str = "jackcess/V2007/complexDataTestV2007.accdb";

/// Every file under `dir`: its path relative to `dir` → its bytes.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The names directly inside `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs `cmd` in `dir`; its standard error when it fails.
fn run(cmd: &mut Command, dir: &Path) -> Result<std::process::Output, String> {
    let out = cmd.current_dir(dir).output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `jetsql export --format csv --to=OUT -- DB` in `dir`.
fn export(dir: &Path, db: &str, out: &str) -> Result<std::process::Output, String> {
    run(
        jetsql()
            .args(["export", "--format", "csv"])
            .arg(format!("--to={out}"))
            .arg("--")
            .arg(db),
        dir,
    )
}

/// `jetsql attachments --to=OUT -- DB Table1` in `dir`.
fn attachments(dir: &Path, db: &str, out: &str) -> Result<std::process::Output, String> {
    run(
        jetsql()
            .arg("attachments")
            .arg(format!("--to={out}"))
            .arg("--")
            .args([db, "Table1"]),
        dir,
    )
}

/// `jetsql migrate -- DB TARGET` in `dir`.
fn migrate(dir: &Path, db: &str, target: &str) -> Result<std::process::Output, String> {
    run(jetsql().args(["migrate", "--", db, target]), dir)
}

/// The tables of a SQLite file with their row counts.
fn sqlite_tables(path: &Path) -> BTreeMap<String, i64> {
    let conn = rusqlite::Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap();
    let mut st = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    let names: Vec<String> = st
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    names
        .into_iter()
        .map(|n| {
            let sql = format!("SELECT count(*) FROM \"{}\"", n.replace('"', "\"\""));
            let count: i64 = conn.query_row(&sql, [], |r| r.get(0)).unwrap();
            (n, count)
        })
        .collect()
}

/// What plainly named runs write: the export's files, the attachments'
/// files (without the corpus: none) and the migrated tables.
struct Reference {
    export: BTreeMap<String, Vec<u8>>,
    attachments: Option<BTreeMap<String, Vec<u8>>>,
    migrated: BTreeMap<String, i64>,
}

impl Reference {
    fn new() -> Reference {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(long_text_mdb(), dir.path().join("db.mdb")).unwrap();
        export(dir.path(), "db.mdb", "out").unwrap();
        migrate(dir.path(), "db.mdb", "db.sqlite").unwrap();
        let attachments = jet_tests::corpus().map(|c| {
            std::fs::copy(c.join(ATTACHMENTS), dir.path().join("a.accdb")).unwrap();
            attachments(dir.path(), "a.accdb", "files").unwrap();
            files_under(&dir.path().join("files"))
        });
        let r = Reference {
            export: files_under(&dir.path().join("out")),
            attachments,
            migrated: sqlite_tables(&dir.path().join("db.sqlite")),
        };
        assert!(!r.export.is_empty() && !r.migrated.is_empty());
        r
    }
}

/// An existing database whose name holds glob characters or an escape
/// sequence is exported as that file (it used to be read as a pattern:
/// "not a valid file pattern", or the files the pattern matched); a path
/// that does not exist is still a pattern.
#[test]
fn export_takes_an_existing_path_literally() {
    let reference = Reference::new();
    let dir = tempfile::tempdir().unwrap();
    // a file the names below would match as patterns
    std::fs::copy(long_text_mdb(), dir.path().join("xy.mdb")).unwrap();
    let names = [
        "x*.mdb",
        "x?.mdb",
        "[x]y.mdb",
        "[unclosed.mdb",
        "\u{1b}[31mred\u{1b}[0m.mdb",
        "a [1] {b,c} *?.mdb",
    ];
    for (i, name) in names.iter().enumerate() {
        std::fs::copy(long_text_mdb(), dir.path().join(name)).unwrap();
        let out = format!("out{i}");
        let done = export(dir.path(), name, &out).unwrap_or_else(|e| panic!("{name:?}: {e}"));
        let listed = String::from_utf8_lossy(&done.stdout).into_owned();
        assert!(!listed.contains("files exported"), "{name:?}: {listed}");
        assert_eq!(
            files_under(&dir.path().join(&out)),
            reference.export,
            "{name:?}"
        );
    }
    // without a file of that name, the same text is a pattern
    let patterns = tempfile::tempdir().unwrap();
    std::fs::copy(long_text_mdb(), patterns.path().join("xy.mdb")).unwrap();
    let done = run(
        jetsql().args(["export", "--to=hive", "--", "x?.mdb"]),
        patterns.path(),
    )
    .unwrap();
    let listed = String::from_utf8_lossy(&done.stdout).into_owned();
    assert!(listed.starts_with("1 files exported"), "{listed}");
}

/// Pieces of random file names: letters, digits, spaces, glob and brace
/// characters, quotes, non-ASCII text, control bytes (an escape sequence,
/// a bell, a newline, a tab).
const PIECES: &[&str] = &[
    "a",
    "Z",
    "7",
    "_",
    ".",
    " ",
    "[",
    "]",
    "*",
    "?",
    "{",
    "}",
    ",",
    "'",
    "\"",
    "-",
    "é",
    "Ω",
    "日本",
    "🦀",
    "\u{301}",
    "\u{1b}[31m",
    "\u{7}",
    "\u{1}",
    "\n",
    "\t",
    "\u{7f}",
];

/// A random file name of one component, sometimes with a leading `-`.
fn component() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(vec!["", "-", "--", " "]),
        proptest::collection::vec(proptest::sample::select(PIECES), 1..8),
    )
        .prop_map(|(lead, pieces)| format!("{lead}{}", pieces.concat()))
        .prop_filter("a name a directory can hold", |s| s != "." && s != "..")
}

/// Random names for the database, the `--to` directory and the migration
/// target round-trip: each command succeeds, writes exactly what the
/// plainly named run wrote, under exactly the names given, and leaves
/// nothing else beside them.
#[test]
fn random_names_round_trip() {
    let reference = Reference::new();
    let corpus = jet_tests::corpus();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 16,
        failure_persistence: None,
        max_shrink_iters: 32,
        ..ProptestConfig::default()
    });
    let strategy = (component(), component(), component());
    runner
        .run(&strategy, |(db, out, target)| {
            prop_assume!(db != out && db != target && out != target);
            let dir = tempfile::tempdir().unwrap();
            std::fs::copy(long_text_mdb(), dir.path().join(&db)).unwrap();
            export(dir.path(), &db, &out).map_err(TestCaseError::fail)?;
            prop_assert_eq!(&files_under(&dir.path().join(&out)), &reference.export);
            migrate(dir.path(), &db, &target).map_err(TestCaseError::fail)?;
            prop_assert_eq!(
                &sqlite_tables(&dir.path().join(&target)),
                &reference.migrated
            );
            let mut want = vec![db.clone(), out.clone(), target.clone()];
            want.sort();
            prop_assert_eq!(entries(dir.path()), want);
            if let (Some(c), Some(files)) = (&corpus, &reference.attachments) {
                let dir = tempfile::tempdir().unwrap();
                std::fs::copy(c.join(ATTACHMENTS), dir.path().join(&db)).unwrap();
                attachments(dir.path(), &db, &out).map_err(TestCaseError::fail)?;
                prop_assert_eq!(&files_under(&dir.path().join(&out)), files);
                let mut want = vec![db.clone(), out.clone()];
                want.sort();
                prop_assert_eq!(entries(dir.path()), want);
            }
            Ok(())
        })
        .expect("random names round-trip");
}
