//! Agreement checks shared by the writer tests: an index holds exactly the
//! live rows' re-encoded keys in key order, and `mdb-export` of a table
//! equals our scan.
//!
//! Value normalisation for the `mdb-export` comparison (documented, both
//! sides): dates exported with `-T '%Y-%m-%d %H:%M:%S'` and ours formatted
//! the same (so values must have whole seconds); binary as upper-case hex
//! (`-b hex`); floating point compared as numbers (6 significant digits
//! after the point in scientific form); rows compared as sorted multisets
//! (mdbtools lists a row moved to an overflow page where its bytes are);
//! a zero-length text is compared as NULL (mdbtools reads it so); GUIDs
//! without dashes (mdbtools prints the last two groups as one).

use crate::{require_mdb_export, run_mdb_export};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use jet_kernels::index_entry::compare_entries;
use jet_storage::index::{Bookmark, Direction};
use jet_storage::index_key::encode_key;
use jet_storage::scan::OwnedField;
use jet_storage::{Database, JetType, ScanOptions};
use std::path::Path;

/// Checks every real index of `table`: a forward walk gives exactly one
/// entry per live row (rows whose key columns are all NULL left out of an
/// ignore-nulls index), each entry's key is the row's values re-encoded,
/// and the entries come in index order (key, then bookmark). Panics with
/// the table and index on the first disagreement; returns the number of
/// live rows.
pub fn check_index_agreement(db: &Database, table: &str) -> usize {
    let t = db.table(table).unwrap();
    let live = t.bookmarks().unwrap();
    for (n, real) in t.def().real_indexes.iter().enumerate() {
        let mut want: Vec<(Vec<u8>, Bookmark)> = Vec::new();
        for bm in &live {
            let row = t.raw_row(*bm).unwrap().expect("live row");
            let all_null = real.key.iter().all(|(num, _)| {
                t.def()
                    .columns
                    .iter()
                    .position(|c| c.col_num == *num)
                    .is_some_and(|p| row[p] == OwnedField::Null)
            });
            if real.flags & 0x02 != 0 && all_null {
                continue;
            }
            let key = encode_key(&t.def().columns, &real.key, &row, db.version())
                .unwrap_or_else(|e| panic!("{table} index {n}: row {bm:?}: {e}"));
            want.push((key, *bm));
        }
        want.sort_by(|a, b| compare_entries(&a.0, a.1.page, a.1.row, &b.0, b.1.page, b.1.row));
        let got: Vec<(Vec<u8>, Bookmark)> = t
            .index(n)
            .unwrap()
            .walk(Direction::Forward)
            .unwrap()
            .map(|e| {
                let e = e.unwrap_or_else(|e| panic!("{table} index {n}: {e}"));
                (e.key, e.bookmark)
            })
            .collect();
        assert_eq!(got.len(), want.len(), "{table} index {n}: entry count");
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{table} index {n}: entry {i} is {:02X?} at {:?}, the rows give {:02X?} at {:?}",
                got[i].0, got[i].1, want[i].0, want[i].1
            );
        }
    }
    live.len()
}

/// Asserts that `mdb-export` of `table` in `file` equals our scan of it in
/// `db` (the same file), after the normalisation in the module
/// documentation. Returns the number of rows compared.
pub fn assert_mdb_export_equals_scan(file: &Path, db: &Database, t: &str) -> usize {
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
    let a = our_rows(db, t);
    let binary: Vec<usize> = table
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f.data_type(), DataType::Binary))
        .map(|(i, _)| i)
        .collect();
    let b = mdb_rows(file, t, &floats, &guids, &binary);
    assert_eq!(a.len(), b.len(), "{} {t}: row counts", file.display());
    for (x, y) in a.iter().zip(&b) {
        let diff: Vec<String> = x
            .iter()
            .zip(y)
            .enumerate()
            .filter(|(_, (p, q))| p != q)
            .map(|(i, (p, q))| format!("column {i}: ours {:?} mdbtools {:?}", short(p), short(q)))
            .collect();
        assert!(
            diff.is_empty(),
            "{} {t}: {}",
            file.display(),
            diff.join("; ")
        );
    }
    a.len()
}

/// How NULL is spelled on both sides of the comparison (mdb-export `-0`).
pub const NULL: &str = "\u{1}";

/// Our scan of `table`, every value normalised as documented in the
/// module, rows sorted.
pub fn our_rows(db: &Database, table: &str) -> Vec<Vec<String>> {
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

/// `mdb-export` of `table` in `file`, normalised like [`our_rows`]: the
/// columns `float_cols` compared as numbers, `guid_cols` without dashes,
/// `binary_cols` as upper-case hex.
pub fn mdb_rows(
    file: &Path,
    table: &str,
    float_cols: &[usize],
    guid_cols: &[usize],
    binary_cols: &[usize],
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
            } else if binary_cols.contains(&c) {
                *v = v.to_ascii_uppercase();
            }
        }
        rows.push(row);
    }
    rows.sort();
    rows
}
