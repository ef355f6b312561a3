//! A lazy, owned walk over a B-tree index in either direction, restricted
//! to key ranges: what ordered scans and MIN/MAX read.
//!
//! Storage's [`jet_storage::index::IndexReader`] borrows its table and
//! collects seeks into vectors; a plan's stream must own its state and stop
//! after `LIMIT n` entries, so this cursor keeps the current leaf and walks
//! on demand. It reads pages only through [`read_index_page`] (the storage
//! decoder with its entry-boundary kernel) and follows the same descent
//! rules as the storage reader: node entries hold the last key of their
//! child, and a backward walk from the very end starts at the tail page.
//! Every page it visits is recorded, so a cycle in the tree or the leaf
//! chain is a typed error, never a hang.

use jet_kernels::index_entry::compare_prefix;
use jet_storage::FormatError;
use jet_storage::format::Layout;
use jet_storage::index::{Entry, IndexPage, MAX_DEPTH, read_index_page};
use jet_storage::page::PageSource;
use std::cmp::Ordering;
use std::collections::{HashSet, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

/// One stretch of a walk: a direction and the key bounds every emitted
/// entry satisfies. Bounds are encoded key prefixes compared over their own
/// length (`KeyMatch::Prefix` semantics); all of them apply at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Increasing key order when true.
    pub forward: bool,
    /// Lower bounds (an entry is at or above every one).
    pub lowers: Vec<Bound<Vec<u8>>>,
    /// Upper bounds (an entry is at or below every one).
    pub uppers: Vec<Bound<Vec<u8>>>,
}

impl Segment {
    /// A segment in direction `forward` bounded by `lower` and `upper`.
    pub fn new(forward: bool, lower: Bound<Vec<u8>>, upper: Bound<Vec<u8>>) -> Self {
        let keep = |b: Bound<Vec<u8>>| (!matches!(b, Bound::Unbounded)).then_some(b);
        Segment {
            forward,
            lowers: keep(lower).into_iter().collect(),
            uppers: keep(upper).into_iter().collect(),
        }
    }

    /// The same segment restricted to the keys whose first column is a
    /// value (`nulls` false) or NULL (`nulls` true), for a first key column
    /// sorted ascending (`ascending`) or descending. Only the bound on the
    /// side where the other kind lies is added (ascending keys start with
    /// `00` for NULL, `7F` for a value; descending with `80` for a value,
    /// `FF` for NULL), so a walk from the open end needs no keyed descent.
    pub fn first_column(mut self, ascending: bool, nulls: bool) -> Self {
        match (ascending, nulls) {
            (true, false) => self.lowers.push(Bound::Included(vec![0x7F])),
            (true, true) => self.uppers.push(Bound::Included(vec![0x00])),
            (false, false) => self.uppers.push(Bound::Included(vec![0x80])),
            (false, true) => self.lowers.push(Bound::Included(vec![0xFF])),
        }
        self
    }

    fn above_all_lowers(&self, key: &[u8]) -> bool {
        self.lowers.iter().all(|b| match b {
            Bound::Included(k) => compare_prefix(key, k) != Ordering::Less,
            Bound::Excluded(k) => compare_prefix(key, k) == Ordering::Greater,
            Bound::Unbounded => true,
        })
    }

    fn below_all_uppers(&self, key: &[u8]) -> bool {
        self.uppers.iter().all(|b| match b {
            Bound::Included(k) => compare_prefix(key, k) != Ordering::Greater,
            Bound::Excluded(k) => compare_prefix(key, k) == Ordering::Less,
            Bound::Unbounded => true,
        })
    }

    /// The key a descent starts from: the largest lower bound going
    /// forward (every entry before it fails that bound), any upper bound
    /// going backward (the walk skips entries above the others).
    fn start_key(&self) -> Option<&[u8]> {
        fn key(b: &Bound<Vec<u8>>) -> Option<&[u8]> {
            match b {
                Bound::Included(k) | Bound::Excluded(k) => Some(k.as_slice()),
                Bound::Unbounded => None,
            }
        }
        if self.forward {
            self.lowers.iter().filter_map(key).max()
        } else {
            self.uppers.iter().find_map(key)
        }
    }
}

/// Where a segment's walk stands.
struct Position {
    segment: Segment,
    page: IndexPage,
    /// Forward: the next entry to look at. Backward: one past it.
    pos: usize,
    seen: HashSet<u32>,
    /// The entries before this point failed the starting bounds; from here
    /// on they hold (bounds are monotone along the walk).
    started: bool,
}

/// An owned cursor that yields the entries of a sequence of segments.
pub(crate) struct IndexCursor {
    src: Arc<dyn PageSource>,
    layout: &'static Layout,
    tdef_page: u32,
    root: u32,
    pending: VecDeque<Segment>,
    current: Option<Position>,
    failed: bool,
    /// Index pages read so far.
    pub pages_read: u64,
}

