//! Writing complex columns: rows with multi-value lists and attachments
//! inserted, their values replaced and the rows deleted, on copies of
//! UCanAccess's `complex.accdb` (Jackcess's complex-data test database).
//!
//! Expected values come from independent readers: `mdb-export` reads the
//! hidden flat tables (values and the parent's complex id in each row)
//! and the parent table; mdb-reader 3.2.0 (node, `tests/oracle-js`) reads
//! every attachment and decodes its `FileData`, which must give byte for
//! byte the file written. After every write every table, hidden ones
//! included, passes the index/scan consistency check, and a crash at
//! every step of a commit writing complex values recovers to the old or
//! the new image exactly.
//!
//! Without the corpus, mdbtools, node or mdb-reader the tests skip,
//! except under `CI=true`, where they fail.

use crate::support::check;
use crate::support::oracle;

use arrow_array::builder::{BinaryBuilder, ListBuilder, StringBuilder, StructBuilder};
use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Fields};
use check::{Scratch, consistency, corpus_root, crash_every_step};
use jet_storage::error::WriteError;
use jet_storage::journal::JournaledFile;
use jet_storage::read::complex::encode_file_data;
use jet_storage::write::Writer;
use jet_storage::{ComplexColumn, Database, Error, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const FILE: &str = "ucanaccess/complex.accdb";
const TABLE: &str = "t_complex";
const MULTI: &str = "multi-value-data";
const ATTACH: &str = "attach-data";

/// A file whose content zlib compresses (stored compressed) and one of a
/// type Access stores raw.
const TEXT: &[u8] = b"jetsql attachment text, jetsql attachment text, jetsql attachment text.\n";
const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, b'I', b'H', b'D', b'R', 1, 2, 3,
];

/// `mdb-export` is installed (else a skip, a failure under `CI=true`).
fn have_mdbtools() -> bool {
    let ok = Command::new("mdb-export").arg("--version").output().is_ok();
    assert!(
        ok || std::env::var("CI").as_deref() != Ok("true"),
        "mdb-export is missing under CI"
    );
    ok
}

/// A writable copy of the corpus file in `scratch`.
fn copy(scratch: &Scratch) -> Option<PathBuf> {
    let src = corpus_root()?.join(FILE);
    Some(scratch.copy(&src))
}

/// Header and rows of `table` as `mdb-export` reads them (binary as hex).
fn export(file: &Path, table: &str) -> (Vec<String>, Vec<Vec<String>>) {
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
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text
        .split("\u{1e}\n")
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\u{1f}').map(str::to_string).collect::<Vec<_>>());
    let header = lines.next().unwrap_or_default();
    (header, lines.collect())
}

/// The values of column `value` of the flat table `flat` whose complex id
/// (the column whose name starts with `_`, as Access names it) is `id`,
/// per `mdb-export`.
fn flat_values(file: &Path, flat: &str, id: i32, value: &str) -> Vec<String> {
    let (header, rows) = export(file, flat);
    let fk = header.iter().position(|h| h.starts_with('_')).unwrap();
    let v = header.iter().position(|h| h == value).unwrap();
    let mut out: Vec<String> = rows
        .iter()
        .filter(|r| r[fk] == id.to_string())
        .map(|r| r[v].clone())
        .collect();
    out.sort();
    out
}

/// Every complex id in the flat table `flat`, per `mdb-export`.
fn flat_ids(file: &Path, flat: &str) -> Vec<i32> {
    let (header, rows) = export(file, flat);
    let fk = header.iter().position(|h| h.starts_with('_')).unwrap();
    rows.iter().map(|r| r[fk].parse().unwrap()).collect()
}

/// The complex id column `col` of `TABLE` holds in the row whose `id` is
/// `key`, per `mdb-export`.
fn parent_id(file: &Path, key: &str, col: &str) -> Option<i32> {
    let (header, rows) = export(file, TABLE);
    let k = header.iter().position(|h| h == "id").unwrap();
    let c = header.iter().position(|h| h == col).unwrap();
    rows.iter()
        .find(|r| r[k] == key)
        .map(|r| r[c].parse().unwrap())
}

fn columns(db: &Database) -> Vec<ComplexColumn> {
    db.complex_columns(&db.table(TABLE).unwrap()).unwrap()
}

