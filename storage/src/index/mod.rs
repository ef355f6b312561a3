//! B-tree indexes: index pages (entry bitmap, shared prefixes), ordered
//! walks along the leaf chain, and seeks that descend from the root.
//!
//! Exports: modules [`key`] and [`write`](mod@write); the reader's
//! [`IndexReader`], [`LeafWalk`], [`IndexPage`], [`Entry`], [`Bookmark`],
//! [`KeyMatch`], [`Direction`], [`read_index_page`], [`decode_index_page`] and
//! [`MAX_DEPTH`].
//!
//! Leaf pages (type 0x04) hold `key | page (3 bytes, big-endian) | row`;
//! node pages (type 0x03) add the child page (4 bytes, big-endian) and hold,
//! per child, the last entry of that child's subtree. Entry boundaries come
//! from the bitmap via the `index_entry` kernel; every walk is bounded by a
//! visited set, so a cycle in the sibling chain is an error, not a hang.
//!
//! This module is the reader; beside it, [`key`] turns column values into
//! the key bytes entries hold (and seek bounds into key ranges), and
//! [`write`](mod@write) keeps a B-tree exact as rows change and builds
//! whole indexes.

pub mod key;
pub mod write;

use crate::error::{FormatError, corrupt};
use crate::format::{Layout, page_type};
use crate::page::PageSource;
use crate::schema::tdef::{RealIndex, TableDef};
use jet_kernels::Refusal;
use jet_kernels::bytes::{u16_at, u32_at};
use jet_kernels::index_entry::{admit_prefix, compare_prefix, entry_end};
use std::cmp::Ordering;
use std::collections::HashSet;
use std::ops::Bound;

/// Deepest tree a descent follows before refusing.
pub const MAX_DEPTH: usize = 32;

/// A row's address: data page and row slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bookmark {
    /// Data page.
    pub page: u32,
    /// Row slot.
    pub row: u8,
}

/// One index entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Encoded key bytes (all key columns, flags included).
    pub key: Vec<u8>,
    /// The row this entry points at.
    pub bookmark: Bookmark,
    /// Node pages: the child page whose subtree ends with this entry.
    pub child: Option<u32>,
}

/// A decoded index page.
#[derive(Debug, Clone)]
pub struct IndexPage {
    /// Page number.
    pub number: u32,
    /// Leaf (0x04) or node (0x03).
    pub leaf: bool,
    /// Previous page at this level (0 = none).
    pub prev: u32,
    /// Next page at this level (0 = none).
    pub next: u32,
    /// Tail leaf page (0 = none).
    pub tail: u32,
    /// Entries in page order.
    pub entries: Vec<Entry>,
}

/// Reads and decodes index page `n`. Refuses a page of another type, one
/// that belongs to another table, entries crossing the page end, a prefix
/// longer than the first entry, and entries too short for their pointers.
pub fn read_index_page(
    src: &dyn PageSource,
    layout: &Layout,
    n: u32,
    tdef_page: u32,
) -> Result<IndexPage, FormatError> {
    let p = src.read_page(n)?;
    decode_index_page(&p, layout, n, tdef_page)
}

/// Decodes the bytes `p` of index page `n` (see [`read_index_page`], which
/// reads the page first): the same checks, for callers that hold the bytes
/// (the index writer reads through a `PageStore`). `p` must be a whole page.
pub fn decode_index_page(
    p: &[u8],
    layout: &Layout,
    n: u32,
    tdef_page: u32,
) -> Result<IndexPage, FormatError> {
    let mut entries = Vec::new();
    let h = visit_index_page(p, layout, n, tdef_page, |key, bookmark, child| {
        entries.push(Entry {
            key: key.to_vec(),
            bookmark,
            child,
        });
    })?;
    Ok(IndexPage {
        number: n,
        leaf: h.leaf,
        prev: h.prev,
        next: h.next,
        tail: h.tail,
        entries,
    })
}

/// The header fields of an index page (see [`IndexPage`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct IndexPageHeader {
    pub(crate) leaf: bool,
    pub(crate) prev: u32,
    pub(crate) next: u32,
    pub(crate) tail: u32,
}