impl IndexCursor {
    /// A cursor over the B-tree rooted at `root` of the table whose TDEF is
    /// at `tdef_page`, walking `segments` one after the other.
    pub fn new(
        src: Arc<dyn PageSource>,
        layout: &'static Layout,
        tdef_page: u32,
        root: u32,
        segments: Vec<Segment>,
    ) -> Self {
        IndexCursor {
            src,
            layout,
            tdef_page,
            root,
            pending: segments.into(),
            current: None,
            failed: false,
            pages_read: 0,
        }
    }

    fn page(&mut self, n: u32) -> Result<IndexPage, FormatError> {
        self.pages_read += 1;
        read_index_page(&*self.src, self.layout, n, self.tdef_page)
    }

    /// Descends to the leaf where a segment's walk starts.
    fn start(&mut self, segment: Segment) -> Result<Position, FormatError> {
        let key = segment.start_key().map(<[u8]>::to_vec);
        let forward = segment.forward;
        let mut seen = HashSet::from([self.root]);
        let mut page = self.page(self.root)?;
        let mut depth = 1;
        while !page.leaf {
            if depth > MAX_DEPTH {
                return Err(loop_error(page.number, "index tree too deep"));
            }
            let pick = match (&key, forward) {
                (Some(k), true) => page
                    .entries
                    .iter()
                    .find(|e| compare_prefix(&e.key, k) != Ordering::Less)
                    .or(page.entries.last()),
                (Some(k), false) => page
                    .entries
                    .iter()
                    .find(|e| compare_prefix(&e.key, k) == Ordering::Greater)
                    .or(page.entries.last()),
                (None, true) => page.entries.first(),
                (None, false) => page.entries.last(),
            };
            let Some(child) = pick.and_then(|e| e.child) else {
                return Err(loop_error(page.number, "index node without entries"));
            };
            // a backward walk from the very end starts at the tail page,
            // which the node may not list yet
            let child = if !forward && key.is_none() && page.tail != 0 {
                page.tail
            } else {
                child
            };
            if !seen.insert(child) {
                return Err(loop_error(page.number, "index tree loops"));
            }
            page = self.page(child)?;
            depth += 1;
        }
        if !forward && key.is_some() {
            // the leaf holding the last entry within the bound may follow
            // the one the nodes point at (a tail page they do not list):
            // move right while the next leaf still starts within the bound
            while page.next != 0
                && page
                    .entries
                    .last()
                    .is_none_or(|e| segment.below_all_uppers(&e.key))
            {
                if seen.contains(&page.next) {
                    return Err(loop_error(page.number, "index leaf chain loops"));
                }
                let next = self.page(page.next)?;
                if !next.leaf {
                    return Err(FormatError::PageType {
                        page: next.number,
                        expected: "index leaf",
                        found: jet_storage::format::page_type::INDEX_NODE,
                    });
                }
                if next
                    .entries
                    .first()
                    .is_some_and(|e| !segment.below_all_uppers(&e.key))
                {
                    break;
                }
                seen.insert(next.number);
                page = next;
            }
        }
        let mut leaves = HashSet::new();
        leaves.insert(page.number);
        let pos = if forward { 0 } else { page.entries.len() };
        Ok(Position {
            segment,
            page,
            pos,
            seen: leaves,
            started: false,
        })
    }

    /// Moves a position to the sibling leaf; `Ok(false)` at the chain end.
    fn advance(&mut self, mut p: Position) -> Result<Option<Position>, FormatError> {
        let next = if p.segment.forward {
            p.page.next
        } else {
            p.page.prev
        };
        if next == 0 {
            return Ok(None);
        }
        if !p.seen.insert(next) {
            return Err(loop_error(p.page.number, "index leaf chain loops"));
        }
        let page = self.page(next)?;
        if !page.leaf {
            return Err(FormatError::PageType {
                page: page.number,
                expected: "index leaf",
                found: jet_storage::format::page_type::INDEX_NODE,
            });
        }
        p.pos = if p.segment.forward {
            0
        } else {
            page.entries.len()
        };
        p.page = page;
        Ok(Some(p))
    }

