//! Processes: a child process commits real writer transactions (the batch
//! workload of `jet_tests::crash`: delete the previous batch, insert a new
//! one with index splits, update some of its rows) in a loop and is killed
//! with SIGKILL at random moments. After each kill the file reopens
//! (recovery runs), equals exactly the image after the last transaction the
//! child reported committed or the one after it (replayed by the same
//! writer in memory), has no journal left, passes the reader's consistency
//! checks (every table scans, every index holds exactly the live rows) and
//! the workload's invariant, and `mdb-export` reads the table with exactly
//! the rows of one batch and no warning.
//!
//! Then readers and a writer in separate processes run concurrently: no
//! reader ever sees a partial transaction or an error other than the busy
//! refusal `JournalError::Locked`.
//!
//! CI kills 25 times and runs the readers for 10 s; `JET_CRASH_LONG=1`
//! kills 200 times and runs them for 60 s (`JET_CRASH_KILLS=n`,
//! `JET_CONCURRENT_SECS=n` choose).

use jet_storage::journal::journal_path;
use jet_storage::journal::sim::SimRng;
use jet_storage::write::convert::{decrypt, encrypt_agile};
use jet_storage::{Database, JetVersion, MemImage, OpenOptions, Password, Writer};
use jet_tests::crash::{
    BATCH_ROWS, BATCH_TABLE, batch_database, batch_invariant, batch_transaction, consistency,
};
use jet_tests::{require_mdb_export, run_mdb_export};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn long() -> bool {
    std::env::var("JET_CRASH_LONG").is_ok_and(|v| v == "1")
}

fn env_u64(var: &str) -> Option<u64> {
    std::env::var(var).ok().and_then(|v| v.parse().ok())
}

fn kills() -> u64 {
    env_u64("JET_CRASH_KILLS").unwrap_or(if long() { 200 } else { 25 })
}

fn concurrent_secs() -> u64 {
    env_u64("JET_CONCURRENT_SECS").unwrap_or(if long() { 60 } else { 10 })
}

