//! Statements prepared once and run with parameter values: what a server
//! speaking a wire protocol needs (`jetsql serve`: PostgreSQL's Parse /
//! Describe / Bind / Execute). A statement is parsed and checked as
//! [`JetSession::sql`] parses it, described (its `$n` parameters and the
//! columns it returns) without running, and run as many times as asked
//! with values for its placeholders, through the same entry point as any
//! other statement: a write takes the writer locks and is one journaled
//! transaction.

use super::kind::{Kind, classify};
use super::statement::JetSession;
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef};
use datafusion::common::ParamValues;
use datafusion::error::Result;
use datafusion::prelude::DataFrame;
use datafusion::sql::parser::Statement as DFStatement;
use std::sync::Arc;

/// What a statement does, as a server must know before it runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatementKind {
    /// A query, `SHOW`, `EXPLAIN` of a query, `SET`: changes no database.
    Read,
    /// INSERT, UPDATE, DELETE, CREATE / ALTER / DROP of a table or index:
    /// may change a database.
    Write,
    /// `BEGIN` / `START TRANSACTION`.
    Begin,
    /// `COMMIT`.
    Commit,
    /// `ROLLBACK`.
    Rollback,
    /// `EXECUTE name`: a saved query (a select or an action query) or a
    /// prepared statement of the session.
    Execute,
}

/// The parameters a statement takes and the columns it returns.
#[derive(Debug, Clone)]
pub struct Described {
    /// The type of `$1`, `$2`, … in order, where the plan tells it
    /// (`None`: the statement does not fix it, as in `SELECT $1`).
    /// Placeholders the statement skips (`$2` without `$1`) are `None`
    /// too.
    pub parameters: Vec<Option<DataType>>,
    /// The columns of the rows it returns (empty for a statement without
    /// rows; the `count` column for INSERT, UPDATE and DELETE).
    pub schema: SchemaRef,
}

/// A query planned once with its `$n` placeholders open, to be run many
/// times with values ([`JetSession::frame_for_planned`]): the logical
/// plan, and what it was planned under.
#[derive(Debug, Clone)]
pub struct PlannedQuery {
    plan: datafusion::logical_expr::LogicalPlan,
    dialect: crate::SqlDialect,
    generation: u64,
}

impl JetSession {
    /// Plans `s` once when it is a query (it only reads): `None` for any
    /// other statement, which is planned when it runs. The plan holds the
    /// tables as they are now; [`JetSession::frame_for_planned`] uses it
    /// only while they and the dialect stay as they were.
    pub async fn plan_query(&self, s: &DFStatement) -> Result<Option<PlannedQuery>> {
        if !matches!(classify(s)?, Kind::Other) {
            return Ok(None);
        }
        let generation = self.generation();
        let dialect = self.dialect();
        let plan = crate::frontdoor::catch_panic(self.plan(s.clone(), dialect, None)).await?;
        Ok(Some(PlannedQuery {
            plan,
            dialect,
            generation,
        }))
    }

    /// The frame of a planned query with `params` put in for its
    /// placeholders (cast to their planned types, as
    /// [`JetSession::frame_for`] does), not yet run; `None` when a
    /// database changed or the dialect was switched since it was planned
    /// (plan it again, or run it with [`JetSession::frame_for`]).
    pub fn frame_for_planned(
        &self,
        q: &PlannedQuery,
        params: Option<&ParamValues>,
    ) -> Result<Option<DataFrame>> {
        if q.generation != self.generation() || q.dialect != self.dialect() {
            return Ok(None);
        }
        let plan = match params {
            Some(p) => {
                let p = super::parameters::fit_parameters(&q.plan, p)?;
                q.plan.clone().with_param_values(p)?
            }
            None => q.plan.clone(),
        };
        Ok(Some(DataFrame::new(self.ctx.state(), plan)))
    }

    /// Parses `sql` in the session's dialect with every check
    /// [`JetSession::sql`] makes, without running it: one entry a
    /// statement. `$1`, `$2`, … stay in the statements as placeholders.
    pub async fn prepare(&self, sql: &str) -> Result<Vec<DFStatement>> {
        self.parse(sql).await
    }

    /// What `s` does; an error for the DELETE / UPDATE forms this entry
    /// point refuses (with the reason).
    pub fn kind_of(s: &DFStatement) -> Result<StatementKind> {
        let kind = classify(s)?;
        Ok(match kind {
            Kind::Begin => StatementKind::Begin,
            Kind::Commit => StatementKind::Commit,
            Kind::Rollback => StatementKind::Rollback,
            Kind::Execute(..) => StatementKind::Execute,
            k if k.writes() => StatementKind::Write,
            _ => StatementKind::Read,
        })
    }

    /// The parameters `s` takes and the columns it returns, from its plan
    /// (nothing runs). Statements the entry point carries out itself
    /// (DDL, transactions, `EXECUTE` of a saved query) take no parameters
    /// and describe as returning no rows.
    pub async fn describe(&self, s: &DFStatement) -> Result<Described> {
        let kind = classify(s)?;
        if !kind.takes_parameters() {
            return Ok(Described {
                parameters: Vec::new(),
                schema: Arc::new(Schema::empty()),
            });
        }
        let plan = self.plan(s.clone(), self.dialect(), None).await?;
        let fields = plan.get_parameter_fields()?;
        let mut parameters: Vec<Option<DataType>> = Vec::new();
        for (id, field) in fields {
            // DataFusion names placeholders `$1`, `$2`, …
            let Some(n) = id
                .strip_prefix('$')
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=u16::MAX as usize).contains(n))
            else {
                continue;
            };
            if parameters.len() < n {
                parameters.resize(n, None);
            }
            parameters[n - 1] = field.map(|f| f.data_type().clone());
        }
        let schema = Arc::new(plan.schema().as_arrow().clone());
        Ok(Described { parameters, schema })
    }

    /// Runs one prepared statement with `params` (`None`: it has no
    /// placeholders) as [`JetSession::sql_frame`] runs the last statement
    /// of a text: a query comes back planned and not yet run; anything
    /// else has run and the frame holds its result. A placeholder without
    /// a value, or a value of the wrong type, is an error naming it.
    /// A panic while preparing comes back as an error.
    pub async fn frame_for(
        &self,
        s: DFStatement,
        params: Option<ParamValues>,
    ) -> Result<DataFrame> {
        crate::frontdoor::catch_panic(self.frame_of(s, params.as_ref())).await
    }
}
