//! Large constants repeated over a batch. DataFusion folds a function of
//! constants into one value while it plans (`repeat('x', 1000000)`
//! becomes a literal of 1 MB, checked once by [`super::strings`]), and a
//! projection or an aggregate argument that is a literal becomes a column
//! of the batch's rows when it runs: 8,192 copies of 1 MB, 8 GB that no
//! function checks, and an abort where the memory is not there
//! (`SELECT string_agg(repeat('x', 1000000), ',') FROM
//! generate_series(1, 10000)`).
//!
//! [`RepeatedConstants`], an optimizer rule that runs after the folding,
//! bounds the literals of each projection, aggregate and window
//! (their text, binary and nested values) times the rows of a batch of
//! their input (`datafusion.execution.batch_size`, fewer when the input is
//! known to be smaller: a `VALUES` list; over one row, as in `SELECT`
//! without `FROM` or over an aggregate without `GROUP BY`, nothing is
//! repeated) by the memory limit; past it, the statement fails with
//! "resources exhausted" before it runs.

use super::strings::{check_need, human_bytes, scalar_bytes};
use datafusion::common::ScalarValue;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::error::Result;
use datafusion::logical_expr::{Expr, LogicalPlan};
use datafusion::optimizer::{OptimizerConfig, OptimizerRule};

/// Literals smaller than this are never checked (a batch of them cannot
/// come near any limit).
const CHECK_FROM: u128 = 1024;

/// The optimizer rule of this module: refuses a plan whose literals,
/// repeated over a batch, would need more than `limit` bytes.
#[derive(Debug, Clone, Copy)]
pub struct RepeatedConstants {
    limit: u64,
}

impl RepeatedConstants {
    /// The rule for a session whose memory limit is `limit` bytes.
    pub fn new(limit: u64) -> Self {
        RepeatedConstants { limit }
    }

    /// Checks the literals of one plan node.
    fn check(&self, node: &LogicalPlan, batch_size: usize) -> Result<()> {
        let (exprs, input): (Vec<&Expr>, &LogicalPlan) = match node {
            LogicalPlan::Projection(p) => (p.expr.iter().collect(), p.input.as_ref()),
            LogicalPlan::Aggregate(a) => (
                a.group_expr.iter().chain(&a.aggr_expr).collect(),
                a.input.as_ref(),
            ),
            LogicalPlan::Window(w) => (w.window_expr.iter().collect(), w.input.as_ref()),
            _ => return Ok(()),
        };
        let mut bytes: u128 = 0;
        for e in exprs {
            e.apply(|x| {
                if let Expr::Literal(v, _) = x {
                    bytes += literal_bytes(v);
                }
                Ok(TreeNodeRecursion::Continue)
            })?;
        }
        if bytes < CHECK_FROM {
            return Ok(());
        }
        let rows = rows_bound(input).map_or(batch_size, |n| n.min(batch_size));
        if rows <= 1 {
            // one copy of constants already made (and checked when a
            // function made them)
            return Ok(());
        }
        let need = bytes * rows as u128;
        let purpose = format!(" repeated over a batch of {rows} rows");
        check_need(
            format_args!("a constant of {}", human_bytes(bytes)),
            &purpose,
            need,
            self.limit,
        )
    }
}

/// Bytes a literal holds: its text or binary, or the memory of a nested
/// value (a list, a struct, a map); nothing for numbers and dates.
fn literal_bytes(v: &ScalarValue) -> u128 {
    match scalar_bytes(v) {
        Some(n) => n,
        None => match v {
            ScalarValue::List(_)
            | ScalarValue::LargeList(_)
            | ScalarValue::FixedSizeList(_)
            | ScalarValue::Struct(_)
            | ScalarValue::Map(_) => v.size() as u128,
            _ => 0,
        },
    }
}

/// The most rows `plan` produces when that is known from its shape (a
/// `SELECT` without `FROM` is one row, a `VALUES` list its rows, an
/// aggregate without `GROUP BY` one row; projections, filters, sorts,
/// limits and windows keep their input's bound).
fn rows_bound(plan: &LogicalPlan) -> Option<usize> {
    match plan {
        LogicalPlan::EmptyRelation(e) => Some(usize::from(e.produce_one_row)),
        LogicalPlan::Values(v) => Some(v.values.len()),
        LogicalPlan::Aggregate(a) if a.group_expr.is_empty() => Some(1),
        LogicalPlan::Projection(_)
        | LogicalPlan::Filter(_)
        | LogicalPlan::Sort(_)
        | LogicalPlan::Limit(_)
        | LogicalPlan::SubqueryAlias(_)
        | LogicalPlan::Window(_)
        | LogicalPlan::Aggregate(_) => match plan.inputs().as_slice() {
            [input] => rows_bound(input),
            _ => None,
        },
        _ => None,
    }
}

impl OptimizerRule for RepeatedConstants {
    fn name(&self) -> &str {
        "jet_repeated_constants"
    }

    fn rewrite(
        &self,
        plan: LogicalPlan,
        config: &dyn OptimizerConfig,
    ) -> Result<Transformed<LogicalPlan>> {
        let batch_size = config.options().execution.batch_size.get().max(1);
        plan.apply_with_subqueries(|node| {
            self.check(node, batch_size)?;
            Ok(TreeNodeRecursion::Continue)
        })?;
        Ok(Transformed::no(plan))
    }
}
