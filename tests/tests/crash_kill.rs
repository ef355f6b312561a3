//! Process kill: a child process commits synthetic transactions in a loop
//! to a copy of a corpus file and is killed with SIGKILL at random moments.
//! After each kill the file reopens (recovery runs), equals exactly the
//! image after the last transaction the child reported committed or the
//! one after it, has no journal left, every table scans, every index walks
//! only live rows, and `mdb-export` reads every table with the same output
//! as the original (the transactions only touch bytes no reader
//! interprets).
//!
//! CI kills 25 times; `JET_CRASH_LONG=1` kills 200 times
//! (`JET_CRASH_KILLS=n` chooses).

use jet_storage::journal::journal_path;
use jet_storage::journal::sim::SimRng;
use jet_storage::{Database, OpenOptions};
use jet_tests::crash::synthetic_transaction;
use jet_tests::{consistency, corpus, require_mdb_export, run_mdb_export};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn kills() -> u64 {
    if let Some(n) = std::env::var("JET_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("JET_CRASH_LONG").is_ok_and(|v| v == "1") {
        200
    } else {
        25
    }
}

fn exports(prog: &Path, file: &Path, tables: &[String]) -> BTreeMap<String, Vec<u8>> {
    tables
        .iter()
        .map(|t| {
            let out = run_mdb_export(prog, &[], file, t).unwrap_or_else(|e| panic!("{e}"));
            (t.clone(), out.stdout)
        })
        .collect()
}

#[test]
fn sigkill_at_random_moments_leaves_old_or_new() {
    let Some(dir) = corpus() else { return };
    let Some((prog, _)) = require_mdb_export() else {
        return;
    };
    let base_path = dir.join("jackcess/V2000/indexTestV2000.mdb");
    let base = std::fs::read(&base_path).unwrap();
    let work = std::env::temp_dir().join(format!("jet-crash-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let db_path = work.join("kill.mdb");
    std::fs::write(&db_path, &base).unwrap();
    let seed = 42u64;

    let tables = Database::open(&db_path, OpenOptions::default())
        .unwrap()
        .table_names();
    let base_exports = exports(&prog, &db_path, &tables);
    let base_rows = consistency(
        &Database::open(&db_path, OpenOptions::default()).unwrap(),
        "base",
    );

    // the file holds image `k` (k transactions applied); `cur` is it
    let mut k = 0u64;
    let mut cur = base.clone();
    let mut rng = SimRng::new(7);
    let n = kills();
    let (mut mid, mut total_commits, mut back, mut forward) = (0u64, 0u64, 0u64, 0u64);
    let started = Instant::now();
    for round in 0..n {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crash_child"))
            .arg(&db_path)
            .arg(&base_path)
            .arg(seed.to_string())
            .arg(k.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // mostly within the first transactions, sometimes after many
        let wait = match rng.below(4) {
            0 => rng.below(5),
            1 | 2 => 5 + rng.below(30),
            _ => 35 + rng.below(150),
        };
        std::thread::sleep(Duration::from_millis(wait));
        child.kill().unwrap(); // SIGKILL
        let status = child.wait().unwrap();
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert!(
            status.code().is_none(),
            "round {round}: child exited by itself ({status}): {err}"
        );
        let committed = out.lines().filter(|l| l.starts_with("committed ")).count() as u64;
        total_commits += committed;
        let ctx = format!(
            "round {round} (after {wait} ms, {committed} commits reported, from transaction {k})"
        );

        // open: recovery runs
        let had_journal = journal_path(&db_path).exists();
        let db = Database::open(&db_path, OpenOptions::default())
            .unwrap_or_else(|e| panic!("{ctx}: open: {e}"));
        assert!(
            !journal_path(&db_path).exists(),
            "{ctx}: journal left after open"
        );
        let rows = consistency(&db, &ctx);
        assert_eq!(rows, base_rows, "{ctx}: row count changed");
        drop(db);
        let now = std::fs::read(&db_path).unwrap();

        for i in k..k + committed {
            let ch = synthetic_transaction(&base, &cur, seed, i, false);
            ch.apply_to(&mut cur).unwrap();
        }
        k += committed;
        if now != cur {
            let ch = synthetic_transaction(&base, &cur, seed, k, false);
            let mut next = cur.clone();
            ch.apply_to(&mut next).unwrap();
            assert!(
                now == next,
                "{ctx}: the file is neither image {k} nor image {}",
                k + 1
            );
            cur = next;
            k += 1;
            forward += u64::from(had_journal);
        } else {
            back += u64::from(had_journal);
        }
        mid += u64::from(had_journal);
        // mdbtools reads it, and sees the same tables as in the original
        assert_eq!(
            exports(&prog, &db_path, &tables),
            base_exports,
            "{ctx}: mdb-export output differs"
        );
    }
    println!(
        "{n} SIGKILLs: {total_commits} commits reported, file at transaction {k}; {mid} kills left a journal ({back} recovered to O, {forward} to C); {:.1?}",
        started.elapsed()
    );
    std::fs::remove_dir_all(&work).unwrap();
}

/// While a writer process holds the database, a reader in this process
/// waits and then refuses with a typed `Locked` error (it never reads a
/// half-written transaction); the Access lock file exists meanwhile. After
/// the writer dies, the reader opens (recovering first).
#[test]
fn readers_in_another_process_wait_then_refuse() {
    let Some(dir) = corpus() else { return };
    let base_path = dir.join("jackcess/V2000/indexTestV2000.mdb");
    let base = std::fs::read(&base_path).unwrap();
    let work = std::env::temp_dir().join(format!("jet-crash-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let db_path = work.join("lock.mdb");
    std::fs::write(&db_path, &base).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_crash_child"))
        .arg(&db_path)
        .arg(&base_path)
        .arg("5")
        .arg("0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // wait for the first commit: the writer holds the lock from then on
    let mut first = [0u8; 10];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    assert_eq!(&first, b"committed ");
    assert!(
        work.join("lock.ldb").exists(),
        "the Access lock file exists"
    );
    let t = Instant::now();
    let err = Database::open(&db_path, OpenOptions::default()).unwrap_err();
    assert!(
        matches!(
            err,
            jet_storage::Error::Journal(jet_storage::JournalError::Locked { .. })
        ),
        "{err}"
    );
    assert!(
        t.elapsed() >= Duration::from_secs(1),
        "the reader waited first"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let db = Database::open(&db_path, OpenOptions::default()).unwrap();
    consistency(&db, "after the writer died");
    drop(db);
    std::fs::remove_dir_all(&work).unwrap();
}
