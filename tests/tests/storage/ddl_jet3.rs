//! Schema changes in Access 97 (Jet3) files, checked against what two
//! other readers make of the result:
//!
//! * `CREATE TABLE` (with a primary key and a second index) in copies of
//!   nwind.mdb and of the Jackcess V1997 files, then rows inserted: the
//!   index/scan consistency check passes, `mdb-schema` declares the
//!   columns with the types and sizes asked for, and `mdb-export` and
//!   mdb-reader read the rows that were inserted;
//! * `DROP TABLE` of a created table: `mdb-tables` no longer lists it and
//!   every other table reads as before (`mdb-export`);
//! * one such transaction, crashed at every step of the journaled commit,
//!   recovers to exactly the old or the new image;
//! * what stays refused (NOT NULL and DEFAULT, whose property maps are not
//!   written in Access 97 files) leaves the file byte-identical.

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use jet_storage::error::WResult;
use jet_storage::page::image::MemImage;
use jet_storage::schema::tdef::Direction;
use jet_storage::write::Writer;
use jet_storage::write::tdef::{ColumnSpec, IndexSpec, TableSpec};
use jet_storage::{Database, JetType, JetVersion, OpenOptions, Transaction};
use jet_tests::agree::{assert_mdb_export_equals_scan, consistency};
use jet_tests::crash::{RecordingImage, consistency_of_image, crash_check};
use jet_tests::{corpus, require_mdb_export, run_mdb_export};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use crate::support::jet3_oracles;
use jet3_oracles::{Scratch, assert_mdb_reader_equals_scan};

/// The table every test creates: one column of each Access 97 type the
/// writer declares, a primary key and a descending text index.
fn spec(name: &str) -> TableSpec {
    TableSpec::new(
        name,
        vec![
            ColumnSpec::new("Id", JetType::Long),
            ColumnSpec::text("Label", 40),
            ColumnSpec::new("Amount", JetType::Double),
            ColumnSpec::new("Stamp", JetType::DateTime),
            ColumnSpec::new("Done", JetType::Boolean),
            ColumnSpec::new("Notes", JetType::Memo),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["Id"]))
    .index(IndexSpec {
        columns: vec![("Label".into(), Direction::Descending)],
        ..IndexSpec::new("ByLabel", &[])
    })
}

/// `mdb-schema`'s declarations of `spec`'s columns (mdbtools' type names).
const DECLARED: &[&str] = &[
    "[Id]\t\t\tLong Integer",
    "[Label]\t\t\tText (40)",
    "[Amount]\t\t\tDouble",
    "[Stamp]\t\t\tDateTime",
    "[Done]\t\t\tBoolean",
    "[Notes]\t\t\tMemo/Hyperlink (255)",
];

/// Rows `from..from + n`: code-page text, memos inline and long.
fn rows(from: i32, n: i32) -> RecordBatch {
    let ids: Vec<i32> = (from..from + n).collect();
    let col = |a: ArrayRef| a;
    RecordBatch::try_from_iter(vec![
        ("Id", col(Arc::new(Int32Array::from(ids.clone())))),
        (
            "Label",
            col(Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("Étiquette {:03} «{}»", i % 97, i))
                    .collect::<Vec<_>>(),
            ))),
        ),
        (
            "Amount",
            col(Arc::new(Float64Array::from(
                ids.iter().map(|i| f64::from(*i) * 1.25).collect::<Vec<_>>(),
            ))),
        ),
        (
            "Stamp",
            col(Arc::new(TimestampMicrosecondArray::from(
                ids.iter()
                    .map(|i| (i64::from(*i) * 86_400 + 37_230) * 1_000_000)
                    .collect::<Vec<_>>(),
            ))),
        ),
        (
            "Done",
            col(Arc::new(BooleanArray::from(
                ids.iter().map(|i| i % 3 == 0).collect::<Vec<_>>(),
            ))),
        ),
        (
            "Notes",
            col(Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| match i % 3 {
                        0 => None,
                        1 => Some(format!("note {i} – é")),
                        _ => Some(format!("chaîne {i} ").repeat(300)),
                    })
                    .collect::<Vec<_>>(),
            ))),
        ),
    ])
    .unwrap()
}

