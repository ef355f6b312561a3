//! Kill test through the CLI: a `jetsql --write` process running one large
//! `INSERT … SELECT` (from a Parquet file) is killed with SIGKILL at random
//! moments. After each kill the database opens cleanly (recovery runs, no
//! journal is left), passes the reader's and indexes' consistency checks,
//! and its table holds either every row of the statement or none.
//!
//! CI kills 50 times; `JET_CRASH_LONG=1` kills 300 times
//! (`JET_CLI_KILLS=n` chooses).

use jet_storage::journal::journal_path;
use jet_storage::journal::sim::SimRng;
use jet_storage::{Database, OpenOptions, ScanOptions};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn kills() -> u64 {
    if let Some(n) = std::env::var("JET_CLI_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("JET_CRASH_LONG").is_ok_and(|v| v == "1") {
        300
    } else {
        50
    }
}

fn jetsql(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_jetsql"))
        .args(args)
        .env_remove("JETSQL_SAMPLE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "jetsql {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Rows of table `big` and the sum of its key column.
fn big_rows(db: &Database) -> (usize, i64) {
    let t = db.table("big").unwrap();
    let mut n = 0;
    let mut sum = 0i64;
    for b in t
        .scan(ScanOptions {
            projection: Some(vec![0]),
            ..Default::default()
        })
        .unwrap()
    {
        let b = b.unwrap();
        n += b.num_rows();
        let a = b
            .column(0)
            .as_any()
            .downcast_ref::<arrow_array::Int32Array>()
            .unwrap();
        sum += a.iter().map(|v| i64::from(v.unwrap())).sum::<i64>();
    }
    (n, sum)
}

/// Writes `rows` rows to `parquet` (key 1..=rows, a text, a double).
fn make_parquet(db: &Path, parquet: &Path, rows: usize) {
    jetsql(&[
        &db.to_string_lossy(),
        "-c",
        &format!(
            "COPY (SELECT CAST(value AS INT) AS a, concat('row ', value) AS b, value * 0.5 AS c \
             FROM generate_series(1, {rows})) TO '{}' OPTIONS ('overwrite' 'true')",
            parquet.display()
        ),
    ]);
}

#[test]
fn sigkill_during_insert_select_leaves_all_rows_or_none() {
    let _timing = crate::common::timing_exclusive();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.mdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.mdb"),
        &base,
    )
    .unwrap();
    jetsql(&[
        "--write",
        &base.to_string_lossy(),
        "-c",
        "CREATE TABLE big (a INTEGER PRIMARY KEY, b VARCHAR(30), c DOUBLE)",
    ]);
    let db_path = dir.path().join("kill.mdb");
    let parquet = dir.path().join("big.parquet");
    let insert = format!("INSERT INTO big SELECT * FROM '{}'", parquet.display());
    let run_full = |rows: usize| {
        std::fs::copy(&base, &db_path).unwrap();
        let t = Instant::now();
        jetsql(&["--write", &db_path.to_string_lossy(), "-c", &insert]);
        let d = t.elapsed();
        let db = Database::open(&db_path, OpenOptions::default()).unwrap();
        assert_eq!(big_rows(&db).0, rows);
        d
    };
    // size the statement to take about half a second or more
    let mut rows = 2_000usize;
    make_parquet(&base, &parquet, rows);
    let mut full = run_full(rows);
    while full < Duration::from_millis(400) && rows < 640_000 {
        rows *= 2;
        make_parquet(&base, &parquet, rows);
        full = run_full(rows);
    }
    let want_sum = (rows as i64) * (rows as i64 + 1) / 2;
    let base_image = std::fs::read(&base).unwrap();
    std::fs::write(&db_path, &base_image).unwrap();

    let n = kills();
    let mut rng = SimRng::new(0x5EED);
    let (mut none, mut all, mut journals, mut finished) = (0u64, 0u64, 0u64, 0u64);
    let started = Instant::now();
    // kills up to half again the calibrated run time: a killed run is
    // often slower than the calibration (other tests beside it, a cold
    // start), and late kills must straddle its commit
    let window = full.as_millis() as u64 * 15 / 10 + 1;
    for round in 0..n {
        let mut child = Command::new(env!("CARGO_BIN_EXE_jetsql"))
            .args(["--write", &db_path.to_string_lossy(), "-c", &insert])
            .env_remove("JETSQL_SAMPLE")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // half the kills anywhere, half near the end, where the commit is
        let wait = if rng.below(2) == 0 {
            rng.below(window)
        } else {
            window * 6 / 10 + rng.below(window * 4 / 10 + 1)
        };
        std::thread::sleep(Duration::from_millis(wait));
        let _ = child.kill(); // SIGKILL (it may have finished already)
        let status = child.wait().unwrap();
        if status.code() == Some(0) {
            finished += 1;
        } else {
            assert!(
                status.code().is_none(),
                "round {round}: jetsql failed by itself ({status})"
            );
        }
        let ctx = format!("round {round} (killed after {wait} ms of {window})");
        journals += u64::from(journal_path(&db_path).exists());
        let db = Database::open(&db_path, OpenOptions::default())
            .unwrap_or_else(|e| panic!("{ctx}: open: {e}"));
        assert!(
            !journal_path(&db_path).exists(),
            "{ctx}: journal left after open"
        );
        jet_tests::consistency(&db, &ctx);
        let (got, sum) = big_rows(&db);
        drop(db);
        if got == 0 {
            none += 1;
        } else {
            assert_eq!(
                (got, sum),
                (rows, want_sum),
                "{ctx}: the table holds part of the statement"
            );
            all += 1;
            std::fs::write(&db_path, &base_image).unwrap();
        }
    }
    println!(
        "{n} SIGKILLs of `jetsql --write` inserting {rows} rows (a full run took {full:.2?}): \
         {none} left no row, {all} left every row ({finished} of them had finished), \
         {journals} left a journal that recovery resolved; {:.1?}",
        started.elapsed()
    );
    assert!(none > 0 && all > 0, "the kills never hit both sides");
}

/// `jetsql encrypt` killed at random moments: the file is always either
/// the original plain file, byte for byte, or the whole encrypted one
/// (opening with the password, reading every row, consistent); never a
/// mixture. Then `jetsql decrypt` the same way.
#[test]
fn sigkill_during_encrypt_and_decrypt_leaves_one_file_or_the_other() {
    let _timing = crate::common::timing_exclusive();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.accdb");
    std::fs::copy(
        jet_tests::workspace_root().join("fixtures/sample.accdb"),
        &base,
    )
    .unwrap();
    jetsql(&[
        "--write",
        &base.to_string_lossy(),
        "-c",
        "CREATE TABLE big (a INTEGER PRIMARY KEY, b VARCHAR(30), c DOUBLE)",
    ]);
    // a file of some megabytes, so that writing the copy takes a while
    let rows = 150_000usize;
    let parquet = dir.path().join("big.parquet");
    make_parquet(&base, &parquet, rows);
    let insert = format!("INSERT INTO big SELECT * FROM '{}'", parquet.display());
    jetsql(&["--write", &base.to_string_lossy(), "-c", &insert]);
    let plain = std::fs::read(&base).unwrap();
    let want_sum = (rows as i64) * (rows as i64 + 1) / 2;
    let pw = "rewrite & kill";
    let db_path = dir.path().join("kill.accdb");
    let db_arg = db_path.to_string_lossy().into_owned();
    let time = |args: &[&str]| {
        let t = Instant::now();
        jetsql(args);
        t.elapsed()
    };
    std::fs::write(&db_path, &plain).unwrap();
    let enc_full = time(&["encrypt", &db_arg, "--password", pw]);
    let encrypted = std::fs::read(&db_path).unwrap();
    assert_ne!(encrypted, plain);
    let dec_full = time(&["decrypt", &db_arg, "--password", pw]);
    assert_eq!(std::fs::read(&db_path).unwrap(), plain);

    let check = |ctx: &str| -> bool {
        let now = std::fs::read(&db_path).unwrap();
        if now == plain {
            return false;
        }
        let db = Database::open(
            &db_path,
            OpenOptions {
                password: Some(jet_storage::Password::from(pw)),
                ..OpenOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{ctx}: neither the plain file nor an encrypted one: {e}"));
        jet_tests::consistency(&db, ctx);
        assert_eq!(big_rows(&db), (rows, want_sum), "{ctx}");
        true
    };
    let n = kills().div_ceil(5);
    let mut rng = SimRng::new(0xC0DE);
    let (mut plain_left, mut enc_left) = (0u64, 0u64);
    for (what, full) in [("encrypt", enc_full), ("decrypt", dec_full)] {
        let window = full.as_millis() as u64 * 12 / 10 + 1;
        for round in 0..n {
            std::fs::write(
                &db_path,
                if what == "encrypt" {
                    &plain
                } else {
                    &encrypted
                },
            )
            .unwrap();
            let mut child = Command::new(env!("CARGO_BIN_EXE_jetsql"))
                .args([what, &db_arg, "--password", pw])
                .env_remove("JETSQL_SAMPLE")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let wait = rng.below(window);
            std::thread::sleep(Duration::from_millis(wait));
            let _ = child.kill();
            let status = child.wait().unwrap();
            assert!(
                status.code().is_none() || status.code() == Some(0),
                "{what} round {round}: jetsql failed by itself ({status})"
            );
            let ctx = format!("{what} round {round} (killed after {wait} ms of {window})");
            if check(&ctx) {
                enc_left += 1;
            } else {
                plain_left += 1;
            }
        }
    }
    println!(
        "{} SIGKILLs of `jetsql encrypt` ({enc_full:.2?} in full) and `jetsql decrypt` \
         ({dec_full:.2?}) on a {} byte file: {plain_left} left the plain file, {enc_left} the \
         encrypted one",
        2 * n,
        plain.len()
    );
    assert!(
        plain_left > 0 && enc_left > 0,
        "the kills never hit both sides"
    );
}
