//! How decimal literals compare in a Jet session.
//!
//! Jet sessions parse `2171.2942` as a DECIMAL (exact against Currency and
//! Numeric columns). DataFusion would then compare a Single or Double
//! with a decimal by casting the float to `DECIMAL(30, 15)`, which fails
//! for values beyond 10^15 and rounds away digits below 10^-15. Access
//! compares such values as Double, and so does a Jet session: the
//! [`FloatDecimalComparison`] analyzer rule casts the decimal side of a
//! comparison with a float to Double before DataFusion's type coercion.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::{DFSchema, Result};
use datafusion::logical_expr::expr::InList;
use datafusion::logical_expr::expr_rewriter::NamePreserver;
use datafusion::logical_expr::{Between, BinaryExpr, Expr, ExprSchemable, LogicalPlan, Operator};
use datafusion::optimizer::AnalyzerRule;
use datafusion::optimizer::analyzer::Analyzer;
use std::sync::Arc;

/// Casts the decimal side of a comparison (`=`, `<>`, `<`, `<=`, `>`,
/// `>=`, `IS [NOT] DISTINCT FROM`, `BETWEEN`, `IN`) with a float to
/// `DOUBLE`, so a float column compared with a decimal literal compares as
/// Double. Other comparisons are left unchanged.
#[derive(Debug, Default)]
pub struct FloatDecimalComparison;

fn is_float(t: &DataType) -> bool {
    matches!(t, DataType::Float16 | DataType::Float32 | DataType::Float64)
}

fn is_decimal(t: &DataType) -> bool {
    t.is_decimal()
}

/// The type of `e`, when it can be told from `schema`.
fn type_of(e: &Expr, schema: &DFSchema) -> Option<DataType> {
    e.get_type(schema).ok()
}

fn to_double(e: Expr) -> Expr {
    Expr::Cast(datafusion::logical_expr::Cast::new(
        Box::new(e),
        DataType::Float64,
    ))
}

fn is_comparison(op: Operator) -> bool {
    matches!(
        op,
        Operator::Eq
            | Operator::NotEq
            | Operator::Lt
            | Operator::LtEq
            | Operator::Gt
            | Operator::GtEq
            | Operator::IsDistinctFrom
            | Operator::IsNotDistinctFrom
    )
}

fn rewrite(e: Expr, schema: &DFSchema) -> Result<Transformed<Expr>> {
    let float = |x: &Expr| type_of(x, schema).is_some_and(|t| is_float(&t));
    let decimal = |x: &Expr| type_of(x, schema).is_some_and(|t| is_decimal(&t));
    Ok(match e {
        Expr::BinaryExpr(BinaryExpr { left, op, right }) if is_comparison(op) => {
            if float(&left) && decimal(&right) {
                Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    left,
                    op,
                    Box::new(to_double(*right)),
                )))
            } else if decimal(&left) && float(&right) {
                Transformed::yes(Expr::BinaryExpr(BinaryExpr::new(
                    Box::new(to_double(*left)),
                    op,
                    right,
                )))
            } else {
                Transformed::no(Expr::BinaryExpr(BinaryExpr { left, op, right }))
            }
        }
        Expr::Between(b) if float(&b.expr) && (decimal(&b.low) || decimal(&b.high)) => {
            let cast = |x: Box<Expr>| {
                if decimal(&x) {
                    Box::new(to_double(*x))
                } else {
                    x
                }
            };
            Transformed::yes(Expr::Between(Between {
                expr: b.expr,
                negated: b.negated,
                low: cast(b.low),
                high: cast(b.high),
            }))
        }
        Expr::InList(l) if float(&l.expr) && l.list.iter().any(decimal) => {
            let list = l
                .list
                .into_iter()
                .map(|x| if decimal(&x) { to_double(x) } else { x })
                .collect();
            Transformed::yes(Expr::InList(InList {
                expr: l.expr,
                list,
                negated: l.negated,
            }))
        }
        other => Transformed::no(other),
    })
}

impl AnalyzerRule for FloatDecimalComparison {
    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up_with_subqueries(|plan| {
            // expressions read the columns of the node's inputs
            let mut schema = DFSchema::empty();
            for input in plan.inputs() {
                schema.merge(input.schema());
            }
            // output columns keep the names the SQL gave them
            let names = NamePreserver::new(&plan);
            let t = plan.map_expressions(|e| {
                let saved = names.save(&e);
                Ok(e.transform_up(|e| rewrite(e, &schema))?
                    .update_data(|e| saved.restore(e)))
            })?;
            if t.transformed {
                t.map_data(|plan| plan.recompute_schema())
            } else {
                Ok(t)
            }
        })
        .data()
    }

    fn name(&self) -> &str {
        "jet_float_decimal_comparison"
    }
}

/// DataFusion's analyzer rules with [`FloatDecimalComparison`] before its
/// type coercion.
pub fn analyzer_rules() -> Vec<Arc<dyn AnalyzerRule + Send + Sync>> {
    let mut rules = Analyzer::new().rules;
    let at = rules
        .iter()
        .position(|r| r.name() == "type_coercion")
        .unwrap_or(0);
    rules.insert(at, Arc::new(FloatDecimalComparison));
    rules
}
