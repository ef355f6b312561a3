//! Index maintenance against real Access indexes: every index of every
//! unencrypted corpus file has all its entries deleted (in random order)
//! and re-inserted (in another random order) through `index_write`; after
//! each phase the tree is checked page by page and walked, and the final
//! walk equals the walk of the index Access wrote. The changed image is then
//! reopened as a database and the table's index read through the public
//! API.

use jet_storage::index::write::{delete_entry, insert_entry, key_exists};
use jet_storage::index::{
    Bookmark, Direction, IndexReader, KeyMatch, decode_index_page, read_index_page,
};
use jet_storage::page::{MemPageSource, Page, PageSource};
use jet_storage::{Database, FormatError, OpenOptions, PageStore};
use jet_tests::{corpus, list_files};
use std::collections::BTreeSet;
use std::ops::Bound;

const SKIP: &[&str] = &[
    "db-nonstandard.accdb",
    "db2007-enc.accdb",
    "db2007-oldenc.accdb",
];

/// A page store over a database image held as a vector of pages.
struct VecStore {
    page_size: usize,
    pages: Vec<Vec<u8>>,
}

impl VecStore {
    fn image(&self) -> Vec<u8> {
        self.pages.concat()
    }
}

impl PageStore for VecStore {
    fn page_size(&self) -> usize {
        self.page_size
    }
    fn page_count(&self) -> u32 {
        self.pages.len() as u32
    }
    fn read(&self, n: u32) -> Result<Page, FormatError> {
        self.pages
            .get(n as usize)
            .map(|p| Page::from(p.as_slice()))
            .ok_or(FormatError::PageOutOfRange {
                page: n,
                pages: self.pages.len() as u32,
            })
    }
    fn write(&mut self, n: u32, bytes: &[u8]) -> Result<(), FormatError> {
        let pages = self.pages.len() as u32;
        let p = self
            .pages
            .get_mut(n as usize)
            .ok_or(FormatError::PageOutOfRange { page: n, pages })?;
        p.copy_from_slice(bytes);
        Ok(())
    }
    fn append(&mut self) -> Result<u32, FormatError> {
        self.pages.push(vec![0; self.page_size]);
        Ok(self.pages.len() as u32 - 1)
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
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

type Entries = Vec<(Vec<u8>, Bookmark)>;

/// Every page of the tree decodes and every node entry carries the last
/// entry of its child's subtree; returns the forward walk.
fn walk_checked(
    src: &MemPageSource,
    layout: &jet_storage::format::Layout,
    tdef: u32,
    root: u32,
) -> Entries {
    fn last_of(
        src: &MemPageSource,
        layout: &jet_storage::format::Layout,
        tdef: u32,
        n: u32,
        depth: usize,
    ) -> Option<(Vec<u8>, Bookmark)> {
        assert!(depth < 32, "tree too deep at page {n}");
        let p = read_index_page(src, layout, n, tdef).unwrap();
        if p.leaf {
            return p.entries.last().map(|e| (e.key.clone(), e.bookmark));
        }
        let mut last = None;
        for e in &p.entries {
            let got = last_of(src, layout, tdef, e.child.unwrap(), depth + 1);
            assert_eq!(
                got,
                Some((e.key.clone(), e.bookmark)),
                "separator on page {n}"
            );
            last = got;
        }
        if p.tail != 0 {
            last = last_of(src, layout, tdef, p.tail, depth + 1);
        }
        last
    }
    last_of(src, layout, tdef, root, 0);
    let r = IndexReader::at(src, layout, tdef, root);
    let fwd: Entries = r
        .walk(Direction::Forward)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.key, e.bookmark)
        })
        .collect();
    let mut back: Entries = r
        .walk(Direction::Backward)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.key, e.bookmark)
        })
        .collect();
    back.reverse();
    assert_eq!(fwd, back, "backward walk");
    fwd
}

