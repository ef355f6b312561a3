//! Index maintenance: keeps a real index's B-tree exact when the writer
//! inserts or deletes rows, and builds whole indexes bottom-up.
//!
//! Page format (the reader, [`crate::index`], decodes it): a header (page
//! type 0x04 leaf / 0x03 node, a constant 0x01, the free space as u16 at 2,
//! the owning TDEF page at 4, prev / next / tail page pointers, the shared
//! prefix length, a byte that is 1 on node pages), the entry bitmap (bit `p`
//! set where an entry ends at byte `p` of the entry area), then the entries.
//! The first entry is written whole; every following entry leaves out the
//! prefix its key shares with all keys of the page (the common prefix of the
//! first and last keys). A leaf entry is `key | page (3 bytes BE) | row`; a
//! node entry adds its child page (4 bytes BE) and carries the last
//! (key, bookmark) of that child's subtree. A node page with several
//! children keeps the last one in its tail pointer only, without an entry;
//! a node with a single child writes it as an entry.
//!
//! Entries are ordered by key bytes, then by bookmark (page, row), as
//! Access orders them. The root page number never changes: when the root
//! overflows its contents move down into new pages. Every page this module
//! allocates or frees is reported in [`IndexPages`] so the writer can update
//! the index's usage map.

use crate::error::FormatError;
use crate::format::{Layout, page_type};
use crate::image::PageStore;
use crate::index::{Bookmark, visit_index_page};
use jet_kernels::index_entry::compare_entries;
use jet_kernels::index_page::{
    admit_entry_area, common_prefix_len, mask_position, max_entry_area, stored_entry_len,
};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Deepest tree the writer descends before refusing (as the reader).
const MAX_DEPTH: usize = crate::index::MAX_DEPTH;

/// Pages an index operation allocated (with `PageStore::append`) or
/// stopped using. The caller registers both in the index's usage map; a
/// freed page's bytes are left as they were.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexPages {
    /// Pages newly used by the index, in allocation order.
    pub allocated: Vec<u32>,
    /// Pages the index no longer uses.
    pub freed: Vec<u32>,
}

/// Why an index change was refused. Nothing is guaranteed about the pages
/// of the store after an error: the caller abandons the transaction.
#[derive(Debug, thiserror::Error)]
pub enum IndexWriteError {
    /// A page could not be read or decoded.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// An entry is too large for any index page.
    #[error("index entry of {len} bytes does not fit an index page ({max} bytes)")]
    EntryTooLarge {
        /// Bytes of the entry (key and pointers).
        len: usize,
        /// Bytes available for entries on a page.
        max: usize,
    },
    /// A bookmark's page number does not fit the 3 bytes an entry holds.
    #[error("bookmark page {page} does not fit an index entry (24 bits)")]
    BookmarkTooLarge {
        /// The data page.
        page: u32,
    },
    /// `delete_entry` found no entry with this key and bookmark.
    #[error("index rooted at page {root}: no entry for bookmark {page}:{row} with this key")]
    NotFound {
        /// Root page.
        root: u32,
        /// Data page of the bookmark.
        page: u32,
        /// Row of the bookmark.
        row: u8,
    },
    /// The entries handed to `build_index` are not in index order or repeat.
    #[error("entry {position} is not after the one before it in index order")]
    Unsorted {
        /// Position of the offending entry.
        position: usize,
    },
    /// The tree is deeper than the writer descends, or a node has no child.
    #[error("index page {page}: {what}")]
    BadTree {
        /// Page where the problem was seen.
        page: u32,
        /// What is wrong.
        what: &'static str,
    },
}

/// Longest key a [`Key`] holds without a heap allocation: every key of
/// one numeric, date, currency or GUID column and short texts.
const INLINE_KEY: usize = 22;

/// An entry key in memory: inline up to [`INLINE_KEY`] bytes, else on the
/// heap (a decoded page holds hundreds of keys; most are short).
#[derive(Clone, PartialEq, Eq)]
enum Key {
    Inline(u8, [u8; INLINE_KEY]),
    Heap(Box<[u8]>),
}

impl Key {
    fn new(bytes: &[u8]) -> Key {
        match u8::try_from(bytes.len()) {
            Ok(len) if bytes.len() <= INLINE_KEY => {
                let mut b = [0u8; INLINE_KEY];
                b[..bytes.len()].copy_from_slice(bytes);
                Key::Inline(len, b)
            }
            _ => Key::Heap(bytes.into()),
        }
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            Key::Inline(len, b) => &b[..usize::from(*len)],
            Key::Heap(b) => b,
        }
    }
}

impl std::ops::Deref for Key {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02X?}", self.as_slice())
    }
}

/// One item of a page in memory: a leaf entry, or a node's child with the
/// last (key, bookmark) of its subtree. `child` is 0 on leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    key: Key,
    bookmark: Bookmark,
    child: u32,
}

