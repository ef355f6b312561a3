//! Writes through the default B-tree maintainer: every real index of a
//! table written, updated and deleted by the writer walks in key order and
//! holds exactly one entry per live row, whose key re-encodes from the row;
//! unique keys are refused before anything is written; a file written
//! through the journal reopens and mdbtools reads it.

use arrow_array::{
    ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use jet_storage::index::Bookmark;
use jet_storage::page::image::MemImage;
use jet_storage::schema::tdef::Direction;
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, Writer, new_database};
use jet_storage::{Database, JetType, JetVersion, OpenOptions};
use jet_tests::agree::check_index_agreement;
use std::sync::Arc;

const CLOCK: i64 = 946_684_800_000_000;

fn spec() -> TableSpec {
    TableSpec::new(
        "Items",
        vec![
            ColumnSpec::new("id", JetType::Long).auto_number(),
            ColumnSpec::new("code", JetType::Long),
            ColumnSpec::text("name", 40),
            ColumnSpec::new("price", JetType::Double),
            ColumnSpec::new("made", JetType::DateTime),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["id"]))
    .index(IndexSpec::new("code", &["code"]).unique())
    .index(IndexSpec::new("name", &["name"]))
    .index(IndexSpec {
        columns: vec![
            ("price".into(), Direction::Descending),
            ("made".into(), Direction::Ascending),
        ],
        ..IndexSpec::new("price_made", &[])
    })
}

fn rows(from: i32, n: i32) -> RecordBatch {
    let code: Vec<i32> = (from..from + n).map(|i| i * 7919 % 100_003).collect();
    let name: Vec<Option<String>> = (from..from + n)
        .map(|i| (i % 11 != 0).then(|| format!("item {:05} {}", (i * 37) % 1000, i % 3)))
        .collect();
    let price: Vec<Option<f64>> = (from..from + n)
        .map(|i| (i % 13 != 0).then(|| f64::from(i % 97) * 1.25 - 40.0))
        .collect();
    let made: Vec<i64> = (from..from + n)
        .map(|i| CLOCK + i64::from(i % 500) * 86_400_000_000)
        .collect();
    RecordBatch::try_from_iter(vec![
        ("code", Arc::new(Int32Array::from(code)) as ArrayRef),
        ("name", Arc::new(StringArray::from(name)) as ArrayRef),
        ("price", Arc::new(Float64Array::from(price)) as ArrayRef),
        (
            "made",
            Arc::new(TimestampMicrosecondArray::from(made)) as ArrayRef,
        ),
    ])
    .unwrap()
}

/// Every real index holds exactly the live rows' re-encoded keys, in index
/// order (the shared check). Returns the number of live rows.
fn check_indexes(db: &Database) -> usize {
    check_index_agreement(db, "Items")
}

/// mdb-export reads `image`'s table `Items` with `rows` rows and no warning
/// (it warns when a row's extent, taken from the slot before it, cuts into
/// the row's data).
fn mdbtools_agrees(image: &[u8], v: JetVersion, rows: usize) {
    let Some((mdb_export, _)) = jet_tests::require_mdb_export() else {
        return;
    };
    let path = std::env::temp_dir().join(format!(
        "jet-writer-indexed-{}-{v:?}.db",
        std::process::id()
    ));
    std::fs::write(&path, image).unwrap();
    let out = std::process::Command::new(&mdb_export)
        .arg(&path)
        .arg("Items")
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "",
        "{v:?}: mdb-export warnings"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        rows + 1
    );
}

#[test]
fn indexes_stay_exact_through_inserts_updates_and_deletes() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = Writer::new(MemImage {
            bytes: new_database(v, CLOCK).unwrap(),
        })
        .unwrap();
        w.transaction(|tx| tx.create_table(&spec())).unwrap();
        for chunk in 0..4 {
            w.transaction(|tx| tx.insert("Items", &rows(chunk * 1500, 1500)))
                .unwrap();
        }
        let db = w.database().unwrap();
        assert_eq!(check_indexes(&db), 6000);
        let pk = db.table("Items").unwrap();
        assert!(pk.index(0).unwrap().height().unwrap() >= 2, "{v:?}: splits");

        // delete every third row, update every fifth of the rest (moving keys)
        w.transaction(|tx| {
            let bms = tx.bookmarks("Items")?;
            let dead: Vec<Bookmark> = bms.iter().copied().step_by(3).collect();
            tx.delete("Items", &dead)?;
            let upd: Vec<Bookmark> = bms
                .iter()
                .copied()
                .enumerate()
                .filter(|(i, _)| i % 3 != 0 && i % 5 == 0)
                .map(|(_, b)| b)
                .collect();
            let n = upd.len();
            let changes = RecordBatch::try_from_iter(vec![
                (
                    "name",
                    Arc::new(StringArray::from(
                        (0..n)
                            .map(|i| format!("renamed {} {}", i % 17, "x".repeat(i % 30)))
                            .collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
                (
                    "code",
                    Arc::new(Int32Array::from(
                        (0..n as i32).map(|i| 200_000 + i).collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
            ])
            .unwrap();
            tx.update("Items", &upd, &changes)
        })
        .unwrap();
        let db = w.database().unwrap();
        assert_eq!(check_indexes(&db), 4000);
        mdbtools_agrees(&w.target().bytes, v, 4000);

        // a duplicate unique key is refused and nothing changes
        let before = w.target().bytes.clone();
        let dup = RecordBatch::try_from_iter(vec![(
            "code",
            Arc::new(Int32Array::from(vec![200_000])) as ArrayRef,
        )])
        .unwrap();
        let r = w.transaction(|tx| tx.insert("Items", &dup));
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains("unique"), "{msg}");
        assert!(msg.contains("Items"), "{msg}");
        assert_eq!(w.target().bytes, before, "{v:?}: refused insert left bytes");
    }
}

#[test]
fn journaled_file_writes_reopen_and_mdbtools_reads_them() {
    let Some((mdb_export, _)) = jet_tests::require_mdb_export() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("jet-writer-indexed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (v, name) in [(JetVersion::Jet4, "w.mdb"), (JetVersion::Ace12, "w.accdb")] {
        let path = dir.join(name);
        std::fs::write(&path, new_database(v, CLOCK).unwrap()).unwrap();
        {
            let mut w = Database::open_writable(&path).unwrap();
            w.transaction(|tx| tx.create_table(&spec())).unwrap();
            w.transaction(|tx| tx.insert("Items", &rows(0, 2500)))
                .unwrap();
        }
        let journal = dir.join(format!("{name}.jetjournal"));
        assert!(!journal.exists(), "the journal is gone after commit");
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        assert_eq!(check_indexes(&db), 2500);
        drop(db);
        let out = std::process::Command::new(&mdb_export)
            .arg(&path)
            .arg("Items")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(lines, 2501, "{v:?}: mdb-export header + rows");
    }
    std::fs::remove_dir_all(&dir).ok();
}
