//! Writing into copies of corpus files that Access wrote (Jet3, Jet4 and
//! ACE, with real indexes): in a temporary copy, rows of one table are inserted,
//! updated and deleted through `Database::open_writable` (the journaled
//! file); then, re-reading the file:
//!
//! * every other table (user and system) is byte-identical: its TDEF chain
//!   and every data and index page it owns hold the bytes Access wrote, and
//!   its scan equals the scan before the write;
//! * the changed table passes the index/scan agreement check (every real
//!   index walks in key order and holds exactly the live rows' re-encoded
//!   keys) and `mdb-export` of it equals our scan;
//! * a text key the encoder does not know is refused with a typed error and
//!   the file stays byte-identical.

use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Float32Array, Float64Array, Int16Array, Int32Array,
    Int64Array, RecordBatch, StringArray, TimestampMicrosecondArray, UInt8Array,
};
use jet_storage::index::Bookmark;
use jet_storage::page::MemPageSource;
use jet_storage::schema::tdef::{IndexKind, TableDef};
use jet_storage::{Database, JetType, OpenOptions, ScanOptions};
use jet_tests::agree::{assert_mdb_export_equals_scan, check_index_agreement};
use jet_tests::corpus;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

/// Jet3, Jet4 and ACE files whose tables have real indexes (see
/// indexes.rs), written by Access.
const FILES: &[&str] = &[
    "mdbtools/nwind.mdb",
    "jackcess/V1997/indexTestV1997.mdb",
    "jackcess/V1997/compIndexTestV1997.mdb",
    "jackcess/V1997/testV1997.mdb",
    "jackcess/V2000/indexTestV2000.mdb",
    "jackcess/V2000/compIndexTestV2000.mdb",
    "jackcess/V2000/testV2000.mdb",
    "jackcess/V2000/bigIndexTestV2000.mdb",
    "jackcess/V2007/indexTestV2007.accdb",
    "jackcess/V2007/compIndexTestV2007.accdb",
    "jackcess/V2007/testV2007.accdb",
    "jackcess/V2010/indexTestV2010.accdb",
    "jackcess/V2010/compIndexTestV2010.accdb",
    "jackcess/V2010/testV2010.accdb",
    "jackcess/V2010/bigIndexTestV2010.accdb",
];

/// 2001-02-03 04:05:06, whole seconds (the mdb-export comparison's format).
const BASE_MICROS: i64 = 981_173_106_000_000;

/// The user table with real indexes to write into: one that has rows
/// (so original rows are updated and deleted too) before one that has
/// none, then the most real indexes (ties: the first by name).
fn most_indexed(db: &Database) -> Option<String> {
    let mut best: Option<((bool, usize), String)> = None;
    for name in db.table_names() {
        let t = db.table(&name).ok()?;
        let rank = (!t.bookmarks().ok()?.is_empty(), t.def().real_indexes.len());
        // rows of a relationship's primary table may be referenced, and
        // deleting them is refused (tests/tests/sql/dml.rs covers relationships)
        let referenced = t
            .def()
            .indexes
            .iter()
            .any(|li| li.kind == IndexKind::ForeignKey && li.rel_primary);
        if rank.1 > 0 && !referenced && best.as_ref().is_none_or(|(b, _)| rank > *b) {
            best = Some((rank, name));
        }
    }
    best.map(|(_, n)| n)
}