    fn step(&mut self) -> Result<Option<Entry>, FormatError> {
        loop {
            let Some(mut p) = self.current.take() else {
                match self.pending.pop_front() {
                    Some(s) => {
                        self.current = Some(self.start(s)?);
                        continue;
                    }
                    None => return Ok(None),
                }
            };
            let entry = if p.segment.forward {
                p.page.entries.get(p.pos).cloned().inspect(|_| p.pos += 1)
            } else if p.pos > 0 {
                p.pos -= 1;
                p.page.entries.get(p.pos).cloned()
            } else {
                None
            };
            let Some(e) = entry else {
                self.current = self.advance(p)?;
                continue;
            };
            let (starts, ends) = if p.segment.forward {
                (
                    p.segment.above_all_lowers(&e.key),
                    !p.segment.below_all_uppers(&e.key),
                )
            } else {
                (
                    p.segment.below_all_uppers(&e.key),
                    !p.segment.above_all_lowers(&e.key),
                )
            };
            if !p.started {
                if !starts {
                    self.current = Some(p);
                    continue;
                }
                p.started = true;
            }
            if ends {
                // this segment is done; the next one starts afresh
                continue;
            }
            self.current = Some(p);
            return Ok(Some(e));
        }
    }
}

impl Iterator for IndexCursor {
    type Item = Result<Entry, FormatError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.step() {
            Ok(e) => e.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

fn loop_error(page: u32, what: &'static str) -> FormatError {
    FormatError::Corrupt {
        page,
        offset: 0,
        what,
        refusal: jet_kernels::Refusal::Budget,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of up to three bytes over a small alphabet, in key order.
    fn keys() -> Vec<Vec<u8>> {
        let alphabet = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF];
        let mut out = vec![vec![]];
        for len in 1..=3u32 {
            for n in 0..alphabet.len().pow(len) {
                let mut k = Vec::new();
                let mut x = n;
                for _ in 0..len {
                    k.push(alphabet[x % alphabet.len()]);
                    x /= alphabet.len();
                }
                out.push(k);
            }
        }
        out.sort();
        out
    }

    fn bounds() -> Vec<Bound<Vec<u8>>> {
        let mut out = vec![Bound::Unbounded];
        for k in [
            vec![0x00],
            vec![0x7F],
            vec![0x7F, 0x01],
            vec![0x80],
            vec![0xFF],
            vec![0x7F, 0xFE, 0x00],
        ] {
            out.push(Bound::Included(k.clone()));
            out.push(Bound::Excluded(k));
        }
        out
    }

    /// The walk stops at the first entry past the far bound and starts at
    /// the first inside the near one: both tests must be monotone along
    /// key order, for any mix of bounds.
    #[test]
    fn bound_tests_are_monotone_in_key_order() {
        let keys = keys();
        for lo in bounds() {
            for lo2 in bounds() {
                for hi in bounds() {
                    let s = Segment::new(true, lo.clone(), hi.clone());
                    let mut s2 = s.clone();
                    s2.lowers
                        .extend(Segment::new(true, lo2.clone(), Bound::Unbounded).lowers);
                    for seg in [&s, &s2] {
                        let above: Vec<bool> =
                            keys.iter().map(|k| seg.above_all_lowers(k)).collect();
                        let below: Vec<bool> =
                            keys.iter().map(|k| seg.below_all_uppers(k)).collect();
                        assert!(above.windows(2).all(|w| w[0] <= w[1]), "{lo:?} {lo2:?}");
                        assert!(below.windows(2).all(|w| w[0] >= w[1]), "{hi:?}");
                    }
                }
            }
        }
    }

    /// A forward descent may start at the largest lower bound: no key
    /// before it passes every lower bound.
    #[test]
    fn forward_start_key_skips_nothing_valid() {
        let keys = keys();
        for a in bounds() {
            for b in bounds() {
                let mut s = Segment::new(true, a.clone(), Bound::Unbounded);
                s.lowers
                    .extend(Segment::new(true, b.clone(), Bound::Unbounded).lowers);
                let Some(start) = s.start_key().map(<[u8]>::to_vec) else {
                    assert!(s.lowers.is_empty());
                    continue;
                };
                for k in &keys {
                    if compare_prefix(k, &start) == Ordering::Less {
                        assert!(
                            !s.above_all_lowers(k),
                            "{k:?} before {start:?} passes {a:?} {b:?}"
                        );
                    }
                }
            }
        }
    }

    /// `first_column` keeps exactly the keys whose first byte is a value
    /// flag (or a NULL flag) of the key direction.
    #[test]
    fn first_column_selects_values_or_nulls() {
        for k in keys().into_iter().filter(|k| !k.is_empty()) {
            for asc in [true, false] {
                let (value, null) = if asc { (0x7F, 0x00) } else { (0x80, 0xFF) };
                if k[0] != value && k[0] != null {
                    continue;
                }
                for nulls in [false, true] {
                    let s = Segment::new(true, Bound::Unbounded, Bound::Unbounded)
                        .first_column(asc, nulls);
                    let inside = s.above_all_lowers(&k) && s.below_all_uppers(&k);
                    assert_eq!(
                        inside,
                        (k[0] == null) == nulls,
                        "{k:?} asc={asc} nulls={nulls}"
                    );
                }
            }
        }
    }
}