/// Decodes index page `n` as [`decode_index_page`] does (the same checks,
/// the same refusals), handing each entry's key (prefix restored),
/// bookmark and child to `f` in page order instead of collecting them: the
/// key is borrowed from one buffer reused for every entry.
pub(crate) fn visit_index_page(
    p: &[u8],
    layout: &Layout,
    n: u32,
    tdef_page: u32,
    mut f: impl FnMut(&[u8], Bookmark, Option<u32>),
) -> Result<IndexPageHeader, FormatError> {
    if p.len() < layout.page_size {
        return Err(corrupt(
            n,
            0,
            "index page shorter than a page",
            Refusal::OutOfBounds,
        ));
    }
    let leaf = match p[0] {
        page_type::INDEX_LEAF => true,
        page_type::INDEX_NODE => false,
        t => {
            return Err(FormatError::PageType {
                page: n,
                expected: "index",
                found: t,
            });
        }
    };
    let owner = u32_at(p, 4).unwrap_or(0);
    if owner != tdef_page {
        return Err(corrupt(
            n,
            4,
            "index page of another table",
            Refusal::BadCount,
        ));
    }
    let g32 = |o: usize| u32_at(p, o).unwrap_or(0);
    // Jet3 keeps the shared-prefix length in one byte (the next byte is
    // another field, seen as 0x01 in Access 97 files); Jet4+ in two
    let prefix_len = if layout.page_size == 2048 {
        usize::from(p[layout.index_prefix_len])
    } else {
        usize::from(u16_at(p, layout.index_prefix_len).unwrap_or(0))
    };
    let mask = &p[layout.index_entry_mask..layout.index_entry_mask + layout.index_entry_mask_len];
    let area = &p[layout.index_entry_mask + layout.index_entry_mask_len..];
    let tail_len = if leaf { 4 } else { 8 };
    let mut first = true;
    let mut full: Vec<u8> = Vec::new();
    let mut prefix: &[u8] = &[];
    let mut start = 0;
    while let Some(end) = entry_end(mask, area.len(), start)
        .map_err(|r| corrupt(n, layout.index_entry_mask, "index entry bitmap", r))?
    {
        let raw = &area[start..end];
        if first && prefix_len > 0 {
            let pl = admit_prefix(prefix_len, raw.len())
                .map_err(|r| corrupt(n, layout.index_prefix_len, "index prefix length", r))?;
            prefix = &raw[..pl];
        }
        full.clear();
        if !first {
            full.extend_from_slice(prefix);
        }
        first = false;
        full.extend_from_slice(raw);
        if full.len() < tail_len {
            return Err(corrupt(
                n,
                layout.index_entry_mask + layout.index_entry_mask_len + start,
                "index entry shorter than its pointers",
                Refusal::OutOfBounds,
            ));
        }
        let k = full.len() - tail_len;
        let page = u32::from_be_bytes([0, full[k], full[k + 1], full[k + 2]]);
        let row = full[k + 3];
        let child = (!leaf)
            .then(|| u32::from_be_bytes([full[k + 4], full[k + 5], full[k + 6], full[k + 7]]));
        f(&full[..k], Bookmark { page, row }, child);
        start = end;
    }
    Ok(IndexPageHeader {
        leaf,
        prev: g32(layout.index_prev),
        next: g32(layout.index_next),
        tail: g32(layout.index_tail),
    })
}

/// How a seek bound is compared with entry keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMatch {
    /// The bound is a whole encoded key: plain lexicographic comparison.
    Full,
    /// The bound is an encoded key prefix (the first columns of a composite
    /// key): a key equals it when it starts with it. Exact only for columns
    /// whose encodings are prefix-free (fixed-width types, non-empty
    /// variable values); callers re-check the rows.
    Prefix,
}

fn cmp_key(key: &[u8], bound: &[u8], mode: KeyMatch) -> Ordering {
    match mode {
        KeyMatch::Full => key.cmp(bound),
        KeyMatch::Prefix => compare_prefix(key, bound),
    }
}

/// Walk direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Increasing key order.
    Forward,
    /// Decreasing key order.
    Backward,
}

/// A real index of a table, ready to walk and seek.
pub struct IndexReader<'a> {
    src: &'a dyn PageSource,
    layout: &'a Layout,
    tdef_page: u32,
    root: u32,
}

