//! Helper process for `tests/tests/storage/crash_kill.rs`: a writer or a reader of
//! a database holding the batch workload of `jet_tests::crash` (real writer
//! transactions through the journal: deletes, inserts with index splits,
//! updates).
//!
//! Usage:
//! - `crash_child write DB START` — opens `DB` for writing once (with the
//!   password in `$JET_CRASH_PASSWORD`, if set) and commits transactions
//!   `START, START + 1, …` until it is killed, printing `committed N`
//!   after each commit returned `Ok`.
//! - `crash_child share DB START MILLIS` — for `MILLIS` ms, opens `DB` for
//!   writing, commits one transaction and closes it again, over and over
//!   (so readers in other processes get their turn); an open refused as
//!   busy (`JournalError::Locked`) is counted and retried. Prints
//!   `committed N` after each commit, then `writer commits C busy B`.
//! - `crash_child read DB MILLIS` — for `MILLIS` ms, opens `DB`, checks the
//!   workload's invariant and the reader's consistency checks (every table
//!   scans, every index holds exactly the live rows), closes it, sleeps
//!   0–4 ms, over and over. Prints `reader reads R busy B batches K` (K
//!   distinct batches seen). Any other error, or a broken invariant, is
//!   printed on standard error and exits with status 1.

use jet_storage::journal::sim::SimRng;
use jet_storage::{Database, Error, JournalError, OpenOptions, Password};
use jet_tests::crash::{batch_invariant, batch_transaction, consistency};
use std::collections::BTreeSet;
use std::io::Write;
use std::time::{Duration, Instant};

fn die(what: impl std::fmt::Display) -> ! {
    eprintln!("{what}");
    std::process::exit(1)
}

fn arg<T: std::str::FromStr>(args: &[String], n: usize) -> T {
    args.get(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| die(format!("argument {n} missing or invalid: {args:?}")))
}

fn is_busy(e: &Error) -> bool {
    matches!(e, Error::Journal(JournalError::Locked { .. }))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("");
    let db = args.get(2).cloned().unwrap_or_else(|| {
        die("usage: crash_child write DB START | share DB START MILLIS | read DB MILLIS")
    });
    let mut out = std::io::stdout().lock();
    match mode {
        "write" => {
            let start: u64 = arg(&args, 3);
            // an encrypted file's password comes in JET_CRASH_PASSWORD
            let password = std::env::var("JET_CRASH_PASSWORD")
                .ok()
                .map(|p| Password::from(p.as_str()));
            let mut w = Database::open_writable_with_password(&db, password.as_ref())
                .unwrap_or_else(|e| die(format!("{db}: {e}")));
            for i in start.. {
                w.transaction(|tx| batch_transaction(tx, i))
                    .unwrap_or_else(|e| die(format!("transaction {i}: {e}")));
                let _ = writeln!(out, "committed {i}");
                let _ = out.flush();
            }
        }
        "share" => {
            let start: u64 = arg(&args, 3);
            let until = Instant::now() + Duration::from_millis(arg(&args, 4));
            let (mut i, mut busy) = (start, 0u64);
            while Instant::now() < until {
                let mut w = match Database::open_writable(&db) {
                    Ok(w) => w,
                    Err(e) if is_busy(&e) => {
                        busy += 1;
                        continue;
                    }
                    Err(e) => die(format!("{db}: open for writing: {e}")),
                };
                w.transaction(|tx| batch_transaction(tx, i))
                    .unwrap_or_else(|e| die(format!("transaction {i}: {e}")));
                drop(w);
                let _ = writeln!(out, "committed {i}");
                let _ = out.flush();
                i += 1;
            }
            let _ = writeln!(out, "writer commits {} busy {busy}", i - start);
        }
        "read" => {
            let until = Instant::now() + Duration::from_millis(arg(&args, 3));
            let mut rng = SimRng::new(u64::from(std::process::id()));
            let (mut reads, mut busy) = (0u64, 0u64);
            let mut seen = BTreeSet::new();
            while Instant::now() < until {
                match Database::open(&db, OpenOptions::default()) {
                    Ok(d) => {
                        let ctx = format!("read {reads}");
                        match batch_invariant(&d) {
                            Ok(b) => {
                                seen.insert(b);
                            }
                            Err(e) => die(format!("{ctx}: invariant broken: {e}")),
                        }
                        consistency(&d, &ctx);
                        reads += 1;
                    }
                    Err(e) if is_busy(&e) => busy += 1,
                    Err(e) => die(format!("open for reading: {e}")),
                }
                std::thread::sleep(Duration::from_millis(rng.below(5)));
            }
            let _ = writeln!(
                out,
                "reader reads {reads} busy {busy} batches {}",
                seen.len()
            );
        }
        _ => die("usage: crash_child write DB START | share DB START MILLIS | read DB MILLIS"),
    }
}
