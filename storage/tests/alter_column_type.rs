//! `ALTER TABLE … ALTER COLUMN … type` ([`Transaction::alter_column_type`]):
//! exact widenings (Byte → Integer → Long → Double, Single → Double,
//! → Large Number on ACE16, Text(n) → Text(m ≥ n)) on generated Jet4, ACE12
//! and ACE16 files and on corpus copies: every row reads the values the
//! test wrote, now in the new type; every index over a widened column is
//! re-keyed (the consistency check re-encodes every key from the rows);
//! writes of values only the new type holds go on; every other change is
//! refused naming both types with the image byte-identical; a crash at any
//! step of the journaled commit recovers to the old or the new image;
//! `mdb-export` reads the results.

use crate::support::check as support;
use crate::support::oracle;

use arrow_array::{
    ArrayRef, Float32Array, Int16Array, Int32Array, RecordBatch, StringArray, UInt8Array,
};
use jet_storage::error::WriteError;
use jet_storage::write::{Cell, ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{Database, Error, JetType, JetVersion, MemImage, Writer};
use std::process::Command;
use std::sync::Arc;
use support::*;

const N: i32 = 700;

fn writer(v: JetVersion) -> Writer<MemImage> {
    let bytes = new_database(v, jet_storage::write::txn::DEFAULT_CLOCK).unwrap();
    Writer::new(MemImage { bytes }).unwrap()
}

fn write_err(e: Error) -> WriteError {
    match e {
        Error::Write(w) => *w,
        e => panic!("not a write error: {e}"),
    }
}

/// The values of row `i` as the test writes them.
fn b_of(i: i32) -> Option<u8> {
    (i % 11 != 0).then_some((i % 256) as u8)
}
fn s_of(i: i32) -> f32 {
    i as f32 / 8.0 - 20.3
}
fn t_of(i: i32) -> String {
    format!("t{:05}", (i * 7919) % 10007)
}

/// A(id Long auto PK, b Byte indexed (with t), i Integer, s Single, t
/// Text(10) indexed, n Long) with N rows.
fn setup(v: JetVersion) -> Writer<MemImage> {
    let mut w = writer(v);
    let ids: Vec<i32> = (0..N).collect();
    let rows = RecordBatch::try_from_iter(vec![
        (
            "b",
            Arc::new(UInt8Array::from(
                ids.iter().map(|&i| b_of(i)).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "i",
            Arc::new(Int16Array::from(
                ids.iter()
                    .map(|&i| (i * 37 - 9000) as i16)
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "s",
            Arc::new(Float32Array::from(
                ids.iter().map(|&i| s_of(i)).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "t",
            Arc::new(StringArray::from(
                ids.iter().map(|&i| t_of(i)).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "n",
            Arc::new(Int32Array::from(
                ids.iter().map(|&i| i * 1_000_003).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap();
    w.transaction(|tx| {
        tx.create_table(
            &TableSpec::new(
                "A",
                vec![
                    ColumnSpec::new("id", JetType::Long).auto_number(),
                    ColumnSpec::new("b", JetType::Byte),
                    ColumnSpec::new("i", JetType::Integer),
                    ColumnSpec::new("s", JetType::Single),
                    ColumnSpec::text("t", 10),
                    ColumnSpec::new("n", JetType::Long),
                ],
            )
            .index(IndexSpec::primary("pk", &["id"]))
            .index(IndexSpec::new("by_b_t", &["b", "t"]))
            .index(IndexSpec::new("by_t", &["t"]).unique())
            .index(IndexSpec::new("by_i", &["i"])),
        )?;
        tx.insert("A", &rows)?;
        Ok(())
    })
    .unwrap();
    w
}

/// The rows of A as written: id, b, i, s, t, n (numbers as the reader
/// prints them: a Single is printed through f64, so its Double widening
/// prints the same).
fn expected() -> Vec<Vec<Option<String>>> {
    (0..N)
        .map(|i| {
            vec![
                Some((i + 1).to_string()),
                b_of(i).map(|b| b.to_string()),
                Some((i * 37 - 9000).to_string()),
                Some(f64::from(s_of(i)).to_string()),
                Some(t_of(i)),
                Some((i * 1_000_003).to_string()),
            ]
        })
        .collect()
}

fn types(db: &Database, t: &str) -> Vec<(JetType, u16)> {
    db.table(t)
        .unwrap()
        .def()
        .columns
        .iter()
        .map(|c| (c.jet_type, c.length))
        .collect()
}

#[test]
fn widened_columns_read_the_same_values() {
    for v in [JetVersion::Jet4, JetVersion::Ace12, JetVersion::Ace16] {
        let mut w = setup(v);
        let before = w.database().unwrap();
        assert_eq!(oracle::rows(&before, "A"), expected(), "{v:?}");
        let rows = consistency(&before, "before");
        w.transaction(|tx| {
            tx.alter_column_type("A", "b", JetType::Integer, None)?;
            tx.alter_column_type("A", "i", JetType::Long, None)?;
            tx.alter_column_type("A", "s", JetType::Double, None)?;
            tx.alter_column_type("A", "t", JetType::Text, Some(40))
        })
        .unwrap();
        let db = w.database().unwrap();
        assert_eq!(
            types(&db, "A"),
            [
                (JetType::Long, 4),
                (JetType::Integer, 2),
                (JetType::Long, 4),
                (JetType::Double, 8),
                (JetType::Text, 80),
                (JetType::Long, 4)
            ]
        );
        assert_eq!(oracle::rows(&db, "A"), expected(), "{v:?}");
        assert_eq!(consistency(&db, "after widening"), rows);
        // another step in a later transaction, then values only the new
        // types hold
        let last = if v >= JetVersion::Ace16 {
            JetType::BigInt
        } else {
            JetType::Double
        };
        w.transaction(|tx| {
            tx.alter_column_type("A", "b", JetType::Long, None)?;
            tx.alter_column_type("A", "b", JetType::Double, None)?;
            tx.alter_column_type("A", "n", last, None)?;
            tx.insert_named(
                "A",
                vec![
                    ("b", Cell::Float(70_000.5)),
                    ("i", Cell::Int(100_000)),
                    ("s", Cell::Float(0.1)),
                    ("t", Cell::Text("x".repeat(40))),
                    ("n", Cell::Int(4_000_000_000)),
                ],
            )
            .map(|_| ())
        })
        .unwrap();
        let db = w.database().unwrap();
        let mut want = expected();
        want.push(vec![
            Some((N + 1).to_string()),
            Some("70000.5".into()),
            Some("100000".into()),
            Some("0.1".into()),
            Some("x".repeat(40)),
            Some("4000000000".into()),
        ]);
        assert_eq!(oracle::rows(&db, "A"), want, "{v:?}");
        assert_eq!(table_consistency(&db, "A", "written"), N as usize + 1);
        consistency(&db, "written");
        mdb_reads(&w.target().bytes, "A", N as usize + 1);
    }
}

#[test]
fn other_changes_are_refused_naming_both_types() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = setup(v);
        w.transaction(|tx| {
            tx.create_table(&TableSpec::new(
                "M",
                vec![
                    ColumnSpec::new("memo", JetType::Memo),
                    ColumnSpec::new("d", JetType::Double),
                ],
            ))?;
            tx.insert_named(
                "MSysRelationships",
                vec![
                    ("szRelationship", Cell::Text("AN".into())),
                    ("szObject", Cell::Text("M".into())),
                    ("szReferencedObject", Cell::Text("A".into())),
                    ("szColumn", Cell::Text("d".into())),
                    ("szReferencedColumn", Cell::Text("n".into())),
                ],
            )
            .map(|_| ())
        })
        .unwrap();
        let before = w.target().bytes.clone();
        let cases: Vec<(&str, &str, JetType, Option<u16>, &str)> = vec![
            ("A", "i", JetType::Byte, None, "from Integer to Byte"),
            ("A", "s", JetType::Long, None, "from Single to Long"),
            ("A", "b", JetType::Single, None, "from Byte to Single"),
            ("A", "t", JetType::Text, Some(5), "from Text(10) to Text(5)"),
            ("A", "t", JetType::Memo, None, "from Text(10) to Memo"),
            ("A", "t", JetType::Long, None, "from Text(10) to Long"),
            (
                "A",
                "i",
                JetType::Text,
                Some(20),
                "from Integer to Text(20)",
            ),
            ("A", "id", JetType::Double, None, "auto-number"),
            ("A", "i", JetType::BigInt, None, "Large Number on ACE16"),
            ("A", "n", JetType::Double, None, "relationship \"AN\""),
            (
                "M",
                "memo",
                JetType::Text,
                Some(10),
                "from Memo to Text(10)",
            ),
            ("M", "d", JetType::Long, None, "from Double to Long"),
            ("A", "zz", JetType::Long, None, "no column"),
            ("MSysObjects", "Id", JetType::Double, None, "system table"),
        ];
        for (t, c, to, chars, want) in cases {
            let e = write_err(
                w.transaction(|tx| tx.alter_column_type(t, c, to, chars))
                    .unwrap_err(),
            );
            assert!(e.to_string().contains(want), "{t}.{c}: {e}");
            assert!(w.target().bytes == before, "{t}.{c}: image changed");
        }
    }
}

fn mdb_reads(bytes: &[u8], table: &str, rows: usize) {
    if Command::new("mdb-export")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "mdb-export is missing under CI"
        );
        return;
    }
    let scratch = Scratch::new(&format!("alter-type-{table}-{}", bytes.len()));
    let path = scratch.path("t.mdb");
    std::fs::write(&path, bytes).unwrap();
    let out = export(&path, table);
    assert_eq!(out.matches('\u{1e}').count(), rows + 1, "mdb-export rows");
}

fn export(file: &std::path::Path, table: &str) -> String {
    let out = Command::new("mdb-export")
        .args(["-Q", "-d", "\u{1f}", "-R", "\u{1e}\n", "-b", "hex"])
        .arg(file)
        .arg(table)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mdb-export {} {table}",
        file.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A crash at every step of a journaled commit that widens an indexed
/// column (every row rewritten, an index re-keyed) recovers to the old or
/// the new image exactly.
#[test]
fn crashed_widening_recovers_to_old_or_new() {
    use jet_storage::journal::JournaledFile;
    use jet_storage::journal::sim::SimStorage;
    let old = setup(JetVersion::Ace12).into_target().bytes;
    let run = |crash_at: Option<u64>| {
        let mut s = SimStorage::new("t.accdb", old.clone());
        s.crash_after(crash_at);
        let f = JournaledFile::with_storage(s).unwrap();
        let mut w = Writer::new(f).unwrap();
        let result = w.transaction(|tx| tx.alter_column_type("A", "i", JetType::Long, None));
        (result.is_ok(), w.into_target())
    };
    let (ok, done) = run(None);
    assert!(ok);
    let steps = done.storage().steps();
    let new = done.storage().live_disk().db;
    let db = Database::from_bytes(new.clone()).unwrap();
    assert_eq!(oracle::rows(&db, "A"), expected());
    consistency(&db, "crash-free");
    crash_every_step(run, steps, &old, &new, 11, "widen");
}

/// Corpus copies: every Byte, Integer, Single and Text column of every user
/// table is widened (Byte/Integer → Long, Single → Double, Text(n) →
/// Text(255)) unless a relationship involves it; the rows read the same
/// values (integers print the same as Long, a Single the same as its
/// Double), indexes stay consistent, `mdb-export` reads as many rows.
#[test]
fn corpus_columns_widened() {
    let Some(root) = corpus_root() else { return };
    let scratch = Scratch::new("alter-type-corpus");
    let mut widened = 0;
    for f in [
        "jackcess/V2000/testV2000.mdb",
        "jackcess/V2000/indexTestV2000.mdb",
        "jackcess/V2007/testV2007.accdb",
        "jackcess/V2010/indexTestV2010.accdb",
        "jackcess/V2000/fixedNumericTestV2000.mdb",
    ] {
        let src = root.join(f);
        if !src.exists() {
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{f} missing");
            continue;
        }
        let path = scratch.copy(&src);
        let mut perm = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o600);
        std::fs::set_permissions(&path, perm).unwrap();
        let orig = Database::open(&src, Default::default()).unwrap();
        for t in orig.table_names() {
            let before = oracle::rows(&orig, &t);
            let cols = orig.table(&t).unwrap().def().columns.clone();
            for c in &cols {
                let to = match c.jet_type {
                    JetType::Byte | JetType::Integer => (JetType::Long, None),
                    JetType::Single => (JetType::Double, None),
                    JetType::Text => (JetType::Text, Some(255)),
                    _ => continue,
                };
                let mut w = Database::open_writable(&path).unwrap();
                let result = w.transaction(|tx| tx.alter_column_type(&t, &c.name, to.0, to.1));
                drop(w);
                match result {
                    Ok(()) => widened += 1,
                    Err(e) => {
                        let e = write_err(e).to_string();
                        assert!(e.contains("relationship"), "{f}: {t}.{}: {e}", c.name);
                    }
                }
            }
            let db = Database::open(&path, Default::default()).unwrap();
            assert_eq!(oracle::rows(&db, &t), before, "{f}: {t}");
            table_consistency(&db, &t, f);
            if Command::new("mdb-export").arg("--version").output().is_ok() {
                assert_eq!(
                    export(&path, &t).matches('\u{1e}').count(),
                    before.len() + 1,
                    "{f}: {t}"
                );
            }
        }
        consistency(&Database::open(&path, Default::default()).unwrap(), f);
    }
    assert!(widened >= 10, "{widened} corpus columns widened");
}
