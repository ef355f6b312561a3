//! `EXECUTE [Saved Query] [value, …]`: runs a saved query of a Jet
//! database, as Access's `EXECUTE` does.
//!
//! - The query's text is prepared in the Access dialect whatever the
//!   session's dialect, and its bare table names mean its own database's
//!   tables (even when another database answers to bare names).
//! - Values after the name bind the query's declared `PARAMETERS` in
//!   order; the rest come from the session's bound parameters (`\param`,
//!   [`JetSession::bind`]); a missing one is an error naming it.
//! - An action query (append, update, delete, make-table,
//!   data-definition) changes its database like the statement it holds:
//!   one journaled transaction (or part of the open `BEGIN … COMMIT`),
//!   and only when the database is writable. A select, union or crosstab
//!   query returns its rows. A pass-through query is refused: its text is
//!   for its ODBC server, not for Access.
//! - A name that is not a saved query is DataFusion's prepared statement.

use super::JetSession;
use crate::access::{self, Params, SqlDialect, names::QualifyTables};
use crate::error::refuse;
use datafusion::arrow::array::RecordBatch;
use datafusion::common::ScalarValue;
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::{Expr as SqlExpr, ObjectName};
use jet_storage::{QueryKind, SavedQuery};
use std::sync::Arc;

/// A saved query `EXECUTE` names, and the catalog of its database.
pub(super) struct FoundQuery {
    catalog: String,
    query: SavedQuery,
}

/// A name part without its quotes or brackets.
fn part(p: &str) -> &str {
    let t = p.trim();
    for (a, b) in [('"', '"'), ('[', ']'), ('`', '`')] {
        if let Some(inner) = t.strip_prefix(a).and_then(|r| r.strip_suffix(b)) {
            return inner;
        }
    }
    t
}

impl JetSession {
    /// The saved query `name` (`q`, `db.q` or `db.public.q`) names: in the
    /// default database for a bare name, matched exactly first, then
    /// ignoring case. `None` when no database has such a query.
    pub(super) fn find_saved_query(&self, name: &ObjectName) -> Result<Option<FoundQuery>> {
        let parts: Vec<String> = name
            .0
            .iter()
            .map(|p| part(&p.to_string()).to_string())
            .collect();
        let default = self
            .default_db
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let (catalog, query) = match parts.as_slice() {
            [q] => (default, q.clone()),
            [c, q] => (Some(c.clone()), q.clone()),
            [c, s, q] if s.eq_ignore_ascii_case("public") => (Some(c.clone()), q.clone()),
            _ => return Ok(None),
        };
        let Some(catalog) = catalog else {
            return Ok(None);
        };
        let handles = self
            .handles
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let Some((catalog, handle)) = handles
            .into_iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&catalog))
        else {
            return Ok(None);
        };
        let queries = handle.database()?.queries().map_err(crate::error::to_df)?;
        let found = queries
            .iter()
            .find(|q| q.name == query)
            .or_else(|| queries.iter().find(|q| q.name.eq_ignore_ascii_case(&query)))
            .cloned();
        Ok(found.map(|query| FoundQuery { catalog, query }))
    }

    /// Runs a saved query found by [`JetSession::find_saved_query`] with
    /// `args` bound to its declared parameters in order.
    pub(super) async fn execute_saved(
        &self,
        found: FoundQuery,
        args: &[SqlExpr],
    ) -> Result<Vec<RecordBatch>> {
        let q = &found.query;
        if matches!(q.kind, QueryKind::PassThrough | QueryKind::Unknown(_)) {
            return Err(refuse(format!(
                "EXECUTE [{}]: a {} query is not run by jetsql (a pass-through query's text is \
                 for its ODBC server); nothing changed",
                q.name, q.kind
            )));
        }
        let sql = q
            .checked_sql()
            .map_err(|e| refuse(format!("EXECUTE [{}]: {e}; nothing changed", q.name)))?
            .to_string();
        let params = self.bind_arguments(q, args).await?;
        let ctx = self.scoped_context(&found.catalog);
        let mut prepared = access::prepare(&sql, SqlDialect::Access, &ctx, &params)
            .await
            .map_err(|e| {
                refuse(format!(
                    "saved query \"{}\" cannot be run: {}; nothing changed",
                    q.name,
                    crate::access::unrunnable::reason_of(&e)
                ))
            })?;
        if prepared.len() != 1 {
            return Err(refuse(format!(
                "EXECUTE [{}]: its text holds {} statements; nothing changed",
                q.name,
                prepared.len()
            )));
        }
        let statement = prepared.remove(0).statement;
        Box::pin(self.statement(statement, SqlDialect::Access)).await
    }

    /// The session's parameters with `args` bound, in order, to the
    /// query's declared parameters.
    async fn bind_arguments(&self, q: &SavedQuery, args: &[SqlExpr]) -> Result<Params> {
        let mut params = self
            .params
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        if args.len() > q.parameters.len() {
            let declared = if q.parameters.is_empty() {
                "declares no parameters (bind them by name with \\param)".to_string()
            } else {
                let names: Vec<&str> = q.parameters.iter().map(|(n, _)| n.as_str()).collect();
                format!("declares {}: {}", q.parameters.len(), names.join(", "))
            };
            return Err(refuse(format!(
                "EXECUTE [{}]: {} values given, the query {declared}; nothing changed",
                q.name,
                args.len()
            )));
        }
        for (arg, (name, _)) in args.iter().zip(&q.parameters) {
            let value = self.constant(arg).await.map_err(|e| {
                refuse(format!(
                    "EXECUTE [{}]: the value {arg} for {name} is not a constant: {}",
                    q.name,
                    crate::access::unrunnable::reason_of(&e)
                ))
            })?;
            params.bind(part(name), value);
        }
        Ok(params)
    }

    /// The value of a constant expression of the Access dialect.
    async fn constant(&self, e: &SqlExpr) -> Result<ScalarValue> {
        let sql = format!("SELECT {e}");
        let mut prepared =
            access::prepare(&sql, SqlDialect::Access, &self.ctx, &Params::default()).await?;
        let statement = prepared
            .pop()
            .ok_or_else(|| refuse("no value".to_string()))?
            .statement;
        let plan = self
            .planning_state(SqlDialect::Access)?
            .statement_to_plan(statement)
            .await?;
        let batches = self.ctx.execute_logical_plan(plan).await?.collect().await?;
        let batch = batches
            .iter()
            .find(|b| b.num_rows() > 0)
            .ok_or_else(|| refuse("no value".to_string()))?;
        if batch.num_rows() != 1 || batch.num_columns() != 1 {
            return Err(refuse("not one value".to_string()));
        }
        ScalarValue::try_from_array(batch.column(0), 0)
    }

    /// A context over the session's catalogs whose bare table names are
    /// `catalog`'s, and which writes every resolved name in full (so the
    /// prepared statement means the same tables in the session).
    fn scoped_context(&self, catalog: &str) -> SessionContext {
        let mut state = self.ctx.state();
        let config = state.config_mut();
        config.set_extension(Arc::new(QualifyTables));
        let options = config.options_mut();
        options.catalog.default_catalog = catalog.to_string();
        options.catalog.default_schema = "public".to_string();
        SessionContext::new_with_state(state)
    }
}