fn mdb_tool(tool: &str, args: &[&str], file: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(out.status.success(), "{tool} {}", file.display());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Creates `Jet3Made` with 300 rows and checks it with both oracles.
fn create_and_check(file: &Path) {
    let mut w = Database::open_writable(file).unwrap();
    w.transaction(|tx| {
        tx.create_table(&spec("Jet3Made"))?;
        tx.insert("Jet3Made", &rows(1, 300))
    })
    .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    drop(w);
    let db = Database::open(file, OpenOptions::default()).unwrap();
    assert_eq!(db.version(), JetVersion::Jet3);
    consistency(&db, &format!("{} after CREATE TABLE", file.display()));
    let t = db.table("Jet3Made").unwrap();
    assert_eq!(t.def().real_indexes.len(), 2);
    if require_mdb_export().is_none() {
        return;
    }
    let schema = mdb_tool("mdb-schema", &["-T", "Jet3Made"], file);
    for d in DECLARED {
        assert!(schema.contains(d), "{d:?} not in mdb-schema's\n{schema}");
    }
    let n = assert_mdb_export_equals_scan(file, &db, "Jet3Made");
    assert_eq!(n, 300, "{}", file.display());
    // mdb-export's own text of a row that was inserted
    let (prog, _) = require_mdb_export().unwrap();
    let out = run_mdb_export(&prog, &["-T", "%Y-%m-%d %H:%M:%S"], file, "Jet3Made").unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let row7 = text.lines().find(|l| l.starts_with("7,"));
    assert_eq!(
        row7,
        Some("7,\"Étiquette 007 «7»\",8.75,\"1970-01-08 10:20:30\",0,\"note 7 – é\"")
    );
    // 0 only without node (outside CI)
    let n = assert_mdb_reader_equals_scan(file, &db, "Jet3Made", true);
    assert!(n == 300 || n == 0, "{n}");
}

#[test]
fn create_table_in_access_97_files_reads_back_in_mdbtools_and_mdb_reader() {
    let Some(root) = corpus() else { return };
    let dir = Scratch::new("create");
    for rel in [
        "mdbtools/nwind.mdb",
        "jackcess/V1997/testV1997.mdb",
        "jackcess/V1997/indexTestV1997.mdb",
    ] {
        let path = dir.copy(&root.join(rel));
        create_and_check(&path);
    }
}

#[test]
fn drop_table_in_nwind_leaves_the_other_tables() {
    let Some(root) = corpus() else { return };
    let Some((prog, _)) = require_mdb_export() else {
        return;
    };
    let dir = Scratch::new("drop");
    let path = dir.copy(&root.join("mdbtools/nwind.mdb"));
    let export = |t: &str| run_mdb_export(&prog, &[], &path, t).unwrap().stdout;
    let before: Vec<Vec<u8>> = ["Categories", "Orders", "Customers"]
        .iter()
        .map(|t| export(t))
        .collect();
    let mut w = Database::open_writable(&path).unwrap();
    w.transaction(|tx| {
        tx.create_table(&spec("Gone"))?;
        tx.insert("Gone", &rows(1, 20))
    })
    .unwrap();
    assert!(
        mdb_tool("mdb-tables", &["-1"], &path)
            .lines()
            .any(|l| l == "Gone")
    );
    w.transaction(|tx| tx.drop_table("Gone")).unwrap();
    drop(w);
    let tables = mdb_tool("mdb-tables", &["-1"], &path);
    assert!(!tables.lines().any(|l| l == "Gone"), "{tables}");
    for (t, b) in ["Categories", "Orders", "Customers"].iter().zip(&before) {
        assert!(export(t) == *b, "{t} changed");
    }
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    assert!(db.table("Gone").is_err());
    consistency(&db, "nwind after DROP TABLE");
}

#[test]
fn create_table_crashed_at_every_step_recovers_old_or_new() {
    let Some(root) = corpus() else { return };
    let bytes = std::fs::read(root.join("mdbtools/nwind.mdb")).unwrap();
    let mut w = Writer::new(RecordingImage {
        image: MemImage { bytes },
        commits: Vec::new(),
    })
    .unwrap();
    let before = w.target().image.bytes.clone();
    let step = |tx: &mut Transaction<'_>| -> WResult<()> {
        tx.create_table(&spec("Crashed"))?;
        tx.insert("Crashed", &rows(1, 40)).map(|_| ())
    };
    w.transaction(step).unwrap();
    let ch = w.target().commits.last().unwrap().clone();
    let rep = crash_check(
        "nwind CREATE TABLE",
        &before,
        &ch,
        2,
        9100,
        &mut consistency_of_image,
    );
    eprintln!(
        "nwind CREATE TABLE: {} steps, {} states ({} old, {} new), {} recovery crashes",
        rep.steps, rep.states, rep.old, rep.new, rep.recovery_crashes
    );
    assert!(rep.old > 0 && rep.new > 0, "{rep:?}");
}