impl Item {
    fn cmp_to(&self, key: &[u8], bm: Bookmark) -> Ordering {
        compare_entries(
            &self.key,
            self.bookmark.page,
            self.bookmark.row,
            key,
            bm.page,
            bm.row,
        )
    }
}

/// A page in memory. On node pages `items` lists every child, the tail
/// child last (with its subtree's last entry computed).
#[derive(Debug, Clone)]
struct Node {
    number: u32,
    leaf: bool,
    prev: u32,
    next: u32,
    items: Vec<Item>,
}

/// Bytes an index page offers for entries.
pub fn entry_area_len(layout: &Layout) -> usize {
    max_entry_area(
        layout.page_size,
        area_start(layout),
        layout.index_entry_mask_len,
    )
}

/// Offset of the entry area: after the entry bitmap.
fn area_start(layout: &Layout) -> usize {
    layout.index_entry_mask + layout.index_entry_mask_len
}

fn pointers_len(leaf: bool) -> usize {
    if leaf { 4 } else { 8 }
}

/// The shared prefix length of a page holding `items` (the tail child of a
/// node is not written, so it does not take part), capped at what the
/// header field holds (one byte in Jet3, two in Jet4+).
fn page_prefix(layout: &Layout, items: &[Item]) -> usize {
    match (items.first(), items.last()) {
        (Some(f), Some(l)) => common_prefix_len(&f.key, &l.key).min(prefix_cap(layout)),
        _ => 0,
    }
}

/// The longest shared prefix a page header records (one byte in Jet3, two
/// in Jet4+).
fn prefix_cap(layout: &Layout) -> usize {
    if layout.page_size == 2048 {
        usize::from(u8::MAX)
    } else {
        usize::from(u16::MAX)
    }
}

/// Bytes the written entries of `items` take on a page (`usize::MAX` when
/// a length is refused, which no page admits).
fn written_len(layout: &Layout, items: &[Item], leaf: bool) -> usize {
    let prefix = page_prefix(layout, items);
    let mut total = 0usize;
    for (i, it) in items.iter().enumerate() {
        match stored_entry_len(it.key.len(), pointers_len(leaf), prefix, i == 0) {
            Ok(n) => total = total.saturating_add(n),
            Err(_) => return usize::MAX,
        }
    }
    total
}

/// The items of `node` that are written as entries, and its tail page.
fn written(node: &Node) -> (&[Item], u32) {
    match node.items.split_last() {
        Some((last, rest)) if !node.leaf && !rest.is_empty() => (rest, last.child),
        _ => (&node.items, 0),
    }
}

/// Whether `node` fits one page.
fn fits(layout: &Layout, node: &Node) -> bool {
    fits_items(layout, node.leaf, &node.items)
}

/// Whether a page (leaf when `leaf`) holding `items` fits one page (on a
/// node page with several children the last one is the tail, not written).
fn fits_items(layout: &Layout, leaf: bool, items: &[Item]) -> bool {
    let written = match items.split_last() {
        Some((_, rest)) if !leaf && !rest.is_empty() => rest,
        _ => items,
    };
    written_len(layout, written, leaf) <= entry_area_len(layout)
}

/// Encodes `node` as page bytes owned by `tdef_page`.
fn encode(layout: &Layout, tdef_page: u32, node: &Node) -> Result<Vec<u8>, IndexWriteError> {
    let (items, tail) = written(node);
    let max = entry_area_len(layout);
    let used = written_len(layout, items, node.leaf);
    if used > max {
        return Err(IndexWriteError::EntryTooLarge { len: used, max });
    }
    let mut p = vec![0u8; layout.page_size];
    p[0] = if node.leaf {
        page_type::INDEX_LEAF
    } else {
        page_type::INDEX_NODE
    };
    p[1] = 0x01;
    let area_start = area_start(layout);
    let free = admit_entry_area(
        layout.page_size,
        area_start,
        layout.index_entry_mask_len,
        used,
    )
    .map_err(|_| IndexWriteError::EntryTooLarge { len: used, max })?;
    p[2..4].copy_from_slice(&free.to_le_bytes());
    p[4..8].copy_from_slice(&tdef_page.to_le_bytes());
    p[layout.index_prev..layout.index_prev + 4].copy_from_slice(&node.prev.to_le_bytes());
    p[layout.index_next..layout.index_next + 4].copy_from_slice(&node.next.to_le_bytes());
    p[layout.index_tail..layout.index_tail + 4].copy_from_slice(&tail.to_le_bytes());
    let prefix = page_prefix(layout, items);
    if layout.page_size == 2048 {
        p[layout.index_prefix_len] = u8::try_from(prefix).unwrap_or(u8::MAX);
    } else {
        p[layout.index_prefix_len..layout.index_prefix_len + 2]
            .copy_from_slice(&u16::try_from(prefix).unwrap_or(u16::MAX).to_le_bytes());
    }
    // the byte before the bitmap: 1 on node pages, as Access writes it
    p[layout.index_entry_mask - 1] = u8::from(!node.leaf);
    let mut pos = 0usize;
    for (i, it) in items.iter().enumerate() {
        let k = if i == 0 {
            &it.key[..]
        } else {
            it.key.get(prefix..).unwrap_or_default()
        };
        let at = area_start + pos;
        p[at..at + k.len()].copy_from_slice(k);
        let at = at + k.len();
        let [_, a, b, c] = it.bookmark.page.to_be_bytes();
        p[at..at + 4].copy_from_slice(&[a, b, c, it.bookmark.row]);
        if !node.leaf {
            p[at + 4..at + 8].copy_from_slice(&it.child.to_be_bytes());
        }
        pos += k.len() + pointers_len(node.leaf);
        let (byte, bit) = mask_position(layout.index_entry_mask_len, pos)
            .map_err(|_| IndexWriteError::EntryTooLarge { len: used, max })?;
        p[layout.index_entry_mask + byte] |= bit;
    }
    Ok(p)
}

