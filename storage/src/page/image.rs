//! The contract between the writer and the journal.
//!
//! A transaction never touches a database file directly. The writer reads
//! and rewrites pages through a [`PageStore`] (an overlay over the current
//! image) and, when the transaction's closure returns `Ok`, hands the
//! resulting [`ImageChanges`] — the whole difference between the old image
//! O and the new image C — to a [`CommitTarget`]. The journaled file target
//! (module `journal`) makes that step atomic; the in-memory target
//! ([`MemImage`]) serves tests and the fixture generator.

use crate::error::{FormatError, Result};
use crate::page::Page;
use std::collections::BTreeMap;

/// The difference between a database image O and the image C that a
/// transaction produces.
///
/// Guarantees (checked by [`ImageChanges::validate`]): every page in `pages`
/// is exactly `page_size` bytes and numbered below `new_pages`; every page
/// numbered at or above `old_pages` and below `new_pages` is present (an
/// appended page always has contents). Pages of O at or above `new_pages`
/// are cut off (the file shrinks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageChanges {
    /// Page size of the database (2048 for Jet3, 4096 otherwise).
    pub page_size: usize,
    /// Pages in O.
    pub old_pages: u32,
    /// Pages in C.
    pub new_pages: u32,
    /// The new contents of every page of C that differs from O or is new.
    pub pages: BTreeMap<u32, Box<[u8]>>,
}

impl ImageChanges {
    /// True when C equals O.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty() && self.old_pages == self.new_pages
    }

    /// Checks the guarantees listed on the type; an error names the first
    /// page that breaks one.
    pub fn validate(&self) -> Result<(), FormatError> {
        for (&n, bytes) in &self.pages {
            if n >= self.new_pages {
                return Err(FormatError::PageOutOfRange {
                    page: n,
                    pages: self.new_pages,
                });
            }
            if bytes.len() != self.page_size {
                return Err(FormatError::NotJet(format!(
                    "image change for page {n} has {} bytes, page size is {}",
                    bytes.len(),
                    self.page_size
                )));
            }
        }
        for n in self.old_pages..self.new_pages {
            if !self.pages.contains_key(&n) {
                return Err(FormatError::NotJet(format!(
                    "appended page {n} has no contents"
                )));
            }
        }
        Ok(())
    }

    /// Applies the changes to an in-memory copy of O, giving C.
    pub fn apply_to(&self, image: &mut Vec<u8>) -> Result<(), FormatError> {
        self.validate()?;
        let new_len = self.new_pages as usize * self.page_size;
        image.resize(new_len, 0);
        for (&n, bytes) in &self.pages {
            let start = n as usize * self.page_size;
            image[start..start + self.page_size].copy_from_slice(bytes);
        }
        Ok(())
    }
}

/// Pages as a transaction sees them: the committed image plus its own
/// writes so far.
pub trait PageStore {
    /// Page size in bytes.
    fn page_size(&self) -> usize;
    /// Pages in the current (transaction-local) image.
    fn page_count(&self) -> u32;
    /// The current bytes of page `n`.
    fn read(&self, n: u32) -> Result<Page, FormatError>;
    /// Replaces page `n` (which must exist) with `bytes` (exactly one page).
    fn write(&mut self, n: u32, bytes: &[u8]) -> Result<(), FormatError>;
    /// Appends a zeroed page at the end of the image and returns its number.
    /// Callers that need a page register it in the relevant usage map.
    fn append(&mut self) -> Result<u32, FormatError>;
}

/// Where a committed transaction's changes go.
pub trait CommitTarget {
    /// Makes C durable (or, for memory targets, current). On error the
    /// target still holds O.
    fn commit(&mut self, changes: &ImageChanges) -> crate::Result<()>;
}

/// A database image held in memory: a commit target for tests and for the
/// generator of fixtures (which writes the finished image to a new file).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemImage {
    /// The image bytes.
    pub bytes: Vec<u8>,
}

impl CommitTarget for MemImage {
    fn commit(&mut self, changes: &ImageChanges) -> crate::Result<()> {
        let mut next = self.bytes.clone();
        changes.apply_to(&mut next)?;
        self.bytes = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_grows_and_shrinks() {
        let mut img = MemImage {
            bytes: vec![1u8; 8],
        };
        let mut pages = BTreeMap::new();
        pages.insert(2, vec![9u8; 4].into_boxed_slice());
        let grow = ImageChanges {
            page_size: 4,
            old_pages: 2,
            new_pages: 3,
            pages,
        };
        img.commit(&grow).unwrap();
        assert_eq!(img.bytes, [1, 1, 1, 1, 1, 1, 1, 1, 9, 9, 9, 9]);
        let shrink = ImageChanges {
            page_size: 4,
            old_pages: 3,
            new_pages: 1,
            pages: BTreeMap::new(),
        };
        img.commit(&shrink).unwrap();
        assert_eq!(img.bytes, [1, 1, 1, 1]);
    }

    #[test]
    fn validate_refuses_missing_appended_page_and_bad_sizes() {
        let gap = ImageChanges {
            page_size: 4,
            old_pages: 1,
            new_pages: 2,
            pages: BTreeMap::new(),
        };
        assert!(gap.validate().is_err());
        let mut pages = BTreeMap::new();
        pages.insert(0, vec![0u8; 3].into_boxed_slice());
        let short = ImageChanges {
            page_size: 4,
            old_pages: 1,
            new_pages: 1,
            pages,
        };
        assert!(short.validate().is_err());
        let mut img = MemImage { bytes: vec![7; 4] };
        assert!(img.commit(&short).is_err());
        assert_eq!(img.bytes, [7; 4], "a refused commit leaves O");
    }
}
