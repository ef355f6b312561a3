use super::*;
use crate::format::{JetVersion, Layout};
use crate::index::{Bookmark, Direction, IndexReader, KeyMatch, read_index_page};
use crate::page::image::PageStore;
use crate::page::{MemPageSource, Page, PageSource};
use std::collections::BTreeSet;
use std::ops::Bound;

const TDEF: u32 = 2;

/// A page store over a vector of pages (page 0 is a placeholder, as the
/// database header is in a real file).
pub(super) struct VecStore {
    pub(super) page_size: usize,
    pub(super) pages: Vec<Vec<u8>>,
}

impl VecStore {
    pub(super) fn new(page_size: usize) -> Self {
        VecStore {
            page_size,
            pages: vec![vec![0; page_size]; 3],
        }
    }
    fn source(&self) -> MemPageSource {
        MemPageSource::new(self.pages.concat(), self.page_size)
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
        assert_eq!(bytes.len(), p.len());
        p.copy_from_slice(bytes);
        Ok(())
    }
    fn append(&mut self) -> Result<u32, FormatError> {
        self.pages.push(vec![0; self.page_size]);
        Ok(self.pages.len() as u32 - 1)
    }
}

type Model = BTreeSet<(Vec<u8>, Bookmark)>;
/// A node's child: its separator (none for the tail) and page.
type Child = (Option<(Vec<u8>, Bookmark)>, u32);

