//! Writing Access 97 (Jet3) files, checked against what Access wrote and
//! what two other readers make of the result:
//!
//! * every live row Access 97 wrote in the corpus's Jet3 files, cracked
//!   into its fields and assembled again by the writer, gives the bytes
//!   Access wrote (one-byte column counts and offsets, jump tables);
//! * the rows of every table of `testIndexCodesV1997.mdb` (text keys over
//!   the whole code page, General 97 sort order), deleted and inserted
//!   again, give every real index the key sequence Access built;
//! * rows with code-page text (é, €), long values (inline, one LVAL row,
//!   chains longer than a 2 KiB page) and rows grown past their page
//!   (overflow) are inserted, updated and deleted in a copy of
//!   `nwind.mdb`; after every commit the index/scan consistency check
//!   passes on every table, and `mdb-export` and mdb-reader read the
//!   changed tables as jetsql does;
//! * those commits, crashed at every step of the journaled commit, recover
//!   to exactly the old or the new image;
//! * text outside the column's code page is refused, naming the table,
//!   column, character and input row, and the file stays byte-identical.

use arrow_array::{ArrayRef, BinaryArray, Int32Array, RecordBatch, StringArray};
use jet_storage::error::WResult;
use jet_storage::format::OwnedField;
use jet_storage::index::{Bookmark, Direction};
use jet_storage::page::MemPageSource;
use jet_storage::page::image::MemImage;
use jet_storage::write::Writer;
use jet_storage::{Database, JetVersion, OpenOptions, ScanOptions, Transaction};
use jet_tests::agree::{assert_mdb_export_equals_scan, consistency};
use jet_tests::crash::{RecordingImage, consistency_of_image, crash_check};
use jet_tests::{corpus, require_mdb_export};
use std::path::Path;
use std::sync::Arc;

use crate::support::jet3_oracles;
use jet3_oracles::{Scratch, assert_mdb_reader_equals_scan};

/// The corpus's Access 97 files.
const JET3_FILES: &[&str] = &[
    "mdbtools/nwind.mdb",
    "jackcess/V1997/compIndexTestV1997.mdb",
    "jackcess/V1997/delColTestV1997.mdb",
    "jackcess/V1997/delTestV1997.mdb",
    "jackcess/V1997/indexTestV1997.mdb",
    "jackcess/V1997/overflowTestV1997.mdb",
    "jackcess/V1997/queryTestV1997.mdb",
    "jackcess/V1997/test2V1997.mdb",
    "jackcess/V1997/testIndexCodesV1997.mdb",
    "jackcess/V1997/testV1997.mdb",
];

fn open(path: &Path) -> Database {
    Database::open(path, OpenOptions::default()).unwrap()
}

#[test]
fn rows_access_97_wrote_assemble_to_the_same_bytes() {
    let Some(root) = corpus() else { return };
    let (mut same, mut total, mut fewer_columns) = (0usize, 0usize, 0usize);
    for rel in JET3_FILES {
        let bytes = std::fs::read(root.join(rel)).unwrap();
        let db = open(&root.join(rel));
        assert_eq!(db.version(), JetVersion::Jet3, "{rel}");
        let l = db.version().layout();
        let src = MemPageSource::new(bytes, l.page_size);
        for name in db.table_names().into_iter().chain(db.system_table_names()) {
            let Ok(t) = db.table(&name) else { continue };
            let def = t.def();
            let num_cols = def
                .columns
                .iter()
                .map(|c| usize::from(c.col_num) + 1)
                .max()
                .unwrap_or(0)
                .max(usize::from(def.max_cols));
            for bm in t.bookmarks().unwrap() {
                let page = jet_storage::read::data_page::DataPage::read(&src, l, bm.page).unwrap();
                let (p, range) =
                    jet_storage::read::data_page::resolve_row(&src, l, &page, usize::from(bm.row))
                        .unwrap()
                        .unwrap();
                let stored = &p.bytes[range];
                let fields = t.raw_row(bm).unwrap().unwrap();
                total += 1;
                if usize::from(stored[0]) != num_cols {
                    // written before a column was added: Access keeps the
                    // old, shorter row
                    fewer_columns += 1;
                    continue;
                }
                let ours = jet_storage::write::row::assemble(JetVersion::Jet3, def, &fields);
                // Access leaves stale bytes in the fixed slot of a NULL
                // field (no reader looks at them); the writer zeroes it
                let mut stored = stored.to_vec();
                for (c, f) in def.columns.iter().zip(&fields) {
                    if c.is_fixed() && *f == OwnedField::Null {
                        let s = 1 + usize::from(c.fixed_offset);
                        let e = (s + usize::from(c.length)).min(stored.len());
                        stored[s.min(e)..e].fill(0);
                    }
                }
                assert!(
                    ours == stored,
                    "{rel} {name} {bm:?}: assembled {:02X?}\nAccess wrote {:02X?}",
                    ours,
                    stored
                );
                same += 1;
            }
        }
    }
    eprintln!(
        "{same} of {total} Access 97 rows assembled byte-identical ({fewer_columns} rows predate a column)"
    );
    assert!(same > 3000, "{same}");
}

