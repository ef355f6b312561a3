//! The node cache: decoded index pages held across the entry changes of
//! one transaction ([`NodeCache`]), how a held page differs from the store
//! ([`Dirt`]) and is written back, and the [`Loader`] that decodes pages
//! into the cache and walks down a tree through it.

use super::IndexWriteError;
use super::node::{Item, Key, Node, encode};
use crate::format::Layout;
use crate::index::{Bookmark, visit_index_page};
use crate::page::image::PageStore;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Deepest tree the writer descends before refusing (as the reader).
const MAX_DEPTH: usize = crate::index::MAX_DEPTH;

/// How a page held in a [`NodeCache`] differs from its bytes in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Dirt {
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
pub(super) struct Cached {
    pub(super) node: Node,
    pub(super) tdef_page: u32,
    pub(super) dirt: Dirt,
}

/// Decoded index pages kept in memory across the entry changes of one
/// transaction, so a page on the path of many rows is decoded once and
/// encoded once (at [`NodeCache::flush`]) instead of once per row.
///
/// Guarantees: after `flush`, the store holds exactly the bytes the same
/// sequence of changes made one by one through
/// [`insert_entry`](super::insert_entry) and
/// [`delete_entry`](super::delete_entry) would have written (each page is
/// encoded from the same decoded state; a page whose only change is a
/// sibling pointer has just that pointer patched; a page freed while it held unwritten changes gets
/// its last state written before it is dropped). Before `flush`, index
/// pages in the store may be stale: the caller flushes before anything
/// else reads them (commit, schema changes) and [`NodeCache::clear`]s the
/// cache when a transaction ends or is abandoned. Page numbers identify
/// pages, so one cache serves every index of one store.
#[derive(Debug, Default)]
pub struct NodeCache {
    pub(super) nodes: HashMap<u32, Cached>,
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
}

/// Writes the held changes of `c` into `store` and marks it clean.
pub(super) fn write_back(
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
pub(super) struct Loader<'s> {
    pub(super) store: &'s dyn PageStore,
    pub(super) cache: &'s mut NodeCache,
    pub(super) layout: &'s Layout,
    pub(super) tdef_page: u32,
}

impl Loader<'_> {
    /// Page `n`, decoded into the cache if it is not held yet.
    pub(super) fn node(&mut self, n: u32) -> Result<&Node, IndexWriteError> {
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
    pub(super) fn ensure(&mut self, n: u32, depth: usize) -> Result<(), IndexWriteError> {
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
    pub(super) fn descend(
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
