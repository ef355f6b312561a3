//! External readers open what the writer writes: `mdb-ver` reports the
//! intended version and `mdb-export` of every table equals our own scan —
//! for the committed fixtures (which must also be exactly what the
//! generator writes today) and for randomly written databases.
//!
//! Value normalisation: see `jet_tests::agree` (the generated values have
//! whole seconds). Text is kept to the Basic Multilingual Plane here: mdbtools prints
//! non-BMP characters as `??` (the round-trip test covers them).

use arrow_array::{
    ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use jet_storage::page::image::MemImage;
use jet_storage::write::{ColumnSpec, TableSpec, Writer, new_database};
use jet_storage::{Database, JetType, JetVersion};
use jet_tests::agree::{assert_mdb_export_equals_scan, our_rows};
use jet_tests::{require_mdb_export, workspace_root};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn compare(file: &Path, version: &str) {
    let ver = Command::new("mdb-ver")
        .arg(file)
        .output()
        .expect("mdb-ver runs");
    assert_eq!(
        String::from_utf8_lossy(&ver.stdout).trim(),
        version,
        "{}",
        file.display()
    );
    let db = Database::open(file, Default::default()).unwrap();
    let names = db.table_names();
    let listed = Command::new("mdb-tables")
        .args(["-1"])
        .arg(file)
        .output()
        .expect("mdb-tables runs");
    let mut theirs: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(|s| s.to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let mut ours = names.clone();
    theirs.sort();
    ours.sort();
    assert_eq!(theirs, ours, "{}", file.display());
    for t in &names {
        assert_mdb_export_equals_scan(file, &db, t);
    }
}

#[test]
fn committed_fixtures_are_what_the_generator_writes_and_mdbtools_reads_them() {
    if require_mdb_export().is_none() {
        return;
    }
    let dir = workspace_root().join("fixtures");
    for (name, version, ver) in [
        ("sample.accdb", JetVersion::Ace12, "ACE12"),
        ("sample.mdb", JetVersion::Jet4, "JET4"),
    ] {
        let path = dir.join(name);
        let committed = std::fs::read(&path).unwrap();
        let fresh = jet_fixtures::sample(version).unwrap();
        assert!(
            committed == fresh,
            "{name} differs from the generator's output: run `cargo run -p jet-fixtures`"
        );
        compare(&path, ver);
        let db = Database::open(&path, Default::default()).unwrap();
        let rows: usize = db
            .table_names()
            .iter()
            .map(|t| our_rows(&db, t).len())
            .sum();
        assert!(rows > 3000, "{name}: {rows} rows");
    }
}

#[test]
fn random_databases_read_the_same_in_mdbtools() {
    if require_mdb_export().is_none() {
        return;
    }
    let mut r = jet_fixtures::Rng::new(42);
    for (k, (version, ver)) in [
        (JetVersion::Jet4, "JET4"),
        (JetVersion::Ace12, "ACE12"),
        (JetVersion::Jet4, "JET4"),
        (JetVersion::Ace12, "ACE12"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut w = Writer::new(MemImage {
            bytes: new_database(version, 0).unwrap(),
        })
        .unwrap();
        let spec = TableSpec::new(
            "Mixed",
            vec![
                ColumnSpec::new("id", JetType::Long).auto_number(),
                ColumnSpec::text("name", 60),
                ColumnSpec::new("score", JetType::Double),
                ColumnSpec::new("when", JetType::DateTime),
                ColumnSpec::new("flag", JetType::Boolean),
                ColumnSpec::new("notes", JetType::Memo),
                ColumnSpec::new("blob", JetType::Ole),
                ColumnSpec::new("small", JetType::Integer),
                ColumnSpec::new("g", JetType::Guid).auto_number(),
            ],
        );
        let n = 200 + 50 * k;
        let chars = ["a", "Z", "é", "Ж", "中", " ", "ß", "ø", "ğ", "€"];
        let names: Vec<Option<String>> = (0..n)
            .map(|_| {
                (r.below(8) != 0).then(|| {
                    (0..r.below(50))
                        .map(|_| chars[r.below(chars.len() as u64) as usize])
                        .collect()
                })
            })
            .collect();
        let scores: Vec<Option<f64>> = (0..n)
            .map(|_| (r.below(6) != 0).then(|| (r.below(1 << 20) as f64 - 500_000.0) / 64.0))
            .collect();
        let dates: Vec<Option<i64>> = (0..n)
            .map(|_| {
                (r.below(5) != 0)
                    .then(|| (r.below(4_000_000_000) as i64 - 1_000_000_000) * 1_000_000)
            })
            .collect();
        let notes: Vec<Option<String>> = (0..n)
            .map(|_| (r.below(3) != 0).then(|| "memo text ü ".repeat(r.below(900) as usize)))
            .collect();
        let blobs: Vec<Option<Vec<u8>>> = (0..n)
            .map(|_| {
                (r.below(4) == 0).then(|| (0..r.below(9000)).map(|i| (i % 253) as u8).collect())
            })
            .collect();
        let b = RecordBatch::try_from_iter(vec![
            ("name", Arc::new(StringArray::from(names)) as ArrayRef),
            ("score", Arc::new(Float64Array::from(scores))),
            ("when", Arc::new(TimestampMicrosecondArray::from(dates))),
            (
                "flag",
                Arc::new(arrow_array::BooleanArray::from(
                    (0..n).map(|i| i % 3 == 0).collect::<Vec<_>>(),
                )),
            ),
            ("notes", Arc::new(StringArray::from(notes))),
            (
                "blob",
                Arc::new(arrow_array::BinaryArray::from(
                    blobs.iter().map(|b| b.as_deref()).collect::<Vec<_>>(),
                )),
            ),
            (
                "small",
                Arc::new(arrow_array::Int16Array::from(
                    (0..n).map(|i| Some(i as i16 - 100)).collect::<Vec<_>>(),
                )),
            ),
        ])
        .unwrap();
        let bms = w
            .transaction(|tx| {
                tx.create_table(&spec)?;
                tx.insert("Mixed", &b)
            })
            .unwrap();
        // grow some rows (overflow), delete others
        let upd: Vec<_> = (0..n).filter(|i| i % 7 == 2).map(|i| bms[i]).collect();
        let ch = RecordBatch::try_from_iter(vec![(
            "notes",
            Arc::new(StringArray::from(
                upd.iter()
                    .map(|_| Some("grown ".repeat(700)))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        )])
        .unwrap();
        let del: Vec<_> = (0..n).filter(|i| i % 9 == 4).map(|i| bms[i]).collect();
        w.transaction(|tx| {
            tx.update("Mixed", &upd, &ch)?;
            tx.delete("Mixed", &del)?;
            tx.insert(
                "Mixed",
                &RecordBatch::try_from_iter(vec![(
                    "small",
                    Arc::new(Int32Array::from(vec![7])) as ArrayRef,
                )])
                .unwrap(),
            )
            .map(|_| ())
        })
        .unwrap();
        let path = std::env::temp_dir().join(format!(
            "jetsql-writer-mdbtools-{}-{k}.{}",
            std::process::id(),
            if version.is_ace() { "accdb" } else { "mdb" }
        ));
        std::fs::write(&path, &w.target().bytes).unwrap();
        compare(&path, ver);
        let _ = std::fs::remove_file(&path);
    }
}
