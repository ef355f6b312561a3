//! # jet-provider
//!
//! DataFusion over Jet databases. One call registers a database on a
//! `SessionContext`; every user table becomes a [`JetTable`] whose scans
//! are split into partitions over page ranges, whose projection and limit
//! reach the storage scan, and whose indexed predicates become
//! [`IndexSeekExec`] plans that read only the matching rows. With the
//! optimizer rules of [`physical_optimizer_rules`] (installed by
//! [`session_context`]), `ORDER BY … LIMIT n` walks an index
//! ([`IndexOrderExec`]) and `MIN`/`MAX` read index ends
//! ([`IndexMinMaxExec`]).
//!
//! ```no_run
//! # async fn demo() -> datafusion::error::Result<()> {
//! use datafusion::prelude::SessionConfig;
//! use jet_provider::{JetOptions, register_jet, session_context};
//! let ctx = session_context(SessionConfig::new());
//! register_jet(&ctx, "nw", "nwind.mdb", JetOptions::default())?;
//! ctx.sql(r#"SELECT count(*) FROM nw.public."Order Details""#).await?.show().await?;
//! # Ok(()) }
//! ```

pub mod access;
pub mod archive;
mod catalog;
pub mod complex;
mod ddl;
mod defaults;
mod dml;
mod exec;
pub mod frontdoor;
pub mod linked;
mod literals;
pub mod messages;
mod ordered;
mod pushdown;
mod rules;
pub mod session;
mod statement;
mod table;
pub mod views;
mod walk;

pub use access::SqlDialect;
pub use archive::{JetFilesOptions, JetFilesTable, register_jet_files};
pub use catalog::{JetCatalogProvider, JetSchemaProvider, register_jet, register_jet_tables};
pub use complex::ComplexLists;
pub use dml::{DmlKind, JetDmlExec, JetHandle, JetSink};
pub use exec::{IndexSeekExec, JetScanExec, KeyRange, KeyRangeRef, Recheck};
pub use literals::{FloatDecimalComparison, analyzer_rules};
pub use ordered::{IndexMinMaxExec, IndexOrderExec};
pub use rules::{
    JetIndexOrder, JetMinMax, jet_session_state_builder, physical_optimizer_rules, session_context,
};
pub use statement::{DmlGuard, JetSession};
pub use table::{JetOptions, JetTable};

use datafusion::error::DataFusionError;

/// Converts a storage error into a DataFusion error; the message keeps the
/// table, page and offset the storage error names.
pub fn to_df(e: jet_storage::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
