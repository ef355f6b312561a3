//! Every index of every unencrypted corpus table: a full walk visits exactly
//! the live rows, in non-decreasing key order (both directions); re-encoding
//! each row's stored values gives the key bytes Access wrote; seeks agree
//! with filtered scans.

use jet_storage::error::KeyError;
use jet_storage::index::key::encode_key;
use jet_storage::index::{Bookmark, Direction, KeyMatch};
use jet_storage::{Database, JetType, OpenOptions};
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
    text_keys: usize,
    text_checked: usize,
    unknown_chars: BTreeMap<u16, usize>,
    mismatches: Vec<String>,
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
                            row[pos] == jet_storage::format::OwnedField::Null
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
            let (mut checked, mut refused) = (0usize, 0usize);
            for e in &fwd {
                let row = t.raw_row(e.bookmark).unwrap().expect("live row");
                let has_text = real.key.iter().any(|(num, _)| {
                    t.def()
                        .columns
                        .iter()
                        .any(|c| c.col_num == *num && c.jet_type == JetType::Text)
                });
                match encode_key(&t.def().columns, &real.key, &row, db.version()) {
                    Ok(k) => {
                        if k != e.key {
                            rep.mismatches.push(format!(
                                "{ctx}: re-encoded key differs for row {:?}: {:02X?} vs Access {:02X?}",
                                e.bookmark, k, e.key
                            ));
                        }
                        rep.keys_checked += 1;
                        checked += 1;
                        if has_text {
                            rep.text_checked += 1;
                        }
                    }
                    Err(KeyError::Unsupported { jet_type, .. }) => {
                        *rep.refused.entry(jet_type.to_string()).or_default() += 1;
                        refused += 1;
                    }
                    Err(KeyError::UnknownChar { unit, .. }) => {
                        *rep.unknown_chars.entry(unit).or_default() += 1;
                        *rep.refused
                            .entry("Text (unknown character)".into())
                            .or_default() += 1;
                        refused += 1;
                    }
                    Err(e) => panic!("{ctx}: {e}"),
                }
                if has_text {
                    rep.text_keys += 1;
                }
            }
            eprintln!(
                "{ctx}: {} entries, {checked} keys re-encoded byte for byte, {refused} refused",
                fwd.len()
            );
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
        text_keys: 0,
        text_checked: 0,
        unknown_chars: BTreeMap::new(),
        mismatches: Vec::new(),
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
    eprintln!(
        "text keys: {} of {} re-encoded byte for byte; characters without a code: {:?}",
        rep.text_checked,
        rep.text_keys,
        rep.unknown_chars
            .iter()
            .map(|(u, n)| format!("U+{u:04X}×{n}"))
            .collect::<Vec<_>>()
    );
    for m in rep.mismatches.iter().take(40) {
        eprintln!("{m}");
    }
    assert!(rep.indexes > 100);
    assert!(
        rep.mismatches.is_empty(),
        "{} keys re-encode differently",
        rep.mismatches.len()
    );
    for t in rep.refused.keys() {
        assert!(
            t.starts_with("Text") || t == "Memo",
            "non-text keys refused: {:?}",
            rep.refused
        );
    }
}