/// Every real index's keys, in walk order.
fn index_keys(db: &Database, table: &str) -> Vec<Vec<Vec<u8>>> {
    let t = db.table(table).unwrap();
    (0..t.def().real_indexes.len())
        .map(|n| {
            t.index(n)
                .unwrap()
                .walk(Direction::Forward)
                .unwrap()
                .map(|e| e.unwrap().key)
                .collect()
        })
        .collect()
}

#[test]
fn reinserted_rows_give_the_index_keys_access_97_built() {
    let Some(root) = corpus() else { return };
    let dir = Scratch::new("codes");
    let path = dir.copy(&root.join("jackcess/V1997/testIndexCodesV1997.mdb"));
    let db = open(&path);
    let tables: Vec<String> = db
        .table_names()
        .into_iter()
        .filter(|t| !db.table(t).unwrap().def().real_indexes.is_empty())
        .collect();
    let before: Vec<_> = tables.iter().map(|t| index_keys(&db, t)).collect();
    let batches: Vec<Vec<RecordBatch>> = tables
        .iter()
        .map(|t| {
            db.table(t)
                .unwrap()
                .scan(ScanOptions::default())
                .unwrap()
                .map(|b| b.unwrap())
                .collect()
        })
        .collect();
    drop(db);
    let mut w = Database::open_writable(&path).unwrap();
    for (t, bs) in tables.iter().zip(&batches) {
        w.transaction(|tx| {
            let all = tx.bookmarks(t)?;
            tx.delete(t, &all)?;
            for b in bs {
                tx.insert(t, b)?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{t}: {e}"));
    }
    drop(w);
    let db = open(&path);
    let mut entries = 0;
    for (t, keys) in tables.iter().zip(&before) {
        let after = index_keys(&db, t);
        for (n, (a, b)) in after.iter().zip(keys).enumerate() {
            assert_eq!(a.len(), b.len(), "{t} index {n}: entry count");
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                panic!(
                    "{t} index {n} entry {i}: {:02X?}, Access wrote {:02X?}",
                    a[i], b[i]
                );
            }
            entries += a.len();
        }
    }
    consistency(&db, "testIndexCodesV1997 re-inserted");
    eprintln!(
        "{} tables, {entries} index entries identical to Access 97's",
        tables.len()
    );
    assert!(entries > 500, "{entries}");
}

/// A Categories batch: names with code-page text, memos and pictures of
/// every long-value shape (inline, one LVAL row, chained over pages).
fn categories(from: i32, n: i32) -> RecordBatch {
    let ids: Vec<i32> = (from..from + n).collect();
    let names: Vec<String> = ids.iter().map(|i| format!("Café €{i}")).collect();
    let memos: Vec<Option<String>> = ids
        .iter()
        .map(|i| match i % 4 {
            0 => None,
            1 => Some(format!("court {i} – é")),
            2 => Some(format!("{i} ").repeat(150)),
            _ => Some(format!("chaîne {i} ").repeat(700)),
        })
        .collect();
    let pictures: Vec<Option<Vec<u8>>> = ids
        .iter()
        .map(|i| match i % 3 {
            0 => Some(vec![*i as u8; 40]),
            1 => Some((0..5000u32).map(|k| (k * 7 + *i as u32) as u8).collect()),
            _ => None,
        })
        .collect();
    RecordBatch::try_from_iter(vec![
        (
            "CategoryName",
            Arc::new(StringArray::from(names)) as ArrayRef,
        ),
        (
            "Description",
            Arc::new(StringArray::from(memos)) as ArrayRef,
        ),
        (
            "Picture",
            Arc::new(BinaryArray::from_iter(pictures)) as ArrayRef,
        ),
    ])
    .unwrap()
}

/// A Customers batch: unique keys, cp1252 text in indexed columns.
fn customers(from: i32, n: i32) -> RecordBatch {
    let ids: Vec<i32> = (from..from + n).collect();
    let col = |f: &dyn Fn(i32) -> String| -> ArrayRef {
        Arc::new(StringArray::from(
            ids.iter().map(|i| f(*i)).collect::<Vec<_>>(),
        ))
    };
    RecordBatch::try_from_iter(vec![
        ("CustomerID", col(&|i| format!("Q{i:04}"))),
        ("CompanyName", col(&|i| format!("Société n°{i} «Ærø»"))),
        ("ContactName", col(&|i| format!("Zoë {}", i % 13))),
        (
            "City",
            col(&|i| ["Köln", "Århus", "Niš", "Ødense"][i as usize % 4].to_string()),
        ),
        ("PostalCode", col(&|i| format!("{:05}", i * 37 % 99_999))),
    ])
    .unwrap()
}

/// A step of the nwind workload: one transaction, given the committed
/// image it starts from.
type Step = Box<dyn Fn(&mut Transaction<'_>, &Database) -> WResult<()>>;

/// Bookmarks of the rows of `table` whose text column `column` starts with
/// the code-page bytes `prefix` (the rows this workload inserted).
fn rows_starting(db: &Database, table: &str, column: &str, prefix: &[u8]) -> Vec<Bookmark> {
    let t = db.table(table).unwrap();
    let pos = t
        .def()
        .columns
        .iter()
        .position(|c| c.name == column)
        .unwrap();
    t.bookmarks()
        .unwrap()
        .into_iter()
        .filter(|&bm| {
            let f = t.raw_row(bm).unwrap().unwrap();
            matches!(&f[pos], OwnedField::Bytes(b) if b.starts_with(prefix))
        })
        .collect()
}

/// The nwind workload: each step one transaction.
fn nwind_steps() -> Vec<(&'static str, Step)> {
    vec![
        (
            "insert Categories",
            Box::new(|tx: &mut Transaction<'_>, _: &Database| {
                tx.insert("Categories", &categories(0, 24)).map(|_| ())
            }),
        ),
        (
            "insert Customers",
            Box::new(|tx: &mut Transaction<'_>, _: &Database| {
                tx.insert("Customers", &customers(0, 300)).map(|_| ())
            }),
        ),
        (
            "update Customers and Categories",
            Box::new(|tx: &mut Transaction<'_>, _: &Database| {
                // grow every third customer (original and new) past its
                // page: overflow rows
                let bms: Vec<Bookmark> =
                    tx.bookmarks("Customers")?.into_iter().step_by(3).collect();
                let n = bms.len();
                let text = |f: &dyn Fn(usize) -> String| -> ArrayRef {
                    Arc::new(StringArray::from((0..n).map(f).collect::<Vec<_>>()))
                };
                let batch = RecordBatch::try_from_iter(vec![
                    (
                        "Address",
                        text(&|i| format!("{i} rue de la Paix, bâtiment {}", "é".repeat(20))),
                    ),
                    ("ContactTitle", text(&|i| format!("Directeur général {i}"))),
                ])
                .unwrap();
                tx.update("Customers", &bms, &batch)?;
                // every category's memo and picture replaced (names kept)
                let cats = tx.bookmarks("Categories")?;
                let b = categories(101, cats.len() as i32).project(&[1, 2]).unwrap();
                tx.update("Categories", &cats, &b)?;
                Ok(())
            }),
        ),
        (
            "delete",
            Box::new(|tx: &mut Transaction<'_>, db: &Database| {
                // half the new customers and a third of the new categories
                // (no order or product references them)
                let new: Vec<Bookmark> = rows_starting(db, "Customers", "CustomerID", b"Q0")
                    .into_iter()
                    .step_by(2)
                    .collect();
                assert_eq!(new.len(), 150);
                tx.delete("Customers", &new)?;
                let cats: Vec<Bookmark> =
                    rows_starting(db, "Categories", "CategoryName", b"Caf\xE9 ")
                        .into_iter()
                        .step_by(3)
                        .collect();
                assert_eq!(cats.len(), 8);
                tx.delete("Categories", &cats)?;
                Ok(())
            }),
        ),
    ]
}

