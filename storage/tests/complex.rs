//! Complex columns (attachments, multi-value lists, version history) of
//! the corpus read through `Database::complex_columns` and
//! `Database::complex_values`.
//!
//! Expected values come from independent readers:
//!
//! * Jackcess 4 `src/test/java/com/healthmarketscience/jackcess/ComplexColumnTest.java`
//!   (`testVersions`, `testAttachments`, `testMultiValues`, and the
//!   `TEST_BYTES`/`TEST2_BYTES`/`TEST_ENC_BYTES` constants), for the
//!   Jackcess `COMPLEX` test databases (V2007, V2010) and for UCanAccess's
//!   copy of that database (`complex.accdb`, table `t_complex`, rows 1–4).
//!   Jackcess reads dates in `TEST_TZ` (America/New_York: UTC−4 in
//!   September 2011), so its `new Date(ms)` is the zone-less stored time
//!   `ms − 4 h`.
//! * mdb-reader 3.2.0 (node, `tests/oracle-js`) for every attachment of
//!   every flat table: its `decodeAttachmentFileData` applied to each
//!   `FileData` it reads must give byte for byte the file jetsql decodes.
//!
//! Without the corpus, node or mdb-reader (`npm ci` in `tests/oracle-js`)
//! the tests skip, except under `CI=true`, where they fail.

use crate::support::oracle;
use crate::support::queries as support;

use arrow_array::Array;
use arrow_array::cast::AsArray;
use jet_storage::{ComplexColumn, ComplexError, ComplexKind, Database, Error, JetType};
use std::collections::BTreeMap;
use support::{corpus_file, open};

/// The three copies of Jackcess's complex-data test database, and the
/// table holding the complex columns in each.
const FILES: [(&str, &str); 3] = [
    ("jackcess/V2007/complexDataTestV2007.accdb", "Table1"),
    ("jackcess/V2010/complexDataTestV2010.accdb", "Table1"),
    ("ucanaccess/complex.accdb", "t_complex"),
];

/// Jackcess ComplexColumnTest `TEST_BYTES` and `TEST2_BYTES`.
const TEST_BYTES: &[u8] = b"this is some test data for attachment.";
const TEST2_BYTES: &[u8] = b"this is some more test data for attachment.";

/// Jackcess ComplexColumnTest `TEST_ENC_BYTES`: how `test_data.txt` is
/// stored (Jackcess asserts `getEncodedFileData()` equals it).
const TEST_ENC_BYTES: [u8; 66] = [
    0x01, 0x00, 0x00, 0x00, 0x3A, 0x00, 0x00, 0x00, 0x78, 0x5E, 0x13, 0x61, 0x60, 0x60, 0x60, 0x04,
    0x62, 0x16, 0x20, 0x2E, 0x61, 0xA8, 0x00, 0x62, 0x20, 0x9D, 0x91, 0x59, 0xAC, 0x00, 0x44, 0xC5,
    0xF9, 0xB9, 0xA9, 0x0A, 0x25, 0xA9, 0xC5, 0x25, 0x0A, 0x29, 0x89, 0x25, 0x89, 0x0A, 0x69, 0xF9,
    0x45, 0x0A, 0x89, 0x25, 0x25, 0x89, 0xC9, 0x19, 0xB9, 0xA9, 0x79, 0x25, 0x7A, 0x00, 0x52, 0xA9,
    0x0F, 0x7A,
];

/// Jackcess's `new Date(ms)` in America/New_York (EDT, UTC−4) as the
/// zone-less stored time in microseconds.
fn edt(ms: i64) -> i64 {
    (ms - 4 * 3600 * 1000) * 1000
}

fn file_bytes(name: &str) -> &'static [u8] {
    match name {
        "test_data.txt" => TEST_BYTES,
        "test_data2.txt" => TEST2_BYTES,
        other => panic!("unexpected attachment {other}"),
    }
}

fn by_name<'a>(cols: &'a [ComplexColumn], name: &str) -> &'a ComplexColumn {
    cols.iter()
        .find(|c| c.column == name)
        .unwrap_or_else(|| panic!("no complex column {name}"))
}

fn version_column(cols: &[ComplexColumn]) -> &ComplexColumn {
    cols.iter()
        .find(|c| {
            c.kind
                == ComplexKind::VersionHistory {
                    versioned_column: "append-memo-data".into(),
                }
        })
        .expect("the version history of append-memo-data")
}

