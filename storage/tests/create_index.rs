//! `CREATE INDEX` on tables that hold rows, and `DROP INDEX`.
//!
//! The acceptance test: a table created with its indexes and filled row by
//! row, and the same table created without them, filled with the same
//! rows and then indexed with [`Transaction::create_index`], walk the same
//! entries (key bytes, and the row each entry points at) in the same
//! order; both pass the index/scan consistency check. Refusals (duplicate
//! unique keys, NULL primary keys, taken names, bad columns) leave the
//! image byte-identical. Corpus files written by Access get a new index
//! through the journaled file and pass the check after reopening.

use crate::support::check as support;

use arrow_array::{ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray};
use jet_storage::error::WriteError;
use jet_storage::schema::tdef::Direction;
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{Database, Error, JetType, JetVersion, MemImage, Writer};
use std::sync::Arc;
use support::*;

fn writer(v: JetVersion) -> Writer<MemImage> {
    let bytes = new_database(v, jet_storage::write::txn::DEFAULT_CLOCK).unwrap();
    Writer::new(MemImage { bytes }).unwrap()
}

fn columns() -> Vec<ColumnSpec> {
    vec![
        ColumnSpec::new("id", JetType::Long),
        ColumnSpec::text("name", 40),
        ColumnSpec::new("amount", JetType::Double),
        ColumnSpec::new("grp", JetType::Integer),
    ]
}

/// The indexes under test: a primary key, a descending two-column index
/// over a text column holding NULLs and repeats, a unique index, an
/// "ignore nulls" index.
fn indexes() -> Vec<IndexSpec> {
    vec![
        IndexSpec::primary("PrimaryKey", &["id"]),
        IndexSpec {
            columns: vec![
                ("name".into(), Direction::Descending),
                ("amount".into(), Direction::Ascending),
            ],
            ..IndexSpec::new("by_name", &[])
        },
        IndexSpec::new("by_amount", &["amount"]).unique(),
        IndexSpec {
            ignore_nulls: true,
            ..IndexSpec::new("grp_nn", &["grp"])
        },
    ]
}