/// Checks an entry before it goes into a tree.
fn admit(layout: &Layout, key: &[u8], page: u32) -> Result<(), IndexWriteError> {
    if page >= 1 << 24 {
        return Err(IndexWriteError::BookmarkTooLarge { page });
    }
    // a node entry (key + 8 bytes) must fit, with room for a second one so a
    // split always makes progress
    let max = entry_area_len(layout);
    let len = key.len() + pointers_len(false);
    if len.saturating_mul(2) > max {
        return Err(IndexWriteError::EntryTooLarge { len, max });
    }
    Ok(())
}

/// How a page held in a [`NodeCache`] differs from its bytes in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dirt {
    /// As in the store.
    Clean,
    /// Only its prev / next pointers changed: flushing patches those two
    /// fields and keeps every other byte of the page (a page Access wrote
    /// stays Access's).
    Links,
    /// Its entries changed: flushing encodes the whole page.
    Entries,
}

/// One decoded page in a [`NodeCache`].
#[derive(Debug)]
struct Cached {
    node: Node,
    tdef_page: u32,
    dirt: Dirt,
}

/// Decoded index pages kept in memory across the entry changes of one
/// transaction, so a page on the path of many rows is decoded once and
/// encoded once (at [`NodeCache::flush`]) instead of once per row.
///
/// Guarantees: after `flush`, the store holds exactly the bytes the same
/// sequence of changes made one by one through [`insert_entry`] and
/// [`delete_entry`] would have written (each page is encoded from the same
/// decoded state; a page whose only change is a sibling pointer has just
/// that pointer patched; a page freed while it held unwritten changes gets
/// its last state written before it is dropped). Before `flush`, index
/// pages in the store may be stale: the caller flushes before anything
/// else reads them (commit, schema changes) and [`NodeCache::clear`]s the
/// cache when a transaction ends or is abandoned. Page numbers identify
/// pages, so one cache serves every index of one store.
#[derive(Debug, Default)]
pub struct NodeCache {
    nodes: HashMap<u32, Cached>,
}

impl NodeCache {
    /// An empty cache.
    pub fn new() -> NodeCache {
        NodeCache::default()
    }

    /// Pages held (decoded), written or not.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when no page is held.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Forgets every page held, written or not (the transaction ended or
    /// was abandoned).
    pub fn clear(&mut self) {
        self.nodes.clear();
    }

    /// Writes every page holding changes into `store` (pages stay held,
    /// now clean). On error some pages may be written and others not; the
    /// caller abandons the transaction.
    pub fn flush(
        &mut self,
        store: &mut dyn PageStore,
        layout: &Layout,
    ) -> Result<(), IndexWriteError> {
        let mut dirty: Vec<u32> = self
            .nodes
            .iter()
            .filter(|(_, c)| c.dirt != Dirt::Clean)
            .map(|(n, _)| *n)
            .collect();
        dirty.sort_unstable();
        for n in dirty {
            if let Some(c) = self.nodes.get_mut(&n) {
                write_back(store, layout, c)?;
            }
        }
        Ok(())
    }