/// A batch of `n` rows for every writable column of `def` (auto-numbers,
/// types the writer refuses left out; NULL in the columns that reference
/// another table through an enforced relationship), values unique per
/// `seed` and row so that unique indexes accept them; text is ASCII (every
/// key encodes).
fn rows(def: &TableDef, seed: i64, n: usize) -> RecordBatch {
    let mut cols: Vec<(String, ArrayRef)> = Vec::new();
    let ids: Vec<i64> = (0..n as i64).map(|i| seed * 10_000 + i).collect();
    let references: Vec<u16> = def
        .indexes
        .iter()
        .filter(|li| li.kind == IndexKind::ForeignKey && !li.rel_primary)
        .filter_map(|li| def.real_indexes.get(li.real_index as usize))
        .flat_map(|ri| ri.key.iter().map(|(n, _)| *n))
        .collect();
    for c in &def.columns {
        if c.is_auto_number() || c.is_calculated() {
            continue;
        }
        if references.contains(&c.col_num) {
            // NULL references are always allowed (an omitted column would
            // take its default, which need not exist in the other table)
            cols.push((
                c.name.clone(),
                arrow_array::new_null_array(&c.arrow_type(), n),
            ));
            continue;
        }
        let a: ArrayRef = match c.jet_type {
            JetType::Boolean => Arc::new(BooleanArray::from(
                ids.iter().map(|i| i % 2 == 0).collect::<Vec<_>>(),
            )),
            JetType::Byte => Arc::new(UInt8Array::from(
                ids.iter().map(|i| (i % 251) as u8).collect::<Vec<_>>(),
            )),
            JetType::Integer => Arc::new(Int16Array::from(
                ids.iter().map(|i| (i % 30_011) as i16).collect::<Vec<_>>(),
            )),
            JetType::Long => Arc::new(Int32Array::from(
                ids.iter()
                    .map(|i| 3_000_000 + *i as i32)
                    .collect::<Vec<_>>(),
            )),
            JetType::BigInt => Arc::new(Int64Array::from(ids.clone())),
            JetType::Currency => Arc::new(Int64Array::from(
                ids.iter().map(|i| i * 3).collect::<Vec<_>>(),
            )),
            JetType::Single => Arc::new(Float32Array::from(
                ids.iter().map(|i| *i as f32 * 0.5).collect::<Vec<_>>(),
            )),
            JetType::Double => Arc::new(Float64Array::from(
                ids.iter()
                    .map(|i| *i as f64 * 0.25 - 7.0)
                    .collect::<Vec<_>>(),
            )),
            JetType::DateTime => Arc::new(TimestampMicrosecondArray::from(
                ids.iter()
                    .map(|i| BASE_MICROS + i * 3_601_000_000)
                    .collect::<Vec<_>>(),
            )),
            JetType::Text => {
                let max = usize::from(c.length / 2).max(1);
                Arc::new(StringArray::from(
                    ids.iter()
                        .map(|i| {
                            let s = format!("w{i:07} row {}", i % 7);
                            s.chars().take(max).collect::<String>()
                        })
                        .collect::<Vec<_>>(),
                ))
            }
            JetType::Memo => Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("memo {i} {}", "m".repeat((*i % 5) as usize)))
                    .collect::<Vec<_>>(),
            )),
            JetType::Binary => {
                let max = usize::from(c.length).clamp(1, 8);
                Arc::new(BinaryArray::from_iter_values(
                    ids.iter().map(|i| i.to_le_bytes()[..max].to_vec()),
                ))
            }
            JetType::Ole => Arc::new(BinaryArray::from_iter_values(
                ids.iter().map(|i| i.to_be_bytes().to_vec()),
            )),
            JetType::Guid => Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("{{{:08X}-0000-4000-8000-{:012X}}}", seed, i))
                    .collect::<Vec<_>>(),
            )),
            JetType::Numeric => Arc::new(Int64Array::from(
                ids.iter()
                    .map(|i| i % 10_i64.pow(u32::from(c.precision.min(9))))
                    .collect::<Vec<_>>(),
            )),
            _ => continue,
        };
        cols.push((c.name.clone(), a));
    }
    RecordBatch::try_from_iter(cols).unwrap()
}

/// Pages of the TDEF chain starting at `first`.
fn tdef_chain(bytes: &[u8], ps: usize, first: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut p = first;
    while p != 0 && out.len() < 64 {
        out.push(p);
        let o = p as usize * ps;
        p = u32::from_le_bytes(bytes[o + 4..o + 8].try_into().unwrap());
    }
    out
}