impl<'a> IndexReader<'a> {
    /// A reader of the index whose root is page `root`, owned by the table
    /// whose TDEF starts at `tdef_page` (for indexes the caller has just
    /// built or changed, see [`write`](mod@write)).
    pub fn at(src: &'a dyn PageSource, layout: &'a Layout, tdef_page: u32, root: u32) -> Self {
        IndexReader {
            src,
            layout,
            tdef_page,
            root,
        }
    }

    /// A reader of `index` of the table `def`.
    pub fn new(
        src: &'a dyn PageSource,
        layout: &'a Layout,
        def: &TableDef,
        index: &RealIndex,
    ) -> Self {
        IndexReader {
            src,
            layout,
            tdef_page: def.page,
            root: index.root_page,
        }
    }

    fn page(&self, n: u32) -> Result<IndexPage, FormatError> {
        read_index_page(self.src, self.layout, n, self.tdef_page)
    }

    /// Descends from the root to the leaf where `key` (a prefix bound; `None`
    /// = the first or last leaf) would start. Returns the leaf's number and
    /// bytes and the tree height (pages on the path). Node pages are visited
    /// in place (no entry is copied out); `seen` collects the pages read, so
    /// a walk that goes on from the leaf refuses a loop back into the path.
    fn descend(
        &self,
        key: Option<&[u8]>,
        dir: Direction,
        mode: KeyMatch,
        seen: &mut HashSet<u32>,
    ) -> Result<(u32, crate::page::Page, usize), FormatError> {
        let mut n = self.root;
        seen.insert(n);
        let mut height = 1;
        loop {
            let p = self.src.read_page(n)?;
            if p.first() == Some(&page_type::INDEX_LEAF) {
                return Ok((n, p, height));
            }
            if height > MAX_DEPTH {
                return Err(corrupt(n, 0, "index tree too deep", Refusal::Budget));
            }
            // the children of: the first entry, the last, the first not
            // below the key and the first above it
            let (mut first, mut last, mut not_below, mut above) = (None, None, None, None);
            let h = visit_index_page(&p, self.layout, n, self.tdef_page, |k, _, child| {
                first = first.or(child);
                last = child;
                if let Some(bound) = key {
                    if not_below.is_none() && cmp_key(k, bound, mode) != Ordering::Less {
                        not_below = child;
                    }
                    if above.is_none() && cmp_key(k, bound, mode) == Ordering::Greater {
                        above = child;
                    }
                }
            })?;
            let child = match (key, dir) {
                // past every entry: the tail child (which has no entry)
                // holds the keys above the last one
                (Some(_), Direction::Forward) if not_below.is_none() && h.tail != 0 => Some(h.tail),
                (Some(_), Direction::Forward) => not_below.or(last),
                (Some(_), Direction::Backward) => above.or(last),
                (None, Direction::Forward) => first,
                (None, Direction::Backward) => last,
            }
            .ok_or_else(|| corrupt(n, 0, "index node without entries", Refusal::EmptyRow))?;
            // the tail page sits after the last child when the tree was not
            // updated for it; a backward walk from the end starts there
            let child = if dir == Direction::Backward && key.is_none() && h.tail != 0 {
                h.tail
            } else {
                child
            };
            if !seen.insert(child) {
                return Err(corrupt(n, 0, "index tree loops", Refusal::Budget));
            }
            n = child;
            height += 1;
        }
    }

    /// The leaf where `key` would start, decoded, with the pages seen.
    fn descend_decoded(
        &self,
        key: Option<&[u8]>,
        dir: Direction,
        mode: KeyMatch,
    ) -> Result<(IndexPage, HashSet<u32>, usize), FormatError> {
        let mut seen = HashSet::new();
        let (n, p, height) = self.descend(key, dir, mode, &mut seen)?;
        Ok((
            decode_index_page(&p, self.layout, n, self.tdef_page)?,
            seen,
            height,
        ))
    }

    /// Height of the tree: pages from the root to the first leaf.
    pub fn height(&self) -> Result<usize, FormatError> {
        let mut seen = HashSet::new();
        Ok(self
            .descend(None, Direction::Forward, KeyMatch::Full, &mut seen)?
            .2)
    }