/// Orders two seekable values the way Arrow orders them (None: not comparable here).
fn value_cmp(
    a: &jet_storage::index::key::KeyValue,
    b: &jet_storage::index::key::KeyValue,
) -> Option<std::cmp::Ordering> {
    use jet_storage::index::key::KeyValue as K;
    match (a, b) {
        (K::Int(x), K::Int(y)) => Some(x.cmp(y)),
        (K::Float(x), K::Float(y)) => Some(x.total_cmp(y)),
        (K::Decimal { value: x, scale: s }, K::Decimal { value: y, scale: t }) if s == t => {
            Some(x.cmp(y))
        }
        (K::TimestampMicros(x), K::TimestampMicros(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Seeks by value on the first key column of every non-text index agree
/// with a filtered full scan: equality on sampled values (NULL included) and
/// random ranges, each result re-checked the way the provider will.
#[test]
fn value_seeks_agree_with_filtered_scans() {
    use jet_storage::ScanOptions;
    use jet_storage::index::key::{KeyValue, first_column_bounds};
    let Some(root) = corpus() else { return };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut eq_checked, mut range_checked, mut indexes) = (0usize, 0usize, 0usize);
    for rel in list_files(&root) {
        if ENCRYPTED.iter().any(|e| rel.ends_with(e)) || rel.ends_with(".mny") {
            continue;
        }
        let Ok(db) = Database::open(root.join(&rel), OpenOptions::default()) else {
            continue;
        };
        for name in db.table_names() {
            let t = db.table(&name).unwrap();
            let marks = t.bookmarks().unwrap();
            let batches: Vec<_> = t
                .scan(ScanOptions::default())
                .unwrap()
                .map(|b| b.unwrap())
                .collect();
            let Ok(batch) = arrow_select::concat::concat_batches(&t.schema(), &batches) else {
                continue;
            };
            assert_eq!(batch.num_rows(), marks.len());
            let pos: std::collections::HashMap<Bookmark, usize> =
                marks.iter().enumerate().map(|(i, b)| (*b, i)).collect();
            for (n, real) in t.def().real_indexes.iter().enumerate() {
                let Some(&(num, dir)) = real.key.first() else {
                    continue;
                };
                let ci = t
                    .def()
                    .columns
                    .iter()
                    .position(|c| c.col_num == num)
                    .unwrap();
                let col = &t.def().columns[ci];
                let arr = batch.column(ci);
                let values: Vec<Option<KeyValue>> = (0..batch.num_rows())
                    .map(|i| KeyValue::from_array(arr.as_ref(), i))
                    .collect();
                if values.iter().any(|v| v.is_none())
                    || col.is_calculated()
                    || batch.num_rows() == 0
                {
                    continue;
                }
                let ctx = format!("{rel} / {name} / index {n} on {}", col.name);
                let idx = t.index(n).unwrap();
                let indexed: HashSet<Bookmark> = idx
                    .walk(Direction::Forward)
                    .unwrap()
                    .map(|e| e.unwrap().bookmark)
                    .collect();
                let seek = |lo: Bound<&KeyValue>,
                            hi: Bound<&KeyValue>|
                 -> Option<HashSet<Bookmark>> {
                    let (l, h) = first_column_bounds(col, dir, lo, hi, db.version()).unwrap()?;
                    let got = idx
                        .seek(
                            l.as_ref().map(|v| v.as_slice()),
                            h.as_ref().map(|v| v.as_slice()),
                            KeyMatch::Prefix,
                        )
                        .unwrap();
                    Some(got.into_iter().map(|e| e.bookmark).collect())
                };
                indexes += 1;
                // equality, NULL included
                for _ in 0..8 {
                    let i = rng.below(values.len());
                    let v = values[i].clone().unwrap();
                    let want: HashSet<Bookmark> = (0..values.len())
                        .filter(|&j| {
                            arr.is_null(j) == arr.is_null(i)
                                && (arr.is_null(i) || values[j] == values[i])
                        })
                        .map(|j| marks[j])
                        .filter(|b| indexed.contains(b))
                        .collect();
                    let got = seek(Bound::Included(&v), Bound::Included(&v)).unwrap_or_default();
                    assert!(
                        want.is_subset(&got),
                        "{ctx}: equality seek on {v:?} missed rows"
                    );
                    let rechecked: HashSet<Bookmark> = got
                        .into_iter()
                        .filter(|b| values[pos[b]] == values[i])
                        .collect();
                    assert_eq!(rechecked, want, "{ctx}: equality seek on {v:?}");
                    eq_checked += 1;
                }
                // random ranges, open and closed
                for _ in 0..8 {
                    let (a, b) = (
                        values[rng.below(values.len())].clone().unwrap(),
                        values[rng.below(values.len())].clone().unwrap(),
                    );
                    let Some(ord) = value_cmp(&a, &b) else {
                        continue;
                    };
                    let (a, b) = if ord.is_gt() { (b, a) } else { (a, b) };
                    let shape = rng.below(3);
                    let (lo, hi) = match shape {
                        0 => (Bound::Included(&a), Bound::Included(&b)),
                        1 => (Bound::Unbounded, Bound::Included(&b)),
                        _ => (Bound::Included(&a), Bound::Unbounded),
                    };
                    let inside = |v: &KeyValue| {
                        let ge = match lo {
                            Bound::Included(x) => value_cmp(v, x).is_some_and(|o| o.is_ge()),
                            _ => true,
                        };
                        let le = match hi {
                            Bound::Included(x) => value_cmp(v, x).is_some_and(|o| o.is_le()),
                            _ => true,
                        };
                        ge && le
                    };
                    let want: HashSet<Bookmark> = (0..values.len())
                        .filter(|&j| inside(values[j].as_ref().unwrap()))
                        .map(|j| marks[j])
                        .filter(|b| indexed.contains(b))
                        .collect();
                    let got = seek(lo, hi).unwrap_or_default();
                    assert!(
                        want.is_subset(&got),
                        "{ctx}: range seek {lo:?}..{hi:?} missed rows"
                    );
                    let rechecked: HashSet<Bookmark> = got
                        .into_iter()
                        .filter(|b| inside(values[pos[b]].as_ref().unwrap()))
                        .collect();
                    assert_eq!(rechecked, want, "{ctx}: range seek");
                    range_checked += 1;
                }
            }
        }
    }
    eprintln!(
        "{indexes} indexes: {eq_checked} equality and {range_checked} range seeks agree with filtered scans"
    );
    assert!(eq_checked > 500 && range_checked > 200);
}

/// Finds, over the corpus, the index with the most entries and a tree of at
/// least two levels.
fn tallest_index(root: &std::path::Path) -> Option<(String, String, usize, usize, usize)> {
    let mut best: Option<(String, String, usize, usize, usize)> = None;
    for rel in list_files(root) {
        if ENCRYPTED.iter().any(|e| rel.ends_with(e)) || rel.ends_with(".mny") {
            continue;
        }
        let Ok(db) = Database::open(root.join(&rel), OpenOptions::default()) else {
            continue;
        };
        for name in db.table_names() {
            let t = db.table(&name).unwrap();
            for n in 0..t.def().real_indexes.len() {
                let idx = t.index(n).unwrap();
                let h = idx.height().unwrap();
                let count = idx.walk(Direction::Forward).unwrap().count();
                if h >= 2 && best.as_ref().is_none_or(|b| count > b.4) {
                    best = Some((rel.clone(), name.clone(), n, h, count));
                }
            }
        }
    }
    best
}

/// A point seek on the largest multi-level corpus index reads at most the
/// tree height plus the pages of the rows it fetches.
#[test]
fn point_seek_reads_log_n_pages() {
    use jet_storage::ScanOptions;
    let Some(root) = corpus() else { return };
    let (rel, name, n, height, count) =
        tallest_index(&root).expect("a multi-level index in the corpus");
    let db = Database::open(
        root.join(&rel),
        OpenOptions {
            cache_pages: 0,
            ..Default::default()
        },
    )
    .unwrap();
    let t = db.table(&name).unwrap();
    let idx = t.index(n).unwrap();
    let entries: Vec<_> = idx
        .walk(Direction::Forward)
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    let mut worst = 0;
    for e in entries.iter().step_by(1 + entries.len() / 50) {
        let before = db.pages_read();
        let found = idx
            .seek(
                Bound::Included(&e.key),
                Bound::Included(&e.key),
                KeyMatch::Full,
            )
            .unwrap();
        let leaves_extra = {
            // entries equal to this key may continue on following leaves
            let same = entries.iter().filter(|x| x.key == e.key).count();
            same.div_ceil(2).max(1) - 1
        };
        let marks: Vec<Bookmark> = found.iter().map(|x| x.bookmark).collect();
        let row_pages: HashSet<u32> = marks.iter().map(|b| b.page).collect();
        let rows: usize = t
            .fetch(marks, ScanOptions::default())
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum();
        let read = db.pages_read() - before;
        assert!(rows >= 1);
        let limit = height as u64 + 1 + leaves_extra as u64 + row_pages.len() as u64;
        assert!(
            read <= limit,
            "{rel} {name}: seek read {read} pages, limit {limit} (height {height})"
        );
        worst = worst.max(read);
    }
    eprintln!(
        "{rel} / {name} / index {n}: {count} entries, height {height}; worst point seek + fetch read {worst} pages"
    );
}

/// Corrupted index pages are typed errors, never a panic or a hang: a leaf
/// chain that loops, an entry bitmap pointing past the page end, a child
/// pointer to a data page.
#[test]
fn bad_index_pages_are_typed_errors() {
    let Some(root) = corpus() else { return };
    let (rel, name, n, _, _) = tallest_index(&root).expect("a multi-level index in the corpus");
    let orig = std::fs::read(root.join(&rel)).unwrap();
    let db = Database::from_bytes(orig.clone()).unwrap();
    let t = db.table(&name).unwrap();
    let ps = db.page_source().page_size();
    let layout = db.version().layout();
    let root_page = t.def().real_indexes[n].root_page as usize;
    let idx = t.index(n).unwrap();
    let first_leaf = {
        let e = idx.first().unwrap().unwrap();
        // find the leaf holding the first entry by walking the root's first child chain
        let mut p = root_page;
        loop {
            let page = jet_storage::index::read_index_page(
                &**db.page_source(),
                layout,
                p as u32,
                t.def().page,
            )
            .unwrap();
            if page.leaf {
                assert_eq!(page.entries[0], e);
                break p;
            }
            p = page.entries[0].child.unwrap() as usize;
        }
    };
    let first_data_page = t.data_pages().unwrap()[0];
    let walk_err = |bytes: Vec<u8>| -> bool {
        let db = Database::from_bytes(bytes).unwrap();
        let t = db.table(&name).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let idx = t.index(n).unwrap();
            match idx.walk(Direction::Forward) {
                Err(_) => true,
                Ok(w) => w.take(1_000_000).any(|e| e.is_err()),
            }
        }));
        r.expect("no panic")
    };
    // 1. the first leaf's next pointer points back at itself
    let mut b = orig.clone();
    let o = first_leaf * ps + layout.index_next;
    b[o..o + 4].copy_from_slice(&(first_leaf as u32).to_le_bytes());
    assert!(walk_err(b), "looping leaf chain");
    // 2. an entry-boundary bit past the end of the entry area
    let mut b = orig.clone();
    let mask_end = first_leaf * ps + layout.index_entry_mask + layout.index_entry_mask_len;
    let entry_area = ps - layout.index_entry_mask - layout.index_entry_mask_len;
    // bits beyond the area exist only when the mask is larger than the area
    if layout.index_entry_mask_len * 8 > entry_area + 1 {
        b[mask_end - 1] = 0xFF;
        for byte in &mut b[first_leaf * ps + layout.index_entry_mask..mask_end - 1] {
            *byte = 0;
        }
        assert!(walk_err(b), "entry crossing the page end");
    }
    // 3. the root's first child pointer aimed at a data page
    let mut b = orig.clone();
    let rp = jet_storage::index::read_index_page(
        &**db.page_source(),
        layout,
        root_page as u32,
        t.def().page,
    )
    .unwrap();
    assert!(!rp.leaf);
    // the first entry ends at the first set mask bit; its last 4 bytes are the child
    let area = root_page * ps + layout.index_entry_mask + layout.index_entry_mask_len;
    let mask = &orig[root_page * ps + layout.index_entry_mask..area];
    let first_end = (1..mask.len() * 8)
        .find(|&i| mask[i / 8] >> (i % 8) & 1 == 1)
        .unwrap();
    b[area + first_end - 4..area + first_end].copy_from_slice(&first_data_page.to_be_bytes());
    assert!(walk_err(b), "child pointer to a data page");
}

