//! Helper for `tests/tests/crash_kill.rs`: commits the deterministic
//! synthetic transactions of `jet_tests::crash::synthetic_transaction`
//! through the journal, one after another, until it is killed.
//!
//! Usage: `crash_child DB BASE SEED START` — `DB` is the database to
//! write, `BASE` the original image the sequence is defined over, `START`
//! the index of the first transaction. After each commit returns `Ok` it
//! prints `committed N` on standard output.

use jet_storage::CommitTarget;
use jet_storage::journal::JournaledFile;
use jet_tests::crash::synthetic_transaction;
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 {
        eprintln!("usage: crash_child DB BASE SEED START");
        std::process::exit(2);
    }
    let base = std::fs::read(&args[2]).unwrap_or_else(|e| {
        eprintln!("{}: {e}", args[2]);
        std::process::exit(1)
    });
    let seed: u64 = args[3].parse().unwrap_or(0);
    let start: u64 = args[4].parse().unwrap_or(0);
    let mut db = JournaledFile::open(&args[1]).unwrap_or_else(|e| {
        eprintln!("{}: {e}", args[1]);
        std::process::exit(1)
    });
    let mut cur = db.read_image().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let mut out = std::io::stdout().lock();
    for i in start.. {
        let ch = synthetic_transaction(&base, &cur, seed, i, false);
        if let Err(e) = db.commit(&ch) {
            eprintln!("transaction {i}: {e}");
            std::process::exit(1);
        }
        if let Err(e) = ch.apply_to(&mut cur) {
            eprintln!("transaction {i}: {e}");
            std::process::exit(1);
        }
        let _ = writeln!(out, "committed {i}");
        let _ = out.flush();
    }
}