/// Checks the whole tree against the model: every page decodes, node
/// entries carry their subtree's last entry, the leaf chain links every leaf
/// in order both ways, the free-space field is right, walks and seeks agree.
/// Returns the height.
pub(super) fn check(store: &VecStore, layout: &Layout, root: u32, model: &Model) -> usize {
    let src = store.source();
    let mut leaves = Vec::new();
    // (page, depth) → recursively collect leaves; return subtree last entry
    fn visit(
        src: &MemPageSource,
        layout: &Layout,
        n: u32,
        depth: usize,
        leaves: &mut Vec<(u32, usize)>,
    ) -> Option<(Vec<u8>, Bookmark)> {
        let p = read_index_page(src, layout, n, TDEF).unwrap();
        let raw = src.read_page(n).unwrap();
        // free space: page size minus the end of the last entry
        let area = layout.index_entry_mask + layout.index_entry_mask_len;
        let mask = &raw[layout.index_entry_mask..area];
        let end = (0..mask.len() * 8)
            .rev()
            .find(|&i| mask[i / 8] >> (i % 8) & 1 == 1)
            .unwrap_or(0);
        assert_eq!(
            u16::from_le_bytes([raw[2], raw[3]]) as usize,
            layout.page_size - area - end,
            "free space of page {n}"
        );
        if p.leaf {
            leaves.push((n, depth));
            return p.entries.last().map(|e| (e.key.clone(), e.bookmark));
        }
        let mut children: Vec<Child> = p
            .entries
            .iter()
            .map(|e| (Some((e.key.clone(), e.bookmark)), e.child.unwrap()))
            .collect();
        if p.tail != 0 {
            assert!(!children.is_empty(), "tail without entries on {n}");
            children.push((None, p.tail));
        } else {
            assert_eq!(
                children.len(),
                1,
                "node {n} with several children and no tail"
            );
        }
        // node children are linked only among themselves, in order
        let numbers: Vec<u32> = children.iter().map(|c| c.1).collect();
        for (i, &c) in numbers.iter().enumerate() {
            let cp = read_index_page(src, layout, c, TDEF).unwrap();
            if !cp.leaf {
                let prev = if i == 0 { 0 } else { numbers[i - 1] };
                let next = numbers.get(i + 1).copied().unwrap_or(0);
                assert_eq!(
                    (cp.prev, cp.next),
                    (prev, next),
                    "links of node {c} under {n}"
                );
            }
        }
        let mut last = None;
        for (sep, c) in children {
            let got = visit(src, layout, c, depth + 1, leaves);
            if let Some(sep) = sep {
                assert_eq!(Some(sep), got, "separator of child {c} on node {n}");
            }
            last = got;
        }
        last
    }
    visit(&src, layout, root, 1, &mut leaves);
    let height = leaves[0].1;
    assert!(leaves.iter().all(|l| l.1 == height), "leaves at one depth");
    for (i, &(n, _)) in leaves.iter().enumerate() {
        let p = read_index_page(&src, layout, n, TDEF).unwrap();
        let prev = if i == 0 { 0 } else { leaves[i - 1].0 };
        let next = leaves.get(i + 1).map_or(0, |l| l.0);
        assert_eq!((p.prev, p.next), (prev, next), "links of leaf {n}");
        assert!(!p.entries.is_empty() || leaves.len() == 1, "empty leaf {n}");
    }
    let reader = IndexReader::at(&src, layout, TDEF, root);
    let fwd: Vec<(Vec<u8>, Bookmark)> = reader
        .walk(Direction::Forward)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.key, e.bookmark)
        })
        .collect();
    let want: Vec<(Vec<u8>, Bookmark)> = model.iter().cloned().collect();
    assert_eq!(fwd, want, "forward walk equals the model");
    let mut back: Vec<(Vec<u8>, Bookmark)> = reader
        .walk(Direction::Backward)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.key, e.bookmark)
        })
        .collect();
    back.reverse();
    assert_eq!(back, want, "backward walk equals the model");
    let keys: BTreeSet<&Vec<u8>> = model.iter().map(|(k, _)| k).collect();
    for k in keys {
        let got: Vec<Bookmark> = reader
            .seek(Bound::Included(k), Bound::Included(k), KeyMatch::Full)
            .unwrap()
            .into_iter()
            .map(|e| e.bookmark)
            .collect();
        let want: Vec<Bookmark> = model
            .iter()
            .filter(|(x, _)| x == k)
            .map(|(_, b)| *b)
            .collect();
        assert_eq!(got, want, "seek {k:02X?}");
        assert!(key_exists(store, layout, root, TDEF, k).unwrap());
    }
    height
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A random key: a shared-prefix-friendly shape (flag byte, a few letters
/// from a small alphabet, variable length) so pages get prefixes and ties.
fn random_key(rng: &mut Rng, max_len: u64) -> Vec<u8> {
    let len = 1 + rng.below(max_len);
    let mut k = vec![0x7F];
    for _ in 0..len {
        k.push(0x40 + rng.below(4) as u8);
    }
    k
}

fn random_ops(version: JetVersion, max_len: u64, inserts: usize, seed: u64) -> usize {
    let layout = version.layout();
    let mut store = VecStore::new(layout.page_size);
    let (root, pages) = build_index(&mut store, layout, TDEF, &[]).unwrap();
    assert_eq!(pages.allocated, vec![root]);
    let mut model = Model::new();
    let mut rng = Rng(seed);
    let mut max_height = 0;
    let mut owned: BTreeSet<u32> = BTreeSet::from([root]);
    for batch in 0..8 {
        for _ in 0..inserts / 8 {
            let k = random_key(&mut rng, max_len);
            let bm = Bookmark {
                page: 10 + rng.below(50) as u32,
                row: rng.below(4) as u8,
            };
            if model.insert((k.clone(), bm)) {
                let p = insert_entry(&mut store, layout, root, TDEF, &k, bm.page, bm.row).unwrap();
                assert!(p.freed.is_empty());
                owned.extend(p.allocated);
            }
        }
        max_height = max_height.max(check(&store, layout, root, &model));
        // delete about a third (everything in the last batch)
        let victims: Vec<(Vec<u8>, Bookmark)> = model
            .iter()
            .filter(|_| batch == 7 || rng.below(3) == 0)
            .cloned()
            .collect();
        for (k, bm) in victims {
            model.remove(&(k.clone(), bm));
            let p = delete_entry(&mut store, layout, root, TDEF, &k, bm.page, bm.row).unwrap();
            for f in p.freed {
                assert!(owned.remove(&f), "freed page {f} was not the index's");
            }
            owned.extend(p.allocated);
        }
        check(&store, layout, root, &model);
    }
    assert!(model.is_empty());
    let p = read_index_page(&store.source(), layout, root, TDEF).unwrap();
    assert!(
        p.leaf && p.entries.is_empty(),
        "an emptied index is an empty root leaf"
    );
    assert_eq!(owned, BTreeSet::from([root]), "every other page was freed");
    max_height
}

#[test]
fn random_inserts_and_deletes_jet4() {
    let h = random_ops(JetVersion::Jet4, 40, 1600, 0x1234_5678_9abc_def1);
    assert!(h >= 2, "height {h}");
}

#[test]
fn random_inserts_and_deletes_jet3_to_height_three() {
    // long keys on 2 KiB pages: few entries per page, a deep tree
    let h = random_ops(JetVersion::Jet3, 300, 1200, 0xdead_beef_cafe_f00d);
    assert!(h >= 3, "height {h}");
}

#[test]
fn build_then_delete_everything_and_reinsert() {
    let layout = JetVersion::Jet4.layout();
    let mut rng = Rng(77);
    let mut model = Model::new();
    while model.len() < 3000 {
        let k = random_key(&mut rng, 30);
        model.insert((
            k,
            Bookmark {
                page: rng.below(1000) as u32 + 5,
                row: rng.below(200) as u8,
            },
        ));
    }
    let entries: Vec<(Vec<u8>, Bookmark)> = model.iter().cloned().collect();
    let mut store = VecStore::new(layout.page_size);
    let (root, _) = build_index(&mut store, layout, TDEF, &entries).unwrap();
    assert!(check(&store, layout, root, &model) >= 2);
    for (k, bm) in &entries {
        delete_entry(&mut store, layout, root, TDEF, k, bm.page, bm.row).unwrap();
    }
    check(&store, layout, root, &Model::new());
    for (k, bm) in entries.iter().rev() {
        insert_entry(&mut store, layout, root, TDEF, k, bm.page, bm.row).unwrap();
    }
    check(&store, layout, root, &model);
    // refusals
    let (k, bm) = &entries[0];
    assert!(matches!(
        delete_entry(&mut store, layout, root, TDEF, k, 1, bm.row),
        Err(IndexWriteError::NotFound { .. })
    ));
    assert!(!key_exists(&store, layout, root, TDEF, &[0x7F, 0x01]).unwrap());
    assert!(matches!(
        insert_entry(&mut store, layout, root, TDEF, &vec![1u8; 4000], 1, 1),
        Err(IndexWriteError::EntryTooLarge { .. })
    ));
    assert!(matches!(
        insert_entry(&mut store, layout, root, TDEF, &[0x7F], 1 << 24, 1),
        Err(IndexWriteError::BookmarkTooLarge { .. })
    ));
    let unsorted = vec![entries[1].clone(), entries[0].clone()];
    assert!(matches!(
        build_index(&mut store, layout, TDEF, &unsorted),
        Err(IndexWriteError::Unsorted { position: 1 })
    ));
}

#[test]
fn delete_of_a_missing_entry_is_refused() {
    let layout = JetVersion::Jet4.layout();
    let mut store = VecStore::new(layout.page_size);
    let entries = vec![(vec![0x7F, 1], Bookmark { page: 9, row: 1 })];
    let (root, _) = build_index(&mut store, layout, TDEF, &entries).unwrap();
    assert!(matches!(
        delete_entry(&mut store, layout, root, TDEF, &[0x7F, 1], 9, 2),
        Err(IndexWriteError::NotFound { .. })
    ));
    assert!(key_exists(&store, layout, root, TDEF, &[0x7F, 1]).unwrap());
}

#[test]
fn jet3_prefix_longer_than_its_one_byte_field_is_capped() {
    let layout = JetVersion::Jet3.layout();
    let mut store = VecStore::new(layout.page_size);
    let (root, _) = build_index(&mut store, layout, TDEF, &[]).unwrap();
    let mut model = Model::new();
    for i in 0..12u8 {
        let mut k = vec![0x7F; 300];
        k.push(i);
        let bm = Bookmark { page: 7, row: i };
        insert_entry(&mut store, layout, root, TDEF, &k, bm.page, bm.row).unwrap();
        model.insert((k, bm));
    }
    check(&store, layout, root, &model);
    let p = read_index_page(&store.source(), layout, root, TDEF).unwrap();
    let leaf = if p.leaf {
        root
    } else {
        p.entries[0].child.unwrap()
    };
    let raw_leaf = store.read(leaf).unwrap();
    assert_eq!(raw_leaf[layout.index_prefix_len], 255);
}

/// Inserts then deletes everything through one cache flushed only at the
/// end, on long keys (few entries a page), so pages holding unwritten
/// changes are freed: the bytes equal the one-at-a-time functions'.
#[test]
fn a_cache_held_through_frees_writes_the_same_bytes() {
    for version in [JetVersion::Jet3, JetVersion::Jet4] {
        let layout = version.layout();
        let mut rng = Rng(0x5eed);
        let mut one = VecStore::new(layout.page_size);
        let (root, _) = build_index(&mut one, layout, TDEF, &[]).unwrap();
        let mut held = VecStore::new(layout.page_size);
        build_index(&mut held, layout, TDEF, &[]).unwrap();
        let mut cache = NodeCache::new();
        let mut model = Model::new();
        while model.len() < 400 {
            let k = random_key(&mut rng, 300);
            let bm = Bookmark {
                page: 10 + rng.below(50) as u32,
                row: rng.below(4) as u8,
            };
            if model.insert((k.clone(), bm)) {
                let a = insert_entry(&mut one, layout, root, TDEF, &k, bm.page, bm.row).unwrap();
                let b = cache
                    .insert_entry(&mut held, layout, root, TDEF, &k, bm.page, bm.row)
                    .unwrap();
                assert_eq!(a, b);
            }
        }
        cache.flush(&mut held, layout).unwrap();
        assert!(one.pages == held.pages, "after the inserts");
        let mut freed = 0;
        // deletes in an order that empties whole leaves while the cache
        // holds their changes: every other entry, then the rest
        let all: Vec<(Vec<u8>, Bookmark)> = model.iter().cloned().collect();
        let order = all.iter().step_by(2).chain(all.iter().skip(1).step_by(2));
        for (k, bm) in order {
            let a = delete_entry(&mut one, layout, root, TDEF, k, bm.page, bm.row).unwrap();
            let b = cache
                .delete_entry(&mut held, layout, root, TDEF, k, bm.page, bm.row)
                .unwrap();
            assert_eq!(a, b);
            freed += a.freed.len();
        }
        cache.flush(&mut held, layout).unwrap();
        assert!(freed > 10, "{freed} pages freed");
        assert!(one.pages == held.pages, "after the deletes ({version:?})");
        check(&held, layout, root, &Model::new());
    }
}

mod prop {
    use super::*;
    use crate::index::write::build::pack;
    use crate::index::write::node::{Item, Key, fits_items};
    use proptest::prelude::*;

    /// The packing `pack` replaced: push, recompute the whole page, pop
    /// when it no longer fits.
    fn naive_pack(layout: &Layout, leaf: bool, level: Vec<Item>) -> Vec<Vec<Item>> {
        let mut groups = Vec::new();
        let mut cur: Vec<Item> = Vec::new();
        for it in level {
            cur.push(it);
            if cur.len() > 1 && !fits_items(layout, leaf, &cur) {
                let last = cur.pop();
                groups.push(std::mem::take(&mut cur));
                cur.extend(last);
            }
        }
        if !cur.is_empty() || groups.is_empty() {
            groups.push(cur);
        }
        groups
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// The incremental packing of a bulk build makes exactly the pages
        /// the exact (quadratic) computation makes, for leaves and nodes on
        /// both page sizes, with keys sharing long prefixes.
        #[test]
        fn incremental_packing_equals_exact_packing(
            jet3 in any::<bool>(),
            leaf in any::<bool>(),
            keys in proptest::collection::btree_set(
                (proptest::collection::vec(0u8..3, 0..300), 0u8..4),
                1..600,
            ),
        ) {
            let layout = if jet3 { JetVersion::Jet3.layout() } else { JetVersion::Jet4.layout() };
            let items: Vec<Item> = keys
                .into_iter()
                .enumerate()
                .map(|(i, (tail, row))| {
                    let mut key = vec![0x7F; 1 + usize::from(row) * 40];
                    key.extend(tail);
                    Item {
                        key: Key::new(&key),
                        bookmark: Bookmark { page: 3 + i as u32, row },
                        child: if leaf { 0 } else { 10 + i as u32 },
                    }
                })
                .collect();
            let mut items = items;
            items.sort_by(|a, b| a.cmp_to(&b.key, b.bookmark));
            let want = naive_pack(layout, leaf, items.clone());
            let got = pack(layout, leaf, items).unwrap();
            prop_assert_eq!(got, want);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// Any sequence of inserts and deletes (deletes pick an existing
        /// entry by position) leaves a tree equal to the model, on both page
        /// sizes, with keys long enough to split nodes as well as leaves.
        #[test]
        fn any_sequence_keeps_the_tree_exact(
            jet3 in any::<bool>(),
            ops in proptest::collection::vec(
                (any::<bool>(), proptest::collection::vec(0u8..3, 1..160), 0u32..40, 0u8..3, any::<u16>()),
                1..260,
            ),
        ) {
            let layout = if jet3 { JetVersion::Jet3.layout() } else { JetVersion::Jet4.layout() };
            let mut store = VecStore::new(layout.page_size);
            let (root, _) = build_index(&mut store, layout, TDEF, &[]).unwrap();
            let mut model = Model::new();
            for (insert, tail, page, row, pick) in ops {
                if insert || model.is_empty() {
                    let mut key = vec![0x7F];
                    key.extend(tail);
                    let bm = Bookmark { page: page + 3, row };
                    if model.insert((key.clone(), bm)) {
                        insert_entry(&mut store, layout, root, TDEF, &key, bm.page, bm.row).unwrap();
                    }
                } else {
                    let victim = model.iter().nth(usize::from(pick) % model.len()).cloned().unwrap();
                    model.remove(&victim);
                    delete_entry(&mut store, layout, root, TDEF, &victim.0, victim.1.page, victim.1.row).unwrap();
                }
            }
            check(&store, layout, root, &model);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        /// The same sequence of inserts and deletes made through one
        /// long-lived `NodeCache` (flushed, and sometimes cleared, at random
        /// points) leaves the store byte for byte as the one-change-at-a-time
        /// functions do, and reports the same pages allocated and freed.
        #[test]
        fn a_held_cache_writes_the_same_bytes(
            jet3 in any::<bool>(),
            ops in proptest::collection::vec(
                (any::<bool>(), proptest::collection::vec(0u8..3, 1..160), 0u32..40, 0u8..3, any::<u16>(), 0u8..16),
                1..260,
            ),
        ) {
            let layout = if jet3 { JetVersion::Jet3.layout() } else { JetVersion::Jet4.layout() };
            let mut one = VecStore::new(layout.page_size);
            let (root, _) = build_index(&mut one, layout, TDEF, &[]).unwrap();
            let mut held = VecStore::new(layout.page_size);
            build_index(&mut held, layout, TDEF, &[]).unwrap();
            let mut cache = NodeCache::new();
            let mut model = Model::new();
            for (insert, tail, page, row, pick, flush) in ops {
                let (a, b) = if insert || model.is_empty() {
                    let mut key = vec![0x7F];
                    key.extend(tail);
                    let bm = Bookmark { page: page + 3, row };
                    prop_assert_eq!(
                        cache.key_exists(&held, layout, root, TDEF, &key).unwrap(),
                        model.iter().any(|(k, _)| *k == key)
                    );
                    if !model.insert((key.clone(), bm)) {
                        continue;
                    }
                    (
                        insert_entry(&mut one, layout, root, TDEF, &key, bm.page, bm.row).unwrap(),
                        cache.insert_entry(&mut held, layout, root, TDEF, &key, bm.page, bm.row).unwrap(),
                    )
                } else {
                    let victim = model.iter().nth(usize::from(pick) % model.len()).cloned().unwrap();
                    model.remove(&victim);
                    let (k, bm) = victim;
                    (
                        delete_entry(&mut one, layout, root, TDEF, &k, bm.page, bm.row).unwrap(),
                        cache.delete_entry(&mut held, layout, root, TDEF, &k, bm.page, bm.row).unwrap(),
                    )
                };
                prop_assert_eq!(a, b);
                if flush == 0 {
                    cache.flush(&mut held, layout).unwrap();
                    cache.clear();
                } else if flush == 1 {
                    cache.flush(&mut held, layout).unwrap();
                }
            }
            cache.flush(&mut held, layout).unwrap();
            prop_assert!(one.pages == held.pages, "the stores differ");
            check(&held, layout, root, &model);
        }
    }
}