/// Rows `from..to`: ids shuffled, names repeating with NULLs, unique
/// amounts, groups with NULLs.
fn rows(from: usize, to: usize) -> RecordBatch {
    let ids: Vec<i32> = (from..to)
        .map(|i| ((i * 7919) % 1_000_003) as i32)
        .collect();
    let names: Vec<Option<String>> = (from..to)
        .map(|i| (i % 11 != 0).then(|| format!("name {} é", (i * 31) % 97)))
        .collect();
    let amounts: Vec<f64> = (from..to).map(|i| (i as f64) * -1.5 + 3.25).collect();
    let grp: Vec<Option<i32>> = (from..to)
        .map(|i| (i % 5 != 0).then_some((i % 13) as i32))
        .collect();
    RecordBatch::try_from_iter(vec![
        ("id", Arc::new(Int32Array::from(ids)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
        ("amount", Arc::new(Float64Array::from(amounts)) as ArrayRef),
        (
            "grp",
            Arc::new(arrow_array::Int16Array::from(
                grp.iter().map(|g| g.map(|v| v as i16)).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap()
}

/// Index `name`'s entries as (key bytes, the `id` of the row pointed at).
fn entries_by_id(db: &Database, table: &str, name: &str) -> Vec<(Vec<u8>, i32)> {
    let t = db.table(table).unwrap();
    let li = t
        .def()
        .indexes
        .iter()
        .find(|l| l.name == name)
        .unwrap_or_else(|| panic!("no index {name}"));
    walk(db, table, li.real_index as usize)
        .into_iter()
        .map(|(k, bm)| {
            let row = t.raw_row(bm).unwrap().unwrap();
            let jet_storage::format::OwnedField::Bytes(b) = &row[0] else {
                panic!("id is NULL")
            };
            (k, i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        })
        .collect()
}

fn write_err(e: Error) -> WriteError {
    match e {
        Error::Write(w) => *w,
        e => panic!("not a write error: {e}"),
    }
}

#[test]
fn built_index_equals_row_by_row_maintenance() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let n = 3000;
        // A: indexes first, then rows one by one (in several transactions)
        let mut a = writer(v);
        let mut spec = TableSpec::new("T", columns());
        spec.indexes = indexes();
        a.transaction(|tx| tx.create_table(&spec).map(|_| ()))
            .unwrap();
        for chunk in (0..n).step_by(500) {
            let b = rows(chunk, chunk + 500);
            a.transaction(|tx| {
                for r in 0..b.num_rows() {
                    tx.insert("T", &b.slice(r, 1))?;
                }
                Ok(())
            })
            .unwrap();
        }
        // B: the same rows, then the indexes
        let mut b = writer(v);
        b.transaction(|tx| {
            tx.create_table(&TableSpec::new("T", columns()))?;
            tx.insert("T", &rows(0, n))
        })
        .unwrap();
        let mut built = Vec::new();
        b.transaction(|tx| {
            for idx in indexes() {
                built.push(tx.create_index("T", &idx)?);
            }
            Ok(())
        })
        .unwrap();
        assert!(built.iter().all(|b| b.new_tree), "{built:?}");
        assert_eq!(built[0].entries, n);
        assert_eq!(
            built[3].entries,
            n - n / 5,
            "ignore nulls leaves out NULL groups"
        );
        assert!(built[1].pages > 3, "a multi-level tree: {built:?}");
        let (da, db) = (a.database().unwrap(), b.database().unwrap());
        for idx in indexes() {
            let ea = entries_by_id(&da, "T", &idx.name);
            let eb = entries_by_id(&db, "T", &idx.name);
            assert_eq!(ea.len(), eb.len(), "{v:?} {}", idx.name);
            assert!(ea == eb, "{v:?} {}: entries differ", idx.name);
        }
        assert_eq!(table_consistency(&db, "T", "built"), n);
        assert_eq!(table_consistency(&da, "T", "maintained"), n);
        let ta = da.table("T").unwrap();
        let tb = db.table("T").unwrap();
        assert_eq!(ta.def().indexes, tb.def().indexes);
        assert_eq!(
            ta.def()
                .real_indexes
                .iter()
                .map(|r| (&r.key, r.flags))
                .collect::<Vec<_>>(),
            tb.def()
                .real_indexes
                .iter()
                .map(|r| (&r.key, r.flags))
                .collect::<Vec<_>>()
        );
        // the built trees are maintained like any other afterwards
        b.transaction(|tx| {
            tx.insert("T", &rows(n, n + 700))?;
            let bms = tx.bookmarks("T")?;
            let dead: Vec<_> = bms.iter().copied().step_by(3).collect();
            tx.delete("T", &dead).map(|_| ())
        })
        .unwrap();
        let db = b.database().unwrap();
        table_consistency(&db, "T", "built, then written");
    }
}

#[test]
fn refusals_leave_the_image_unchanged() {
    for v in [JetVersion::Jet4, JetVersion::Ace17] {
        let mut w = writer(v);
        w.transaction(|tx| {
            tx.create_table(&TableSpec::new("T", columns()))?;
            tx.insert("T", &rows(0, 400))?;
            // a repeated id and a NULL id
            tx.insert_named(
                "T",
                vec![
                    (
                        "id",
                        jet_storage::write::Cell::Int(39_595), // the id of row 5
                    ),
                    ("amount", jet_storage::write::Cell::Float(1e9)),
                ],
            )?;
            tx.insert_named("T", vec![("amount", jet_storage::write::Cell::Float(2e9))])
                .map(|_| ())
        })
        .unwrap();
        let before = w.target().bytes.clone();
        let cases: Vec<(IndexSpec, &str)> = vec![
            (
                IndexSpec::new("u", &["id"]).unique(),
                "two rows hold the key (id = 39595)",
            ),
            (IndexSpec::primary("pk", &["amount", "id"]), "is NULL"),
            (IndexSpec::new("bad", &["nope"]), "no column"),
            (IndexSpec::new("two", &["id", "ID"]), "twice"),
            (IndexSpec::new("a.b", &["id"]), "index"),
            (
                IndexSpec::new("g", &["grp"]).unique(),
                "two rows hold the key (grp = ",
            ),
        ];
        for (idx, want) in cases {
            let e = w.transaction(|tx| tx.create_index("T", &idx)).unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains(want) && msg.contains("\"T\""),
                "{}: {msg}",
                idx.name
            );
            assert!(w.target().bytes == before, "{}: image changed", idx.name);
        }
        // taken names and a second primary key
        w.transaction(|tx| {
            tx.create_index("T", &IndexSpec::new("by_amount", &["amount"]).unique())
                .map(|_| ())
        })
        .unwrap();
        let before = w.target().bytes.clone();
        let e = w
            .transaction(|tx| tx.create_index("T", &IndexSpec::new("BY_AMOUNT", &["grp"])))
            .unwrap_err();
        assert!(e.to_string().contains("duplicate index name"), "{e}");
        w.transaction(|tx| {
            tx.create_index("T", &IndexSpec::primary("pk", &["amount"]))
                .map(|_| ())
        })
        .unwrap();
        let before2 = w.target().bytes.clone();
        assert!(before2 != before);
        let e = w
            .transaction(|tx| tx.create_index("T", &IndexSpec::primary("pk2", &["amount", "grp"])))
            .unwrap_err();
        assert!(e.to_string().contains("primary key already"), "{e}");
        let e = write_err(
            w.transaction(|tx| tx.create_index("Nope", &IndexSpec::new("x", &["id"])))
                .unwrap_err(),
        );
        assert!(matches!(e, WriteError::NoSuchTable(_)), "{e}");
        assert!(w.target().bytes == before2);
        table_consistency(&w.database().unwrap(), "T", "after refusals");
    }
}

#[test]
fn shared_real_index_and_drop_index() {
    let mut w = writer(JetVersion::Jet4);
    w.transaction(|tx| {
        tx.create_table(&TableSpec::new("T", columns()))?;
        tx.insert("T", &rows(0, 2000))?;
        Ok(())
    })
    .unwrap();
    let first = w
        .transaction(|tx| tx.create_index("T", &IndexSpec::new("g1", &["grp", "name"])))
        .unwrap();
    assert!(first.new_tree && first.entries == 2000);
    // same key and flags: the new logical index shares the real one
    let second = w
        .transaction(|tx| tx.create_index("T", &IndexSpec::new("g2", &["grp", "name"])))
        .unwrap();
    assert!(!second.new_tree && second.pages == 0);
    let db = w.database().unwrap();
    let def = db.table("T").unwrap().def().clone();
    assert_eq!(def.real_indexes.len(), 1);
    assert_eq!(def.indexes.len(), 2);
    w.transaction(|tx| {
        tx.create_index("T", &IndexSpec::new("amt", &["amount"]))
            .map(|_| ())
    })
    .unwrap();
    // dropping a shared logical index keeps the tree
    w.transaction(|tx| tx.drop_index("T", "G1")).unwrap();
    let db = w.database().unwrap();
    let def = db.table("T").unwrap().def().clone();
    assert_eq!(def.real_indexes.len(), 2);
    assert_eq!(
        def.indexes
            .iter()
            .map(|l| l.name.as_str())
            .collect::<Vec<_>>(),
        ["g2", "amt"]
    );
    table_consistency(&db, "T", "after dropping g1");
    // dropping the last user of a tree removes it; the remaining index is
    // renumbered to the remaining real index
    let old_map = def.real_indexes[0].usage_map;
    w.transaction(|tx| tx.drop_index("T", "g2")).unwrap();
    let db = w.database().unwrap();
    let def = db.table("T").unwrap().def().clone();
    assert_eq!(def.real_indexes.len(), 1);
    assert_eq!(def.indexes.len(), 1);
    assert_eq!(def.indexes[0].real_index, 0);
    assert_eq!(def.real_indexes[0].key.len(), 1);
    assert_ne!(def.real_indexes[0].usage_map, old_map);
    table_consistency(&db, "T", "after dropping g2");
    let e = write_err(w.transaction(|tx| tx.drop_index("T", "g2")).unwrap_err());
    assert!(
        matches!(&e, WriteError::NoSuchIndex { table, index } if table == "T" && index == "g2"),
        "{e}"
    );
    // rows still write through the remaining index
    w.transaction(|tx| tx.insert("T", &rows(2000, 2300)).map(|_| ()))
        .unwrap();
    table_consistency(&w.database().unwrap(), "T", "after drop, inserts");
}

/// Writable corpus files (Jet4 and ACE, written by Access): a new index on
/// an indexable column of every user table with rows, through the
/// journaled file; reopened, every table passes the consistency check.
#[test]
fn corpus_files_get_an_index() {
    let Some(root) = corpus_root() else { return };
    let files = [
        "jackcess/V2000/testV2000.mdb",
        "jackcess/V2000/indexTestV2000.mdb",
        "jackcess/V2007/testV2007.accdb",
        "jackcess/V2010/indexTestV2010.accdb",
        "jackcess/V2000/bigIndexTestV2000.mdb",
        "ucanaccess/functionsV2003.mdb",
        "jackcess/V2010/complexDataTestV2010.accdb",
    ];
    let scratch = Scratch::new("create-index-corpus");
    let mut indexed = 0;
    for f in files {
        let src = root.join(f);
        assert!(src.exists(), "{} missing", src.display());
        let path = scratch.copy(&src);
        let db = Database::open(&path, Default::default()).unwrap();
        let mut plan = Vec::new();
        for name in db.table_names() {
            let t = db.table(&name).unwrap();
            if t.bookmarks().unwrap().is_empty() {
                continue;
            }
            let Some(c) = t.def().columns.iter().find(|c| {
                matches!(
                    c.jet_type,
                    JetType::Long | JetType::Integer | JetType::DateTime | JetType::Double
                )
            }) else {
                continue;
            };
            plan.push((name.clone(), c.name.clone()));
        }
        drop(db);
        let mut w = Database::open_writable(&path).unwrap();
        for (table, col) in &plan {
            let idx = IndexSpec {
                columns: vec![(col.clone(), Direction::Descending)],
                ..IndexSpec::new("jetsql_new_index", &[])
            };
            w.transaction(|tx| tx.create_index(table, &idx))
                .unwrap_or_else(|e| panic!("{f}: {table}: {e}"));
            indexed += 1;
        }
        drop(w);
        let db = Database::open(&path, Default::default()).unwrap();
        for (table, _) in &plan {
            assert!(
                db.table(table)
                    .unwrap()
                    .def()
                    .indexes
                    .iter()
                    .any(|l| l.name == "jetsql_new_index"),
                "{f}: {table}"
            );
            table_consistency(&db, table, f);
        }
        drop(db);
        // dropping the new index gives back the definition Access wrote,
        // byte for byte: descriptors are spliced in and out, never
        // re-encoded
        let mut w = Database::open_writable(&path).unwrap();
        w.transaction(|tx| {
            for (table, _) in &plan {
                tx.drop_index(table, "jetsql_new_index")?;
            }
            Ok(())
        })
        .unwrap();
        drop(w);
        let (orig, now) = (
            Database::open(&src, Default::default()).unwrap(),
            Database::open(&path, Default::default()).unwrap(),
        );
        for (table, _) in &plan {
            let a = definition(&orig, table);
            let b = definition(&now, table);
            assert!(
                a == b,
                "{f}: {table}: definition differs after create + drop"
            );
            table_consistency(&now, table, f);
        }
    }
    assert!(indexed >= 5, "{indexed} tables indexed");
}

/// The definition bytes of `table` (its TDEF chain up to its stated length).
fn definition(db: &Database, table: &str) -> Vec<u8> {
    let page = db.table(table).unwrap().def().page;
    let chain = jet_storage::schema::tdef::read_chain(&**db.page_source(), page).unwrap();
    let len = u32::from_le_bytes([chain[8], chain[9], chain[10], chain[11]]) as usize;
    chain[..len].to_vec()
}

/// Index build cost on a generated table (`JET_BIG_INDEX_ROWS`, default
/// 100,000 rows): prints rows, entries, pages and the time taken.
#[test]
fn big_table_index_build() {
    let n: usize = std::env::var("JET_BIG_INDEX_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let mut w = writer(JetVersion::Ace12);
    w.transaction(|tx| {
        tx.create_table(&TableSpec::new("Big", columns()))?;
        for s in (0..n).step_by(10_000) {
            tx.insert("Big", &rows(s, (s + 10_000).min(n)))?;
        }
        Ok(())
    })
    .unwrap();
    for idx in [
        IndexSpec::new("pk", &["id"]).unique(),
        IndexSpec::new("by_name", &["name", "grp"]),
    ] {
        let t0 = std::time::Instant::now();
        let built = w.transaction(|tx| tx.create_index("Big", &idx)).unwrap();
        let dt = t0.elapsed();
        eprintln!(
            "create index {} on {n} rows: {} entries, {} pages, {:.2?}",
            idx.name, built.entries, built.pages, dt
        );
        assert_eq!(built.entries, n);
    }
    table_consistency(&w.database().unwrap(), "Big", "big");
}

/// `CREATE INDEX` is one journaled transaction: on the simulated disk, a
/// crash before every I/O step of its commit (keeping random subsets of
/// the unflushed operations), then recovery, gives exactly the image
/// before or the image after, byte for byte — the image after whenever
/// the commit returned — and both outcomes occur.
#[test]
fn create_index_crashes_to_old_or_new() {
    use jet_storage::journal::JournaledFile;
    use jet_storage::journal::sim::{SimRng, SimStorage};
    let mut w = writer(JetVersion::Ace12);
    w.transaction(|tx| {
        tx.create_table(&TableSpec::new("T", columns()))?;
        tx.insert("T", &rows(0, 2500)).map(|_| ())
    })
    .unwrap();
    let old = w.target().bytes.clone();
    let idx = IndexSpec::new("by_name", &["name", "id"]);
    w.transaction(|tx| tx.create_index("T", &idx).map(|_| ()))
        .unwrap();
    let new = w.target().bytes.clone();
    assert!(old != new);
    let mut rng = SimRng::new(25);
    let (mut saw_old, mut saw_new) = (0, 0);
    for step in 0.. {
        let mut disk = SimStorage::new("t.accdb", old.clone());
        disk.crash_after(Some(step));
        let jf = JournaledFile::with_storage(disk).unwrap();
        let mut w = Writer::new(jf).unwrap();
        let r = w.transaction(|tx| tx.create_index("T", &idx).map(|_| ()));
        let disk = w.into_target().into_storage();
        if !disk.crashed() {
            r.unwrap();
            assert!(
                disk.live_disk().db == new,
                "a clean commit gives the new image"
            );
            break;
        }
        for _ in 0..6 {
            let after = disk.crash_disk(&mut rng);
            let recovered = JournaledFile::with_storage(SimStorage::from_disk(&after))
                .unwrap()
                .into_storage()
                .live_disk()
                .db;
            if recovered == old {
                assert!(r.is_err(), "step {step}: a returned commit must survive");
                saw_old += 1;
            } else {
                assert!(recovered == new, "step {step}: neither old nor new");
                saw_new += 1;
            }
        }
    }
    assert!(saw_old > 0 && saw_new > 0, "{saw_old} old, {saw_new} new");
    let db = Database::from_bytes(new).unwrap();
    table_consistency(&db, "T", "after the crash test");
}