    /// Inserts the entry (`key`, bookmark `page`:`row`) into the index
    /// rooted at `root`, as [`insert_entry`] does, keeping the pages it
    /// touches in the cache.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_entry(
        &mut self,
        store: &mut dyn PageStore,
        layout: &Layout,
        root: u32,
        tdef_page: u32,
        key: &[u8],
        page: u32,
        row: u8,
    ) -> Result<IndexPages, IndexWriteError> {
        admit(layout, key, page)?;
        let bm = Bookmark { page, row };
        let mut tree = Tree {
            store,
            cache: self,
            layout,
            tdef_page,
            root,
            pages: IndexPages::default(),
        };
        let path = tree.descend(key, bm)?;
        let Some(&(leaf, _)) = path.last() else {
            return Err(IndexWriteError::BadTree {
                page: root,
                what: "no leaf below the root",
            });
        };
        let node = tree.node_mut(leaf)?;
        let pos = node
            .items
            .partition_point(|it| it.cmp_to(key, bm) != Ordering::Greater);
        node.items.insert(
            pos,
            Item {
                key: Key::new(key),
                bookmark: bm,
                child: 0,
            },
        );
        tree.settle(path)?;
        Ok(tree.pages)
    }

    /// Removes the entry (`key`, bookmark `page`:`row`) from the index
    /// rooted at `root`, as [`delete_entry`] does, keeping the pages it
    /// touches in the cache.
    #[allow(clippy::too_many_arguments)]
    pub fn delete_entry(
        &mut self,
        store: &mut dyn PageStore,
        layout: &Layout,
        root: u32,
        tdef_page: u32,
        key: &[u8],
        page: u32,
        row: u8,
    ) -> Result<IndexPages, IndexWriteError> {
        let bm = Bookmark { page, row };
        let mut tree = Tree {
            store,
            cache: self,
            layout,
            tdef_page,
            root,
            pages: IndexPages::default(),
        };
        let path = tree.descend(key, bm)?;
        let Some(&(leaf, _)) = path.last() else {
            return Err(IndexWriteError::NotFound { root, page, row });
        };
        let items = &tree.node_mut(leaf)?.items;
        let pos = items.partition_point(|it| it.cmp_to(key, bm) == Ordering::Less);
        if items
            .get(pos)
            .is_none_or(|it| it.cmp_to(key, bm) != Ordering::Equal)
        {
            return Err(IndexWriteError::NotFound { root, page, row });
        }
        if items.len() == 1 && leaf != root {
            // the leaf is about to be freed: its last state reaches the
            // store first, as it would have without the cache
            tree.write_back_page(leaf)?;
        }
        tree.node_mut(leaf)?.items.remove(pos);
        tree.settle(path)?;
        Ok(tree.pages)
    }

    /// Whether the index rooted at `root` holds an entry whose key equals
    /// `key` byte for byte, as [`key_exists`] answers, reading through the
    /// cache.
    pub fn key_exists(
        &mut self,
        store: &dyn PageStore,
        layout: &Layout,
        root: u32,
        tdef_page: u32,
        key: &[u8],
    ) -> Result<bool, IndexWriteError> {
        let mut look = Loader {
            store,
            cache: self,
            layout,
            tdef_page,
        };
        let first = Bookmark { page: 0, row: 0 };
        let Some(&(mut leaf, _)) = look.descend(root, key, first)?.last() else {
            return Ok(false);
        };
        let mut seen = std::collections::HashSet::from([leaf]);
        loop {
            let node = look.node(leaf)?;
            let from = node.items.partition_point(|it| it.key.as_slice() < key);
            if let Some(it) = node.items.get(from) {
                return Ok(it.key.as_slice() == key);
            }
            let next = node.next;
            if next == 0 || !seen.insert(next) {
                return Ok(false);
            }
            leaf = next;
        }
    }
}

/// Writes the held changes of `c` into `store` and marks it clean.
fn write_back(
    store: &mut dyn PageStore,
    layout: &Layout,
    c: &mut Cached,
) -> Result<(), IndexWriteError> {
    match c.dirt {
        Dirt::Clean => {}
        Dirt::Links => {
            let mut b = store.read(c.node.number)?.to_vec();
            b[layout.index_prev..layout.index_prev + 4].copy_from_slice(&c.node.prev.to_le_bytes());
            b[layout.index_next..layout.index_next + 4].copy_from_slice(&c.node.next.to_le_bytes());
            store.write(c.node.number, &b)?;
        }
        Dirt::Entries => {
            let bytes = encode(layout, c.tdef_page, &c.node)?;
            store.write(c.node.number, &bytes)?;
        }
    }
    c.dirt = Dirt::Clean;
    Ok(())
}

/// Reads pages of one index into a [`NodeCache`].
struct Loader<'s> {
    store: &'s dyn PageStore,
    cache: &'s mut NodeCache,
    layout: &'s Layout,
    tdef_page: u32,
}