fn column<'a>(cols: &'a [ComplexColumn], name: &str) -> &'a ComplexColumn {
    cols.iter().find(|c| c.column == name).unwrap()
}

/// One-row lists: `multi` for the multi-value column, `files` (name,
/// bytes) for the attachments; `None` is a NULL list.
fn lists(multi: Option<&[&str]>, files: Option<&[(&str, &[u8])]>) -> (ArrayRef, ArrayRef) {
    let mut m = ListBuilder::new(StringBuilder::new());
    match multi {
        Some(vs) => {
            for v in vs {
                m.values().append_value(v);
            }
            m.append(true);
        }
        None => m.append(false),
    }
    let fields = Fields::from(vec![
        Field::new("file_name", DataType::Utf8, true),
        Field::new("file_data", DataType::Binary, true),
    ]);
    let mut a = ListBuilder::new(StructBuilder::new(
        fields,
        vec![
            Box::new(StringBuilder::new()),
            Box::new(BinaryBuilder::new()),
        ],
    ));
    match files {
        Some(fs) => {
            for (name, data) in fs {
                let s = a.values();
                s.field_builder::<StringBuilder>(0)
                    .unwrap()
                    .append_value(name);
                s.field_builder::<BinaryBuilder>(1)
                    .unwrap()
                    .append_value(data);
                s.append(true);
            }
            a.append(true);
        }
        None => a.append(false),
    }
    (Arc::new(m.finish()), Arc::new(a.finish()))
}

/// A batch of (name, array) columns.
fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(cols).unwrap()
}

fn text(v: &str) -> ArrayRef {
    Arc::new(StringArray::from(vec![v]))
}

/// The bookmark of the row of `TABLE` whose `id` is `key`.
fn bookmark(db: &Database, key: &str) -> jet_storage::index::Bookmark {
    let t = db.table(TABLE).unwrap();
    let rows = oracle::rows(db, TABLE);
    let k = t.def().columns.iter().position(|c| c.name == "id").unwrap();
    let marks = t.bookmarks().unwrap();
    let i = rows
        .iter()
        .position(|r| r[k].as_deref() == Some(key))
        .unwrap();
    marks[i]
}

fn write_err(e: Error) -> WriteError {
    match e {
        Error::Write(w) => *w,
        e => panic!("not a write error: {e}"),
    }
}

