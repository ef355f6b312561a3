//! Fault injection: for each transaction (over real corpus images), crash
//! before every I/O step of the commit, keep a random subset of the
//! unflushed operations (any order, torn writes, interrupted length
//! changes), recover — crashing again during recovery at random points —
//! and require exactly O or exactly C, byte for byte, and C whenever the
//! commit returned `Ok`.
//!
//! CI runs a bounded number of persistence subsets per step; set
//! `JET_CRASH_LONG=1` for at least 1,000 subsets per step (and
//! `JET_CRASH_SUBSETS=n` to choose). Prints the number of crash states
//! checked.

use jet_storage::ImageChanges;
use jet_tests::crash::{CrashReport, crash_check, page_size_of, synthetic_transaction};
use jet_tests::{corpus, skip_or_fail};
use std::collections::BTreeMap;

fn subsets() -> u64 {
    if let Some(n) = std::env::var("JET_CRASH_SUBSETS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var("JET_CRASH_LONG").is_ok_and(|v| v == "1") {
        1000
    } else {
        12
    }
}

/// Transactions over image `o`: the synthetic sequence (rewrites, growth,
/// cut back, page 0) and edge cases: a large growth, a shrink below the
/// original length with rewrites, a rewrite equal to the original (no-op),
/// everything at once.
fn transactions(o: &[u8]) -> Vec<(String, Vec<u8>, ImageChanges)> {
    let ps = page_size_of(o);
    let pages = (o.len() / ps) as u32;
    let mut out = Vec::new();
    let mut cur = o.to_vec();
    for i in 0..6u64 {
        let ch = synthetic_transaction(o, &cur, 7, i, true);
        let before = cur.clone();
        ch.apply_to(&mut cur).unwrap();
        out.push((format!("synthetic {i}"), before, ch));
    }
    let page = |n: u32, fill: u8| {
        let mut p = o[(n as usize * ps).min(o.len() - ps)..][..ps].to_vec();
        p[ps / 2..ps / 2 + 32].fill(fill);
        p.into_boxed_slice()
    };
    // grow by eight pages, rewriting the first and the last page of O
    let mut m = BTreeMap::new();
    m.insert(0, page(0, 0x11));
    m.insert(pages - 1, page(pages - 1, 0x12));
    for n in pages..pages + 8 {
        m.insert(n, vec![n as u8; ps].into_boxed_slice());
    }
    out.push((
        "grow by 8".into(),
        o.to_vec(),
        ImageChanges {
            page_size: ps,
            old_pages: pages,
            new_pages: pages + 8,
            pages: m,
        },
    ));
    // shrink by a quarter, rewriting two survivors
    let keep = pages - pages / 4;
    let mut m = BTreeMap::new();
    m.insert(1, page(1, 0x21));
    m.insert(keep - 1, page(keep - 1, 0x22));
    out.push((
        "shrink by a quarter".into(),
        o.to_vec(),
        ImageChanges {
            page_size: ps,
            old_pages: pages,
            new_pages: keep,
            pages: m,
        },
    ));
    // a rewrite equal to O plus one real change
    let mut m = BTreeMap::new();
    m.insert(2, o[2 * ps..3 * ps].to_vec().into_boxed_slice());
    m.insert(3, page(3, 0x31));
    out.push((
        "same bytes and one change".into(),
        o.to_vec(),
        ImageChanges {
            page_size: ps,
            old_pages: pages,
            new_pages: pages,
            pages: m,
        },
    ));
    out
}

#[test]
fn every_crash_recovers_to_old_or_new() {
    let Some(dir) = corpus() else { return };
    let n = subsets();
    let files = [
        "jackcess/V1997/delTestV1997.mdb",
        "jackcess/V2000/delTestV2000.mdb",
        "jackcess/V2007/delColTestV2007.accdb",
    ];
    let mut total = CrashReport::default();
    let started = std::time::Instant::now();
    for rel in files {
        let path = dir.join(rel);
        let Ok(o) = std::fs::read(&path) else {
            skip_or_fail::<()>(&format!("missing corpus file {}", path.display()));
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (k, (what, before, ch)) in transactions(&o).into_iter().enumerate() {
            let rep = crash_check(&name, &before, &ch, n, 1000 + k as u64);
            println!(
                "{rel} / {what}: {} steps, {} states ({} O, {} C), {} recovery crashes",
                rep.steps, rep.states, rep.old, rep.new, rep.recovery_crashes
            );
            assert!(
                rep.old > 0 && rep.new > 0,
                "{rel} / {what}: both outcomes occur"
            );
            total.steps += rep.steps;
            total.states += rep.states;
            total.recovery_crashes += rep.recovery_crashes;
            total.old += rep.old;
            total.new += rep.new;
        }
    }
    println!(
        "crash states checked: {} ({} commit steps × {n} persistence subsets, {} recovery crashes; {} recovered to O, {} to C) in {:.1?}",
        total.states,
        total.steps,
        total.recovery_crashes,
        total.old,
        total.new,
        started.elapsed()
    );
}