impl Loader<'_> {
    /// Page `n`, decoded into the cache if it is not held yet.
    fn node(&mut self, n: u32) -> Result<&Node, IndexWriteError> {
        self.ensure(n, 0)?;
        self.cache
            .nodes
            .get(&n)
            .map(|c| &c.node)
            .ok_or(IndexWriteError::BadTree {
                page: n,
                what: "page missing from the cache",
            })
    }

    /// Decodes page `n` into the cache unless it is held. A node page's
    /// tail child gets the last entry of its subtree (`depth` counts the
    /// tails followed, bounded as the tree's depth is).
    fn ensure(&mut self, n: u32, depth: usize) -> Result<(), IndexWriteError> {
        if self.cache.nodes.contains_key(&n) {
            return Ok(());
        }
        if depth > MAX_DEPTH {
            return Err(IndexWriteError::BadTree {
                page: n,
                what: "index tree too deep",
            });
        }
        let bytes = self.store.read(n)?;
        let mut items: Vec<Item> = Vec::new();
        let page = visit_index_page(&bytes, self.layout, n, self.tdef_page, |key, bm, child| {
            items.push(Item {
                key: Key::new(key),
                bookmark: bm,
                child: child.unwrap_or(0),
            });
        })?;
        if !page.leaf && page.tail != 0 {
            let (key, bookmark) = self.subtree_last(page.tail, depth + 1)?;
            items.push(Item {
                key,
                bookmark,
                child: page.tail,
            });
        }
        if !page.leaf && items.is_empty() {
            return Err(IndexWriteError::BadTree {
                page: n,
                what: "node page without children",
            });
        }
        self.cache.nodes.insert(
            n,
            Cached {
                node: Node {
                    number: n,
                    leaf: page.leaf,
                    prev: page.prev,
                    next: page.next,
                    items,
                },
                tdef_page: self.tdef_page,
                dirt: Dirt::Clean,
            },
        );
        Ok(())
    }

    /// The last entry of the subtree under page `n`: down the last child
    /// of every node to a leaf, whose last entry it is.
    fn subtree_last(
        &mut self,
        mut n: u32,
        depth: usize,
    ) -> Result<(Key, Bookmark), IndexWriteError> {
        for d in depth..=MAX_DEPTH {
            self.ensure(n, d)?;
            let node = &self
                .cache
                .nodes
                .get(&n)
                .ok_or(IndexWriteError::BadTree {
                    page: n,
                    what: "page missing from the cache",
                })?
                .node;
            let last = node.items.last();
            if node.leaf {
                return last
                    .map(|e| (e.key.clone(), e.bookmark))
                    .ok_or(IndexWriteError::BadTree {
                        page: n,
                        what: "empty leaf below a node",
                    });
            }
            n = last.map(|e| e.child).ok_or(IndexWriteError::BadTree {
                page: n,
                what: "node page without children",
            })?;
        }
        Err(IndexWriteError::BadTree {
            page: n,
            what: "index tree too deep",
        })
    }

    /// The path from `root` to the leaf where (key, bm) belongs: each page
    /// with the index of the child taken.
    fn descend(
        &mut self,
        root: u32,
        key: &[u8],
        bm: Bookmark,
    ) -> Result<Vec<(u32, usize)>, IndexWriteError> {
        let mut path: Vec<(u32, usize)> = Vec::new();
        let mut n = root;
        loop {
            if path.len() > MAX_DEPTH {
                return Err(IndexWriteError::BadTree {
                    page: n,
                    what: "index tree too deep",
                });
            }
            let node = self.node(n)?;
            if node.leaf {
                path.push((n, 0));
                return Ok(path);
            }
            let i = node
                .items
                .partition_point(|it| it.cmp_to(key, bm) == Ordering::Less)
                .min(node.items.len().saturating_sub(1));
            let child = node.items.get(i).map_or(0, |it| it.child);
            if child == root || path.iter().any(|(p, _)| *p == child) {
                return Err(IndexWriteError::BadTree {
                    page: child,
                    what: "index tree loops",
                });
            }
            path.push((n, i));
            n = child;
        }
    }
}

/// Changes to one index through a [`NodeCache`].
struct Tree<'s> {
    store: &'s mut dyn PageStore,
    cache: &'s mut NodeCache,
    layout: &'s Layout,
    tdef_page: u32,
    root: u32,
    pages: IndexPages,
}

