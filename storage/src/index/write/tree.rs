//! The tree: changes to one index through a [`NodeCache`] ([`Tree`]):
//! pages taken and put back, sibling links rewritten, pages allocated, and
//! the path from a changed leaf settled bottom-up (pages that overflow
//! split, pages left empty freed, separators refreshed, the root kept at
//! its page number).

use super::cache::{Cached, Dirt, Loader, NodeCache, write_back};
use super::node::{Item, Node, entry_area_len, fits, fits_items, summary, written, written_len};
use super::{IndexPages, IndexWriteError};
use crate::format::Layout;
use crate::index::Bookmark;
use crate::page::image::PageStore;

/// Changes to one index through a [`NodeCache`].
pub(super) struct Tree<'s> {
    pub(super) store: &'s mut dyn PageStore,
    pub(super) cache: &'s mut NodeCache,
    pub(super) layout: &'s Layout,
    pub(super) tdef_page: u32,
    pub(super) root: u32,
    pub(super) pages: IndexPages,
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

    pub(super) fn descend(
        &mut self,
        key: &[u8],
        bm: Bookmark,
    ) -> Result<Vec<(u32, usize)>, IndexWriteError> {
        let root = self.root;
        self.loader().descend(root, key, bm)
    }

    /// Page `n` (decoded into the cache first if needed), for changing.
    /// The caller marks what it changed.
    pub(super) fn node_mut(&mut self, n: u32) -> Result<&mut Node, IndexWriteError> {
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
    pub(super) fn write_back_page(&mut self, n: u32) -> Result<(), IndexWriteError> {
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
    pub(super) fn write(&mut self, node: Node) -> Result<(), IndexWriteError> {
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
    pub(super) fn separate(&mut self, pieces: &[Vec<Item>]) -> Result<(), IndexWriteError> {
        for w in pieces.windows(2) {
            if let (Some(a), Some(b)) = (w[0].last(), w[1].first()) {
                self.set_link(a.child, false, 0)?;
                self.set_link(b.child, true, 0)?;
            }
        }
        Ok(())
    }

    pub(super) fn alloc(&mut self) -> Result<u32, IndexWriteError> {
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
    pub(super) fn settle(&mut self, mut path: Vec<(u32, usize)>) -> Result<(), IndexWriteError> {
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
