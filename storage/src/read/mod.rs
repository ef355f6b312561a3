//! The reader: pages of rows and long values to Arrow batches, the open database, queries.
//!
//! Exports: modules [`complex`], [`data_page`], [`database`], [`parallel`],
//! [`queries`] and [`usage_map`]. Scans (`scan.rs`), tables (`table.rs`), rows
//! (`row.rs`), column decoders (`decode.rs`), long values (`lval.rs`) and the
//! catalog reader (`objects.rs`) are the crate's own; their public types are at
//! the crate root ([`ScanOptions`](crate::ScanOptions),
//! [`TableScan`](crate::TableScan), [`Table`](crate::Table)).

pub mod complex;
pub mod data_page;
pub mod database;
mod decode;
pub(crate) mod lval;
pub(crate) mod objects;
pub mod parallel;
pub mod queries;
pub(crate) mod row;
pub(crate) mod scan;
pub(crate) mod table;
pub mod usage_map;