impl Tree<'_> {
    fn loader(&mut self) -> Loader<'_> {
        Loader {
            store: &*self.store,
            cache: &mut *self.cache,
            layout: self.layout,
            tdef_page: self.tdef_page,
        }
    }

    fn descend(&mut self, key: &[u8], bm: Bookmark) -> Result<Vec<(u32, usize)>, IndexWriteError> {
        let root = self.root;
        self.loader().descend(root, key, bm)
    }

    /// Page `n` (decoded into the cache first if needed), for changing.
    /// The caller marks what it changed.
    fn node_mut(&mut self, n: u32) -> Result<&mut Node, IndexWriteError> {
        self.loader().ensure(n, 0)?;
        self.cache
            .nodes
            .get_mut(&n)
            .map(|c| &mut c.node)
            .ok_or(IndexWriteError::BadTree {
                page: n,
                what: "page missing from the cache",
            })
    }

    /// Takes page `n` out of the cache (decoding it if needed), with what
    /// it holds unwritten.
    fn take(&mut self, n: u32) -> Result<(Node, Dirt), IndexWriteError> {
        self.loader().ensure(n, 0)?;
        self.cache
            .nodes
            .remove(&n)
            .map(|c| (c.node, c.dirt))
            .ok_or(IndexWriteError::BadTree {
                page: n,
                what: "page missing from the cache",
            })
    }

    /// Writes the held changes of page `n` into the store now.
    fn write_back_page(&mut self, n: u32) -> Result<(), IndexWriteError> {
        if let Some(c) = self.cache.nodes.get_mut(&n) {
            write_back(self.store, self.layout, c)?;
        }
        Ok(())
    }

    /// Holds `node` as the new contents of its page; the caller checked
    /// that it fits.
    fn put(&mut self, node: Node) {
        self.cache.nodes.insert(
            node.number,
            Cached {
                node,
                tdef_page: self.tdef_page,
                dirt: Dirt::Entries,
            },
        );
    }

    /// Holds `node` as the new contents of its page, refusing it when it
    /// does not fit a page.
    fn write(&mut self, node: Node) -> Result<(), IndexWriteError> {
        let (items, _) = written(&node);
        let used = written_len(self.layout, items, node.leaf);
        let max = entry_area_len(self.layout);
        if used > max {
            return Err(IndexWriteError::EntryTooLarge { len: used, max });
        }
        self.put(node);
        Ok(())
    }

    /// Rewrites one sibling pointer of page `n` (prev when `prev`).
    fn set_link(&mut self, n: u32, prev: bool, to: u32) -> Result<(), IndexWriteError> {
        if n == 0 {
            return Ok(());
        }
        self.loader().ensure(n, 0)?;
        let Some(c) = self.cache.nodes.get_mut(&n) else {
            return Err(IndexWriteError::BadTree {
                page: n,
                what: "page missing from the cache",
            });
        };
        if prev {
            c.node.prev = to;
        } else {
            c.node.next = to;
        }
        c.dirt = c.dirt.max(Dirt::Links);
        Ok(())
    }

    /// Node pages are linked prev/next only among the children of one
    /// parent (leaves across their whole level): where `pieces` of a page's
    /// children go to different parents, cut the links between them.
    fn separate(&mut self, pieces: &[Vec<Item>]) -> Result<(), IndexWriteError> {
        for w in pieces.windows(2) {
            if let (Some(a), Some(b)) = (w[0].last(), w[1].first()) {
                self.set_link(a.child, false, 0)?;
                self.set_link(b.child, true, 0)?;
            }
        }
        Ok(())
    }

    fn alloc(&mut self) -> Result<u32, IndexWriteError> {
        let n = self.store.append()?;
        self.pages.allocated.push(n);
        Ok(n)
    }

    /// Splits `items` into pieces that each fit a page (by bytes, halves
    /// first).
    fn split_items(&self, leaf: bool, items: Vec<Item>) -> Vec<Vec<Item>> {
        let mut pieces = vec![items];
        loop {
            let mut changed = false;
            let mut next = Vec::new();
            for p in pieces {
                if p.len() > 1 && !fits_items(self.layout, leaf, &p) {
                    let b = p[p.len().div_ceil(2)..].to_vec();
                    let mut a = p;
                    a.truncate(a.len() - b.len());
                    next.push(a);
                    next.push(b);
                    changed = true;
                } else {
                    next.push(p);
                }
            }
            pieces = next;
            if !changed {
                return pieces;
            }
        }
    }

    /// Writes the pages of the path bottom-up after the leaf changed:
    /// splits pages that overflow, frees non-root pages that became empty,
    /// and refreshes every separator on the path.
    fn settle(&mut self, mut path: Vec<(u32, usize)>) -> Result<(), IndexWriteError> {
        // replacement items for the child slot of the level above
        let mut replacement: Option<Vec<Item>> = None;
        // levels above the leaves: from 2 on, a node's children are nodes
        let mut level = 0usize;
        while let Some((n, slot)) = path.pop() {
            level += 1;
            let children_are_nodes = level > 2;
            let is_root = n == self.root;
            if let Some(items) = replacement.take() {
                if items.is_empty() && !is_root {
                    let node = self.node_mut(n)?;
                    if node.items.len() == 1 {
                        // about to be freed: its last state reaches the
                        // store first, as it would have without the cache
                        self.write_back_page(n)?;
                    }
                }
                let node = self.node_mut(n)?;
                if slot < node.items.len() {
                    node.items.splice(slot..=slot, items);
                } else {
                    return Err(IndexWriteError::BadTree {
                        page: n,
                        what: "child slot beyond the page's entries",
                    });
                }
            }
            let (mut node, _) = self.take(n)?;
            if node.items.is_empty() && !is_root {
                // unlink and free
                self.set_link(node.prev, false, node.next)?;
                self.set_link(node.next, true, node.prev)?;
                self.pages.freed.push(node.number);
                replacement = Some(Vec::new());
                continue;
            }
            if node.items.is_empty() {
                // the root lost its last child: an empty leaf again
                node.leaf = true;
                node.prev = 0;
                node.next = 0;
                self.put(node);
                continue;
            }
            if fits(self.layout, &node) {
                replacement = Some(vec![summary(&node)]);
                self.put(node);
                continue;
            }
            let pieces = self.split_items(node.leaf, std::mem::take(&mut node.items));
            if children_are_nodes {
                self.separate(&pieces)?;
            }
            if is_root {
                // the root keeps its number: every piece moves to a new page
                let mut numbers = Vec::with_capacity(pieces.len());
                for _ in 0..pieces.len() {
                    numbers.push(self.alloc()?);
                }
                let mut children = Vec::with_capacity(pieces.len());
                for (i, items) in pieces.into_iter().enumerate() {
                    let piece = Node {
                        number: numbers[i],
                        leaf: node.leaf,
                        prev: if i == 0 { 0 } else { numbers[i - 1] },
                        next: numbers.get(i + 1).copied().unwrap_or(0),
                        items,
                    };
                    children.push(summary(&piece));
                    self.write(piece)?;
                }
                let root = Node {
                    number: self.root,
                    leaf: false,
                    prev: 0,
                    next: 0,
                    items: children,
                };
                self.write(root)?;
                continue;
            }
            // the last piece keeps this page; the others go to new pages
            // linked in before it
            let mut numbers = Vec::with_capacity(pieces.len());
            for _ in 1..pieces.len() {
                numbers.push(self.alloc()?);
            }
            numbers.push(node.number);
            let mut out = Vec::with_capacity(pieces.len());
            for (i, items) in pieces.into_iter().enumerate() {
                let piece = Node {
                    number: numbers[i],
                    leaf: node.leaf,
                    prev: if i == 0 { node.prev } else { numbers[i - 1] },
                    next: numbers.get(i + 1).copied().unwrap_or(node.next),
                    items,
                };
                out.push(summary(&piece));
                self.write(piece)?;
            }
            self.set_link(node.prev, false, numbers[0])?;
            replacement = Some(out);
        }
        Ok(())
    }
}

