//! Every index of every unencrypted corpus table: a full walk visits exactly
//! the live rows, in non-decreasing key order (both directions); re-encoding
//! each row's stored values gives the key bytes Access wrote; seeks agree
//! with filtered scans.

use jet_storage::index::{Bookmark, Direction, KeyMatch};
use jet_storage::index_key::{KeyError, encode_key};
use jet_storage::{Database, OpenOptions};
use jet_tests::{corpus, list_files};
use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;

const ENCRYPTED: &[&str] = &[
    "db-nonstandard.accdb",
    "db2007-enc.accdb",
    "db2007-oldenc.accdb",
];

struct Report {
    indexes: usize,
    entries: usize,
    keys_checked: usize,
    refused: BTreeMap<String, usize>,
    seeks: usize,
}

fn check_file(path: &std::path::Path, rel: &str, rep: &mut Report) {
    let Ok(db) = Database::open(path, OpenOptions::default()) else {
        return;
    };
    for name in db.table_names() {
        let t = db
            .table(&name)
            .unwrap_or_else(|e| panic!("{rel} {name}: {e}"));
        let live: HashSet<Bookmark> = t.bookmarks().unwrap().into_iter().collect();
        for (n, real) in t.def().real_indexes.iter().enumerate() {
            let ctx = format!("{rel} / {name} / real index {n}");
            let idx = t.index(n).unwrap();
            let fwd: Vec<_> = idx
                .walk(Direction::Forward)
                .unwrap()
                .map(|e| e.unwrap_or_else(|e| panic!("{ctx}: {e}")))
                .collect();
            let marks: Vec<Bookmark> = fwd.iter().map(|e| e.bookmark).collect();
            let set: HashSet<Bookmark> = marks.iter().copied().collect();
            assert_eq!(set.len(), marks.len(), "{ctx}: duplicate bookmarks");
            // an ignore-nulls index leaves out rows whose key columns are all null
            let expected: HashSet<Bookmark> = if real.flags & 0x02 != 0 {
                live.iter()
                    .copied()
                    .filter(|b| {
                        let row = t.raw_row(*b).unwrap().unwrap();
                        !real.key.iter().all(|(num, _)| {
                            let pos = t
                                .def()
                                .columns
                                .iter()
                                .position(|c| c.col_num == *num)
                                .unwrap();
                            row[pos] == jet_storage::scan::OwnedField::Null
                        })
                    })
                    .collect()
            } else {
                live.clone()
            };
            assert_eq!(
                set, expected,
                "{ctx}: walk bookmarks differ from the live rows"
            );
            for w in fwd.windows(2) {
                assert!(w[0].key <= w[1].key, "{ctx}: keys out of order");
            }
            let mut back: Vec<_> = idx
                .walk(Direction::Backward)
                .unwrap()
                .map(|e| e.unwrap())
                .collect();
            back.reverse();
            assert_eq!(back, fwd, "{ctx}: backward walk differs");
            assert_eq!(idx.first().unwrap(), fwd.first().cloned(), "{ctx}");
            assert_eq!(idx.last().unwrap(), fwd.last().cloned(), "{ctx}");
            rep.indexes += 1;
            rep.entries += fwd.len();
            // re-encode every entry's row
            for e in &fwd {
                let row = t.raw_row(e.bookmark).unwrap().expect("live row");
                match encode_key(&t.def().columns, &real.key, &row, db.version()) {
                    Ok(k) => {
                        assert_eq!(
                            k, e.key,
                            "{ctx}: re-encoded key differs for row {:?}",
                            e.bookmark
                        );
                        rep.keys_checked += 1;
                    }
                    Err(KeyError::Unsupported { jet_type, .. }) => {
                        *rep.refused.entry(jet_type.to_string()).or_default() += 1;
                    }
                    Err(e) => panic!("{ctx}: {e}"),
                }
            }
            // seeks agree with the walk: equality on every distinct key and
            // on the first column's prefix, and ranges between keys
            let distinct: Vec<&Vec<u8>> = {
                let mut v: Vec<&Vec<u8>> = fwd.iter().map(|e| &e.key).collect();
                v.dedup();
                v
            };
            for (i, k) in distinct.iter().enumerate().step_by(1 + distinct.len() / 20) {
                let got: Vec<Bookmark> = idx
                    .seek(Bound::Included(k), Bound::Included(k), KeyMatch::Full)
                    .unwrap()
                    .iter()
                    .map(|e| e.bookmark)
                    .collect();
                let want: Vec<Bookmark> = fwd
                    .iter()
                    .filter(|e| &e.key == *k)
                    .map(|e| e.bookmark)
                    .collect();
                assert_eq!(got, want, "{ctx}: equality seek");
                let hi = distinct[(i + 3).min(distinct.len() - 1)];
                let got: Vec<Bookmark> = idx
                    .seek(Bound::Excluded(k), Bound::Included(hi), KeyMatch::Full)
                    .unwrap()
                    .iter()
                    .map(|e| e.bookmark)
                    .collect();
                let want: Vec<Bookmark> = fwd
                    .iter()
                    .filter(|e| &e.key > *k && &e.key <= hi)
                    .map(|e| e.bookmark)
                    .collect();
                assert_eq!(got, want, "{ctx}: range seek");
                rep.seeks += 2;
            }
        }
    }
}

#[test]
fn every_index_walks_encodes_and_seeks() {
    let Some(root) = corpus() else { return };
    let mut rep = Report {
        indexes: 0,
        entries: 0,
        keys_checked: 0,
        refused: BTreeMap::new(),
        seeks: 0,
    };
    for rel in list_files(&root) {
        if ENCRYPTED.iter().any(|e| rel.ends_with(e)) || rel.ends_with(".mny") {
            continue;
        }
        check_file(&root.join(&rel), &rel, &mut rep);
    }
    eprintln!(
        "{} indexes, {} entries walked; {} keys re-encoded byte for byte; refused by type: {:?}; {} seeks checked",
        rep.indexes, rep.entries, rep.keys_checked, rep.refused, rep.seeks
    );
    assert!(rep.indexes > 100);
    for t in rep.refused.keys() {
        assert!(
            t == "Text" || t == "Memo",
            "non-text keys refused: {:?}",
            rep.refused
        );
    }
}