#[test]
fn nwind_rows_long_values_and_overflow_read_back_in_mdbtools_and_mdb_reader() {
    let Some(root) = corpus() else { return };
    let dir = Scratch::new("nwind");
    let path = dir.copy(&root.join("mdbtools/nwind.mdb"));
    let mut w = Database::open_writable(&path).unwrap();
    let have_export = require_mdb_export().is_some();
    // long values are compared with mdb-reader until a step frees some
    // (see `assert_mdb_reader_equals_scan`)
    let mut long_values = true;
    for (what, step) in nwind_steps() {
        long_values &= what.starts_with("insert");
        let db = w.database().unwrap();
        w.transaction(|tx| step(tx, &db))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let db = open(&path);
        let rows = consistency(&db, what);
        let mut checked = 0;
        for t in ["Categories", "Customers"] {
            if have_export {
                checked += assert_mdb_export_equals_scan(&path, &db, t);
            }
            checked += assert_mdb_reader_equals_scan(&path, &db, t, long_values);
        }
        eprintln!("nwind / {what}: {rows} rows consistent, {checked} rows agree with the oracles");
    }
}

#[test]
fn nwind_commits_crashed_at_every_step_recover_old_or_new() {
    let Some(root) = corpus() else { return };
    let bytes = std::fs::read(root.join("mdbtools/nwind.mdb")).unwrap();
    let mut w = Writer::new(RecordingImage {
        image: MemImage { bytes },
        commits: Vec::new(),
    })
    .unwrap();
    for (k, (what, step)) in nwind_steps().into_iter().enumerate() {
        let before = w.target().image.bytes.clone();
        let db = w.database().unwrap();
        w.transaction(|tx| step(tx, &db))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let ch = w.target().commits.last().unwrap().clone();
        let rep = crash_check(
            &format!("nwind {what}"),
            &before,
            &ch,
            2,
            7000 + k as u64,
            &mut consistency_of_image,
        );
        eprintln!(
            "nwind / {what}: {} steps, {} states ({} old, {} new), {} recovery crashes",
            rep.steps, rep.states, rep.old, rep.new, rep.recovery_crashes
        );
        assert!(rep.old > 0 && rep.new > 0, "{what}: {rep:?}");
    }
}