/// The parent item of a written page: its last entry and its number.
fn summary(node: &Node) -> Item {
    match node.items.last() {
        Some(last) => Item {
            key: last.key.clone(),
            bookmark: last.bookmark,
            child: node.number,
        },
        None => Item {
            key: Key::new(&[]),
            bookmark: Bookmark { page: 0, row: 0 },
            child: node.number,
        },
    }
}

/// Inserts the entry (`key`, bookmark `page`:`row`) into the index whose
/// root is page `root` (owned by the table whose TDEF is `tdef_page`), in
/// index order: after every entry with a smaller key, among equal keys by
/// bookmark. Splits pages that overflow (new pages from
/// [`PageStore::append`], returned in [`IndexPages::allocated`]); the root
/// keeps its page number. Inserting an entry that is already present adds
/// a second copy; callers insert each row once. The pages are written
/// before it returns (a [`NodeCache`] holds them across many changes).
pub fn insert_entry(
    store: &mut dyn PageStore,
    layout: &Layout,
    root: u32,
    tdef_page: u32,
    key: &[u8],
    page: u32,
    row: u8,
) -> Result<IndexPages, IndexWriteError> {
    let mut cache = NodeCache::new();
    let pages = cache.insert_entry(store, layout, root, tdef_page, key, page, row)?;
    cache.flush(store, layout)?;
    Ok(pages)
}

/// Removes the entry (`key`, bookmark `page`:`row`) from the index rooted
/// at `root`. A non-root page left empty is unlinked from its siblings,
/// dropped from its parent and reported in [`IndexPages::freed`]; a root
/// left without entries becomes an empty leaf. Refuses
/// ([`IndexWriteError::NotFound`]) when no such entry exists. The pages are
/// written before it returns.
pub fn delete_entry(
    store: &mut dyn PageStore,
    layout: &Layout,
    root: u32,
    tdef_page: u32,
    key: &[u8],
    page: u32,
    row: u8,
) -> Result<IndexPages, IndexWriteError> {
    let mut cache = NodeCache::new();
    let pages = cache.delete_entry(store, layout, root, tdef_page, key, page, row)?;
    cache.flush(store, layout)?;
    Ok(pages)
}

