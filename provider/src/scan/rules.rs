//! Physical optimizer rules that put Jet indexes to work where DataFusion's
//! own rules cannot see them:
//!
//! - [`JetIndexOrder`]: a `SortExec` with a fetch (`ORDER BY … LIMIT n`)
//!   over a Jet scan (through projections, filters, repartitions and
//!   coalesces) becomes an [`IndexOrderExec`] walking an index whose key
//!   order is the requested order; the sort disappears. Filters stay above
//!   the walk (the limit then sits above them); a seek under the sort on
//!   the same index keeps its range.
//! - [`JetMinMax`]: an aggregate of only `MIN`/`MAX` over plain indexed
//!   columns, without GROUP BY or filters, becomes an [`IndexMinMaxExec`].
//!   `COUNT(*)` is never answered from metadata (the TDEF row count is
//!   wrong in real files); it stays a scan.
//!
//! DataFusion 55 only offers `ExecutionPlan::try_pushdown_sort`, which
//! knows neither the fetch nor filters, so these are rules. They act only
//! on scans of tables registered with `JetOptions::pushdown`. Register them
//! with [`crate::jet_session_state_builder`] or [`physical_optimizer_rules`]; a
//! plain `SessionContext` plans correct, slower queries without them.

use super::exec::{IndexSeekExec, JetScanExec};
use super::minmax::{IndexMinMaxExec, min_max_item};
use super::order::{IndexOrderExec, SortKey, ordered_walk};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::error::Result;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::aggregates::{AggregateExec, AggregateMode};
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::execution_plan::{ChildrenPropertiesMode, ReplaceChildrenOptions};
use datafusion::physical_plan::filter::FilterExec;
use datafusion::physical_plan::limit::GlobalLimitExec;
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::sorts::sort_preserving_merge::SortPreservingMergeExec;
use std::sync::Arc;

/// The Jet scan at the bottom of a chain.
enum Leaf<'a> {
    Scan(&'a JetScanExec),
    Seek(&'a IndexSeekExec),
}

/// A path from a node down to a Jet scan through nodes that keep each
/// row's values: the nodes to keep (top first), the leaf, whether a filter
/// is on the way, and the leaf's output columns the top's `columns` are.
struct Chain<'a> {
    keep: Vec<Arc<dyn ExecutionPlan>>,
    leaf: Leaf<'a>,
    filtered: bool,
    columns: Vec<usize>,
}

fn column_index(e: &Arc<dyn datafusion::physical_expr::PhysicalExpr>) -> Option<usize> {
    e.downcast_ref::<Column>().map(Column::index)
}

/// Follows `top` down to a Jet scan, mapping `columns` (indexes into
/// `top`'s output) to the scan's output. `order_matters`: refuse nodes that
/// would not pass an input order through unchanged other than
/// repartitions and coalesces (which the caller drops).
fn chain(top: &Arc<dyn ExecutionPlan>, mut columns: Vec<usize>) -> Option<Chain<'_>> {
    let mut keep = Vec::new();
    let mut filtered = false;
    let mut node = top;
    loop {
        if let Some(s) = node.downcast_ref::<JetScanExec>() {
            return Some(Chain {
                keep,
                leaf: Leaf::Scan(s),
                filtered,
                columns,
            });
        }
        if let Some(s) = node.downcast_ref::<IndexSeekExec>() {
            return Some(Chain {
                keep,
                leaf: Leaf::Seek(s),
                filtered: filtered || s.recheck().is_some(),
                columns,
            });
        }
        if let Some(p) = node.downcast_ref::<ProjectionExec>() {
            let exprs = p.expr();
            columns = columns
                .iter()
                .map(|&c| exprs.get(c).and_then(|e| column_index(&e.expr)))
                .collect::<Option<_>>()?;
            keep.push(node.clone());
            node = p.input();
        } else if let Some(f) = node.downcast_ref::<FilterExec>() {
            if let Some(p) = f.projection() {
                columns = columns
                    .iter()
                    .map(|&c| p.get(c).copied())
                    .collect::<Option<_>>()?;
            }
            filtered = true;
            keep.push(node.clone());
            node = f.input();
        } else if let Some(r) = node.downcast_ref::<RepartitionExec>() {
            node = r.input();
        } else if let Some(c) = node.downcast_ref::<CoalescePartitionsExec>() {
            if c.fetch().is_some() {
                return None;
            }
            node = c.input();
        } else {
            return None;
        }
    }
}

