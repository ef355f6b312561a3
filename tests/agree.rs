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
use jet_storage::format::OwnedField;
use jet_storage::index::key::encode_key;
use jet_storage::index::{Bookmark, Direction};
use jet_storage::write::tdef::INDEX_IGNORE_NULLS;
use jet_storage::{Database, JetType, ScanOptions};
use std::path::Path;

/// Checks every real index of `table` (see [`table_consistency`]) with
/// the table's name as context. Returns the number of live rows.
pub fn check_index_agreement(db: &Database, table: &str) -> usize {
    table_consistency(db, table, table)
}

/// The reader's and the indexes' consistency checks over every user table
/// of `db` ([`table_consistency`] of each). Returns the number of rows.
pub fn consistency(db: &Database, ctx: &str) -> usize {
    db.table_names()
        .iter()
        .map(|name| table_consistency(db, name, ctx))
        .sum()
}

/// The reader's and the indexes' consistency checks of one table: it scans
/// to the end with as many rows as it has live bookmarks, every live
/// bookmark reads as a row, and every real index walks forward over
/// exactly the live rows' keys (re-encoded from the rows) in index order
/// (key, then bookmark) — an index flagged "ignore nulls" without the rows
/// whose key is the all-NULL key. Panics naming `ctx`, the table and the
/// index on the first failure; returns the number of rows.
pub fn table_consistency(db: &Database, name: &str, ctx: &str) -> usize {
    let fail = |what: &dyn std::fmt::Display| -> ! { panic!("{ctx}: {name}: {what}") };
    let t = db.table(name).unwrap_or_else(|e| fail(&e));
    let mut scanned = 0;
    for b in t.scan(ScanOptions::default()).unwrap_or_else(|e| fail(&e)) {
        scanned += b.unwrap_or_else(|e| fail(&e)).num_rows();
    }
    let live = t.bookmarks().unwrap_or_else(|e| fail(&e));
    assert_eq!(
        scanned,
        live.len(),
        "{ctx}: {name}: rows scanned vs live bookmarks"
    );
    let cols = &t.def().columns;
    let live_rows: Vec<(Bookmark, Vec<OwnedField>)> = live
        .iter()
        .map(|&bm| {
            let row = t.raw_row(bm).unwrap_or_else(|e| fail(&e));
            (
                bm,
                row.unwrap_or_else(|| fail(&format!("live bookmark {bm:?} has no row"))),
            )
        })
        .collect();
    for (n, real) in t.def().real_indexes.iter().enumerate() {
        let fail = |what: &dyn std::fmt::Display| -> ! {
            panic!(
                "{ctx}: {name}: index {n} (root page {}): {what}",
                real.root_page
            )
        };
        let null_key = encode_key(
            cols,
            &real.key,
            &vec![OwnedField::Null; cols.len()],
            db.version(),
        )
        .unwrap_or_else(|e| fail(&e));
        let mut want: Vec<(Vec<u8>, Bookmark)> = Vec::with_capacity(live_rows.len());
        for (bm, row) in &live_rows {
            let key = encode_key(cols, &real.key, row, db.version())
                .unwrap_or_else(|e| fail(&format!("row {bm:?}: {e}")));
            if real.flags & INDEX_IGNORE_NULLS != 0 && key == null_key {
                continue;
            }
            want.push((key, *bm));
        }
        want.sort_by(|a, b| compare_entries(&a.0, a.1.page, a.1.row, &b.0, b.1.page, b.1.row));
        let got: Vec<(Vec<u8>, Bookmark)> = t
            .index(n)
            .unwrap_or_else(|e| fail(&e))
            .walk(Direction::Forward)
            .unwrap_or_else(|e| fail(&e))
            .map(|e| {
                let e = e.unwrap_or_else(|e| fail(&e));
                (e.key, e.bookmark)
            })
            .collect();
        if got.len() != want.len() {
            fail(&format!(
                "{} entries for {} indexed live rows",
                got.len(),
                want.len()
            ));
        }
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            fail(&format!(
                "entry {i} is {:02X?} at {:?}, the rows give {:02X?} at {:?}",
                got[i].0, got[i].1, want[i].0, want[i].1
            ));
        }
    }
    scanned
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