#[test]
fn text_outside_the_code_page_is_refused_by_table_column_and_row() {
    let Some(root) = corpus() else { return };
    let dir = Scratch::new("codepage");
    let path = dir.copy(&root.join("mdbtools/nwind.mdb"));
    let before = std::fs::read(&path).unwrap();
    let mut w = Database::open_writable(&path).unwrap();
    let batch = RecordBatch::try_from_iter(vec![
        (
            "CustomerID",
            Arc::new(StringArray::from(vec!["ZZA", "ZZB"])) as ArrayRef,
        ),
        (
            "CompanyName",
            Arc::new(StringArray::from(vec!["Ærø", "北京 Trading"])) as ArrayRef,
        ),
    ])
    .unwrap();
    let e = w
        .transaction(|tx| tx.insert("Customers", &batch))
        .expect_err("a character outside code page 1252 is refused");
    let msg = e.to_string();
    for needle in [
        "Customers",
        "CompanyName",
        "U+5317",
        "input row 2",
        "windows-1252",
    ] {
        assert!(msg.contains(needle), "{needle:?} not in: {msg}");
    }
    // a memo too
    let memo = RecordBatch::try_from_iter(vec![
        (
            "CategoryName",
            Arc::new(StringArray::from(vec!["x"])) as ArrayRef,
        ),
        (
            "Description",
            Arc::new(StringArray::from(vec!["emoji 😀"])) as ArrayRef,
        ),
        (
            "CategoryID",
            Arc::new(Int32Array::from(vec![9000])) as ArrayRef,
        ),
    ])
    .unwrap();
    let e = w
        .transaction(|tx| tx.insert("Categories", &memo))
        .expect_err("an emoji is refused");
    assert!(e.to_string().contains("U+1F600"), "{e}");
    drop(w);
    assert!(
        std::fs::read(&path).unwrap() == before,
        "refused inserts changed the file"
    );
}