/// Jackcess `testVersions`/`testAttachments`/`testMultiValues`: the kinds
/// of the three complex columns (the version history is the one
/// `append-memo-data.getVersionHistoryColumn()` names). A table without
/// complex columns has none and reads nothing.
#[test]
fn discovers_the_three_kinds() {
    for (rel, table) in FILES {
        let Some(path) = corpus_file(rel) else { return };
        let db = open(&path);
        let t = db.table(table).unwrap();
        let cols = db.complex_columns(&t).unwrap();
        assert_eq!(cols.len(), 3, "{rel}");
        assert_eq!(by_name(&cols, "attach-data").kind, ComplexKind::Attachment);
        assert_eq!(
            by_name(&cols, "multi-value-data").kind,
            ComplexKind::MultiValue(JetType::Text)
        );
        let vh = version_column(&cols);
        for c in &cols {
            assert_eq!(t.def().columns[c.position].name, c.column);
            assert_eq!(t.def().columns[c.position].jet_type, JetType::Complex);
            // found by the descriptor's complex id, which MSysComplexColumns repeats
            assert_eq!(t.def().columns[c.position].complex_id, Some(c.complex_id));
            assert!(c.flat_table.starts_with("f_"), "{}", c.flat_table);
            assert!(
                c.type_table.starts_with("MSysComplexType"),
                "{}",
                c.type_table
            );
        }
        assert_eq!(
            jet_storage::read::complex::hidden_tables(&cols).len(),
            3,
            "each column has its own flat table"
        );
        assert!(vh.flat_table.contains("VersionHistory"));

        // a table without complex columns reads no page
        let plain = db.table("MSysObjects").unwrap();
        let before = db.pages_read();
        assert!(db.complex_columns(&plain).unwrap().is_empty());
        assert_eq!(db.pages_read(), before, "{rel}");
    }
}

/// The values of rows 1–4 as Jackcess ComplexColumnTest expects them,
/// each row's complex ids included (`checkVersions(cValId, …)` etc. assert
/// that row N holds complex id N in each column).
#[test]
fn values_match_jackcess_complex_column_test() {
    let mut checked = 0;
    for (rel, table) in FILES {
        let Some(path) = corpus_file(rel) else { return };
        let db = open(&path);
        let t = db.table(table).unwrap();
        let cols = db.complex_columns(&t).unwrap();
        let attach = by_name(&cols, "attach-data");
        let multi = by_name(&cols, "multi-value-data");
        let vh = version_column(&cols);
        let pos = |name: &str| t.def().columns.iter().position(|c| c.name == name).unwrap();
        let (id_col, memo_col) = (pos("id"), pos("append-memo-data"));
        let mut attachments = db.complex_values(attach);
        let mut multis = db.complex_values(multi);
        let mut versions = db.complex_values(vh);
        for row in oracle::rows(&db, table) {
            let id = row[id_col].clone().unwrap();
            let cid =
                |c: &ComplexColumn| -> i32 { row[c.position].as_deref().unwrap().parse().unwrap() };
            let (want_versions, want_multi, want_files): (Vec<(&str, i64)>, Vec<&str>, Vec<&str>) =
                match id.as_str() {
                    "row1" => (vec![], vec![], vec![]),
                    "row2" => (
                        vec![("row2-memo", 1315876862334)],
                        vec!["value1", "value4"],
                        vec!["test_data.txt", "test_data2.txt"],
                    ),
                    "row3" => (
                        vec![
                            ("row3-memo-again", 1315876965382),
                            ("row3-memo-revised", 1315876953077),
                            ("row3-memo", 1315876879126),
                        ],
                        vec!["value1", "value2", "value3", "value4"],
                        vec![],
                    ),
                    "row4" => (
                        vec![("row4-memo", 1315876945758)],
                        vec![],
                        vec!["test_data2.txt"],
                    ),
                    _ => {
                        // rows UCanAccess added: read without error only
                        versions.versions(cid(vh)).unwrap();
                        multis.multi_values(cid(multi)).unwrap();
                        attachments.attachments(cid(attach)).unwrap();
                        continue;
                    }
                };
            let n: i32 = id[3..].parse().unwrap();
            for c in [attach, multi, vh] {
                assert_eq!(cid(c), n, "{rel} {id} {}", c.column);
            }

            let got = versions.versions(n).unwrap();
            let got: Vec<(Option<String>, Option<i64>)> =
                got.into_iter().map(|v| (v.value, v.modified)).collect();
            let want: Vec<(Option<String>, Option<i64>)> = want_versions
                .iter()
                .map(|(v, ms)| (Some(v.to_string()), Some(edt(*ms))))
                .collect();
            assert_eq!(got, want, "{rel} {id} versions");
            // checkVersions: the newest version is the memo's current value
            // (and a row without versions has a NULL memo)
            assert_eq!(
                row[memo_col].as_deref(),
                want_versions.first().map(|v| v.0),
                "{rel} {id} current memo"
            );

            let values = multis.multi_values(n).unwrap();
            let got: Vec<&str> = values
                .as_string::<i32>()
                .iter()
                .map(Option::unwrap)
                .collect();
            assert_eq!(got, want_multi, "{rel} {id} multi-values");

            let got = attachments.attachments(n).unwrap();
            assert_eq!(got.len(), want_files.len(), "{rel} {id} attachments");
            for (a, name) in got.iter().zip(&want_files) {
                assert_eq!(a.file_name.as_deref(), Some(*name));
                assert_eq!(a.file_type.as_deref(), Some("txt"));
                assert_eq!(a.file_data.as_deref(), Some(file_bytes(name)));
            }
            checked += 1;
        }
    }
    eprintln!("{checked} rows checked against Jackcess ComplexColumnTest");
    assert_eq!(checked, 12, "rows 1-4 of three files");
}