/// Every table's scan, by name.
fn scans(db: &Database) -> BTreeMap<String, Vec<RecordBatch>> {
    let mut out = BTreeMap::new();
    for name in db.table_names().into_iter().chain(db.system_table_names()) {
        let Ok(t) = db.table(&name) else { continue };
        let b: Vec<RecordBatch> = t
            .scan(ScanOptions::default())
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        out.insert(name, b);
    }
    out
}

/// The pages each table other than `changed` owns in `bytes`: its TDEF
/// chain, every data / index page naming its TDEF as owner, and the LVAL
/// pages its long-value columns' usage maps list.
fn untouched_pages(db: &Database, bytes: &[u8], changed: &str) -> BTreeMap<u32, String> {
    let ps = db.version().layout().page_size;
    let src = MemPageSource::new(bytes.to_vec(), ps);
    let mut owner_of: BTreeMap<u32, String> = BTreeMap::new();
    for name in db.table_names().into_iter().chain(db.system_table_names()) {
        if name == changed {
            continue;
        }
        let Ok(t) = db.table(&name) else { continue };
        for p in tdef_chain(bytes, ps, t.def().page) {
            owner_of.insert(p, name.clone());
        }
        owner_of.insert(u32::MAX - t.def().page, name.clone());
        // the LVAL pages its long-value columns' usage maps list
        let chain = jet_storage::schema::tdef::read_chain(&src, t.def().page).unwrap();
        let extra = jet_storage::write::tdef::parse_extra(t.def(), &chain, db.version());
        for (_, owned, _) in extra.lval_maps {
            for p in jet_storage::read::usage_map::read_pages(&src, db.version().layout(), owned)
                .unwrap()
            {
                owner_of.insert(p, format!("{name} (long values)"));
            }
        }
    }
    let mut out = BTreeMap::new();
    for p in 0..(bytes.len() / ps) as u32 {
        let page = &bytes[p as usize * ps..(p as usize + 1) * ps];
        if let Some(n) = owner_of.get(&p) {
            out.insert(p, n.clone());
        } else if matches!(page[0], 0x01 | 0x03 | 0x04) {
            let owner = u32::from_le_bytes(page[4..8].try_into().unwrap());
            if let Some(n) = owner_of.get(&(u32::MAX - owner)) {
                out.insert(p, n.clone());
            }
        }
    }
    out
}

struct Outcome {
    table: String,
    indexes: usize,
    rows_before: usize,
    rows_after: usize,
    pages_checked: usize,
    untouched_tables: usize,
}