fn work_dir(what: &str) -> PathBuf {
    let work = std::env::temp_dir().join(format!("jet-crash-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    work
}

fn child(args: &[&str]) -> Child {
    child_with(args, None)
}

/// A child with `password` in `$JET_CRASH_PASSWORD`.
fn child_with(args: &[&str], password: Option<&str>) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_crash_child"));
    match password {
        Some(p) => cmd.env("JET_CRASH_PASSWORD", p),
        None => cmd.env_remove("JET_CRASH_PASSWORD"),
    };
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Standard output and standard error of a finished child.
fn outputs(c: &mut Child) -> (String, String) {
    let mut out = String::new();
    c.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let mut err = String::new();
    c.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (out, err)
}

/// `mdb-export` of the batch table: no warning, exactly the rows of one
/// batch (`batch`, or none).
fn mdbtools_reads_one_batch(prog: &Path, file: &Path, batch: Option<i32>, ctx: &str) {
    let out = run_mdb_export(prog, &[], file, BATCH_TABLE).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    assert_eq!(out.stderr, "", "{ctx}: mdb-export warnings");
    let mut r = csv::Reader::from_reader(&out.stdout[..]);
    let header = r.headers().unwrap().clone();
    let at = header.iter().position(|h| h == "batch").unwrap();
    let mut rows = 0;
    for rec in r.records() {
        let rec = rec.unwrap_or_else(|e| panic!("{ctx}: mdb-export CSV: {e}"));
        assert_eq!(
            rec.get(at).and_then(|v| v.parse::<i32>().ok()),
            batch,
            "{ctx}: mdb-export row of another batch"
        );
        rows += 1;
    }
    let want = if batch.is_some() { BATCH_ROWS } else { 0 };
    assert_eq!(rows, want, "{ctx}: mdb-export rows");
}

/// Images larger than this are reset to the empty workload between kills,
/// so the in-memory replay stays cheap.
const RESET_BYTES: usize = 3 << 20;

#[test]
fn sigkill_at_random_moments_leaves_old_or_new() {
    let base = batch_database(JetVersion::Jet4).unwrap();
    kill_rounds("kill", "kill.mdb", base, None, kills(), 7);
}

/// The same kills on an Agile-encrypted ACCDB (AES-256, SHA-512, written
/// by `convert::encrypt_agile`): the writer and its journal work on the
/// encrypted pages, so every reopen with the password must find exactly
/// the old or the new encrypted image, and the file decrypted must read
/// in mdbtools with exactly one batch.
#[test]
fn sigkill_on_an_encrypted_file_leaves_old_or_new() {
    let plain = batch_database(JetVersion::Ace12).unwrap();
    let pw = Password::from("kill -9 s3cret");
    let base = encrypt_agile(&plain, &pw).unwrap();
    kill_rounds(
        "kill-enc",
        "kill.accdb",
        base,
        Some("kill -9 s3cret"),
        kills().div_ceil(2),
        11,
    );
}

/// Starts a writer child on a file holding `base` and kills it `n` times
/// at random moments (seed `seed`), checking after each kill that the file
/// reopens (recovery runs) to exactly the image after the last reported
/// commit or the one after it, passes the consistency checks, and reads in
/// mdbtools (decrypted first when `password` is set) with one batch.
fn kill_rounds(tag: &str, file: &str, base: Vec<u8>, password: Option<&str>, n: u64, seed: u64) {
    let Some((prog, _)) = require_mdb_export() else {
        return;
    };
    let work = work_dir(tag);
    let db_path = work.join(file);
    std::fs::write(&db_path, &base).unwrap();
    let db_arg = db_path.to_str().unwrap();
    let pw = password.map(Password::from);

    // the file holds image `k` (k transactions applied); `model` is it
    let fresh = || {
        Writer::with_password(
            MemImage {
                bytes: base.clone(),
            },
            pw.as_ref(),
        )
        .unwrap()
    };
    let mut model = fresh();
    let mut k = 0u64;
    let mut rng = SimRng::new(seed);
    let (mut mid, mut total_commits, mut back, mut forward, mut resets) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut largest = 0usize;
    let started = Instant::now();
    for round in 0..n {
        let start = k.to_string();
        let mut c = child_with(&["write", db_arg, &start], password);
        // mostly within the first transactions, sometimes after many
        // (a child needs ~50-100 ms to start and commit its first
        // transaction; each transaction rewrites 400 rows and 4 indexes)
        let wait = match rng.below(4) {
            0 => rng.below(60),
            1 | 2 => 60 + rng.below(400),
            _ => 460 + rng.below(1000),
        };
        std::thread::sleep(Duration::from_millis(wait));
        c.kill().unwrap(); // SIGKILL
        let status = c.wait().unwrap();
        let (out, err) = outputs(&mut c);
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
        let options = OpenOptions {
            password: pw.clone(),
            ..OpenOptions::default()
        };
        let db = Database::open(&db_path, options).unwrap_or_else(|e| panic!("{ctx}: open: {e}"));
        assert!(
            !journal_path(&db_path).exists(),
            "{ctx}: journal left after open"
        );
        consistency(&db, &ctx);
        let batch = batch_invariant(&db).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        drop(db);
        let now = std::fs::read(&db_path).unwrap();
        largest = largest.max(now.len());

        for i in k..k + committed {
            model.transaction(|tx| batch_transaction(tx, i)).unwrap();
        }
        k += committed;
        if now != model.target().bytes {
            model.transaction(|tx| batch_transaction(tx, k)).unwrap();
            assert!(
                now == model.target().bytes,
                "{ctx}: the file is neither image {k} nor image {}",
                k + 1
            );
            k += 1;
            forward += u64::from(had_journal);
        } else {
            back += u64::from(had_journal);
        }
        mid += u64::from(had_journal);
        let want = k.checked_sub(1).map(|b| b as i32);
        assert_eq!(batch, want, "{ctx}: batch after {k} transactions");
        match &pw {
            None => mdbtools_reads_one_batch(&prog, &db_path, batch, &ctx),
            Some(pw) => {
                let plain = work.join(format!("plain-{file}"));
                std::fs::write(&plain, decrypt(&now, Some(pw)).unwrap()).unwrap();
                mdbtools_reads_one_batch(&prog, &plain, batch, &ctx);
            }
        }
        if now.len() > RESET_BYTES {
            std::fs::write(&db_path, &base).unwrap();
            model = fresh();
            k = 0;
            resets += 1;
        }
    }
    println!(
        "{tag}: {n} SIGKILLs: {total_commits} commits reported; {mid} kills left a journal ({back} recovered to O, {forward} to C); every reopen passed the consistency checks and mdb-export; largest file {largest} bytes, {resets} resets to the empty table; {:.1?}",
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
    let work = work_dir("lock");
    let db_path = work.join("lock.mdb");
    std::fs::write(&db_path, batch_database(JetVersion::Jet4).unwrap()).unwrap();
    let mut c = Command::new(env!("CARGO_BIN_EXE_crash_child"))
        .args(["write", db_path.to_str().unwrap(), "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // wait for the first commit: the writer holds the lock from then on
    let mut first = [0u8; 10];
    c.stdout.as_mut().unwrap().read_exact(&mut first).unwrap();
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
    c.kill().unwrap();
    c.wait().unwrap();
    let db = Database::open(&db_path, OpenOptions::default()).unwrap();
    consistency(&db, "after the writer died");
    batch_invariant(&db).unwrap();
    drop(db);
    std::fs::remove_dir_all(&work).unwrap();
}

fn field(line: &str, name: &str) -> u64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    words
        .iter()
        .position(|w| *w == name)
        .and_then(|i| words.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {name} in {line:?}"))
}

/// Acceptance 4: a writer process commits batch transactions (each one
/// replaces every row; a partial one breaks the invariant) while two reader
/// processes repeatedly open, check the invariant and the consistency of
/// every index, and close. No reader ever sees a broken invariant or an
/// error other than the busy refusal (`JournalError::Locked`).
#[test]
fn writer_and_readers_in_other_processes_never_see_a_partial_transaction() {
    let work = work_dir("share");
    let db_path = work.join("share.mdb");
    std::fs::write(&db_path, batch_database(JetVersion::Jet4).unwrap()).unwrap();
    let db_arg = db_path.to_str().unwrap();
    let millis = (concurrent_secs() * 1000).to_string();
    let started = Instant::now();
    let mut writer = child(&["share", db_arg, "0", &millis]);
    let mut readers: Vec<Child> = (0..2).map(|_| child(&["read", db_arg, &millis])).collect();
    let (mut reads, mut busy, mut batches) = (0, 0, 0);
    for (i, r) in readers.iter_mut().enumerate() {
        let status = r.wait().unwrap();
        let (out, err) = outputs(r);
        assert!(status.success(), "reader {i} failed ({status}): {err}");
        let line = out.lines().last().unwrap_or("");
        reads += field(line, "reads");
        busy += field(line, "busy");
        batches += field(line, "batches");
    }
    let status = writer.wait().unwrap();
    let (out, err) = outputs(&mut writer);
    assert!(status.success(), "writer failed ({status}): {err}");
    let line = out.lines().last().unwrap_or("");
    let commits = field(line, "commits");
    let writer_busy = field(line, "busy");
    assert!(commits > 0 && reads > 0, "both sides made progress: {line}");
    let db = Database::open(&db_path, OpenOptions::default()).unwrap();
    consistency(&db, "after the run");
    assert_eq!(
        batch_invariant(&db).unwrap(),
        Some(commits as i32 - 1),
        "the last commit is what the file holds"
    );
    println!(
        "{} s, 1 writer and 2 reader processes: {commits} commits ({writer_busy} busy refusals of the writer), {reads} consistent reads ({busy} busy refusals, {batches} distinct batches seen); {:.1?}",
        concurrent_secs(),
        started.elapsed()
    );
    std::fs::remove_dir_all(&work).unwrap();
}
