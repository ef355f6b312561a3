//! `TRANSFORM aggregate SELECT … GROUP BY … PIVOT expr [IN (v, …)]`:
//! Access's crosstab queries ("TRANSFORM statement", learn.microsoft.com/
//! office/client-developer/access/desktop-database-reference/
//! transform-statement-microsoft-access-sql).
//!
//! The SELECT keeps its row headings; for each pivot value one column is
//! added, named by the value, holding the aggregate over the rows whose
//! pivot expression equals it (`aggregate FILTER (WHERE expr = value)`).
//! The values are the IN list in its order, or else the distinct values of
//! the pivot expression in ascending order (read with the query's FROM and
//! WHERE before the crosstab is planned); rows whose pivot expression is
//! NULL make a column named `<>`, as in Access.
//!
//! The aggregate and pivot texts are parsed and put into the SELECT list
//! ([`inject`]) before names are resolved, so they resolve like the rest
//! of the statement; [`rewrite`] takes them out again.

use super::prelex::Piece;
use crate::error::refuse;
use datafusion::arrow::array::Array;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::error::Result;
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, Expr, Ident, Query, SelectItem, SetExpr, Statement, VisitMut, VisitorMut,
};
use datafusion::sql::sqlparser::parser::Parser;
use std::ops::ControlFlow;

const TRANSFORM: &str = "__crosstab_transform";
const PIVOT: &str = "__crosstab_pivot";

fn parse_expr(text: &str) -> Result<Expr> {
    Parser::new(&super::AccessDialect)
        .with_recursion_limit(super::PARSER_RECURSION_LIMIT)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| refuse(format!("in the crosstab: {e}")))
}

fn select_of(s: &mut Statement) -> Result<&mut datafusion::sql::sqlparser::ast::Select> {
    if let Statement::Query(q) = s
        && let SetExpr::Select(sel) = q.body.as_mut()
    {
        return Ok(sel);
    }
    Err(refuse(
        "TRANSFORM must be followed by a single SELECT … GROUP BY … PIVOT",
    ))
}

/// Puts the TRANSFORM aggregate and the PIVOT expression into the SELECT
/// list, so the name passes resolve them.
pub(crate) fn inject(s: &mut Statement, piece: &Piece) -> Result<()> {
    let (Some((agg, _)), Some((pivot, _))) = (&piece.transform, &piece.pivot) else {
        return Err(refuse("a TRANSFORM query needs a PIVOT clause"));
    };
    // the aggregate may carry an alias: Access ignores it for the columns
    let agg = match agg.rfind(" AS ").or_else(|| agg.rfind(" as ")) {
        Some(i) if !agg[i + 4..].contains(')') => &agg[..i],
        _ => agg.as_str(),
    };
    let agg = parse_expr(agg)?;
    let pivot = parse_expr(pivot)?;
    let sel = select_of(s)?;
    sel.projection.push(SelectItem::ExprWithAlias {
        expr: agg,
        alias: Ident::new(TRANSFORM),
    });
    sel.projection.push(SelectItem::ExprWithAlias {
        expr: pivot,
        alias: Ident::new(PIVOT),
    });
    Ok(())
}

fn take(sel: &mut datafusion::sql::sqlparser::ast::Select, name: &str) -> Option<Expr> {
    let i = sel.projection.iter().position(
        |p| matches!(p, SelectItem::ExprWithAlias { alias, .. } if alias.value == name),
    )?;
    match sel.projection.remove(i) {
        SelectItem::ExprWithAlias { expr, .. } => Some(expr),
        _ => None,
    }
}

const AGGREGATES: [&str; 15] = [
    "sum",
    "count",
    "avg",
    "min",
    "max",
    "first",
    "last",
    "stdev",
    "stdevp",
    "var",
    "varp",
    "first_value",
    "last_value",
    "stddev",
    "variance",
];

/// Puts `filter` on every aggregate call in an expression.
struct Filtered(Expr);

