//! The bulk build: a whole index written bottom-up from entries in index
//! order ([`build_index`]), each level packed greedily into full pages.

use super::cache::NodeCache;
use super::node::{
    Item, Key, Node, admit, entry_area_len, fits_items, pointers_len, prefix_cap, summary,
};
use super::tree::Tree;
use super::{IndexPages, IndexWriteError};
use crate::format::Layout;
use crate::index::Bookmark;
use crate::page::image::PageStore;
use jet_kernels::index_entry::compare_entries;
use jet_kernels::index_page::common_prefix_len;
use std::cmp::Ordering;

/// Packs `level` (in index order) greedily into pages of `leaf` kind:
/// each page takes items while they fit. The written length is kept
/// incrementally: the full lengths of the written entries less, for all
/// but the first, the shared prefix of the first and last written keys
/// (sorted keys in between share it; a node page's last child is its tail
/// and is not written). Every finished page is checked with the exact
/// computation ([`fits_items`]).
pub(super) fn pack(
    layout: &Layout,
    leaf: bool,
    level: Vec<Item>,
) -> Result<Vec<Vec<Item>>, IndexWriteError> {
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
