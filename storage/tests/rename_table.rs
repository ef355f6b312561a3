//! `ALTER TABLE … RENAME TO …` ([`Transaction::rename_table`]): the table
//! reads the same under its new name (rows, indexes, object id), the old
//! name is gone, `MSysObjects` and its indexes stay consistent; refusals
//! (taken or invalid names, system tables, tables a relationship or a
//! saved query names) leave the image byte-identical; on corpus files,
//! `mdb-export` reads the renamed table's rows under the new name.

use crate::support::check as support;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::error::WriteError;
use jet_storage::write::{Cell, ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{Database, Error, JetType, JetVersion, MemImage, ScanOptions, Writer};
use std::process::Command;
use std::sync::Arc;
use support::*;

fn writer(v: JetVersion) -> Writer<MemImage> {
    let bytes = new_database(v, jet_storage::write::txn::DEFAULT_CLOCK).unwrap();
    Writer::new(MemImage { bytes }).unwrap()
}

fn scan(db: &Database, t: &str) -> Vec<RecordBatch> {
    db.table(t)
        .unwrap()
        .scan(ScanOptions::default())
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

fn write_err(e: Error) -> WriteError {
    match e {
        Error::Write(w) => *w,
        e => panic!("not a write error: {e}"),
    }
}

fn setup(v: JetVersion) -> Writer<MemImage> {
    let mut w = writer(v);
    let rows = RecordBatch::try_from_iter(vec![
        (
            "id",
            Arc::new(Int32Array::from((0..800).collect::<Vec<_>>())) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(
                (0..800).map(|i| format!("row {i}")).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap();
    w.transaction(|tx| {
        for t in ["T", "Other", "T3"] {
            tx.create_table(
                &TableSpec::new(
                    t,
                    vec![
                        ColumnSpec::new("id", JetType::Long),
                        ColumnSpec::text("name", 30),
                    ],
                )
                .index(IndexSpec::primary("pk", &["id"]))
                .index(IndexSpec::new("by_name", &["name"])),
            )?;
            tx.insert(t, &rows)?;
        }
        Ok(())
    })
    .unwrap();
    w
}

#[test]
fn renamed_table_reads_the_same() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = setup(v);
        let before = w.database().unwrap();
        let id = before.catalog().iter().find(|e| e.name == "T").unwrap().id;
        let rows = scan(&before, "T");
        w.transaction(|tx| tx.rename_table("t", "Renamed Table"))
            .unwrap();
        let db = w.database().unwrap();
        assert!(db.table("T").is_err());
        let names = db.table_names();
        assert!(names.contains(&"Renamed Table".to_string()), "{names:?}");
        assert!(!names.contains(&"T".to_string()), "{names:?}");
        let e = db
            .catalog()
            .iter()
            .find(|e| e.name == "Renamed Table")
            .unwrap();
        assert_eq!(e.id, id, "the object id stays");
        assert!(scan(&db, "Renamed Table") == rows);
        table_consistency(&db, "Renamed Table", "renamed");
        table_consistency(&db, "MSysObjects", "catalog after rename");
        // a case-only rename of itself is allowed; writes go on
        w.transaction(|tx| {
            tx.rename_table("Renamed Table", "RENAMED TABLE")?;
            tx.insert_named(
                "RENAMED TABLE",
                vec![("id", Cell::Int(5000)), ("name", Cell::Text("new".into()))],
            )
            .map(|_| ())
        })
        .unwrap();
        let db = w.database().unwrap();
        assert_eq!(table_consistency(&db, "RENAMED TABLE", "written"), 801);
    }
}

#[test]
fn refusals_leave_the_image_unchanged() {
    let mut w = setup(JetVersion::Ace12);
    // a relationship names "Other", a saved query names "T3"
    w.transaction(|tx| {
        tx.insert_named(
            "MSysRelationships",
            vec![
                ("szRelationship", Cell::Text("OtherT".into())),
                ("szObject", Cell::Text("T".into())),
                ("szReferencedObject", Cell::Text("Other".into())),
                ("szColumn", Cell::Text("id".into())),
                ("szReferencedColumn", Cell::Text("id".into())),
            ],
        )?;
        tx.insert_named(
            "MSysQueries",
            vec![
                ("ObjectId", Cell::Int(4242)),
                ("Attribute", Cell::Int(8)),
                ("Expression", Cell::Text("[t3].id > 5".into())),
            ],
        )
        .map(|_| ())
    })
    .unwrap();
    let before = w.target().bytes.clone();
    let cases: Vec<(&str, &str, &str)> = vec![
        ("T", "other", "exists already"),
        ("T", "a.b", "table name"),
        ("MSysObjects", "X", "system table"),
        ("Nope", "X", "no table"),
        ("Other", "X", "relationship \"OtherT\""),
        ("T", "X", "relationship \"OtherT\""),
        ("T3", "X", "saved query"),
    ];
    for (old, new, want) in cases {
        let e = write_err(w.transaction(|tx| tx.rename_table(old, new)).unwrap_err());
        assert!(e.to_string().contains(want), "{old} -> {new}: {e}");
        assert!(w.target().bytes == before, "{old} -> {new}: image changed");
    }
}

/// Copies of corpus files (Jet4, ACE): every user table is renamed through
/// the journaled file, or refused naming the relationship or query that
/// names it; `mdb-export` reads a renamed table's rows under its new name
/// exactly as under the old one in the original.
#[test]
fn corpus_tables_renamed() {
    let Some(root) = corpus_root() else { return };
    let mdb = Command::new("mdb-export").arg("--version").output().is_ok();
    if !mdb && std::env::var("CI").as_deref() == Ok("true") {
        panic!("mdb-export is missing under CI");
    }
    let scratch = Scratch::new("rename-corpus");
    let mut renamed = 0;
    for f in [
        "jackcess/V2000/testV2000.mdb",
        "jackcess/V2007/testV2007.accdb",
        "jackcess/V2010/queryTestV2010.accdb",
        "ucanaccess/functionsV2003.mdb",
    ] {
        let src = root.join(f);
        let path = scratch.copy(&src);
        let names = Database::open(&path, Default::default())
            .unwrap()
            .table_names();
        let mut done = Vec::new();
        for t in &names {
            let new = format!("{t} renamed");
            let mut w = Database::open_writable(&path).unwrap();
            match w.transaction(|tx| tx.rename_table(t, &new)) {
                Ok(()) => done.push((t.clone(), new)),
                Err(e) => {
                    let e = write_err(e).to_string();
                    assert!(
                        e.contains("relationship") || e.contains("saved query"),
                        "{f}: {t}: {e}"
                    );
                }
            }
        }
        let db = Database::open(&path, Default::default()).unwrap();
        consistency(&db, f);
        for (old, new) in &done {
            assert!(db.table(old).is_err(), "{f}: {old} still there");
            if mdb {
                assert_eq!(export(&src, old), export(&path, new), "{f}: {old}");
            }
        }
        renamed += done.len();
    }
    assert!(renamed >= 5, "{renamed} corpus tables renamed");
}

fn export(file: &std::path::Path, table: &str) -> String {
    let out = Command::new("mdb-export")
        .args(["-b", "hex"])
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