    /// Every entry in key order (or reverse), following the leaf chain.
    pub fn walk(&self, dir: Direction) -> Result<LeafWalk<'_, 'a>, FormatError> {
        let (leaf, seen, _) = self.descend_decoded(None, dir, KeyMatch::Full)?;
        Ok(LeafWalk::new(self, leaf, dir, seen))
    }

    /// The first entry in key order (`MIN`), or `None` for an empty index.
    pub fn first(&self) -> Result<Option<Entry>, FormatError> {
        self.walk(Direction::Forward)?.next().transpose()
    }

    /// The last entry in key order (`MAX`).
    pub fn last(&self) -> Result<Option<Entry>, FormatError> {
        self.walk(Direction::Backward)?.next().transpose()
    }

    /// Entries whose keys lie between `lower` and `upper` (encoded keys, see
    /// [`key`]), compared as `mode` says. Descends to the first
    /// candidate leaf, then walks forward until past `upper`: pages read are
    /// the tree height plus the leaves holding the result.
    pub fn seek(
        &self,
        lower: Bound<&[u8]>,
        upper: Bound<&[u8]>,
        mode: KeyMatch,
    ) -> Result<Vec<Entry>, FormatError> {
        let start_key = match lower {
            Bound::Included(k) | Bound::Excluded(k) => Some(k),
            Bound::Unbounded => None,
        };
        let mut seen = HashSet::new();
        let (mut n, mut p, _) = self.descend(start_key, Direction::Forward, mode, &mut seen)?;
        // entries are compared where they lie in the page; only those in
        // range are copied out
        let mut out = Vec::new();
        loop {
            let mut past = false;
            let h = visit_index_page(
                &p,
                self.layout,
                n,
                self.tdef_page,
                |key, bookmark, child| {
                    if past {
                        return;
                    }
                    let below = match lower {
                        Bound::Included(k) => cmp_key(key, k, mode) == Ordering::Less,
                        Bound::Excluded(k) => cmp_key(key, k, mode) != Ordering::Greater,
                        Bound::Unbounded => false,
                    };
                    if below {
                        return;
                    }
                    past = match upper {
                        Bound::Included(k) => cmp_key(key, k, mode) == Ordering::Greater,
                        Bound::Excluded(k) => cmp_key(key, k, mode) != Ordering::Less,
                        Bound::Unbounded => false,
                    };
                    if !past {
                        out.push(Entry {
                            key: key.to_vec(),
                            bookmark,
                            child,
                        });
                    }
                },
            )?;
            if past || h.next == 0 {
                break;
            }
            if !seen.insert(h.next) {
                return Err(corrupt(n, 0, "index leaf chain loops", Refusal::Budget));
            }
            let next = self.src.read_page(h.next)?;
            if next.first() != Some(&page_type::INDEX_LEAF) {
                return Err(FormatError::PageType {
                    page: h.next,
                    expected: "index leaf",
                    found: next.first().copied().unwrap_or(0xFF),
                });
            }
            (n, p) = (h.next, next);
        }
        Ok(out)
    }
}

