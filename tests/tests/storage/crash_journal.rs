//! Fault injection: for each transaction (over real corpus images), crash
//! before every I/O step of the commit, keep a random subset of the
//! unflushed operations (any order, torn writes, interrupted length
//! changes), recover — crashing again during recovery at random points —
//! and require exactly O or exactly C, byte for byte, and C whenever the
//! commit returned `Ok`.
//!
//! Two sets of transactions: synthetic page rewrites, growth and shrink
//! over corpus images, and real transactions of the writer (index splits,
//! relocated rows, deletes, growth by many pages) whose every outcome also
//! passes the reader's consistency checks. The writer never shrinks a file
//! (pages it frees stay in place), so shrink is covered by the synthetic
//! set only.
//!
//! CI runs a bounded number of persistence subsets per step; set
//! `JET_CRASH_LONG=1` for at least 1,000 subsets per step (and
//! `JET_CRASH_SUBSETS=n` to choose). Prints the number of crash states
//! checked.

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::index::Bookmark;
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{ImageChanges, JetType, JetVersion, MemImage, Writer};
use jet_tests::crash::{
    CrashReport, RecordingImage, consistency_of_image, crash_check, page_size_of,
    synthetic_transaction,
};
use jet_tests::{corpus, skip_or_fail};
use std::collections::BTreeMap;
use std::sync::Arc;

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
fn synthetic_transactions_crash_to_old_or_new() {
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
            // synthetic pages (and the cut) are not a database's: bytes only
            let rep = crash_check(&name, &before, &ch, n, 1000 + k as u64, &mut |_, _| {});
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

const CLOCK: i64 = 946_684_800_000_000;

fn items_spec() -> TableSpec {
    TableSpec::new(
        "Items",
        vec![
            ColumnSpec::new("id", JetType::Long).auto_number(),
            ColumnSpec::new("code", JetType::Long),
            ColumnSpec::text("name", 120),
            ColumnSpec::new("note", JetType::Memo),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["id"]))
    .index(IndexSpec::new("code", &["code"]).unique())
    .index(IndexSpec::new("name", &["name"]))
}

/// Rows `from..from + n`: codes and names scattered over their indexes (so
/// inserts land inside existing leaves), notes of `note_len` characters.
fn items(from: i32, n: i32, note_len: usize) -> RecordBatch {
    RecordBatch::try_from_iter(vec![
        (
            "code",
            Arc::new(Int32Array::from(
                (from..from + n)
                    .map(|i| i * 7919 % 100_003)
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(
                (from..from + n)
                    .map(|i| format!("item {:05} {}", (i * 37) % 1000, i % 3))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "note",
            Arc::new(StringArray::from(
                (from..from + n)
                    .map(|i| (note_len > 0).then(|| format!("{i} ").repeat(note_len / 4 + 1)))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap()
}

/// Row slots carrying the overflow flag (a row moved to another page) on
/// the data pages of a Jet4/ACE image.
fn overflow_rows(image: &[u8]) -> usize {
    let ps = page_size_of(image);
    image
        .chunks(ps)
        .filter(|p| p[0] == 0x01)
        .map(|p| {
            let rows = usize::from(u16::from_le_bytes([p[12], p[13]]));
            (0..rows)
                .filter(|r| {
                    let at = 14 + 2 * r;
                    let slot = u16::from_le_bytes([p[at], p[at + 1]]);
                    slot & 0x8000 == 0 && slot & 0x4000 != 0
                })
                .count()
        })
        .sum()
}

/// Appended pages that are index pages (node 0x03, leaf 0x04): an insert
/// into an existing index gets a new index page only by splitting one.
fn appended_index_pages(ch: &ImageChanges) -> usize {
    ch.pages
        .range(ch.old_pages..)
        .filter(|(_, p)| p[0] == 0x03 || p[0] == 0x04)
        .count()
}

/// Real writer transactions, each as (what, O, changes), built through the
/// default B-tree maintainer on a database of `v`; each kind is checked to
/// be what its name says.
fn writer_transactions(v: JetVersion) -> Vec<(String, Vec<u8>, ImageChanges)> {
    let mut w = Writer::new(RecordingImage {
        image: MemImage {
            bytes: new_database(v, CLOCK).unwrap(),
        },
        commits: Vec::new(),
    })
    .unwrap();
    let mut out = Vec::new();
    let mut run = |w: &mut Writer<RecordingImage>,
                   what: &str,
                   f: &mut dyn FnMut(
        &mut jet_storage::Transaction<'_>,
    ) -> jet_storage::error::WResult<()>| {
        let before = w.target().image.bytes.clone();
        w.transaction(|tx| f(tx)).unwrap();
        let ch = w.target().commits.last().unwrap().clone();
        out.push((what.to_string(), before, ch));
    };
    run(
        &mut w,
        "create table with 3 indexes and 250 rows",
        &mut |tx| {
            tx.create_table(&items_spec())?;
            tx.insert("Items", &items(0, 250, 0)).map(|_| ())
        },
    );
    run(
        &mut w,
        "insert 500 rows inside the indexes (splits)",
        &mut |tx| tx.insert("Items", &items(250, 500, 0)).map(|_| ()),
    );
    run(
        &mut w,
        "update 120 rows to longer names and memos (relocations)",
        &mut |tx| {
            let bms: Vec<Bookmark> = tx.bookmarks("Items")?.into_iter().step_by(6).collect();
            let n = bms.len();
            let ch = RecordBatch::try_from_iter(vec![
                (
                    "name",
                    Arc::new(StringArray::from(
                        (0..n)
                            .map(|i| format!("renamed {:04} {}", (i * 53) % 997, "x".repeat(90)))
                            .collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
                (
                    "note",
                    Arc::new(StringArray::from(
                        (0..n)
                            .map(|i| format!("grown {i} ").repeat(12))
                            .collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
            ])
            .unwrap();
            tx.update("Items", &bms, &ch).map(|_| ())
        },
    );
    run(&mut w, "delete every third row", &mut |tx| {
        let bms: Vec<Bookmark> = tx.bookmarks("Items")?.into_iter().step_by(3).collect();
        tx.delete("Items", &bms).map(|_| ())
    });
    run(
        &mut w,
        "insert 120 rows with 700-character memos (growth)",
        &mut |tx| tx.insert("Items", &items(750, 120, 700)).map(|_| ()),
    );
    // each transaction is of the kind its name says
    let [create, split, update, delete, grow] = &out[..] else {
        unreachable!()
    };
    assert!(
        create.2.new_pages > create.2.old_pages,
        "{v:?}: create grows"
    );
    assert!(
        appended_index_pages(&split.2) > 0,
        "{v:?}: inserts split index pages"
    );
    let mut c = update.1.clone();
    update.2.apply_to(&mut c).unwrap();
    assert!(
        overflow_rows(&c) > overflow_rows(&update.1),
        "{v:?}: updates relocate rows"
    );
    let rows = |img: &[u8]| {
        jet_tests::crash::consistency(&jet_tests::crash::image_database(img).unwrap(), "rows")
    };
    let mut c = delete.1.clone();
    delete.2.apply_to(&mut c).unwrap();
    assert!(rows(&c) < rows(&delete.1), "{v:?}: deletes remove rows");
    assert!(
        grow.2.new_pages >= grow.2.old_pages + 20,
        "{v:?}: growth by many pages ({} → {})",
        grow.2.old_pages,
        grow.2.new_pages
    );
    out
}

/// Acceptance 1 with the writer's own transactions: every crash state of
/// every transaction recovers to exactly O or C (C when the commit
/// returned), and the outcome passes the reader's consistency checks (every
/// table scans, every index holds exactly the live rows' keys in order).
#[test]
fn writer_transactions_crash_to_old_or_new() {
    let n = subsets();
    let mut total = CrashReport::default();
    let started = std::time::Instant::now();
    for (v, name) in [(JetVersion::Jet4, "w.mdb"), (JetVersion::Ace12, "w.accdb")] {
        for (k, (what, before, ch)) in writer_transactions(v).into_iter().enumerate() {
            let rep = crash_check(
                name,
                &before,
                &ch,
                n,
                5000 + k as u64,
                &mut consistency_of_image,
            );
            println!(
                "{v:?} / {what}: {} → {} pages, {} pages written, {} steps, {} states ({} O, {} C), {} recovery crashes",
                ch.old_pages,
                ch.new_pages,
                ch.pages.len(),
                rep.steps,
                rep.states,
                rep.old,
                rep.new,
                rep.recovery_crashes
            );
            assert!(
                rep.old > 0 && rep.new > 0,
                "{v:?} / {what}: both outcomes occur"
            );
            total.steps += rep.steps;
            total.states += rep.states;
            total.recovery_crashes += rep.recovery_crashes;
            total.old += rep.old;
            total.new += rep.new;
        }
    }
    println!(
        "writer transactions: crash states checked: {} ({} commit steps × {n} persistence subsets, {} recovery crashes; {} recovered to O, {} to C) in {:.1?}",
        total.states,
        total.steps,
        total.recovery_crashes,
        total.old,
        total.new,
        started.elapsed()
    );
}

/// Issue 17, I/O errors on the write path (through the `Storage` trait):
/// an error — EIO or ENOSPC, the failing operation doing nothing or
/// taking effect first — at every write-side step of the writer's
/// transactions (create table with rows, inserts splitting index pages,
/// updates relocating rows, deletes, growth, and a multi-statement
/// transaction: delete every row, insert a batch, update some) always
/// reaches the caller; the file is then exactly O, or C only when the
/// error said the outcome is uncertain — as the process sees it, after a
/// reopen, and after crashes right after the error.
#[test]
fn writer_transactions_io_errors_tell_the_outcome() {
    use jet_tests::crash::{batch_database, batch_transaction, io_error_check};
    let crashes = if std::env::var("JET_CRASH_LONG").is_ok_and(|v| v == "1") {
        40
    } else {
        2
    };
    let started = std::time::Instant::now();
    let mut txns = writer_transactions(JetVersion::Jet4);
    let mut w = Writer::new(RecordingImage {
        image: MemImage {
            bytes: batch_database(JetVersion::Jet4).unwrap(),
        },
        commits: Vec::new(),
    })
    .unwrap();
    w.transaction(|tx| batch_transaction(tx, 0)).unwrap();
    let before = w.target().image.bytes.clone();
    w.transaction(|tx| batch_transaction(tx, 1)).unwrap();
    let multi = w.target().commits.last().unwrap().clone();
    txns.push((
        "delete all, insert a batch, update some (one transaction)".to_string(),
        before,
        multi,
    ));
    let (mut runs, mut uncertain, mut states) = (0, 0, 0);
    for (k, (what, before, ch)) in txns.into_iter().enumerate() {
        let rep = io_error_check("io.mdb", &before, &ch, crashes, 9000 + k as u64);
        println!(
            "{what}: {} steps, {} injected errors: {} not committed (O), {} uncertain ({} reopened as C); {} crash states",
            rep.steps, rep.runs, rep.not_committed, rep.uncertain, rep.uncertain_new, rep.states
        );
        assert!(rep.not_committed > 0 && rep.uncertain > 0, "{what}");
        runs += rep.runs;
        uncertain += rep.uncertain;
        states += rep.states;
    }
    println!(
        "I/O errors: {runs} commits with one injected error ({uncertain} uncertain), {states} crash states after the error, in {:.1?}",
        started.elapsed()
    );
}