/// Every attachment column of every table (system tables included:
/// `MSysResources` holds one) decodes every attachment byte for byte as
/// mdb-reader does, with the same names and types, in the same order.
#[test]
fn attachments_match_mdb_reader() {
    let (mut columns, mut count, mut bytes) = (0, 0, 0);
    for (rel, _) in FILES {
        let Some(path) = corpus_file(rel) else { return };
        let Some(oracle) = oracle::mdb_reader_attachments(&path) else {
            return;
        };
        let db = open(&path);
        let mut by_flat: BTreeMap<(String, i32), Vec<oracle::OracleAttachment>> = BTreeMap::new();
        for a in &oracle {
            by_flat
                .entry((a.0.clone(), a.1))
                .or_default()
                .push(a.clone());
        }
        let mut seen = 0;
        let tables: Vec<String> = db
            .catalog()
            .iter()
            .filter(|e| matches!(e.kind, jet_storage::ObjectKind::Table))
            .map(|e| e.name.clone())
            .collect();
        for name in tables {
            let t = db.table(&name).unwrap();
            for c in db.complex_columns(&t).unwrap() {
                if c.kind != ComplexKind::Attachment {
                    continue;
                }
                columns += 1;
                let mut values = db.complex_values(&c);
                for ((flat, id), want) in by_flat.iter().filter(|((f, _), _)| *f == c.flat_table) {
                    let got = values.attachments(*id).unwrap();
                    let got: Vec<oracle::OracleAttachment> = got
                        .into_iter()
                        .map(|a| (flat.clone(), *id, a.file_name, a.file_type, a.file_data))
                        .collect();
                    assert_eq!(&got, want, "{rel} {name}.{} id {id}", c.column);
                    seen += got.len();
                    bytes += got
                        .iter()
                        .map(|a| a.4.as_ref().map_or(0, Vec::len))
                        .sum::<usize>();
                }
            }
        }
        assert_eq!(
            seen,
            oracle.len(),
            "{rel}: every attachment mdb-reader reads"
        );
        assert!(seen >= 3, "{rel}");
        count += seen;
    }
    eprintln!(
        "{columns} attachment columns, {count} attachments, {bytes} bytes equal mdb-reader's"
    );
}

/// The reader is lazy: making it reads nothing; a lookup indexes the flat
/// table once. Ids no row carries have no values; asking a column for
/// another kind is a typed error.
#[test]
fn lazy_and_total() {
    let (rel, table) = FILES[0];
    let Some(path) = corpus_file(rel) else { return };
    let db = open(&path);
    let t = db.table(table).unwrap();
    let cols = db.complex_columns(&t).unwrap();
    let multi = by_name(&cols, "multi-value-data");
    let before = db.pages_read();
    let mut values = db.complex_values(multi);
    assert_eq!(db.pages_read(), before, "making a reader reads nothing");
    assert!(!values.is_indexed());
    for missing in [0, -1, 1, 999_999, i32::MIN, i32::MAX] {
        assert_eq!(values.multi_values(missing).unwrap().len(), 0);
        assert_eq!(values.count(missing).unwrap(), 0);
    }
    assert!(values.is_indexed());
    let indexed = db.pages_read();
    assert!(indexed > before, "the first lookup scans the flat table");
    assert_eq!(values.count(3).unwrap(), 4);
    assert_eq!(
        db.pages_read(),
        indexed,
        "counting reads no page once indexed"
    );
    match values.attachments(3) {
        Err(Error::Complex(ComplexError::WrongKind { column, .. })) => {
            assert_eq!(column, "multi-value-data")
        }
        other => panic!("expected WrongKind, got {other:?}"),
    }
    assert!(matches!(
        values.versions(3),
        Err(Error::Complex(ComplexError::WrongKind { .. }))
    ));
}

