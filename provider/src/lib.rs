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
pub mod catalog;
mod error;
pub mod frontdoor;
mod handle;
pub mod messages;
mod scan;
pub mod session;
mod write;

pub use access::SqlDialect;
pub use archive::{JetFilesOptions, JetFilesTable, register_jet_files};
pub use catalog::{
    JetCatalogProvider, JetSchemaProvider, JetTable, ViewSource, register_jet, register_jet_tables,
};
pub use error::to_df;
pub use handle::{JetHandle, JetOptions};
pub use scan::{
    ComplexLists, FloatDecimalComparison, IndexMinMaxExec, IndexOrderExec, IndexSeekExec,
    JetIndexOrder, JetMinMax, JetScanExec, KeyRange, KeyRangeRef, Recheck, analyzer_rules,
    physical_optimizer_rules,
};
pub use session::{JetSession, jet_session_state_builder, session_context};
pub use write::{DmlGuard, DmlKind, JetDmlExec, JetSink};
