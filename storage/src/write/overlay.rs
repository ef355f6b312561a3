//! [`PageOverlay`]: a transaction's view of the database — the committed
//! image plus the pages the transaction rewrote or appended.

use crate::error::FormatError;
use crate::page::image::{ImageChanges, PageStore};
use crate::page::{Page, PageSource};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Pages of the committed image O overlaid with the transaction's writes.
///
/// Reads see the transaction's own writes; O is never modified.
/// [`PageOverlay::into_changes`] yields exactly the pages that differ from
/// O (rewritten pages whose bytes equal O's are dropped) plus every
/// appended page. The overlay is also a [`PageSource`], so the read path
/// (TDEF parser, usage maps, data pages, long values) works on it unchanged.
pub struct PageOverlay {
    base: Arc<dyn PageSource>,
    base_pages: u32,
    pages: u32,
    dirty: BTreeMap<u32, Page>,
    reads: AtomicU64,
    /// Pages of the image that are free: [`PageStore::append`] hands them
    /// out (lowest first, zero-filled) before it grows the image. Empty
    /// except for an overlay made by [`PageOverlay::with_free_pages`].
    reuse: Vec<u32>,
}

impl PageOverlay {
    /// An overlay with no writes over `base`.
    pub fn new(base: Arc<dyn PageSource>) -> PageOverlay {
        let pages = base.page_count();
        PageOverlay {
            base,
            base_pages: pages,
            pages,
            dirty: BTreeMap::new(),
            reads: AtomicU64::new(0),
            reuse: Vec::new(),
        }
    }

    /// An overlay over `base` whose [`PageStore::append`] first hands out
    /// the pages `free` lists (each once, lowest first, zero-filled; pages
    /// past the image are ignored), then grows the image. The caller
    /// guarantees that no page of `free` holds anything a reader needs
    /// (compaction builds a new image around pages whose numbers must not
    /// change).
    pub fn with_free_pages(base: Arc<dyn PageSource>, free: &[u32]) -> PageOverlay {
        let mut ov = PageOverlay::new(base);
        let mut reuse: Vec<u32> = free.iter().copied().filter(|&p| p < ov.pages).collect();
        reuse.sort_unstable_by(|a, b| b.cmp(a));
        reuse.dedup();
        ov.reuse = reuse;
        ov
    }

    /// Free pages [`PageOverlay::with_free_pages`] listed that no append
    /// has taken yet.
    pub fn unused_free_pages(&self) -> usize {
        self.reuse.len()
    }

    /// Pages of the committed image.
    pub fn base_pages(&self) -> u32 {
        self.base_pages
    }

    /// Number of pages written or appended so far.
    pub fn dirty_pages(&self) -> usize {
        self.dirty.len()
    }

    /// The difference between O and the overlay's current image.
    pub fn into_changes(self) -> Result<ImageChanges, FormatError> {
        let mut pages = BTreeMap::new();
        for (n, bytes) in self.dirty {
            if n < self.base_pages {
                let old = self.base.read_page(n)?;
                if *old == *bytes {
                    continue;
                }
            }
            pages.insert(n, Box::<[u8]>::from(&*bytes));
        }
        let changes = ImageChanges {
            page_size: self.base.page_size(),
            old_pages: self.base_pages,
            new_pages: self.pages,
            pages,
        };
        changes.validate()?;
        Ok(changes)
    }

    /// Page size in bytes.
    pub fn page_size(&self) -> usize {
        self.base.page_size()
    }

    /// Pages in the transaction-local image.
    pub fn page_count(&self) -> u32 {
        self.pages
    }

    /// The current bytes of page `n` (the transaction's own writes first).
    pub fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        if n >= self.pages {
            return Err(FormatError::PageOutOfRange {
                page: n,
                pages: self.pages,
            });
        }
        self.reads.fetch_add(1, Ordering::Relaxed);
        match self.dirty.get(&n) {
            Some(p) => Ok(p.clone()),
            None => self.base.read_page(n),
        }
    }

    /// Page `n` as an owned, writable buffer.
    pub fn read_vec(&self, n: u32) -> Result<Vec<u8>, FormatError> {
        Ok(self.read_page(n)?.to_vec())
    }

    /// Changes page `n` through `f` and keeps the result as the page's
    /// bytes (it counts as written, as [`PageStore::write`] of the same
    /// bytes would). The page is changed in place when the transaction
    /// holds its only copy, else `f` works on a copy of its current bytes;
    /// O is never modified.
    pub fn edit<T>(&mut self, n: u32, f: impl FnOnce(&mut [u8]) -> T) -> Result<T, FormatError> {
        if n >= self.pages {
            return Err(FormatError::PageOutOfRange {
                page: n,
                pages: self.pages,
            });
        }
        self.reads.fetch_add(1, Ordering::Relaxed);
        let page = match self.dirty.entry(n) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                let base = self.base.read_page(n)?;
                e.insert(Arc::from(&base[..]))
            }
        };
        Ok(f(Arc::make_mut(page)))
    }
}