#[test]
fn access_97_refusals_leave_the_file_byte_identical() {
    let Some(root) = corpus() else { return };
    let dir = Scratch::new("refuse");
    let path = dir.copy(&root.join("mdbtools/nwind.mdb"));
    let before = std::fs::read(&path).unwrap();
    let mut w = Database::open_writable(&path).unwrap();
    let not_null = TableSpec::new("T1", vec![ColumnSpec::new("a", JetType::Long).not_null()]);
    let e = w
        .transaction(|tx| tx.create_table(&not_null).map(|_| ()))
        .unwrap_err();
    assert!(e.to_string().contains("Access 97"), "{e}");
    let decimal = TableSpec::new("T2", vec![ColumnSpec::numeric("d", 10, 2)]);
    let e = w
        .transaction(|tx| tx.create_table(&decimal).map(|_| ()))
        .unwrap_err();
    assert!(e.to_string().contains("Access 97"), "{e}");
    let greek = TableSpec::new("Ωmega", vec![ColumnSpec::new("a", JetType::Long)]);
    let e = w
        .transaction(|tx| tx.create_table(&greek).map(|_| ()))
        .unwrap_err();
    assert!(e.to_string().contains("U+03A9"), "{e}");
    drop(w);
    assert!(
        std::fs::read(&path).unwrap() == before,
        "a refusal changed the file"
    );
}

/// The schema changes of nwind that the next tests make, one transaction.
fn nwind_changes(tx: &mut Transaction<'_>) -> WResult<()> {
    tx.create_index(
        "Customers",
        &IndexSpec::new("ByCity", &["City", "CompanyName"]),
    )?;
    tx.create_index(
        "Orders",
        &IndexSpec {
            columns: vec![
                ("ShipCountry".into(), Direction::Descending),
                ("OrderDate".into(), Direction::Ascending),
            ],
            ..IndexSpec::new("ByCountryDate", &[])
        },
    )?;
    tx.create_index(
        "Products",
        &IndexSpec::new("UniqueName", &["ProductName"]).unique(),
    )?;
    tx.add_column("Categories", &ColumnSpec::text("Slogan", 30))?;
    tx.add_column("Categories", &ColumnSpec::new("Extra", JetType::Memo))?;
    tx.add_column("Employees", &ColumnSpec::new("Bonus", JetType::Currency))?;
    Ok(())
}

/// Categories rows that fill the added columns.
fn categories_with_slogans(n: i32) -> RecordBatch {
    let ids: Vec<i32> = (0..n).collect();
    RecordBatch::try_from_iter(vec![
        (
            "CategoryName",
            Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("Nouveauté {i}"))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "Slogan",
            Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("Très bon n°{i}"))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "Extra",
            Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("supplément {i} ").repeat(1 + (*i as usize % 2) * 400))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap()
}