#[test]
fn corpus_indexes_survive_delete_all_and_reinsert() {
    let Some(root_dir) = corpus() else { return };
    let mut rng = Rng(0x5EED_1DE5_0F00_0001);
    let (mut indexes, mut entries_total, mut reopened, mut allocated, mut freed) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    for rel in list_files(&root_dir) {
        if SKIP.iter().any(|e| rel.ends_with(e)) || rel.ends_with(".mny") {
            continue;
        }
        let Ok(db) = Database::open(root_dir.join(&rel), OpenOptions::default()) else {
            continue;
        };
        let src = db.page_source();
        let layout = db.version().layout();
        let ps = src.page_size();
        let raw = std::fs::read(root_dir.join(&rel)).unwrap();
        let mut store = VecStore {
            page_size: ps,
            pages: (0..src.page_count())
                .map(|n| src.read_page(n).unwrap().to_vec())
                .collect(),
        };
        // pages are stored as read (an RC4-encoded file would need its
        // encoding back before it could be reopened)
        let plain = store.image() == raw[..store.pages.len() * ps];
        let mut changed_tables = Vec::new();
        for name in db.table_names() {
            let t = db.table(&name).unwrap();
            let tdef = t.def().page;
            for (n, real) in t.def().real_indexes.iter().enumerate() {
                let ctx = format!("{rel} / {name} / real index {n}");
                let root = real.root_page;
                let snapshot = MemPageSource::new(store.image(), ps);
                let original = walk_checked(&snapshot, layout, tdef, root);
                let mut order = original.clone();
                rng.shuffle(&mut order);
                for (k, bm) in &order {
                    let p = delete_entry(&mut store, layout, root, tdef, k, bm.page, bm.row)
                        .unwrap_or_else(|e| panic!("{ctx}: delete {bm:?}: {e}"));
                    allocated += p.allocated.len();
                    freed += p.freed.len();
                }
                let snapshot = MemPageSource::new(store.image(), ps);
                assert!(
                    walk_checked(&snapshot, layout, tdef, root).is_empty(),
                    "{ctx}"
                );
                let rp = decode_index_page(&snapshot.read_page(root).unwrap(), layout, root, tdef)
                    .unwrap();
                assert!(rp.leaf && rp.entries.is_empty(), "{ctx}: empty root leaf");
                rng.shuffle(&mut order);
                for (k, bm) in &order {
                    let p = insert_entry(&mut store, layout, root, tdef, k, bm.page, bm.row)
                        .unwrap_or_else(|e| panic!("{ctx}: insert {bm:?}: {e}"));
                    allocated += p.allocated.len();
                    freed += p.freed.len();
                }
                let snapshot = MemPageSource::new(store.image(), ps);
                let again = walk_checked(&snapshot, layout, tdef, root);
                assert_eq!(again, original, "{ctx}: walk after delete-all and reinsert");
                // seeks and the unique check find every key
                let keys: BTreeSet<&Vec<u8>> = original.iter().map(|(k, _)| k).collect();
                let r = IndexReader::at(&snapshot, layout, tdef, root);
                for k in keys.iter().step_by(1 + keys.len() / 25) {
                    let got: Vec<Bookmark> = r
                        .seek(Bound::Included(k), Bound::Included(k), KeyMatch::Full)
                        .unwrap()
                        .into_iter()
                        .map(|e| e.bookmark)
                        .collect();
                    let want: Vec<Bookmark> = original
                        .iter()
                        .filter(|(x, _)| x == *k)
                        .map(|(_, b)| *b)
                        .collect();
                    assert_eq!(got, want, "{ctx}: seek");
                    assert!(key_exists(&store, layout, root, tdef, k).unwrap(), "{ctx}");
                }
                indexes += 1;
                entries_total += original.len();
                changed_tables.push((name.clone(), n, original));
            }
        }
        if plain && !changed_tables.is_empty() {
            // the rewritten image opens and its indexes walk as Access's did
            let db2 = Database::from_bytes(store.image()).unwrap();
            for (name, n, original) in changed_tables {
                let t = db2.table(&name).unwrap();
                let walk: Entries = t
                    .index(n)
                    .unwrap()
                    .walk(Direction::Forward)
                    .unwrap()
                    .map(|e| {
                        let e = e.unwrap();
                        (e.key, e.bookmark)
                    })
                    .collect();
                assert_eq!(walk, original, "{rel} / {name} / index {n} after reopening");
            }
            reopened += 1;
        }
    }
    eprintln!(
        "{indexes} corpus indexes, {entries_total} entries deleted and re-inserted; {allocated} pages allocated, {freed} freed; {reopened} rewritten files reopened"
    );
    assert!(indexes > 100);
}