impl PageSource for PageOverlay {
    fn page_size(&self) -> usize {
        self.base.page_size()
    }
    fn page_count(&self) -> u32 {
        self.pages
    }
    fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        PageOverlay::read_page(self, n)
    }
    fn pages_read(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

impl PageStore for PageOverlay {
    fn page_size(&self) -> usize {
        self.base.page_size()
    }
    fn page_count(&self) -> u32 {
        self.pages
    }
    fn read(&self, n: u32) -> Result<Page, FormatError> {
        PageOverlay::read_page(self, n)
    }
    fn write(&mut self, n: u32, bytes: &[u8]) -> Result<(), FormatError> {
        if n >= self.pages {
            return Err(FormatError::PageOutOfRange {
                page: n,
                pages: self.pages,
            });
        }
        let ps = self.base.page_size();
        if bytes.len() != ps {
            return Err(FormatError::NotJet(format!(
                "write of {} bytes to page {n}, page size is {ps}",
                bytes.len()
            )));
        }
        self.dirty.insert(n, Arc::from(bytes));
        Ok(())
    }
    fn append(&mut self) -> Result<u32, FormatError> {
        if let Some(n) = self.reuse.pop() {
            self.dirty
                .insert(n, Arc::from(vec![0u8; self.base.page_size()]));
            return Ok(n);
        }
        let n = self.pages;
        let next = n
            .checked_add(1)
            .ok_or(FormatError::PageOutOfRange { page: n, pages: n })?;
        self.dirty
            .insert(n, Arc::from(vec![0u8; self.base.page_size()]));
        self.pages = next;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::MemPageSource;

    #[test]
    fn changes_hold_only_differing_and_appended_pages() {
        let base: Arc<dyn PageSource> = Arc::new(MemPageSource::new(vec![1u8; 8], 4));
        let mut o = PageOverlay::new(base);
        o.write(0, &[1, 1, 1, 1]).unwrap(); // same as O: dropped
        o.write(1, &[2, 2, 2, 2]).unwrap();
        let n = o.append().unwrap();
        assert_eq!(n, 2);
        assert_eq!(&*o.read(1).unwrap(), &[2, 2, 2, 2]);
        assert!(o.write(3, &[0; 4]).is_err());
        assert!(o.write(1, &[0; 3]).is_err());
        let c = o.into_changes().unwrap();
        assert_eq!(c.new_pages, 3);
        assert_eq!(c.pages.keys().copied().collect::<Vec<_>>(), vec![1, 2]);
    }

    #[test]
    fn free_pages_are_handed_out_first_then_the_image_grows() {
        let base: Arc<dyn PageSource> = Arc::new(MemPageSource::new(vec![7u8; 4 * 4096], 4096));
        let mut ov = PageOverlay::with_free_pages(base, &[3, 1, 9, 1]);
        assert_eq!(ov.unused_free_pages(), 2);
        assert_eq!(ov.append().unwrap(), 1);
        assert!(ov.read_page(1).unwrap().iter().all(|&b| b == 0));
        assert_eq!(ov.append().unwrap(), 3);
        assert_eq!(ov.append().unwrap(), 4);
        assert_eq!(ov.page_count(), 5);
        let c = ov.into_changes().unwrap();
        assert_eq!(c.pages.keys().copied().collect::<Vec<_>>(), vec![1, 3, 4]);
    }

    #[test]
    fn edits_change_the_overlay_never_the_base_nor_a_page_handed_out() {
        let base: Arc<dyn PageSource> = Arc::new(MemPageSource::new(vec![1u8; 8], 4));
        let mut o = PageOverlay::new(base.clone());
        let held = o.read(0).unwrap();
        o.edit(0, |p| p[0] = 7).unwrap();
        assert_eq!(&*held, &[1, 1, 1, 1], "a page read before keeps its bytes");
        let before = o.read(0).unwrap();
        o.edit(0, |p| p[1] = 8).unwrap();
        assert_eq!(&*before, &[7, 1, 1, 1], "a shared copy is not changed");
        o.edit(0, |p| p[2] = 9).unwrap();
        assert_eq!(&*o.read(0).unwrap(), &[7, 8, 9, 1]);
        assert_eq!(&*base.read_page(0).unwrap(), &[1, 1, 1, 1]);
        assert!(o.edit(2, |_| ()).is_err());
        o.edit(1, |_| ()).unwrap();
        let c = o.into_changes().unwrap();
        assert_eq!(c.pages.keys().copied().collect::<Vec<_>>(), vec![0]);
    }
}
