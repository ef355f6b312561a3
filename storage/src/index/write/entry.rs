//! Entry changes: one entry inserted into or deleted from an index, and
//! the unique-key probe ([`key_exists`]), each through a [`NodeCache`] (the
//! methods) or on its own, its pages written before it returns (the
//! functions).

use super::cache::{Loader, NodeCache};
use super::node::{Item, Key, admit};
use super::tree::Tree;
use super::{IndexPages, IndexWriteError};
use crate::format::Layout;
use crate::index::Bookmark;
use crate::page::image::PageStore;
use std::cmp::Ordering;

impl NodeCache {
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