/// Whether the index rooted at `root` holds an entry whose key equals `key`
/// byte for byte (for unique indexes: the writer asks before writing
/// anything). Reads the path to the first candidate leaf and the leaves that
/// follow while keys are equal. Access lets a unique index hold several
/// NULL keys; callers skip the check for them.
pub fn key_exists(
    store: &dyn PageStore,
    layout: &Layout,
    root: u32,
    tdef_page: u32,
    key: &[u8],
) -> Result<bool, IndexWriteError> {
    NodeCache::new().key_exists(store, layout, root, tdef_page, key)
}
/// Packs `level` (in index order) greedily into pages of `leaf` kind:
/// each page takes items while they fit. The written length is kept
/// incrementally: the full lengths of the written entries less, for all
/// but the first, the shared prefix of the first and last written keys
/// (sorted keys in between share it; a node page's last child is its tail
/// and is not written). Every finished page is checked with the exact
/// computation ([`fits_items`]).
fn pack(layout: &Layout, leaf: bool, level: Vec<Item>) -> Result<Vec<Vec<Item>>, IndexWriteError> {
    let ptrs = pointers_len(leaf);
    let area = entry_area_len(layout);
    let mut groups: Vec<Vec<Item>> = Vec::new();
    let mut cur: Vec<Item> = Vec::new();
    let mut sum = 0usize;
    for it in level {
        let full = it.key.len() + ptrs;
        let fits = match cur.first() {
            None => true,
            Some(first) => {
                // a node page's last child is its tail, not written
                let (wsum, wcount, wlast) = if leaf {
                    (sum + full, cur.len() + 1, &it.key)
                } else {
                    (sum, cur.len(), &cur[cur.len() - 1].key)
                };
                let prefix = common_prefix_len(&first.key, wlast).min(prefix_cap(layout));
                wsum.saturating_sub(prefix * (wcount - 1)) <= area
            }
        };
        if !fits {
            groups.push(std::mem::take(&mut cur));
            sum = 0;
        }
        sum += full;
        cur.push(it);
    }
    if !cur.is_empty() || groups.is_empty() {
        groups.push(cur);
    }
    if groups
        .iter()
        .any(|g| g.len() > 1 && !fits_items(layout, leaf, g))
    {
        return Err(IndexWriteError::BadTree {
            page: 0,
            what: if leaf {
                "a packed leaf does not fit its page"
            } else {
                "a packed node does not fit its page"
            },
        });
    }
    Ok(groups)
}

/// Builds an index bottom-up from `entries` (key, bookmark), which must be
/// in index order without repeats (refused otherwise): full leaves, then
/// node levels, each level linked prev/next, until one page is left; that
/// page is the root, whose number is returned. No entries: one empty root
/// leaf. Every page comes from [`PageStore::append`] and is listed in the
/// returned [`IndexPages::allocated`].
pub fn build_index(
    store: &mut dyn PageStore,
    layout: &Layout,
    tdef_page: u32,
    entries: &[(Vec<u8>, Bookmark)],
) -> Result<(u32, IndexPages), IndexWriteError> {
    for (i, w) in entries.windows(2).enumerate() {
        let (a, b) = (&w[0], &w[1]);
        if compare_entries(&a.0, a.1.page, a.1.row, &b.0, b.1.page, b.1.row) != Ordering::Less {
            return Err(IndexWriteError::Unsorted { position: i + 1 });
        }
    }
    for (k, bm) in entries {
        admit(layout, k, bm.page)?;
    }
    let mut cache = NodeCache::new();
    let mut tree = Tree {
        store: &mut *store,
        cache: &mut cache,
        layout,
        tdef_page,
        root: 0,
        pages: IndexPages::default(),
    };
    let mut level: Vec<Item> = entries
        .iter()
        .map(|(k, bm)| Item {
            key: Key::new(k),
            bookmark: *bm,
            child: 0,
        })
        .collect();
    let mut leaf = true;
    // whether the pages of the level below are node pages
    let mut children_are_nodes = false;
    loop {
        let groups = pack(layout, leaf, level)?;
        if children_are_nodes {
            tree.separate(&groups)?;
        }
        let mut numbers = Vec::with_capacity(groups.len());
        for _ in 0..groups.len() {
            numbers.push(tree.alloc()?);
        }
        let single = groups.len() == 1;
        let mut up = Vec::with_capacity(groups.len());
        for (i, items) in groups.into_iter().enumerate() {
            let node = Node {
                number: numbers[i],
                leaf,
                prev: if i == 0 { 0 } else { numbers[i - 1] },
                next: numbers.get(i + 1).copied().unwrap_or(0),
                items,
            };
            up.push(summary(&node));
            tree.write(node)?;
        }
        if single {
            let pages = std::mem::take(&mut tree.pages);
            cache.flush(store, layout)?;
            return Ok((numbers[0], pages));
        }
        level = up;
        children_are_nodes = !leaf;
        leaf = false;
    }
}

#[cfg(test)]
mod tests;
