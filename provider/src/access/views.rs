//! Saved queries as views: every select, union and crosstab query of a
//! database answers to its name like a table, planned through the Access
//! dialect when a statement names it (never at open, so one query that
//! cannot be translated never stops the database from opening). The
//! catalog asks for them through [`ViewSource`], which [`ViewPlanner`]
//! implements.
//!
//! A query that cannot be planned still answers to its name: as an
//! [`UnrunnableQuery`] whose use is an error naming the query and what
//! stopped it, so catalog listings (`information_schema`) keep working.

use super::unrunnable::UnrunnableQuery;
use crate::access::{self, Params, SqlDialect};
use crate::catalog::ViewSource;
use async_trait::async_trait;
use datafusion::catalog::TableProvider;
use datafusion::catalog::view::ViewTable;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::context::SessionState;
use datafusion::prelude::SessionContext;
use jet_storage::SavedQuery;
use parking_lot::RwLock;
use std::sync::{Arc, Mutex, Weak};

/// How deep saved queries may name saved queries (Access itself stops far
/// earlier in practice; a file whose queries name each other in a circle
/// is refused by the circle check before this).
pub const MAX_VIEW_DEPTH: usize = 32;

/// Plans saved queries in the session that registered their database.
/// Holds the session weakly: dropping the session frees it.
#[derive(Debug)]
pub struct ViewPlanner {
    state: Weak<RwLock<SessionState>>,
    params: Arc<Mutex<Params>>,
    /// The catalog the database is registered as: bare table names in its
    /// queries mean its tables, whichever database answers to bare names
    /// in the session.
    catalog: String,
    /// The queries being planned now, outermost first (a query naming
    /// itself, directly or through others, is refused).
    planning: Mutex<Vec<String>>,
}

/// Removes a query from the in-progress list when its planning ends.
struct Planning<'a> {
    planner: &'a ViewPlanner,
}

impl Drop for Planning<'_> {
    fn drop(&mut self) {
        if let Ok(mut p) = self.planner.planning.lock() {
            p.pop();
        }
    }
}

impl ViewPlanner {
    /// A planner over the session state behind `state` for the queries of
    /// the database registered as `catalog`, binding parameters from
    /// `params` (the session's `\param` values).
    pub fn new(
        state: Weak<RwLock<SessionState>>,
        params: Arc<Mutex<Params>>,
        catalog: &str,
    ) -> Self {
        ViewPlanner {
            state,
            params,
            catalog: catalog.to_string(),
            planning: Mutex::new(Vec::new()),
        }
    }

    /// The view of `query`: a [`ViewTable`] over its plan, or an
    /// [`UnrunnableQuery`] saying why it has none.
    pub async fn view(&self, query: &SavedQuery) -> Arc<dyn TableProvider> {
        match self.plan(query).await {
            Ok(v) => v,
            Err(e) => Arc::new(UnrunnableQuery::new(query, &e)),
        }
    }

    async fn plan(&self, query: &SavedQuery) -> Result<Arc<dyn TableProvider>> {
        let sql = query
            .checked_sql()
            .map_err(|e| DataFusionError::Plan(e.to_string()))?
            .to_string();
        let _guard = self.enter(&query.name)?;
        let state = self
            .state
            .upgrade()
            .ok_or_else(|| DataFusionError::Plan("the session has ended".into()))?;
        let mut state = state.read().clone();
        // the query's bare names are its own database's tables
        let options = state.config_mut().options_mut();
        options.catalog.default_catalog = self.catalog.clone();
        options.catalog.default_schema = "public".to_string();
        let ctx = SessionContext::new_with_state(state);
        let params = self
            .params
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let mut prepared = access::prepare(&sql, SqlDialect::Access, &ctx, &params).await?;
        if prepared.len() != 1 {
            return Err(DataFusionError::Plan(format!(
                "its text holds {} statements, a view is one query",
                prepared.len()
            )));
        }
        let statement = prepared.remove(0).statement;
        let plan = access::access_state(&ctx)?
            .statement_to_plan(statement)
            .await?;
        Ok(Arc::new(ViewTable::new(plan, Some(sql))))
    }

    fn enter(&self, name: &str) -> Result<Planning<'_>> {
        let mut p = self
            .planning
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?;
        if p.iter().any(|n| n.eq_ignore_ascii_case(name)) {
            let mut circle = p.clone();
            circle.push(name.to_string());
            return Err(DataFusionError::Plan(format!(
                "saved queries name each other in a circle: {}",
                circle.join(" → ")
            )));
        }
        if p.len() >= MAX_VIEW_DEPTH {
            return Err(DataFusionError::Plan(format!(
                "saved queries nest deeper than {MAX_VIEW_DEPTH}"
            )));
        }
        p.push(name.to_string());
        Ok(Planning { planner: self })
    }
}

#[async_trait]
impl ViewSource for ViewPlanner {
    async fn view(&self, query: &SavedQuery) -> Arc<dyn TableProvider> {
        ViewPlanner::view(self, query).await
    }
}