#[test]
fn create_index_and_add_column_on_nwind_read_back_in_both_oracles() {
    let Some(root) = corpus() else { return };
    let dir = Scratch::new("alter");
    let path = dir.copy(&root.join("mdbtools/nwind.mdb"));
    let mut w = Database::open_writable(&path).unwrap();
    w.transaction(nwind_changes).unwrap();
    w.transaction(|tx| {
        tx.insert("Categories", &categories_with_slogans(6))
            .map(|_| ())
    })
    .unwrap();
    drop(w);
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    consistency(&db, "nwind after CREATE INDEX and ADD COLUMN");
    let names = |t: &str| -> Vec<String> {
        db.table(t)
            .unwrap()
            .def()
            .indexes
            .iter()
            .map(|i| i.name.clone())
            .collect()
    };
    assert!(names("Customers").contains(&"ByCity".to_string()));
    assert!(names("Orders").contains(&"ByCountryDate".to_string()));
    assert!(names("Products").contains(&"UniqueName".to_string()));
    if require_mdb_export().is_none() {
        return;
    }
    for (t, decl) in [
        ("Categories", "[Slogan]\t\t\tText (30)"),
        ("Categories", "[Extra]\t\t\tMemo/Hyperlink (255)"),
        ("Employees", "[Bonus]\t\t\tCurrency"),
    ] {
        let schema = mdb_tool("mdb-schema", &["-T", t], &path);
        assert!(schema.contains(decl), "{decl:?} not in\n{schema}");
    }
    for t in ["Categories", "Employees", "Customers", "Orders", "Products"] {
        assert_mdb_export_equals_scan(&path, &db, t);
        let n = assert_mdb_reader_equals_scan(&path, &db, t, t == "Categories");
        eprintln!("{t}: {n} rows agree with mdb-reader");
    }
    // the 8 old rows read the new columns as NULL, the 6 new ones as written
    let (prog, _) = require_mdb_export().unwrap();
    let out = run_mdb_export(&prog, &[], &path, "Categories").unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(text.lines().count(), 1 + 8 + 6);
    assert!(
        text.contains("\"Nouveauté 2\""),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(text.contains("\"Très bon n°2\",\"supplément 2 \""));
    // DROP INDEX, then the file still checks out
    let mut w = Database::open_writable(&path).unwrap();
    w.transaction(|tx| tx.drop_index("Customers", "ByCity"))
        .unwrap();
    drop(w);
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    assert!(!names_of(&db, "Customers").contains(&"ByCity".to_string()));
    consistency(&db, "nwind after DROP INDEX");
    assert_mdb_export_equals_scan(&path, &db, "Customers");
}

fn names_of(db: &Database, t: &str) -> Vec<String> {
    db.table(t)
        .unwrap()
        .def()
        .indexes
        .iter()
        .map(|i| i.name.clone())
        .collect()
}

#[test]
fn a_unique_index_over_duplicates_is_refused_and_the_file_kept() {
    let Some(root) = corpus() else { return };
    let dir = Scratch::new("dupe");
    let path = dir.copy(&root.join("mdbtools/nwind.mdb"));
    let before = std::fs::read(&path).unwrap();
    let mut w = Database::open_writable(&path).unwrap();
    let e = w
        .transaction(|tx| {
            tx.create_index(
                "Customers",
                &IndexSpec::new("OneCountry", &["Country"]).unique(),
            )
            .map(|_| ())
        })
        .unwrap_err();
    assert!(e.to_string().contains("OneCountry"), "{e}");
    drop(w);
    assert!(
        std::fs::read(&path).unwrap() == before,
        "the refusal changed the file"
    );
}

#[test]
fn create_index_and_add_column_crashed_at_every_step_recover_old_or_new() {
    let Some(root) = corpus() else { return };
    let bytes = std::fs::read(root.join("mdbtools/nwind.mdb")).unwrap();
    let mut w = Writer::new(RecordingImage {
        image: MemImage { bytes },
        commits: Vec::new(),
    })
    .unwrap();
    let before = w.target().image.bytes.clone();
    w.transaction(nwind_changes).unwrap();
    let ch = w.target().commits.last().unwrap().clone();
    let rep = crash_check(
        "nwind CREATE INDEX + ADD COLUMN",
        &before,
        &ch,
        2,
        9200,
        &mut consistency_of_image,
    );
    eprintln!(
        "nwind CREATE INDEX + ADD COLUMN: {} steps, {} states ({} old, {} new)",
        rep.steps, rep.states, rep.old, rep.new
    );
    assert!(rep.old > 0 && rep.new > 0, "{rep:?}");
}

/// A usage-map row Access wrote longer than the maps the writer makes is
/// read whole, as mdbtools, mdb-reader and Jackcess read it: nwind.mdb's
/// MSysACEs map row is 145 bytes and its bits past the first 133 list page
/// 1112, which holds 12 of the table's 322 rows (mdb-export and mdb-reader
/// both read 322). Every row of it equals mdb-export's.
#[test]
fn long_access_usage_map_rows_are_read_whole() {
    let Some(root) = corpus() else { return };
    if require_mdb_export().is_none() {
        return;
    }
    let path = root.join("mdbtools/nwind.mdb");
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    let n = assert_mdb_export_equals_scan(&path, &db, "MSysACEs");
    assert_eq!(n, 322, "mdb-export and mdb-reader read 322 rows");
}

#[test]
fn compact_of_access_97_files_keeps_every_row_and_no_growth() {
    let Some(root) = corpus() else { return };
    let Some((prog, _)) = require_mdb_export() else {
        return;
    };
    let dir = Scratch::new("compact");
    for rel in [
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
    ] {
        let src = dir.copy(&root.join(rel));
        if rel.ends_with("/testV1997.mdb") {
            // a table this writer made is compacted too
            create_and_check(&src);
        }
        let out = dir.0.join(format!(
            "compacted-{}",
            src.file_name().unwrap().to_string_lossy()
        ));
        let rep = jet_storage::write::compact_file(&src, Some(&out))
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let (before, after) = (
            std::fs::metadata(&src).unwrap().len(),
            std::fs::metadata(&out).unwrap().len(),
        );
        assert!(after <= before, "{rel}: {before} -> {after} bytes");
        // the same tables (MSysObjects rows may come in another order)
        let listed = |f: &Path| -> Vec<String> {
            let mut v: Vec<String> = mdb_tool("mdb-tables", &["-1"], f)
                .lines()
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect();
            v.sort();
            v
        };
        let tables = listed(&src);
        assert_eq!(tables, listed(&out), "{rel}");
        let mut rows = 0;
        for t in &tables {
            let a = run_mdb_export(&prog, &[], &src, t).unwrap().stdout;
            let b = run_mdb_export(&prog, &[], &out, t).unwrap().stdout;
            assert!(a == b, "{rel} {t}: mdb-export differs after compacting");
            rows += a.iter().filter(|&&c| c == b'\n').count();
        }
        let db = Database::open(&out, OpenOptions::default()).unwrap();
        consistency(&db, &format!("{rel} compacted"));
        // mdb-reader reads every table of the copy as it reads the original
        // (rows compared as sorted lists: their order may change)
        if let Some(script) = jet_tests::mdb_reader::require_mdb_reader() {
            let read = |f: &Path| -> Vec<(String, Vec<Vec<Option<String>>>)> {
                let jet_tests::mdb_reader::ReaderDump::Tables(ts) =
                    jet_tests::mdb_reader::dump(&script, f, None).unwrap()
                else {
                    panic!("{rel}: mdb-reader refused {}", f.display());
                };
                let mut v: Vec<_> = ts
                    .into_iter()
                    .map(|t| {
                        let mut r = t.rows;
                        r.sort();
                        (t.name, r)
                    })
                    .collect();
                v.sort();
                v
            };
            assert!(
                read(&src) == read(&out),
                "{rel}: mdb-reader reads the copy differently"
            );
        }
        eprintln!(
            "{rel}: {before} -> {after} bytes, {} tables, {} rows copied, {} indexes rebuilt; {rows} mdb-export lines identical",
            rep.tables, rep.rows, rep.indexes
        );
    }
}