impl VisitorMut for Filtered {
    type Break = ();
    fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = e
            && AGGREGATES.contains(&f.name.to_string().to_ascii_lowercase().as_str())
            && f.over.is_none()
        {
            f.filter = Some(Box::new(self.0.clone()));
        }
        ControlFlow::Continue(())
    }
}

/// Replaces the crosstab's SELECT by its pivoted form.
pub(crate) async fn rewrite(s: &mut Statement, ctx: &SessionContext) -> Result<()> {
    let sel = select_of(s)?;
    let agg = take(sel, TRANSFORM).ok_or_else(|| refuse("crosstab aggregate lost"))?;
    let pivot = take(sel, PIVOT).ok_or_else(|| refuse("crosstab PIVOT lost"))?;
    let (pexpr, listed) = match pivot {
        Expr::InList {
            expr,
            list,
            negated: false,
        } => (*expr, Some(list)),
        other => (other, None),
    };
    let values: Vec<(Option<Expr>, String)> = match listed {
        Some(list) => list
            .into_iter()
            .map(|v| {
                let name = match &v {
                    Expr::Value(x) => match &x.value {
                        datafusion::sql::sqlparser::ast::Value::SingleQuotedString(s)
                        | datafusion::sql::sqlparser::ast::Value::DoubleQuotedString(s) => {
                            s.clone()
                        }
                        other => other.to_string(),
                    },
                    other => other.to_string(),
                };
                (Some(v), name)
            })
            .collect(),
        None => distinct_values(sel, &pexpr, ctx).await?,
    };
    for (value, name) in values {
        let cond = match value {
            Some(v) => Expr::BinaryOp {
                left: Box::new(pexpr.clone()),
                op: BinaryOperator::Eq,
                right: Box::new(v),
            },
            None => Expr::IsNull(Box::new(pexpr.clone())),
        };
        let mut e = agg.clone();
        let _ = e.visit(&mut Filtered(cond));
        sel.projection.push(SelectItem::ExprWithAlias {
            expr: e,
            alias: super::ast::exact(&name),
        });
    }
    Ok(())
}

/// The pivot expression's distinct values under the query's FROM and
/// WHERE, ascending, each as a literal and a column name.
async fn distinct_values(
    sel: &datafusion::sql::sqlparser::ast::Select,
    pexpr: &Expr,
    ctx: &SessionContext,
) -> Result<Vec<(Option<Expr>, String)>> {
    let from: Vec<String> = sel.from.iter().map(|f| f.to_string()).collect();
    let mut sql = format!("SELECT DISTINCT {pexpr} AS v FROM {}", from.join(", "));
    if let Some(w) = &sel.selection {
        sql.push_str(&format!(" WHERE {w}"));
    }
    sql.push_str(" ORDER BY 1");
    let q: Query = super::parse_query(&sql)?;
    let state = super::access_state(ctx)?;
    let plan = state
        .statement_to_plan(datafusion::sql::parser::Statement::Statement(Box::new(
            Statement::Query(Box::new(q)),
        )))
        .await?;
    let batches = ctx.execute_logical_plan(plan).await?.collect().await?;
    let mut out = Vec::new();
    let options = FormatOptions::default();
    for b in &batches {
        let col = b.column(0);
        let fmt = ArrayFormatter::try_new(col.as_ref(), &options)?;
        for i in 0..col.len() {
            if col.is_null(i) {
                out.push((None, "<>".to_string()));
                continue;
            }
            let v = datafusion::common::ScalarValue::try_from_array(col, i)?;
            let lit = super::params::ParamValue(v).to_expr()?;
            let name = fmt.value(i).try_to_string()?;
            out.push((Some(lit), name));
        }
    }
    if out.len() > 1000 {
        return Err(refuse(format!(
            "the crosstab's PIVOT expression has {} values; give them with PIVOT … IN (…) \
             to choose at most 1,000 columns",
            out.len()
        )));
    }
    Ok(out)
}