/// Insert, replace and delete, each committed through the journal, then
/// read back by mdb-export, mdb-reader and jetsql.
#[test]
fn insert_update_delete_round_trip() {
    if !have_mdbtools() {
        return;
    }
    let scratch = Scratch::new("complex-write");
    let Some(path) = copy(&scratch) else { return };
    let open = |p: &Path| Database::open(p, OpenOptions::default()).unwrap();
    let cols = columns(&open(&path));
    let (mv_flat, at_flat) = (
        column(&cols, MULTI).flat_table.clone(),
        column(&cols, ATTACH).flat_table.clone(),
    );
    let before_ids: Vec<i32> = cols
        .iter()
        .flat_map(|c| flat_ids(&path, &c.flat_table))
        .collect();

    // INSERT a row with two values and two attachments
    let mut w = Writer::new(JournaledFile::open(&path).unwrap()).unwrap();
    let (m, a) = lists(
        Some(&["alpha", "beta"]),
        Some(&[("notes.txt", TEXT), ("pic.png", PNG)]),
    );
    let b = batch(vec![("id", text("new1")), (MULTI, m), (ATTACH, a)]);
    w.transaction(|tx| tx.insert_complex(TABLE, &b, &cols).map(|_| ()))
        .unwrap();
    drop(w);
    let db = open(&path);
    consistency(&db, "after insert");
    let id = parent_id(&path, "new1", MULTI).expect("the new row has a complex id");
    assert_eq!(parent_id(&path, "new1", ATTACH), Some(id), "one id per row");
    assert!(
        before_ids.iter().all(|&old| old < id),
        "id {id} is new: {before_ids:?}"
    );
    assert_eq!(flat_values(&path, &mv_flat, id, "Value"), ["alpha", "beta"]);
    assert_eq!(
        flat_values(&path, &at_flat, id, "FileName"),
        ["notes.txt", "pic.png"]
    );
    assert_eq!(flat_values(&path, &at_flat, id, "FileType"), ["png", "txt"]);
    // mdb-reader decodes the stored FileData to the files' bytes
    if let Some(oracle) = oracle::mdb_reader_attachments(&path) {
        let mut got: Vec<(String, Vec<u8>)> = oracle
            .into_iter()
            .filter(|(flat, fk, ..)| *flat == at_flat && *fk == id)
            .map(|(_, _, name, _, data)| (name.unwrap(), data.unwrap()))
            .collect();
        got.sort();
        assert_eq!(
            got,
            vec![
                ("notes.txt".to_string(), TEXT.to_vec()),
                ("pic.png".to_string(), PNG.to_vec())
            ]
        );
    }
    // and jetsql reads them back
    let mut mv = db.complex_values(column(&cols, MULTI));
    let got = mv.multi_values(id).unwrap();
    let got: Vec<&str> = got.as_string::<i32>().iter().map(Option::unwrap).collect();
    assert_eq!(got, ["alpha", "beta"]);
    let mut vals = db.complex_values(column(&cols, ATTACH));
    let mut files: Vec<(String, Vec<u8>)> = vals
        .attachments(id)
        .unwrap()
        .into_iter()
        .map(|a| (a.file_name.unwrap(), a.file_data.unwrap()))
        .collect();
    files.sort();
    assert_eq!(files[0], ("notes.txt".to_string(), TEXT.to_vec()));
    assert_eq!(files[1], ("pic.png".to_string(), PNG.to_vec()));

    // UPDATE row2: its list replaced, its attachments removed
    let row2 = parent_id(&path, "row2", MULTI).unwrap();
    let others = flat_values(&path, &at_flat, 4, "FileName");
    let bm = bookmark(&db, "row2");
    let (m, a) = lists(Some(&["gamma"]), None);
    let b = batch(vec![(MULTI, m), (ATTACH, a)]);
    let mut w = Writer::new(JournaledFile::open(&path).unwrap()).unwrap();
    w.transaction(|tx| tx.update_complex(TABLE, &[bm], &b, &cols).map(|_| ()))
        .unwrap();
    drop(w);
    consistency(&open(&path), "after update");
    assert_eq!(flat_values(&path, &mv_flat, row2, "Value"), ["gamma"]);
    assert!(flat_values(&path, &at_flat, row2, "FileName").is_empty());
    assert_eq!(flat_values(&path, &at_flat, 4, "FileName"), others);

    // DELETE row3 and the new row: their values go from every flat table
    let db = open(&path);
    let row3 = parent_id(&path, "row3", MULTI).unwrap();
    let marks = [bookmark(&db, "row3"), bookmark(&db, "new1")];
    let mut w = Writer::new(JournaledFile::open(&path).unwrap()).unwrap();
    w.transaction(|tx| tx.delete_complex(TABLE, &marks, &cols).map(|_| ()))
        .unwrap();
    drop(w);
    consistency(&open(&path), "after delete");
    assert_eq!(parent_id(&path, "row3", MULTI), None);
    for c in &cols {
        let ids = flat_ids(&path, &c.flat_table);
        assert!(
            !ids.contains(&row3) && !ids.contains(&id),
            "{}: {ids:?}",
            c.flat_table
        );
    }
    assert_eq!(flat_values(&path, &mv_flat, row2, "Value"), ["gamma"]);
}

/// The stored `FileData` of Jackcess ComplexColumnTest's `test_data.txt`
/// (`TEST_ENC_BYTES`): ours has the same wrapper header, and inflates to
/// the same content (header with the extension, then the file).
#[test]
fn file_data_is_stored_as_jackcess_stores_it() {
    use std::io::Read;
    const JACKCESS: [u8; 66] = [
        0x01, 0x00, 0x00, 0x00, 0x3A, 0x00, 0x00, 0x00, 0x78, 0x5E, 0x13, 0x61, 0x60, 0x60, 0x60,
        0x04, 0x62, 0x16, 0x20, 0x2E, 0x61, 0xA8, 0x00, 0x62, 0x20, 0x9D, 0x91, 0x59, 0xAC, 0x00,
        0x44, 0xC5, 0xF9, 0xB9, 0xA9, 0x0A, 0x25, 0xA9, 0xC5, 0x25, 0x0A, 0x29, 0x89, 0x25, 0x89,
        0x0A, 0x69, 0xF9, 0x45, 0x0A, 0x89, 0x25, 0x25, 0x89, 0xC9, 0x19, 0xB9, 0xA9, 0x79, 0x25,
        0x7A, 0x00, 0x52, 0xA9, 0x0F, 0x7A,
    ];
    let inflate = |b: &[u8]| {
        let mut out = Vec::new();
        flate2::read::ZlibDecoder::new(&b[8..])
            .read_to_end(&mut out)
            .unwrap();
        out
    };
    let ours = encode_file_data("txt", b"this is some test data for attachment.").unwrap();
    assert_eq!(ours[..8], JACKCESS[..8]);
    assert_eq!(inflate(&ours), inflate(&JACKCESS));
    // a type stored raw: flag 0, the content as is
    let raw = encode_file_data("JPG", b"abc").unwrap();
    assert_eq!(raw[..8], [0, 0, 0, 0, 23, 0, 0, 0]);
    assert_eq!(
        raw[8..20],
        inflate(&ours)[..12],
        "header: length, 1, 4 units"
    );
    assert_eq!(raw[20..28], [b'j', 0, b'p', 0, b'g', 0, 0, 0]);
    assert_eq!(raw[28..], *b"abc");
}

