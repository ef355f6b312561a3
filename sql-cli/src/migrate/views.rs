//! Saved select queries as views of a target: each query is planned by
//! the Access front end (as `SELECT * FROM [Query]` would plan it), its
//! plan's table names made bare (the target's tables are the Access
//! tables, unqualified) and written back as SQL of the target by
//! DataFusion's unparser. A query the unparser cannot write, or whose SQL
//! the target refuses (an Access function it lacks), stays a comment with
//! its Access SQL.

use super::types::Target;
use crate::session::OpenRequest;
use datafusion::catalog::view::ViewTable;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{Column, TableReference};
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::sql::unparser::Unparser;
use datafusion::sql::unparser::dialect::{
    Dialect, DuckDBDialect, MySqlDialect, PostgreSqlDialect, SqliteDialect,
};
use std::path::Path;

/// One saved query and the SELECT that makes it a view of the target, or
/// why there is none.
#[derive(Debug, Clone)]
pub struct ViewSql {
    /// The query's name.
    pub name: String,
    /// The query's Access SQL.
    pub access_sql: String,
    /// The target's SELECT, or the reason it has none.
    pub select: Result<String, String>,
}

fn bare(r: &TableReference) -> TableReference {
    TableReference::bare(r.table())
}

/// `plan` with every table reference (scans and column qualifiers) bare.
fn bare_names(plan: LogicalPlan) -> datafusion::error::Result<LogicalPlan> {
    plan.transform_up(|p| {
        let p = p
            .map_expressions(|e| {
                e.transform_up(|e| match e {
                    Expr::Column(c) if c.relation.is_some() => {
                        let relation = c.relation.as_ref().map(bare);
                        Ok(Transformed::yes(Expr::Column(Column::new(
                            relation, c.name,
                        ))))
                    }
                    other => Ok(Transformed::no(other)),
                })
            })?
            .data;
        Ok(match p {
            LogicalPlan::TableScan(mut scan) => {
                scan.table_name = bare(&scan.table_name);
                Transformed::yes(LogicalPlan::TableScan(scan))
            }
            other => Transformed::no(other),
        })
    })
    .map(|t| t.data)
}

fn dialect(t: Target) -> Box<dyn Dialect> {
    match t {
        Target::Sqlite => Box::new(SqliteDialect {}),
        Target::Postgres => Box::new(PostgreSqlDialect {}),
        Target::Mysql => Box::new(MySqlDialect {}),
        Target::Duckdb => Box::new(DuckDBDialect::new()),
    }
}

/// The saved select queries of `file` (those in `names`), each as the
/// target's SELECT where the unparser writes one.
pub fn translate(
    file: &Path,
    req: &OpenRequest,
    target: Target,
    queries: &[jet_storage::SavedQuery],
) -> Result<Vec<ViewSql>, String> {
    let session = crate::session::new_session(jet_provider::frontdoor::default_memory_limit())
        .map_err(|e| e.to_string())?;
    session.set_dialect(jet_provider::SqlDialect::Access);
    let dbs = crate::session::register_files(&session, &[file.to_path_buf()], req, false)?;
    let db = dbs
        .first()
        .ok_or_else(|| format!("{}: not opened", file.display()))?;
    let schema = session
        .context()
        .catalog(&db.name)
        .and_then(|c| c.schema("public"))
        .ok_or_else(|| format!("{}: no catalog", file.display()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let d = dialect(target);
    let unparser = Unparser::new(d.as_ref());
    let mut out = Vec::new();
    for q in queries {
        let select = runtime.block_on(async {
            let provider = schema
                .table(&q.name)
                .await
                .map_err(|e| e.to_string())?
                .ok_or("not found")?;
            let any: &dyn std::any::Any = provider.as_ref();
            let Some(view) = any.downcast_ref::<ViewTable>() else {
                // an unrunnable query: its error says why
                let err = provider
                    .scan(&session.context().state(), None, &[], None)
                    .await
                    .err()
                    .map_or_else(|| "cannot be planned".to_string(), |e| e.to_string());
                return Err(err);
            };
            let plan = bare_names(view.logical_plan().clone()).map_err(|e| e.to_string())?;
            let stmt = unparser.plan_to_sql(&plan).map_err(|e| e.to_string())?;
            Ok::<_, String>(stmt.to_string())
        });
        out.push(ViewSql {
            name: q.name.clone(),
            access_sql: q.sql.clone(),
            select,
        });
    }
    Ok(out)
}

/// The note for a saved query that did not become a view.
pub fn note(v: &ViewSql, why: &str) -> String {
    format!(
        "saved query {} not created as a view: {}\n{}",
        v.name,
        why.lines().next().unwrap_or_default(),
        v.access_sql.trim_end()
    )
}
