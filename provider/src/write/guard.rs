//! The guard of DELETE / UPDATE: the entry point ([`crate::JetSession`])
//! says in a [`DmlGuard`] whether the statement had a WHERE clause, and the
//! table's hooks refuse to run without it ([`check_filters`]).
//!
//! Why: DataFusion 55's `delete_from` / `update` hooks receive no filters
//! when the WHERE clause holds a subquery, `EXISTS` or a constant
//! (upstream issue 24654), which reads as "every row".

use crate::error::refuse;
use datafusion::catalog::Session;
use datafusion::error::Result;
use datafusion::logical_expr::Expr;
use std::sync::Mutex;

/// What the entry point saw of the DELETE / UPDATE being planned; a
/// session config extension the hooks read.
#[derive(Debug, Default)]
pub struct DmlGuard {
    /// `Some(has_where)` while a DELETE / UPDATE is planned and run.
    current: Mutex<Option<bool>>,
}

impl DmlGuard {
    /// Says what the DELETE / UPDATE being planned looks like
    /// (`Some(has_where)`), or that none is (`None`).
    pub(crate) fn set(&self, v: Option<bool>) {
        if let Ok(mut g) = self.current.lock() {
            *g = v;
        }
    }
    fn get(&self) -> Option<bool> {
        self.current.lock().ok().and_then(|g| *g)
    }
}

/// Called by the DELETE / UPDATE hooks: refuses unless the entry point
/// vouched for the statement, and refuses a statement whose WHERE clause
/// did not reach the hook as filters.
pub(crate) fn check_filters(
    state: &dyn Session,
    what: &str,
    table: &str,
    filters: &[Expr],
) -> Result<()> {
    let shape = state
        .config()
        .get_extension::<DmlGuard>()
        .and_then(|g| g.get());
    match shape {
        None => Err(refuse(format!(
            "{what} on table {table:?} refused: run it through jet_provider::JetSession \
             (DataFusion 55 can lose a WHERE clause on the way to the table, upstream issue 24654)"
        ))),
        Some(true) if filters.is_empty() => Err(refuse(format!(
            "{what} on table {table:?} refused: its WHERE clause did not reach the table as a filter \
             (DataFusion 55 drops WHERE clauses that are constant or hold subqueries, upstream issue 24654); \
             no row changed"
        ))),
        Some(_) => Ok(()),
    }
}