/// `ORDER BY … LIMIT n` over a Jet table walks an index in key order; see
/// the module documentation.
#[derive(Debug, Default)]
pub struct JetIndexOrder;

impl JetIndexOrder {
    /// The replacement for a sort of `input` by `sort` keeping `fetch`
    /// rows, or `None`.
    fn rewrite(
        sort: &datafusion::physical_expr::LexOrdering,
        fetch: Option<usize>,
        input: &Arc<dyn ExecutionPlan>,
    ) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        // without a limit a sort of the scan reads pages in order and is
        // cheaper than fetching every row through the index
        let Some(fetch) = fetch else { return Ok(None) };
        let Some(cols) = sort
            .iter()
            .map(|s| column_index(&s.expr))
            .collect::<Option<Vec<usize>>>()
        else {
            return Ok(None);
        };
        let Some(ch) = chain(input, cols) else {
            return Ok(None);
        };
        // the leaf's output columns (table column numbers) and, for a seek,
        // the seek itself, whose re-check goes back over the ordered walk
        let (table, db, complex, projection, batch, range, label, outputs, seek) = match ch.leaf {
            Leaf::Scan(s) => {
                if !s.index_plans() || s.limit().is_some() {
                    return Ok(None);
                }
                let outputs = match s.projection() {
                    Some(p) => p.clone(),
                    None => (0..s.table().def().columns.len()).collect(),
                };
                (
                    s.table(),
                    s.db(),
                    s.complex().clone(),
                    s.projection(),
                    s.batch_size(),
                    None,
                    None,
                    outputs,
                    None,
                )
            }
            Leaf::Seek(s) => {
                // a walk follows one key range; a seek of several (an IN
                // list) keeps its sort
                let Some((lower, upper)) = s.single_range() else {
                    return Ok(None);
                };
                (
                    s.table(),
                    s.db(),
                    s.complex().clone(),
                    s.projection(),
                    s.batch_size(),
                    Some((s.index(), lower, upper)),
                    Some(s.range_label().to_string()),
                    s.output_columns(),
                    Some(s),
                )
            }
        };
        let table_col = |c: usize| outputs.get(c).copied();
        let Some(keys) = ch
            .columns
            .iter()
            .zip(sort.iter())
            .map(|(&c, s)| {
                table_col(c).map(|column| SortKey {
                    column,
                    options: s.options,
                })
            })
            .collect::<Option<Vec<_>>>()
        else {
            return Ok(None);
        };
        let Some(walk) = ordered_walk(table, db, &keys, range)? else {
            return Ok(None);
        };
        let leaf_fetch = (!ch.filtered).then_some(fetch);
        let mut plan: Arc<dyn ExecutionPlan> = Arc::new(IndexOrderExec::try_new(
            table.clone(),
            db.clone(),
            complex,
            walk,
            keys,
            label,
            projection.cloned(),
            leaf_fetch,
            batch,
        )?);
        if let Some(seek) = seek {
            plan = seek.recheck_over(plan)?;
        }
        for node in ch.keep.iter().rev() {
            plan = node.clone().replace_children(
                vec![plan],
                ReplaceChildrenOptions {
                    children_properties: ChildrenPropertiesMode::Recompute,
                },
            )?;
        }
        if ch.filtered {
            plan = Arc::new(GlobalLimitExec::new(plan, 0, Some(fetch)));
        }
        Ok(Some(plan))
    }
}