/// Values for an append-only memo (whose history jetsql does not write)
/// and a replaced version history are refused by name; nothing changes.
#[test]
fn version_history_writes_are_refused() {
    let Some(root) = corpus_root() else { return };
    let bytes = std::fs::read(root.join(FILE)).unwrap();
    let mut w = Writer::new(jet_storage::MemImage {
        bytes: bytes.clone(),
    })
    .unwrap();
    let db = w.database().unwrap();
    let cols = columns(&db);
    let b = batch(vec![
        ("id", text("x")),
        ("append-memo-data", text("first version")),
    ]);
    let e = write_err(
        w.transaction(|tx| tx.insert_complex(TABLE, &b, &cols).map(|_| ()))
            .unwrap_err(),
    );
    assert!(
        e.to_string().contains("append-memo-data") && e.to_string().contains(TABLE),
        "{e}"
    );
    let history = cols
        .iter()
        .find(|c| c.flat_table.contains("VersionHistory"))
        .unwrap();
    let (m, _) = lists(Some(&["v"]), None);
    let b = batch(vec![(history.column.as_str(), m)]);
    let bm = bookmark(&db, "row2");
    let e = write_err(
        w.transaction(|tx| tx.update_complex(TABLE, &[bm], &b, &cols).map(|_| ()))
            .unwrap_err(),
    );
    assert!(e.to_string().contains(&history.column), "{e}");
    assert!(w.target().bytes == bytes, "image changed");
}

/// A crash at every step of a commit that inserts a row with complex
/// values, replaces another's and deletes a third recovers to the old or
/// the new image exactly.
#[test]
fn crashed_complex_writes_recover_to_old_or_new() {
    use jet_storage::journal::sim::SimStorage;
    let Some(root) = corpus_root() else { return };
    let old = std::fs::read(root.join(FILE)).unwrap();
    let db = Database::from_bytes(old.clone()).unwrap();
    let cols = columns(&db);
    let (row2, row3) = (bookmark(&db, "row2"), bookmark(&db, "row3"));
    let run = |crash_at: Option<u64>| {
        let mut s = SimStorage::new("t.accdb", old.clone());
        s.crash_after(crash_at);
        let f = JournaledFile::with_storage(s).unwrap();
        let mut w = Writer::new(f).unwrap();
        let result = w.transaction(|tx| {
            let (m, a) = lists(Some(&["x", "y"]), Some(&[("c.txt", TEXT)]));
            let b = batch(vec![("id", text("c1")), (MULTI, m), (ATTACH, a)]);
            tx.insert_complex(TABLE, &b, &cols)?;
            let (m, a) = lists(None, Some(&[("d.png", PNG)]));
            let b = batch(vec![(MULTI, m), (ATTACH, a)]);
            tx.update_complex(TABLE, &[row2], &b, &cols)?;
            tx.delete_complex(TABLE, &[row3], &cols).map(|_| ())
        });
        (result.is_ok(), w.into_target())
    };
    let (ok, done) = run(None);
    assert!(ok);
    let steps = done.storage().steps();
    let new = done.storage().live_disk().db;
    let db = Database::from_bytes(new.clone()).unwrap();
    consistency(&db, "crash-free");
    crash_every_step(run, steps, &old, &new, 11, "complex writes");
}
