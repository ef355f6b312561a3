//! Index maintenance: keeps a real index's B-tree exact when the writer
//! inserts or deletes rows, and builds whole indexes bottom-up.
//!
//! Exports: [`insert_entry`], [`delete_entry`], [`key_exists`],
//! [`build_index`], [`NodeCache`], [`entry_area_len`], [`IndexPages`] and
//! [`IndexWriteError`].
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
//!
//! The parts: `node` (pages in memory and their encoding), `cache` (the
//! decoded pages one transaction holds), `tree` (changes to one tree
//! through the cache, splits and frees), `entry` (inserting, deleting and
//! probing one entry) and `build` (whole indexes bottom-up).

mod build;
mod cache;
mod entry;
mod node;
mod tree;

pub use build::build_index;
pub use cache::NodeCache;
pub use entry::{delete_entry, insert_entry, key_exists};
pub use node::entry_area_len;

use crate::error::FormatError;

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

#[cfg(test)]
mod tests;
