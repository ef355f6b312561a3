//! Issue 16, "long text": a memo stored as `FF FE` followed by *plain*
//! UTF-16LE (as a migration tool wrote ~2,400 characters of XML) must read
//! whole. jetsql used to treat every `00` byte after the marker as a mode
//! switch and returned every second character.
//!
//! `fixtures/long_text.mdb` is written by `jet_fixtures::long_text` with
//! that layout, inline, on one long-value page and chained. The truth is
//! the generator's input ([`jet_fixtures::long_text_rows`]); the tests
//! check that the file really holds the layout (its bytes, found without
//! any reader), that jetsql reads the input back, and that mdbtools and
//! mdb-reader read the same (under `CI=true` both must be present).

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, RecordBatch};
use jet_storage::{Database, ScanOptions};
use jet_tests::mdb_reader::{ReaderDump, dump, require_mdb_reader};
use jet_tests::{require_mdb_export, run_mdb_export, workspace_root};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn fixture() -> PathBuf {
    workspace_root().join("fixtures").join("long_text.mdb")
}

/// The expected text of each row, by key: the generator's input.
fn expected() -> BTreeMap<i32, String> {
    jet_fixtures::long_text_rows()
        .into_iter()
        .map(|(id, _, text)| (id, text))
        .collect()
}

fn utf16le(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn committed_fixture_is_what_the_generator_writes() {
    let fresh = jet_fixtures::long_text().unwrap();
    let path = fixture();
    if std::env::var_os("JET_BLESS_FIXTURES").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read(&path).unwrap();
    assert!(
        committed == fresh,
        "{} differs from the generator's output: run `cargo run -p jet-fixtures`",
        path.display()
    );
}

#[test]
fn the_file_holds_marker_then_plain_utf16() {
    // found in the raw bytes, without any reader: FF FE then UTF-16LE of
    // the whole inline and single-page values, and of the chained value's
    // first 500 characters (the first segment of its chain)
    let bytes = std::fs::read(fixture()).unwrap();
    for (id, layout, text) in jet_fixtures::long_text_rows() {
        let head: String = if layout == "chained" {
            text.chars().take(500).collect()
        } else {
            text.clone()
        };
        let mut needle = vec![0xFF, 0xFE];
        needle.extend(utf16le(&head));
        assert!(
            find(&bytes, &needle),
            "row {id} ({layout}) is not stored as FF FE + UTF-16LE"
        );
        // and not in Access's own compressed form (one byte a character)
        // (for one character the compressed form is a prefix of the marked one)
        if text.chars().count() > 1 && text.chars().all(|c| ('\u{1}'..='\u{ff}').contains(&c)) {
            let mut compressed = vec![0xFF, 0xFE];
            compressed.extend(head.chars().map(|c| u8::try_from(u32::from(c)).unwrap()));
            assert!(!find(&bytes, &compressed), "row {id} is stored compressed");
        }
    }
}

#[test]
fn jetsql_reads_the_generators_text() {
    let db = Database::open(fixture(), Default::default()).unwrap();
    let table = db.table("Notes").unwrap();
    let mut got = BTreeMap::new();
    for batch in table.scan(ScanOptions::default()).unwrap() {
        let b: RecordBatch = batch.unwrap();
        let ids = b.column_by_name("ID").unwrap().as_primitive::<Int32Type>();
        let body = b.column_by_name("Body").unwrap().as_string::<i32>();
        let layout = b.column_by_name("Layout").unwrap().as_string::<i32>();
        for i in 0..b.num_rows() {
            assert!(!body.is_null(i));
            got.insert(ids.value(i), body.value(i).to_string());
            let want = jet_fixtures::long_text_rows()
                .into_iter()
                .find(|r| r.0 == ids.value(i))
                .unwrap()
                .1;
            assert_eq!(layout.value(i), want);
        }
    }
    let want = expected();
    assert_eq!(got.len(), want.len());
    for (id, text) in &want {
        let g = &got[id];
        assert_eq!(
            g.chars().count(),
            text.chars().count(),
            "row {id}: length differs (the every-second-character bug?)"
        );
        assert_eq!(g, text, "row {id}");
    }
    assert!(want[&3].chars().count() >= 2400);
}

#[test]
fn mdbtools_reads_the_same_text() {
    let Some((program, _)) = require_mdb_export() else {
        return;
    };
    let out = run_mdb_export(&program, &[], &fixture(), "Notes").unwrap();
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(out.stdout.as_slice());
    let want = expected();
    let mut n = 0;
    for rec in r.records() {
        let rec = rec.unwrap();
        let id: i32 = rec[0].parse().unwrap();
        // mdbtools converts from UCS-2 and prints one '?' per UTF-16 unit
        // of a character outside the Basic Multilingual Plane
        let text: String = want[&id]
            .chars()
            .map(|c| {
                if c.len_utf16() == 2 {
                    "??".to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
        assert_eq!(&rec[2], text, "row {id}");
        n += 1;
    }
    assert_eq!(n, want.len());
}

#[test]
fn mdb_reader_reads_the_same_text() {
    let Some(script) = require_mdb_reader() else {
        return;
    };
    let ReaderDump::Tables(tables) = dump(&script, &fixture(), None).unwrap() else {
        panic!("mdb-reader refused {}", fixture().display());
    };
    let t = tables.iter().find(|t| t.name == "Notes").unwrap();
    assert_eq!(t.error, None);
    let want = expected();
    assert_eq!(t.rows.len(), want.len());
    for row in &t.rows {
        let id: i32 = row[0].as_deref().unwrap().parse().unwrap();
        assert_eq!(row[2].as_deref(), Some(want[&id].as_str()), "row {id}");
    }
}