impl IndexReader<'_> {
    /// Entries whose keys lie in any of `ranges` (compared as `mode`
    /// says, as [`IndexReader::seek`] does), in key order, each entry once.
    /// `ranges` must be sorted by lower bound (`Unbounded` first); they may
    /// overlap. One descent finds the first range's leaf; the leaf chain is
    /// then followed, and the tree is descended again only when the next
    /// range starts beyond the leaf in hand, so pages read are at most the
    /// leaves between the first and the last range plus one tree height
    /// per range.
    #[allow(clippy::type_complexity)]
    pub fn seek_ranges(
        &self,
        ranges: &[(Bound<&[u8]>, Bound<&[u8]>)],
        mode: KeyMatch,
    ) -> Result<Vec<Entry>, FormatError> {
        let below = |key: &[u8], lower: Bound<&[u8]>| match lower {
            Bound::Included(k) => cmp_key(key, k, mode) == Ordering::Less,
            Bound::Excluded(k) => cmp_key(key, k, mode) != Ordering::Greater,
            Bound::Unbounded => false,
        };
        let past = |key: &[u8], upper: Bound<&[u8]>| match upper {
            Bound::Included(k) => cmp_key(key, k, mode) == Ordering::Greater,
            Bound::Excluded(k) => cmp_key(key, k, mode) != Ordering::Less,
            Bound::Unbounded => false,
        };
        let mut out = Vec::new();
        if ranges.is_empty() {
            return Ok(out);
        }
        let start_of = |r: usize| match ranges[r].0 {
            Bound::Included(k) | Bound::Excluded(k) => Some(k),
            Bound::Unbounded => None,
        };
        // the range the entries are compared with: every earlier range
        // ends below the entry in hand
        let mut r = 0;
        let (mut n, mut p, _) =
            self.descend(start_of(0), Direction::Forward, mode, &mut HashSet::new())?;
        // leaves read: the chain must not lead back to one, and a descent
        // landing on one again walks on instead (no entry is returned twice)
        let mut leaves = HashSet::from([n]);
        let mut descended_for = 0;
        loop {
            let mut last_below = false;
            let h = visit_index_page(
                &p,
                self.layout,
                n,
                self.tdef_page,
                |key, bookmark, child| {
                    while r < ranges.len() && past(key, ranges[r].1) {
                        r += 1;
                    }
                    let Some(range) = ranges.get(r) else { return };
                    last_below = below(key, range.0);
                    if !last_below {
                        out.push(Entry {
                            key: key.to_vec(),
                            bookmark,
                            child,
                        });
                    }
                },
            )?;
            if r >= ranges.len() || h.next == 0 {
                break;
            }
            // the next range starts beyond this leaf: descend to it, once
            // per range
            if last_below && descended_for != r {
                descended_for = r;
                let (n2, p2, _) =
                    self.descend(start_of(r), Direction::Forward, mode, &mut HashSet::new())?;
                if leaves.insert(n2) {
                    (n, p) = (n2, p2);
                    continue;
                }
            }
            if !leaves.insert(h.next) {
                return Err(corrupt(n, 0, "index leaf chain loops", Refusal::Budget));
            }
            let next = self.src.read_page(h.next)?;
            if next.first() != Some(&page_type::INDEX_LEAF) {
                return Err(FormatError::PageType {
                    page: h.next,
                    expected: "index leaf",
                    found: next.first().copied().unwrap_or(0xFF),
                });
            }
            (n, p) = (h.next, next);
        }
        Ok(out)
    }
}

/// Entries along the leaf chain from a starting leaf; a page visited twice
/// ends the walk with an error.
pub struct LeafWalk<'r, 'a> {
    reader: &'r IndexReader<'a>,
    current: Option<IndexPage>,
    pos: usize,
    dir: Direction,
    seen: HashSet<u32>,
    failed: bool,
}

impl<'r, 'a> LeafWalk<'r, 'a> {
    fn new(
        reader: &'r IndexReader<'a>,
        leaf: IndexPage,
        dir: Direction,
        mut seen: HashSet<u32>,
    ) -> Self {
        seen.insert(leaf.number);
        let pos = if dir == Direction::Forward {
            0
        } else {
            leaf.entries.len()
        };
        LeafWalk {
            reader,
            current: Some(leaf),
            pos,
            dir,
            seen,
            failed: false,
        }
    }
}

impl Iterator for LeafWalk<'_, '_> {
    type Item = Result<Entry, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            let page = self.current.as_ref()?;
            match self.dir {
                Direction::Forward if self.pos < page.entries.len() => {
                    self.pos += 1;
                    return Some(Ok(page.entries[self.pos - 1].clone()));
                }
                Direction::Backward if self.pos > 0 => {
                    self.pos -= 1;
                    return Some(Ok(page.entries[self.pos].clone()));
                }
                _ => {}
            }
            let next = if self.dir == Direction::Forward {
                page.next
            } else {
                page.prev
            };
            if next == 0 {
                self.current = None;
                return None;
            }
            if !self.seen.insert(next) {
                self.failed = true;
                return Some(Err(corrupt(
                    page.number,
                    0,
                    "index leaf chain loops",
                    Refusal::Budget,
                )));
            }
            match self.reader.page(next) {
                Ok(p) if p.leaf => {
                    self.pos = if self.dir == Direction::Forward {
                        0
                    } else {
                        p.entries.len()
                    };
                    self.current = Some(p);
                }
                Ok(p) => {
                    self.failed = true;
                    return Some(Err(FormatError::PageType {
                        page: p.number,
                        expected: "index leaf",
                        found: page_type::INDEX_NODE,
                    }));
                }
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}