/// A damaged `FileData` (a broken zlib stream, an unknown encoding flag)
/// is a `DamagedAttachment` naming the table, column, complex id and
/// attachment; the other rows still read.
#[test]
fn damaged_attachment_is_a_typed_error() {
    let (rel, table) = FILES[0];
    let Some(path) = corpus_file(rel) else { return };
    let original = std::fs::read(&path).unwrap();
    let at: Vec<usize> = original
        .windows(TEST_ENC_BYTES.len())
        .enumerate()
        .filter(|(_, w)| *w == TEST_ENC_BYTES)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        at.len(),
        1,
        "test_data.txt is stored once, as Jackcess encodes it"
    );
    for (offset, value, why) in [(at[0] + 30, 0xFFu8, "zlib"), (at[0], 7, "wrapper")] {
        let mut bytes = original.clone();
        bytes[offset] = value;
        let db = Database::from_bytes(bytes).unwrap();
        let t = db.table(table).unwrap();
        let cols = db.complex_columns(&t).unwrap();
        let mut values = db.complex_values(by_name(&cols, "attach-data"));
        match values.attachments(2) {
            Err(e @ Error::Complex(ComplexError::DamagedAttachment { .. })) => {
                let Error::Complex(ComplexError::DamagedAttachment {
                    table: t,
                    column,
                    complex_id,
                    attachment_id,
                    what,
                    ..
                }) = &e
                else {
                    unreachable!()
                };
                assert_eq!((t.as_str(), column.as_str()), (table, "attach-data"));
                assert_eq!((*complex_id, *attachment_id), (2, Some(1)));
                assert!(what.contains(why), "{e}");
                let msg = e.to_string();
                assert!(
                    msg.contains("attach-data") && msg.contains("complex id 2"),
                    "{msg}"
                );
            }
            other => panic!("expected DamagedAttachment ({why}), got {other:?}"),
        }
        let row4 = values.attachments(4).unwrap();
        assert_eq!(row4[0].file_data.as_deref(), Some(TEST2_BYTES));
    }
}

/// Every complex value read through a compacted copy (whose table
/// definitions are re-encoded, complex ids included) equals the original's.
#[test]
fn compaction_keeps_complex_columns() {
    for (rel, table) in FILES {
        let Some(path) = corpus_file(rel) else { return };
        let original = open(&path);
        let (image, _) = jet_storage::write::compact_image(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("compact {rel}: {e}"));
        let compacted = Database::from_bytes(image).unwrap();
        let read = |db: &Database| {
            let t = db.table(table).unwrap();
            let cols = db.complex_columns(&t).unwrap();
            let mut out = Vec::new();
            for c in &cols {
                let mut v = db.complex_values(c);
                for id in 0..16 {
                    out.push(match &c.kind {
                        ComplexKind::Attachment => format!("{id} {:?}", v.attachments(id).unwrap()),
                        ComplexKind::MultiValue(_) => {
                            format!("{id} {:?}", v.multi_values(id).unwrap())
                        }
                        _ => format!("{id} {:?}", v.versions(id).unwrap()),
                    });
                }
            }
            let ids: Vec<_> = cols
                .iter()
                .map(|c| {
                    (
                        c.column.clone(),
                        c.complex_id,
                        t.def().columns[c.position].complex_id,
                    )
                })
                .collect();
            (ids, out)
        };
        assert_eq!(read(&compacted), read(&original), "{rel}");
    }
}

/// Jackcess `testUnsupported` (unsupportedFieldsTestV2007.accdb, table
/// `Test`, column `UnknownComplex`): a template of a type no kind accepts
/// is `UNSUPPORTED`; row ID 1 has one value, row 2 two, row 3 none (its
/// complex id is 3 in each case, `checkUnsupportedValues(n, …)`).
#[test]
fn unsupported_template_counts_match_jackcess() {
    let Some(path) = corpus_file("jackcess/V2007/unsupportedFieldsTestV2007.accdb") else {
        return;
    };
    let db = open(&path);
    let t = db.table("Test").unwrap();
    let cols = db.complex_columns(&t).unwrap();
    let c = by_name(&cols, "UnknownComplex");
    assert!(
        matches!(c.kind, ComplexKind::Unsupported(_)),
        "{:?}",
        c.kind
    );
    let mut values = db.complex_values(c);
    for (id, n) in [(1, 1), (2, 2), (3, 0)] {
        assert_eq!(values.count(id).unwrap(), n, "complex id {id}");
    }
    assert!(matches!(
        values.multi_values(1),
        Err(Error::Complex(ComplexError::WrongKind { .. }))
    ));
}
