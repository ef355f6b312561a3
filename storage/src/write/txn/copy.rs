//! The transaction side of compaction: a transaction over a new image that
//! has no catalog of its own, tables adopted with their (re-pointed)
//! definitions, and rows copied as stored fields.

use super::{MapPages, TableState, Transaction, pad_row};
use crate::error::{WResult, WriteError};
use crate::format::{JetVersion, OwnedField};
use crate::index::Bookmark;
use crate::schema::tdef::TableDef;
use crate::write::lval::LvalTarget;
use crate::write::overlay::PageOverlay;
use crate::write::tdef::TdefExtra;
use crate::write::{data_page, row};
use std::collections::HashMap;

/// A transaction writing into `ov` with an empty catalog and no index
/// maintainer: tables exist for it only once adopted
/// ([`Transaction::adopt_table`]).
pub(crate) fn over(ov: PageOverlay, version: JetVersion) -> Transaction<'static> {
    Transaction {
        ov,
        version,
        // copies stored fields; never encodes text
        encoding: encoding_rs::WINDOWS_1252,
        catalog: Vec::new(),
        tables: HashMap::new(),
        maintainer: None,
        clock: super::DEFAULT_CLOCK,
        now: super::DEFAULT_CLOCK,
        text_layout: row::TextLayout::Standard,
        cascading: Vec::new(),
    }
}

impl Transaction<'_> {
    /// Makes table `name` known with definition `def` (its usage maps
    /// already pointing at rows of this transaction's image) and long-value
    /// maps `extra`; rows are then placed on pages owned by `def.page`.
    pub(crate) fn adopt_table(&mut self, name: &str, def: TableDef, extra: TdefExtra) {
        let lval = extra
            .lval_maps
            .iter()
            .map(|&(c, owned, free)| {
                (
                    c,
                    LvalTarget {
                        owned,
                        free,
                        current: None,
                    },
                )
            })
            .collect();
        self.tables.insert(
            name.to_lowercase(),
            TableState {
                name: name.to_string(),
                def,
                extra,
                lval,
                hint: None,
                counters_dirty: false,
            },
        );
    }

    /// Writes one row of table `table` from its stored fields (one per
    /// column of `def`, long values as their whole data, not descriptors):
    /// long values are stored anew (inline while the row fits a page), the
    /// row is placed on the table's current page or a new one. No index
    /// entry is written, no rule is checked: the fields are copied as
    /// they were stored.
    pub(crate) fn copy_row(
        &mut self,
        table: &str,
        def: &TableDef,
        fields: Vec<OwnedField>,
    ) -> WResult<Bookmark> {
        let l = self.layout();
        let fields = self.store_long_values(table, def, fields)?;
        let bytes = pad_row(self.version, row::assemble(self.version, def, &fields));
        let max = data_page::max_row_len(l);
        if bytes.len() > max {
            return Err(WriteError::RowTooLarge {
                table: table.to_string(),
                len: bytes.len(),
                max,
            });
        }
        self.place_row(table, &bytes, 0)
    }

    /// Adds a usage-map row `row` on the map pages of `maps`.
    pub(crate) fn map_row(&mut self, maps: &mut MapPages, row: &[u8]) -> WResult<u32> {
        let l = self.layout();
        maps.add(&mut self.ov, l, row)
    }

    /// The transaction's pages, writable.
    pub(crate) fn overlay_mut(&mut self) -> &mut PageOverlay {
        &mut self.ov
    }

    /// The transaction's pages (nothing is held elsewhere: there is no
    /// index maintainer and no counter to patch).
    pub(crate) fn into_overlay(self) -> PageOverlay {
        self.ov
    }
}
