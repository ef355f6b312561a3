//! Index pages in memory and their encoding: entry keys ([`Key`]), the
//! items of a page ([`Item`]), a page ([`Node`]), how many bytes a page's
//! entries take, whether they fit one page, and the page bytes of a node
//! (header, entry bitmap, prefix-compressed entries).

use super::IndexWriteError;
use crate::format::{Layout, page_type};
use crate::index::Bookmark;
use jet_kernels::index_entry::compare_entries;
use jet_kernels::index_page::{
    admit_entry_area, common_prefix_len, mask_position, max_entry_area, stored_entry_len,
};
use std::cmp::Ordering;

/// Longest key a [`Key`] holds without a heap allocation: every key of
/// one numeric, date, currency or GUID column and short texts.
const INLINE_KEY: usize = 22;

/// An entry key in memory: inline up to [`INLINE_KEY`] bytes, else on the
/// heap (a decoded page holds hundreds of keys; most are short).
#[derive(Clone, PartialEq, Eq)]
pub(super) enum Key {
    Inline(u8, [u8; INLINE_KEY]),
    Heap(Box<[u8]>),
}

impl Key {
    pub(super) fn new(bytes: &[u8]) -> Key {
        match u8::try_from(bytes.len()) {
            Ok(len) if bytes.len() <= INLINE_KEY => {
                let mut b = [0u8; INLINE_KEY];
                b[..bytes.len()].copy_from_slice(bytes);
                Key::Inline(len, b)
            }
            _ => Key::Heap(bytes.into()),
        }
    }

    pub(super) fn as_slice(&self) -> &[u8] {
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
pub(super) struct Item {
    pub(super) key: Key,
    pub(super) bookmark: Bookmark,
    pub(super) child: u32,
}

impl Item {
    pub(super) fn cmp_to(&self, key: &[u8], bm: Bookmark) -> Ordering {
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
pub(super) struct Node {
    pub(super) number: u32,
    pub(super) leaf: bool,
    pub(super) prev: u32,
    pub(super) next: u32,
    pub(super) items: Vec<Item>,
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

pub(super) fn pointers_len(leaf: bool) -> usize {
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
pub(super) fn prefix_cap(layout: &Layout) -> usize {
    if layout.page_size == 2048 {
        usize::from(u8::MAX)
    } else {
        usize::from(u16::MAX)
    }
}

/// Bytes the written entries of `items` take on a page (`usize::MAX` when
/// a length is refused, which no page admits).
pub(super) fn written_len(layout: &Layout, items: &[Item], leaf: bool) -> usize {
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
pub(super) fn written(node: &Node) -> (&[Item], u32) {
    match node.items.split_last() {
        Some((last, rest)) if !node.leaf && !rest.is_empty() => (rest, last.child),
        _ => (&node.items, 0),
    }
}

/// Whether `node` fits one page.
pub(super) fn fits(layout: &Layout, node: &Node) -> bool {
    fits_items(layout, node.leaf, &node.items)
}

/// Whether a page (leaf when `leaf`) holding `items` fits one page (on a
/// node page with several children the last one is the tail, not written).
pub(super) fn fits_items(layout: &Layout, leaf: bool, items: &[Item]) -> bool {
    let written = match items.split_last() {
        Some((_, rest)) if !leaf && !rest.is_empty() => rest,
        _ => items,
    };
    written_len(layout, written, leaf) <= entry_area_len(layout)
}

/// Encodes `node` as page bytes owned by `tdef_page`.
pub(super) fn encode(
    layout: &Layout,
    tdef_page: u32,
    node: &Node,
) -> Result<Vec<u8>, IndexWriteError> {
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
pub(super) fn admit(layout: &Layout, key: &[u8], page: u32) -> Result<(), IndexWriteError> {
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

/// The parent item of a written page: its last entry and its number.
pub(super) fn summary(node: &Node) -> Item {
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
