//! External readers open what the writer writes: `mdb-ver` reports the
//! intended version and `mdb-export` of every table equals our own scan —
//! for the committed fixtures (which must also be exactly what the
//! generator writes today) and for randomly written databases.
//!
//! Value normalisation (documented, both sides): dates exported with
//! `-T '%Y-%m-%d %H:%M:%S'` and ours formatted the same (the generated
//! values have whole seconds); binary as upper-case hex (`-b hex`);
//! floating point compared as numbers; rows compared as sorted multisets
//! (mdbtools lists a row moved to an overflow page where its bytes are).
//! A zero-length text is compared as NULL (mdbtools reads it so).
//! Text is kept to the Basic Multilingual Plane here: mdbtools prints
//! non-BMP characters as `??` (the round-trip test covers them).

use arrow_array::{
    Array, ArrayRef, Float64Array, Int32Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use arrow_schema::DataType;
use jet_storage::image::MemImage;
use jet_storage::write::{ColumnSpec, TableSpec, Writer, new_database};
use jet_storage::{Database, JetType, JetVersion, ScanOptions};
use jet_tests::{require_mdb_export, run_mdb_export, workspace_root};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

const NULL: &str = "\u{1}";

fn our_rows(db: &Database, table: &str) -> Vec<Vec<String>> {
    let t = db.table(table).unwrap();
    // GUIDs are compared without dashes: mdbtools prints the last two
    // groups as one (8-4-4-16) and hex-encodes the text under `-b hex`
    let guid: Vec<bool> = t
        .def()
        .columns
        .iter()
        .map(|c| c.jet_type == JetType::Guid)
        .collect();
    let schema = t.schema();
    let mut rows = Vec::new();
    for b in t.scan(ScanOptions::default()).unwrap() {
        let b = b.unwrap();
        for r in 0..b.num_rows() {
            let mut row = Vec::new();
            for (c, f) in schema.fields().iter().enumerate() {
                let v = cell(b.column(c), r, f.data_type());
                // mdbtools reads a zero-length text as NULL
                row.push(if guid[c] {
                    v.replace('-', "")
                } else if v.is_empty() {
                    NULL.to_string()
                } else {
                    v
                });
            }
            rows.push(row);
        }
    }
    rows.sort();
    rows
}

fn cell(a: &ArrayRef, r: usize, dt: &DataType) -> String {
    use arrow_array::cast::AsArray;
    if a.is_null(r) {
        return NULL.to_string();
    }
    match dt {
        DataType::Boolean => (if a.as_boolean().value(r) { "1" } else { "0" }).to_string(),
        DataType::Timestamp(..) => {
            let us = a
                .as_primitive::<arrow_array::types::TimestampMicrosecondType>()
                .value(r);
            chrono::DateTime::from_timestamp_micros(us)
                .unwrap()
                .naive_utc()
                .format("%Y-%m-%d %H:%M:%S")
                .to_string()
        }
        DataType::Float32 => norm_float(f64::from(
            a.as_primitive::<arrow_array::types::Float32Type>().value(r),
        )),
        DataType::Float64 => {
            norm_float(a.as_primitive::<arrow_array::types::Float64Type>().value(r))
        }
        DataType::Binary => a
            .as_binary::<i32>()
            .value(r)
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect(),
        _ => arrow_cast::display::array_value_to_string(a, r).unwrap(),
    }
}

fn short(s: &str) -> String {
    if s.chars().count() > 60 {
        let head: String = s.chars().take(30).collect();
        let tail: String = s
            .chars()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        format!("{head}…{tail} ({} chars)", s.chars().count())
    } else {
        s.to_string()
    }
}

fn norm_float(v: f64) -> String {
    format!("{v:.6e}")
}

fn mdb_rows(
    file: &Path,
    table: &str,
    float_cols: &[usize],
    guid_cols: &[usize],
) -> Vec<Vec<String>> {
    let (prog, _) = require_mdb_export().expect("mdb-export");
    let out = run_mdb_export(
        &prog,
        &["-T", "%Y-%m-%d %H:%M:%S", "-b", "hex", "-0", NULL],
        file,
        table,
    )
    .unwrap();
    let mut rd = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(&out.stdout[..]);
    let mut rows = Vec::new();
    for rec in rd.records() {
        let rec = rec.unwrap();
        let mut row: Vec<String> = rec.iter().map(|s| s.to_string()).collect();
        for &c in float_cols {
            if row[c] != NULL {
                row[c] = norm_float(row[c].parse::<f64>().unwrap());
            }
        }
        for (c, v) in row.iter_mut().enumerate() {
            if guid_cols.contains(&c) && *v != NULL {
                let bytes: Vec<u8> = (0..v.len() / 2)
                    .map(|i| u8::from_str_radix(&v[2 * i..2 * i + 2], 16).unwrap())
                    .collect();
                *v = String::from_utf8(bytes).unwrap().replace('-', "");
            } else if v.chars().all(|c| c.is_ascii_hexdigit()) {
                *v = v.to_ascii_uppercase();
            }
        }
        rows.push(row);
    }
    rows.sort();
    rows
}

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
        let table = db.table(t).unwrap();
        let floats: Vec<usize> = table
            .schema()
            .fields()
            .iter()
            .enumerate()
            .filter(|(_, f)| matches!(f.data_type(), DataType::Float32 | DataType::Float64))
            .map(|(i, _)| i)
            .collect();
        let guids: Vec<usize> = table
            .def()
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| c.jet_type == JetType::Guid)
            .map(|(i, _)| i)
            .collect();
        let a = our_rows(&db, t);
        let b = mdb_rows(file, t, &floats, &guids);
        assert_eq!(a.len(), b.len(), "{} {t}: row counts", file.display());
        for (x, y) in a.iter().zip(&b) {
            let diff: Vec<String> = x
                .iter()
                .zip(y)
                .enumerate()
                .filter(|(_, (p, q))| p != q)
                .map(|(i, (p, q))| {
                    format!("column {i}: ours {:?} mdbtools {:?}", short(p), short(q))
                })
                .collect();
            assert!(
                diff.is_empty(),
                "{} {t}: {}",
                file.display(),
                diff.join("; ")
            );
        }
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
