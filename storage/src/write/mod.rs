//! The writer: new databases, CREATE/DROP TABLE, CREATE/DROP INDEX, ADD
//! COLUMN, compaction ([`compact_file`], [`compact_image`]), passwords given
//! and removed ([`encrypt_file`], [`decrypt_file`]), row inserts,
//! updates and deletes, long values, usage maps and TDEF upkeep.
//!
//! Exports: modules [`catalog`], [`complex`], [`convert`], [`data_page`],
//! [`default`], [`lval`], [`row`], [`tdef`] and [`txn`]; [`Writer`],
//! [`Transaction`], [`WriteTarget`], [`new_database`], the specs
//! ([`TableSpec`], [`ColumnSpec`], [`IndexSpec`], [`RelationshipSpec`]),
//! [`IndexBuilt`], [`Cell`], [`TextLayout`], [`PageOverlay`],
//! [`IndexMaintainer`], [`BTreeMaintainer`], [`IndexPages`], [`compact_file`],
//! [`compact_image`], [`CompactReport`], [`encrypt_file`], [`decrypt_file`],
//! [`rewrite_file`] and [`Destination`].
//!
//! A [`Transaction`] reads and writes pages only through a [`PageOverlay`]
//! (a [`PageStore`](crate::page::image::PageStore) over the committed image).
//! When the transaction's closure returns `Ok`, the overlay becomes an
//! [`ImageChanges`](crate::page::image::ImageChanges) that a
//! [`CommitTarget`](crate::page::image::CommitTarget) makes current (the journaled
//! file target, or [`MemImage`](crate::page::image::MemImage) in memory). On
//! `Err` nothing reaches the target.
//!
//! Index pages are maintained through the [`IndexMaintainer`] installed on
//! the [`Writer`]: by default the B-tree maintainer ([`BTreeMaintainer`],
//! over `index::write`). Without one, rows of a table with real indexes are
//! refused with
//! [`WriteError::IndexMaintenanceUnavailable`](crate::error::WriteError::IndexMaintenanceUnavailable),
//! so an index never silently misses an entry.
//!
//! The writer's part of the reader's concerns lives here too, so nothing
//! below names the writer: opening a database for writing (`open.rs`), the
//! values written into complex columns ([`complex`]) and whole-image
//! encryption and decryption ([`convert`]).

mod alloc;
pub mod catalog;
mod compact;
pub mod complex;
pub mod convert;
mod create;
pub mod data_page;
pub mod default;
mod file;
pub mod lval;
mod maintain;
mod open;
mod overlay;
mod protect;
mod replace;
pub mod row;
mod row_jet3;
pub mod tdef;
pub mod txn;

pub use compact::{CompactReport, compact_file, compact_image};
pub use create::new_database;
pub use maintain::BTreeMaintainer;
pub use overlay::PageOverlay;
pub use protect::{decrypt_file, encrypt_file};
pub use replace::{Destination, rewrite_file};
pub use row::{Cell, TextLayout};
pub use tdef::{ColumnSpec, IndexSpec, TableSpec};
pub use txn::{IndexBuilt, RelationshipSpec, Transaction, WriteTarget, Writer};

use crate::error::WResult;
use crate::page::image::PageStore;
use crate::schema::tdef::{RealIndex, TableDef};

/// Index pages an [`IndexMaintainer`] allocated (appended to the store) or
/// released while applying one change; the transaction registers them in
/// the index's usage map (`RealIndex::usage_map`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexPages {
    /// Pages now belonging to the index.
    pub allocated: Vec<u32>,
    /// Pages that no longer belong to the index.
    pub freed: Vec<u32>,
}