fn write_into_copy(src: &Path, dir: &Path) -> Outcome {
    let original = std::fs::read(src).unwrap();
    let path = dir.join(src.file_name().unwrap());
    std::fs::write(&path, &original).unwrap();
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    let table = most_indexed(&db).expect("a table with real indexes");
    let def = db.table(&table).unwrap().def().clone();
    let before_scans = scans(&db);
    let guarded = untouched_pages(&db, &original, &table);
    let rows_before = db.table(&table).unwrap().bookmarks().unwrap().len();
    drop(db);

    let mut w = Database::open_writable(&path).unwrap();
    // inserts (enough to split leaves), then updates and deletes of new and
    // original rows, in separate transactions
    let new = w
        .transaction(|tx| tx.insert(&table, &rows(&def, 1, 400)))
        .unwrap_or_else(|e| panic!("{}: insert into {table}: {e}", src.display()));
    w.transaction(|tx| {
        let all = tx.bookmarks(&table)?;
        let originals: Vec<Bookmark> = all.iter().copied().filter(|b| !new.contains(b)).collect();
        let mut upd: Vec<Bookmark> = new.iter().copied().step_by(7).collect();
        upd.extend(originals.iter().copied().step_by(3));
        let changes = rows(&def, 2, upd.len());
        tx.update(&table, &upd, &changes)?;
        let mut dead: Vec<Bookmark> = new.iter().copied().skip(3).step_by(4).collect();
        dead.extend(originals.iter().copied().skip(1).step_by(3));
        tx.delete(&table, &dead)?;
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{}: update/delete in {table}: {e}", src.display()));
    drop(w);

    let after = std::fs::read(&path).unwrap();
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    let ps = db.version().layout().page_size;
    for (&p, owner) in &guarded {
        let r = p as usize * ps..(p as usize + 1) * ps;
        assert!(
            original[r.clone()] == after[r],
            "{}: page {p} of untouched table {owner:?} changed",
            src.display()
        );
    }
    let after_scans = scans(&db);
    let mut untouched_tables = 0;
    for (name, b) in &before_scans {
        if *name == table {
            continue;
        }
        assert!(
            after_scans.get(name) == Some(b),
            "{}: scan of untouched table {name:?} changed",
            src.display()
        );
        untouched_tables += 1;
    }
    let rows_after = check_index_agreement(&db, &table);
    if jet_tests::require_mdb_export().is_some() {
        assert_eq!(
            assert_mdb_export_equals_scan(&path, &db, &table),
            rows_after
        );
    }
    Outcome {
        table,
        indexes: def.real_indexes.len(),
        rows_before,
        rows_after,
        pages_checked: guarded.len(),
        untouched_tables,
    }
}

#[test]
fn writes_into_corpus_copies_leave_other_tables_identical_and_indexes_exact() {
    let Some(root) = corpus() else { return };
    let dir = std::env::temp_dir().join(format!("jet-writer-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = 0;
    for rel in FILES {
        let o = write_into_copy(&root.join(rel), &dir);
        eprintln!(
            "{rel}: table {:?} ({} real indexes) {} → {} rows; {} pages of {} untouched tables byte-identical",
            o.table, o.indexes, o.rows_before, o.rows_after, o.pages_checked, o.untouched_tables
        );
        assert!(o.rows_after > o.rows_before, "{rel}: rows were added");
        files += 1;
    }
    assert_eq!(files, FILES.len());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unknown_text_key_characters_are_refused_and_nothing_changes() {
    let Some(root) = corpus() else { return };
    let dir = std::env::temp_dir().join(format!("jet-writer-textkey-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut refused = BTreeSet::new();
    for rel in [
        "jackcess/V2000/bigIndexTestV2000.mdb",
        "jackcess/V2010/bigIndexTestV2010.accdb",
    ] {
        let src = root.join(rel);
        let path = dir.join(src.file_name().unwrap());
        std::fs::write(&path, std::fs::read(&src).unwrap()).unwrap();
        let before = std::fs::read(&path).unwrap();
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        // a table with a text column in a real index
        let (table, column) = db
            .table_names()
            .into_iter()
            .find_map(|t| {
                let d = db.table(&t).ok()?.def().clone();
                d.real_indexes.iter().find_map(|ri| {
                    ri.key.iter().find_map(|(num, _)| {
                        d.columns
                            .iter()
                            .find(|c| c.col_num == *num && c.jet_type == JetType::Text)
                            .map(|c| (t.clone(), c.name.clone()))
                    })
                })
            })
            .expect("an indexed text column");
        drop(db);
        let mut w = Database::open_writable(&path).unwrap();
        let batch = RecordBatch::try_from_iter(vec![(
            column.as_str(),
            Arc::new(StringArray::from(vec!["plain ascii", "中文"])) as ArrayRef,
        )])
        .unwrap();
        let e = w
            .transaction(|tx| tx.insert(&table, &batch))
            .expect_err("a key with U+4E2D is refused");
        let msg = e.to_string();
        assert!(msg.contains("U+4E2D"), "{rel}: {msg}");
        assert!(msg.contains(&table), "{rel}: {msg}");
        drop(w);
        assert!(
            std::fs::read(&path).unwrap() == before,
            "{rel}: refused insert changed the file"
        );
        refused.insert(rel);
    }
    assert_eq!(refused.len(), 2);
    std::fs::remove_dir_all(&dir).ok();
}
