//! The B-tree index maintainer: the writer's [`IndexMaintainer`] over the
//! `index::write` module.
//!
//! Guarantees, for every real index of a table on every row insert and
//! delete:
//! - the entry (key, bookmark) is added or removed in index order, splits
//!   and freed pages reported back so the writer keeps the index's usage map
//!   exact;
//! - a unique index refuses a key it already holds (before the entry is
//!   written; the transaction is then abandoned, so the file is unchanged).
//!   Keys of rows whose key columns are all NULL are exempt, as in Access;
//! - an index flagged "ignore nulls" holds no entry for a row whose key
//!   columns are all NULL.
//!
//! The pages of the trees are held decoded in a [`NodeCache`] for the
//! length of a transaction and written by [`IndexMaintainer::flush`] (the
//! transaction calls it before it commits and before schema changes), or
//! earlier when more than [`CACHE_PAGES`] pages are held.

use super::{IndexMaintainer, IndexPages, tdef as wtdef};
use crate::error::{WResult, WriteError};
use crate::format::{JetVersion, OwnedField};
use crate::index::key::encode_key;
use crate::index::write::{IndexWriteError, NodeCache};
use crate::page::image::PageStore;
use crate::schema::tdef::{RealIndex, TableDef};

/// Index pages held decoded before the maintainer writes them all and
/// starts afresh: bounds the memory of one transaction (a decoded page
/// takes a few times its size; 4,096 pages of 4 KB are some tens of MB)
/// while holding every leaf of a million-row index on a Long column.
pub const CACHE_PAGES: usize = 4096;

/// Keeps real indexes exact through `index::write` (installed by default on
/// every [`Writer`](super::Writer)).
#[derive(Debug)]
pub struct BTreeMaintainer {
    version: JetVersion,
    cache: NodeCache,
}

impl BTreeMaintainer {
    /// A maintainer for databases of `version`, holding no pages.
    pub fn new(version: JetVersion) -> BTreeMaintainer {
        BTreeMaintainer {
            version,
            cache: NodeCache::new(),
        }
    }

    /// Writes the held pages and forgets them once more than
    /// [`CACHE_PAGES`] are held.
    fn bound(&mut self, store: &mut dyn PageStore) -> WResult<()> {
        if self.cache.len() > CACHE_PAGES {
            self.flush(store)?;
        }
        Ok(())
    }

    /// The key an all-NULL row has in `index`.
    fn null_key(&self, table: &TableDef, index: &RealIndex) -> WResult<Vec<u8>> {
        let nulls = vec![OwnedField::Null; table.columns.len()];
        encode_key(&table.columns, &index.key, &nulls, self.version).map_err(|source| {
            WriteError::IndexKey {
                table: format!("TDEF page {}", table.page),
                source,
            }
        })
    }

    /// True when the row's key is the all-NULL key and the index holds no
    /// entry for it.
    fn skipped(&self, table: &TableDef, index: &RealIndex, key: &[u8]) -> WResult<bool> {
        Ok(index.flags & wtdef::INDEX_IGNORE_NULLS != 0 && self.null_key(table, index)? == key)
    }
}

fn index_err(table: &TableDef, index: &RealIndex, e: IndexWriteError) -> WriteError {
    WriteError::Index {
        table: format!("TDEF page {}", table.page),
        why: format!("index rooted at page {}: {e}", index.root_page),
    }
}

fn pages(p: crate::index::write::IndexPages) -> IndexPages {
    IndexPages {
        allocated: p.allocated,
        freed: p.freed,
    }
}

impl IndexMaintainer for BTreeMaintainer {
    fn insert(
        &mut self,
        store: &mut dyn PageStore,
        table: &TableDef,
        index: &RealIndex,
        key: &[u8],
        page: u32,
        row: u8,
    ) -> WResult<IndexPages> {
        if self.skipped(table, index, key)? {
            return Ok(IndexPages::default());
        }
        let layout = self.version.layout();
        if index.flags & wtdef::INDEX_UNIQUE != 0
            && self.null_key(table, index)? != key
            && self
                .cache
                .key_exists(store, layout, index.root_page, table.page, key)
                .map_err(|e| index_err(table, index, e))?
        {
            let columns: Vec<String> = index
                .key
                .iter()
                .filter_map(|(n, _)| table.columns.iter().find(|c| c.col_num == *n))
                .map(|c| c.name.clone())
                .collect();
            return Err(WriteError::Index {
                table: format!("TDEF page {}", table.page),
                why: format!(
                    "unique index on ({}) already holds this key; nothing was written",
                    columns.join(", ")
                ),
            });
        }
        let out = self
            .cache
            .insert_entry(store, layout, index.root_page, table.page, key, page, row)
            .map(pages)
            .map_err(|e| index_err(table, index, e))?;
        self.bound(store)?;
        Ok(out)
    }

    fn delete(
        &mut self,
        store: &mut dyn PageStore,
        table: &TableDef,
        index: &RealIndex,
        key: &[u8],
        page: u32,
        row: u8,
    ) -> WResult<IndexPages> {
        if self.skipped(table, index, key)? {
            return Ok(IndexPages::default());
        }
        let layout = self.version.layout();
        let out = self
            .cache
            .delete_entry(store, layout, index.root_page, table.page, key, page, row)
            .map(pages)
            .map_err(|e| index_err(table, index, e))?;
        self.bound(store)?;
        Ok(out)
    }

    fn flush(&mut self, store: &mut dyn PageStore) -> WResult<()> {
        let r = self.cache.flush(store, self.version.layout());
        self.cache.clear();
        r.map_err(|e| WriteError::Index {
            table: "(the index pages this transaction changed)".into(),
            why: format!("writing them: {e}"),
        })
    }

    fn discard(&mut self) {
        self.cache.clear();
    }
}