/// Index maintenance, installed on a [`Writer`] by the module that owns the
/// B-tree code (`index::write`).
///
/// Contract for implementors: `insert` adds the leaf entry `key` → (`page`,
/// `row`) to the B-tree of `index` (whose root is `index.root_page`) and
/// `delete` removes exactly that entry; both read and write pages only
/// through `store`, append new pages with [`PageStore::append`], and report
/// every page they allocated or released in [`IndexPages`] (the caller
/// keeps the index's usage map exact). `key` is the full entry key as
/// [`crate::index::key::encode_key`] builds it (flag bytes included, no row
/// pointer). A unique index refusing a duplicate returns
/// [`WriteError::Index`](crate::error::WriteError::Index). The root page never moves (the TDEF
/// points at it).
pub trait IndexMaintainer: Send {
    /// Adds the entry for the row at (`page`, `row`).
    fn insert(
        &mut self,
        store: &mut dyn PageStore,
        table: &TableDef,
        index: &RealIndex,
        key: &[u8],
        page: u32,
        row: u8,
    ) -> WResult<IndexPages>;
    /// Removes the entry for the row at (`page`, `row`).
    fn delete(
        &mut self,
        store: &mut dyn PageStore,
        table: &TableDef,
        index: &RealIndex,
        key: &[u8],
        page: u32,
        row: u8,
    ) -> WResult<IndexPages>;
    /// Writes into `store` every index page change the maintainer still
    /// holds in memory, then holds nothing. The transaction calls it before
    /// it commits and before any schema change; afterwards the index pages
    /// in `store` are exact. The default holds nothing and writes nothing.
    fn flush(&mut self, store: &mut dyn PageStore) -> WResult<()> {
        let _ = store;
        Ok(())
    }
    /// Forgets every page held in memory without writing it (a transaction
    /// starts, or was abandoned).
    fn discard(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScanOptions;
    use crate::error::WriteError;
    use crate::format::JetVersion;
    use crate::format::types::JetType;
    use crate::page::image::MemImage;
    use arrow_array::{
        Array, ArrayRef, BinaryArray, BooleanArray, Int32Array, RecordBatch, StringArray,
    };
    use std::sync::Arc;

    fn new_writer(v: JetVersion) -> Writer<MemImage> {
        let bytes = new_database(v, txn::DEFAULT_CLOCK).unwrap();
        Writer::new(MemImage { bytes }).unwrap()
    }

    #[test]
    fn empty_database_opens() {
        for v in [JetVersion::Jet4, JetVersion::Ace12] {
            let w = new_writer(v);
            let db = w.database().unwrap();
            assert_eq!(db.version(), v);
            assert!(db.table_names().is_empty());
            let sys = db.system_table_names();
            assert!(sys.contains(&"MSysObjects".to_string()), "{sys:?}");
            if std::env::var_os("JET_WRITE_DUMP").is_some() {
                std::fs::write(format!("/tmp/empty_{v:?}.db"), &w.target().bytes).unwrap();
            }
        }
    }

    #[test]
    fn create_insert_update_delete_read_back() {
        for v in [JetVersion::Jet4, JetVersion::Ace12] {
            let mut w = new_writer(v);
            let spec = TableSpec::new(
                "People",
                vec![
                    ColumnSpec::new("id", JetType::Long).auto_number(),
                    ColumnSpec::text("name", 40),
                    ColumnSpec::new("ok", JetType::Boolean),
                    ColumnSpec::new("notes", JetType::Memo),
                    ColumnSpec::new("blob", JetType::Ole),
                ],
            );
            let n = 300usize;
            let names: Vec<Option<String>> = (0..n)
                .map(|i| {
                    if i % 7 == 0 {
                        None
                    } else {
                        Some(format!("name {i} ü 😀"))
                    }
                })
                .collect();
            let notes: Vec<Option<String>> = (0..n)
                .map(|i| match i % 3 {
                    0 => None,
                    1 => Some("short".to_string()),
                    _ => Some("long memo ".repeat(i * 3)),
                })
                .collect();
            let blobs: Vec<Option<Vec<u8>>> = (0..n)
                .map(|i| {
                    if i % 50 == 1 {
                        Some(vec![(i % 251) as u8; 9000 + i])
                    } else {
                        None
                    }
                })
                .collect();
            let batch = RecordBatch::try_from_iter(vec![
                (
                    "name",
                    Arc::new(StringArray::from(names.clone())) as ArrayRef,
                ),
                (
                    "ok",
                    Arc::new(BooleanArray::from(
                        (0..n).map(|i| Some(i % 2 == 0)).collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
                (
                    "notes",
                    Arc::new(StringArray::from(notes.clone())) as ArrayRef,
                ),
                (
                    "blob",
                    Arc::new(BinaryArray::from(
                        blobs.iter().map(|b| b.as_deref()).collect::<Vec<_>>(),
                    )) as ArrayRef,
                ),
            ])
            .unwrap();
            let bms = w
                .transaction(|tx| {
                    tx.create_table(&spec)?;
                    tx.insert("People", &batch)
                })
                .unwrap();
            assert_eq!(bms.len(), n);
            let db = w.database().unwrap();
            assert_eq!(db.table_names(), vec!["People".to_string()]);
            let t = db.table("People").unwrap();
            assert_eq!(t.def().stated_rows as usize, n);
            let b = arrow_select_concat(&t);
            let ids = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
            assert_eq!(ids.values().to_vec(), (1..=n as i32).collect::<Vec<_>>());
            let got_names = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
            let got_notes = b.column(3).as_any().downcast_ref::<StringArray>().unwrap();
            let got_blobs = b.column(4).as_any().downcast_ref::<BinaryArray>().unwrap();
            for i in 0..n {
                assert_eq!(
                    got_names
                        .is_valid(i)
                        .then(|| got_names.value(i).to_string()),
                    names[i]
                );
                assert_eq!(
                    got_notes
                        .is_valid(i)
                        .then(|| got_notes.value(i).to_string()),
                    notes[i],
                    "row {i}"
                );
                assert_eq!(
                    got_blobs.is_valid(i).then(|| got_blobs.value(i).to_vec()),
                    blobs[i],
                    "row {i}"
                );
            }
            // update: grow some rows past their page, shrink others; delete some
            let upd: Vec<usize> = (0..n).step_by(5).collect();
            let new_notes: Vec<Option<String>> =
                upd.iter().map(|i| Some("grown ".repeat(200 + i))).collect();
            let upd_bms: Vec<_> = upd.iter().map(|&i| bms[i]).collect();
            let ch = RecordBatch::try_from_iter(vec![(
                "notes",
                Arc::new(StringArray::from(new_notes.clone())) as ArrayRef,
            )])
            .unwrap();
            let del: Vec<_> = (0..n).filter(|i| i % 5 == 3).map(|i| bms[i]).collect();
            w.transaction(|tx| {
                tx.update("People", &upd_bms, &ch)?;
                tx.delete("People", &del)
            })
            .unwrap();
            let db = w.database().unwrap();
            let t = db.table("People").unwrap();
            let b = arrow_select_concat(&t);
            assert_eq!(b.num_rows(), n - del.len());
            assert_eq!(t.def().stated_rows as usize, n - del.len());
            let ids = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
            let got_notes = b.column(3).as_any().downcast_ref::<StringArray>().unwrap();
            for r in 0..b.num_rows() {
                let i = ids.value(r) as usize - 1;
                let want = if i.is_multiple_of(5) {
                    Some("grown ".repeat(200 + i))
                } else {
                    notes[i].clone()
                };
                assert_eq!(
                    got_notes
                        .is_valid(r)
                        .then(|| got_notes.value(r).to_string()),
                    want,
                    "row {i}"
                );
            }
            // every bookmark still reads its row
            for &i in &upd {
                let row = t
                    .raw_row(crate::index::Bookmark {
                        page: bms[i].page,
                        row: bms[i].row,
                    })
                    .unwrap();
                assert!(row.is_some());
            }
            if std::env::var_os("JET_WRITE_DUMP").is_some() {
                std::fs::write(format!("/tmp/people_{v:?}.db"), &w.target().bytes).unwrap();
            }
        }
    }

    fn arrow_select_concat(t: &crate::Table) -> RecordBatch {
        let batches: Vec<RecordBatch> = t
            .scan(ScanOptions::default())
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        arrow_select::concat::concat_batches(&t.schema(), &batches).unwrap()
    }

    #[test]
    fn refusals_are_typed_and_leave_the_image() {
        let mut w = new_writer(JetVersion::Jet4);
        let before = w.target().bytes.clone();
        let spec = TableSpec::new(
            "T",
            vec![
                ColumnSpec::new("b", JetType::Byte),
                ColumnSpec::text("s", 3),
            ],
        )
        .index(IndexSpec::primary("pk", &["b"]));
        let r = w.transaction(|tx| {
            tx.create_table(&spec)?;
            let batch = RecordBatch::try_from_iter(vec![(
                "b",
                Arc::new(Int32Array::from(vec![300])) as ArrayRef,
            )])
            .unwrap();
            tx.insert("T", &batch)
        });
        assert!(
            matches!(r, Err(crate::Error::Write(e)) if matches!(*e, WriteError::ValueOutOfRange { .. }))
        );
        assert_eq!(w.target().bytes, before);
        let spec = TableSpec::new(
            "T",
            vec![
                ColumnSpec::new("b", JetType::Byte),
                ColumnSpec::text("s", 3),
            ],
        );
        for (col, arr) in [
            ("b", Arc::new(Int32Array::from(vec![256])) as ArrayRef),
            ("b", Arc::new(Int32Array::from(vec![-1])) as ArrayRef),
            ("s", Arc::new(StringArray::from(vec!["abcd"])) as ArrayRef),
            ("s", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
        ] {
            let r = w.transaction(|tx| {
                tx.create_table(&spec)?;
                tx.insert("T", &RecordBatch::try_from_iter(vec![(col, arr)]).unwrap())
            });
            let e = r.unwrap_err().to_string();
            assert!(e.contains("\"T\"") && e.contains(col), "{e}");
            assert_eq!(w.target().bytes, before);
        }
    }
}