impl PhysicalOptimizerRule for JetIndexOrder {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_down(|node| {
            // a merge of per-partition sorts, or a sort on its own
            let found = if let Some(spm) = node.downcast_ref::<SortPreservingMergeExec>() {
                match spm.input().downcast_ref::<SortExec>() {
                    Some(sort) => {
                        let fetch = match (spm.fetch(), sort.fetch()) {
                            (Some(a), Some(b)) => Some(a.min(b)),
                            (a, b) => a.or(b),
                        };
                        Self::rewrite(spm.expr(), fetch, sort.input())?
                    }
                    None => None,
                }
            } else if let Some(sort) = node.downcast_ref::<SortExec>() {
                // a sort per partition feeds a parent that wants them all
                if sort.preserve_partitioning() {
                    None
                } else {
                    Self::rewrite(sort.expr(), sort.fetch(), sort.input())?
                }
            } else {
                None
            };
            Ok(match found {
                Some(p) => Transformed::new(p, true, TreeNodeRecursion::Jump),
                None => Transformed::no(node),
            })
        })
        .data()
    }

    fn name(&self) -> &str {
        "JetIndexOrder"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// `SELECT MIN(a), MAX(b) FROM t` reads index ends; see the module
/// documentation.
#[derive(Debug, Default)]
pub struct JetMinMax;

impl JetMinMax {
    fn rewrite(agg: &AggregateExec) -> Result<Option<Arc<dyn ExecutionPlan>>> {
        if !agg.group_expr().is_empty() || agg.filter_expr().iter().any(Option::is_some) {
            return Ok(None);
        }
        // the rows the aggregate reads: below a final aggregate, through
        // a coalesce, the partial aggregate's input
        let input = match agg.mode() {
            AggregateMode::Single | AggregateMode::SinglePartitioned => agg.input().clone(),
            AggregateMode::Final | AggregateMode::FinalPartitioned => {
                let mut n = agg.input();
                loop {
                    if let Some(c) = n.downcast_ref::<CoalescePartitionsExec>() {
                        n = c.input();
                    } else if let Some(r) = n.downcast_ref::<RepartitionExec>() {
                        n = r.input();
                    } else {
                        break;
                    }
                }
                match n.downcast_ref::<AggregateExec>() {
                    Some(p)
                        if *p.mode() == AggregateMode::Partial
                            && p.group_expr().is_empty()
                            && p.filter_expr().iter().all(Option::is_none)
                            && p.aggr_expr().len() == agg.aggr_expr().len() =>
                    {
                        p.input().clone()
                    }
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let mut wanted = Vec::new();
        for a in agg.aggr_expr() {
            let max = match a.fun().name() {
                "min" => false,
                "max" => true,
                _ => return Ok(None),
            };
            let args = a.expressions();
            if a.is_distinct() || args.len() != 1 {
                return Ok(None);
            }
            let Some(c) = column_index(&args[0]) else {
                return Ok(None);
            };
            wanted.push((c, max));
        }
        let Some(ch) = chain(&input, wanted.iter().map(|w| w.0).collect()) else {
            return Ok(None);
        };
        let Leaf::Scan(scan) = ch.leaf else {
            return Ok(None);
        };
        if ch.filtered || !scan.index_plans() || scan.limit().is_some() {
            return Ok(None);
        }
        let (table, db) = (scan.table(), scan.db());
        let schema = agg.schema();
        let mut items = Vec::new();
        for (i, (&c, &(_, max))) in ch.columns.iter().zip(&wanted).enumerate() {
            let column = match scan.projection() {
                Some(p) => match p.get(c) {
                    Some(&t) => t,
                    None => return Ok(None),
                },
                None => c,
            };
            if table.schema().field(column).data_type() != schema.field(i).data_type() {
                return Ok(None);
            }
            match min_max_item(table, db, column, max)? {
                Some(item) => items.push(item),
                None => return Ok(None),
            }
        }
        Ok(Some(Arc::new(IndexMinMaxExec::try_new(
            table.clone(),
            db.clone(),
            items,
            schema,
        )?)))
    }
}

impl PhysicalOptimizerRule for JetMinMax {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_down(|node| {
            let found = match node.downcast_ref::<AggregateExec>() {
                Some(agg) => Self::rewrite(agg)?,
                None => None,
            };
            Ok(match found {
                Some(p) => Transformed::new(p, true, TreeNodeRecursion::Jump),
                None => Transformed::no(node),
            })
        })
        .data()
    }

    fn name(&self) -> &str {
        "JetMinMax"
    }

    fn schema_check(&self) -> bool {
        true
    }
}

/// DataFusion's default physical optimizer rules with [`JetMinMax`] and
/// [`JetIndexOrder`] inserted before its `PushdownSort` rule (after
/// distribution and sort enforcement, limit and projection pushdown, so
/// they see the final shape of sorts and aggregates, and before the sanity
/// check, which then validates their output).
pub fn physical_optimizer_rules() -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    let mut rules = PhysicalOptimizer::new().rules;
    let at = rules
        .iter()
        .position(|r| r.name() == "PushdownSort")
        .unwrap_or(rules.len());
    rules.insert(at, Arc::new(JetIndexOrder));
    rules.insert(at, Arc::new(JetMinMax));
    rules
}