/// A text equality seek finds the rows Access's collation calls equal:
/// case and trailing spaces do not count, so the seek is a superset the
/// provider re-checks ([`jet_storage::index::key::seek_fidelity`]), and a
/// text range is refused rather than seeked in the wrong order.
#[test]
fn text_equality_seeks_are_case_insensitive_supersets() {
    use jet_storage::ScanOptions;
    use jet_storage::index::key::{KeyValue, first_column_bounds, seek_fidelity};
    let Some(root) = corpus() else { return };
    let db = Database::open(root.join("mdbtools/nwind.mdb"), OpenOptions::default()).unwrap();
    let t = db.table("Customers").unwrap();
    let marks = t.bookmarks().unwrap();
    let ids: Vec<String> = {
        let batches: Vec<_> = t
            .scan(ScanOptions::default())
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        let ci = t
            .def()
            .columns
            .iter()
            .position(|c| c.name == "CustomerID")
            .unwrap();
        batches
            .iter()
            .flat_map(|b| {
                let a = b
                    .column(ci)
                    .as_any()
                    .downcast_ref::<arrow_array::StringArray>()
                    .unwrap()
                    .clone();
                (0..arrow_array::Array::len(&a)).map(move |i| a.value(i).to_string())
            })
            .collect()
    };
    let (n, real) = t
        .def()
        .real_indexes
        .iter()
        .enumerate()
        .find(|(_, r)| {
            r.key.len() == 1
                && t.def()
                    .columns
                    .iter()
                    .any(|c| c.col_num == r.key[0].0 && c.name == "CustomerID")
        })
        .expect("an index on CustomerID");
    let col = t
        .def()
        .columns
        .iter()
        .find(|c| c.col_num == real.key[0].0)
        .unwrap();
    assert!(!seek_fidelity(col).equality_exact && !seek_fidelity(col).order_matches_arrow);
    let idx = t.index(n).unwrap();
    let mut checked = 0;
    for (i, id) in ids.iter().enumerate() {
        for literal in [id.clone(), id.to_lowercase(), format!("{id}  ")] {
            let v = KeyValue::Text(literal.clone());
            let (lo, hi) = first_column_bounds(
                col,
                real.key[0].1,
                Bound::Included(&v),
                Bound::Included(&v),
                db.version(),
            )
            .unwrap()
            .unwrap();
            let got: Vec<Bookmark> = idx
                .seek(
                    lo.as_ref().map(|x| x.as_slice()),
                    hi.as_ref().map(|x| x.as_slice()),
                    KeyMatch::Prefix,
                )
                .unwrap()
                .into_iter()
                .map(|e| e.bookmark)
                .collect();
            assert_eq!(
                got,
                vec![marks[i]],
                "seek {literal:?} finds {id:?} (and only it)"
            );
            checked += 1;
        }
    }
    assert!(checked > 200);
    let a = KeyValue::Text("A".into());
    let b = KeyValue::Text("B".into());
    assert!(
        first_column_bounds(
            col,
            real.key[0].1,
            Bound::Included(&a),
            Bound::Included(&b),
            db.version()
        )
        .is_err()
    );
}
