//! Databases as DataFusion catalogs: schemas, local and linked tables, and views of saved queries.
//!
//! Exports: module [`linked`] (tables linked from other files);
//! [`JetCatalogProvider`], [`JetSchemaProvider`], [`JetTable`], [`ViewSource`],
//! [`register_jet`] and [`register_jet_tables`].

pub mod linked;
pub(crate) mod schema;
pub(crate) mod table;

use async_trait::async_trait;
use datafusion::catalog::TableProvider;
use jet_storage::SavedQuery;
use std::sync::Arc;

pub use schema::{JetCatalogProvider, JetSchemaProvider, register_jet, register_jet_tables};
pub use table::JetTable;

/// What plans a database's saved SELECT-type queries as views: a schema
/// asks it for the view of a query a statement names, so the catalog needs
/// no SQL front end of its own (the Access front end's
/// [`ViewPlanner`](crate::access::views::ViewPlanner) is one).
#[async_trait]
pub trait ViewSource: std::fmt::Debug + Send + Sync {
    /// The view of `query`: a table over its plan, or one whose every use
    /// is an error saying why it has none.
    async fn view(&self, query: &SavedQuery) -> Arc<dyn TableProvider>;
}
