//! Access's SELECT predicates and targets: `TOP n [PERCENT]`,
//! `DISTINCTROW`, `SELECT … INTO table`.
//!
//! `TOP n` with an `ORDER BY` returns every row that ties with the n-th
//! ("ALL, DISTINCT, DISTINCTROW, TOP predicates", support.microsoft.com:
//! "If you don't include the ORDER BY clause, the query will return an
//! arbitrary set of 25 records … The TOP predicate doesn't choose between
//! equal values"): planned as a RANK() window over the query, unless the
//! ORDER BY keys are a unique index of the one table read, where no ties
//! exist and a plain LIMIT (and so an index walk) is exact. `TOP n PERCENT`
//! returns the rows ranked within the first n percent, rounded up.

use super::prelex::Piece;
use crate::catalog::JetTable;
use crate::error::refuse;
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::helpers::stmt_create_table::CreateTableBuilder;
use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, LimitClause, ObjectNamePart, OrderByKind, Query, SelectItem, SetExpr,
    Statement, TableFactor, TopQuantity, Value, ValueWithSpan, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// Applies `TOP`, `DISTINCTROW` and `SELECT … INTO` to `s`.
pub(crate) async fn rewrite(s: &mut Statement, piece: &Piece, ctx: &SessionContext) -> Result<()> {
    if piece.distinctrow {
        super::distinctrow::apply(s, ctx).await?;
    }
    expand_table_wildcards(s, ctx).await;
    name_repeated_fields(s);
    // unique keys of the tables TOP may order by, looked up before the
    // (synchronous) rewrite
    let mut tops = TopPass {
        unique: Vec::new(),
        error: None,
        pending: Vec::new(),
        collect_only: true,
    };
    let _ = s.visit(&mut tops);
    tops.collect_only = false;
    for name in std::mem::take(&mut tops.pending) {
        let keys = unique_keys(ctx, &name).await;
        tops.unique.push((name, keys));
    }
    tops.error = None;
    let _ = s.visit(&mut tops);
    if let Some(e) = tops.error {
        return Err(e);
    }
    into(s)
}

/// `Table.*` next to other fields becomes the table's columns, one by one,
/// when the query reads several tables, so a name they repeat can be
/// qualified below (Access outputs `Table1.col1` and `Table2.col1`).
/// Left as written when a source is not a plain table.
async fn expand_table_wildcards(s: &mut Statement, ctx: &SessionContext) {
    let Statement::Query(q) = s else {
        return;
    };
    let SetExpr::Select(sel) = q.body.as_mut() else {
        return;
    };
    if !sel
        .projection
        .iter()
        .any(|p| matches!(p, SelectItem::QualifiedWildcard(..)))
    {
        return;
    }
    let mut factors = Vec::new();
    for t in &sel.from {
        if super::distinctrow::collect_factors(t, &mut factors).is_err() {
            return;
        }
    }
    if factors.len() < 2 {
        return;
    }
    let mut columns = Vec::new();
    for (name, refer) in &factors {
        let Ok(reference) = super::distinctrow::reference_of(name) else {
            return;
        };
        let Ok(p) = ctx.table_provider(reference).await else {
            return;
        };
        let cols: Vec<String> = p
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        columns.push((refer.clone(), cols));
    }
    let mut out = Vec::new();
    for item in std::mem::take(&mut sel.projection) {
        let expanded = match &item {
            SelectItem::QualifiedWildcard(
                datafusion::sql::sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(n),
                opts,
            ) if opts.opt_exclude.is_none()
                && opts.opt_except.is_none()
                && opts.opt_replace.is_none()
                && opts.opt_rename.is_none() =>
            {
                let last =
                    n.0.last()
                        .and_then(ObjectNamePart::as_ident)
                        .map(|i| i.value.clone())
                        .unwrap_or_default();
                columns
                    .iter()
                    .find(|(r, _)| r.eq_ignore_ascii_case(&last))
                    .map(|(r, cols)| {
                        cols.iter()
                            .map(|c| {
                                SelectItem::UnnamedExpr(Expr::CompoundIdentifier(vec![
                                    datafusion::sql::sqlparser::ast::Ident::with_quote('"', r),
                                    datafusion::sql::sqlparser::ast::Ident::with_quote('"', c),
                                ]))
                            })
                            .collect::<Vec<_>>()
                    })
            }
            _ => None,
        };
        match expanded {
            Some(items) => out.extend(items),
            None => out.push(item),
        }
    }
    sel.projection = out;
}

/// Output fields of the same name from different tables are named
/// `Table.Field`, as Access names them (Northwind's Invoices outputs
/// `Customers.CompanyName` and `Shippers.CompanyName`); DataFusion would
/// refuse the repeated name where the rows are kept (a view, a new table).
fn name_repeated_fields(s: &mut Statement) {
    let Statement::Query(q) = s else {
        return;
    };
    let SetExpr::Select(sel) = q.body.as_mut() else {
        return;
    };
    let name_of = |item: &SelectItem| -> Option<String> {
        match item {
            SelectItem::UnnamedExpr(Expr::Identifier(i)) => Some(i.value.to_lowercase()),
            SelectItem::UnnamedExpr(Expr::CompoundIdentifier(p)) => {
                p.last().map(|i| i.value.to_lowercase())
            }
            SelectItem::ExprWithAlias { alias, .. } => Some(alias.value.to_lowercase()),
            _ => None,
        }
    };
    let names: Vec<Option<String>> = sel.projection.iter().map(name_of).collect();
    let mut renamed: Vec<(Expr, String)> = Vec::new();
    for (i, item) in sel.projection.iter_mut().enumerate() {
        let Some(n) = &names[i] else { continue };
        if names.iter().filter(|m| m.as_ref() == Some(n)).count() < 2 {
            continue;
        }
        if let SelectItem::UnnamedExpr(Expr::CompoundIdentifier(parts)) = item
            && parts.len() >= 2
        {
            let alias = format!(
                "{}.{}",
                parts[parts.len() - 2].value,
                parts[parts.len() - 1].value
            );
            let expr = Expr::CompoundIdentifier(parts.clone());
            renamed.push((expr.clone(), alias.clone()));
            *item = SelectItem::ExprWithAlias {
                expr,
                alias: datafusion::sql::sqlparser::ast::Ident::with_quote('"', alias),
            };
        }
    }
    // ORDER BY Table.Field names the renamed output field
    if let Some(ob) = q.order_by.as_mut()
        && let OrderByKind::Expressions(items) = &mut ob.kind
    {
        for o in items {
            let same = |e: &Expr| match (e, &o.expr) {
                (Expr::CompoundIdentifier(a), Expr::CompoundIdentifier(b)) => {
                    a.len() == b.len()
                        && a.iter()
                            .zip(b)
                            .all(|(x, y)| x.value.eq_ignore_ascii_case(&y.value))
                }
                _ => false,
            };
            if let Some((_, alias)) = renamed.iter().find(|(e, _)| same(e)) {
                o.expr = Expr::Identifier(datafusion::sql::sqlparser::ast::Ident::with_quote(
                    '"',
                    alias.clone(),
                ));
            }
        }
    }
}

/// `SELECT … INTO t FROM …` is `CREATE TABLE t AS SELECT …`.
fn into(s: &mut Statement) -> Result<()> {
    let Statement::Query(q) = s else {
        return Ok(());
    };
    let SetExpr::Select(sel) = q.body.as_mut() else {
        return Ok(());
    };
    let Some(target) = sel.into.take() else {
        return Ok(());
    };
    *s = Statement::CreateTable(
        CreateTableBuilder::new(target.name)
            .query(Some(q.clone()))
            .build(),
    );
    Ok(())
}

/// The unique indexes of a table as lists of column names.
async fn unique_keys(ctx: &SessionContext, name: &str) -> Vec<Vec<String>> {
    let Ok(provider) = ctx.table_provider(name).await else {
        return Vec::new();
    };
    let Some(t) = (provider.as_ref() as &dyn std::any::Any).downcast_ref::<JetTable>() else {
        return Vec::new();
    };
    let def = t.table().def();
    def.real_indexes
        .iter()
        .filter(|r| r.flags & 0x01 != 0)
        .map(|r| {
            r.key
                .iter()
                .filter_map(|(num, _)| {
                    def.columns
                        .iter()
                        .find(|c| c.col_num == *num)
                        .map(|c| c.name.clone())
                })
                .collect()
        })
        .collect()
}

struct TopPass {
    /// First pass: only note the tables whose unique keys are needed.
    collect_only: bool,
    unique: Vec<(String, Vec<Vec<String>>)>,
    pending: Vec<String>,
    error: Option<DataFusionError>,
}

fn quantity(q: &TopQuantity) -> Option<f64> {
    match q {
        TopQuantity::Constant(n) => Some(*n as f64),
        TopQuantity::Expr(Expr::Value(ValueWithSpan {
            value: Value::Number(n, _),
            ..
        })) => n.parse().ok(),
        _ => None,
    }
}

impl TopPass {
    /// The single table a SELECT reads, as written (resolved) in FROM.
    fn single_table(q: &Query) -> Option<String> {
        let SetExpr::Select(sel) = q.body.as_ref() else {
            return None;
        };
        match sel.from.as_slice() {
            [twj] if twj.joins.is_empty() => match &twj.relation {
                TableFactor::Table { name, .. } => Some(
                    name.0
                        .iter()
                        .map(|p| match p {
                            ObjectNamePart::Identifier(i) => format!("\"{}\"", i.value),
                            other => other.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join("."),
                ),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether ORDER BY keys cover a unique index of the one table read
    /// (then no two rows tie).
    fn keys_unique(&mut self, q: &Query) -> bool {
        let Some(table) = Self::single_table(q) else {
            return false;
        };
        let SetExpr::Select(sel) = q.body.as_ref() else {
            return false;
        };
        if sel.distinct.is_some()
            || !matches!(&sel.group_by, GroupByExpr::Expressions(g, _) if g.is_empty())
        {
            return false;
        }
        let Some(OrderByKind::Expressions(keys)) = q.order_by.as_ref().map(|o| &o.kind) else {
            return false;
        };
        let names: Vec<String> = keys
            .iter()
            .filter_map(|k| match &k.expr {
                Expr::Identifier(i) => Some(i.value.clone()),
                Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()),
                _ => None,
            })
            .collect();
        let Some((_, uniques)) = self.unique.iter().find(|(n, _)| *n == table) else {
            if !self.pending.contains(&table) {
                self.pending.push(table);
            }
            return false;
        };
        uniques
            .iter()
            .any(|u| !u.is_empty() && u.iter().all(|c| names.contains(c)))
    }

    fn top(&mut self, q: &mut Query) -> Result<()> {
        let SetExpr::Select(sel) = q.body.as_mut() else {
            return Ok(());
        };
        let Some(top) = sel.top.clone() else {
            return Ok(());
        };
        let n = top
            .quantity
            .as_ref()
            .and_then(quantity)
            .filter(|n| *n >= 0.0 && n.is_finite())
            .ok_or_else(|| refuse("TOP needs a number: TOP 10 or TOP 25 PERCENT"))?;
        if q.limit_clause.is_some() || q.fetch.is_some() {
            return Err(refuse("TOP and LIMIT cannot both be given"));
        }
        if !top.percent && n.fract() != 0.0 {
            return Err(refuse("TOP needs a whole number of rows (or PERCENT)"));
        }
        let ordered = q.order_by.is_some();
        if !top.percent && (!ordered || self.keys_unique(q)) {
            if let SetExpr::Select(sel) = q.body.as_mut() {
                sel.top = None;
            }
            q.limit_clause = Some(LimitClause::LimitOffset {
                limit: Some(super::ast::number(&format!("{n}"))),
                offset: None,
                limit_by: Vec::new(),
            });
            return Ok(());
        }
        *q = ranked(q, n, top.percent)?;
        Ok(())
    }
}

/// `TOP n [PERCENT]` with ties, as windows over the query (see the module
/// docs).
fn ranked(q: &Query, n: f64, percent: bool) -> Result<Query> {
    let mut inner = q.clone();
    let SetExpr::Select(sel) = inner.body.as_mut() else {
        return Err(refuse("TOP applies to a single SELECT"));
    };
    sel.top = None;
    let distinct = sel.distinct.is_some();
    let keys = match inner.order_by.take().map(|o| o.kind) {
        Some(OrderByKind::Expressions(k)) => k,
        Some(OrderByKind::All(_)) => return Err(refuse("TOP with ORDER BY ALL is not supported")),
        None => Vec::new(),
    };
    let SetExpr::Select(sel) = inner.body.as_mut() else {
        return Err(refuse("TOP applies to a single SELECT"));
    };
    // each ORDER BY key: the output column it is, or a hidden column
    let mut order = Vec::new();
    let mut hidden = Vec::new();
    let mut next_expr = 1000;
    for (i, k) in keys.iter().enumerate() {
        let mut found = None;
        for item in sel.projection.iter_mut() {
            let (expr, alias) = match item {
                SelectItem::UnnamedExpr(e) => (e.clone(), None),
                SelectItem::ExprWithAlias { expr, alias } => {
                    (expr.clone(), Some(alias.value.clone()))
                }
                _ => continue,
            };
            let named_by_key = matches!(&k.expr, Expr::Identifier(id) if alias.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(&id.value)));
            if expr == k.expr || named_by_key {
                let name = match (&alias, &expr) {
                    (Some(a), _) => a.clone(),
                    (None, Expr::Identifier(id)) => id.value.clone(),
                    (None, Expr::CompoundIdentifier(p)) => {
                        p.last().map(|i| i.value.clone()).unwrap_or_default()
                    }
                    (None, e) => {
                        let a = format!("Expr{next_expr}");
                        next_expr += 1;
                        *item = SelectItem::ExprWithAlias {
                            expr: e.clone(),
                            alias: super::ast::exact(&a),
                        };
                        a
                    }
                };
                found = Some(name);
                break;
            }
        }
        let name = match found {
            Some(n) => n,
            None if distinct => {
                return Err(refuse(
                    "with DISTINCT and TOP, ORDER BY must name fields of the SELECT list",
                ));
            }
            None => {
                let h = format!("__top_key{i}");
                hidden.push(SelectItem::ExprWithAlias {
                    expr: k.expr.clone(),
                    alias: super::ast::exact(&h),
                });
                h
            }
        };
        let mut ob = k.clone();
        ob.expr = Expr::Identifier(super::ast::exact(&name));
        order.push(ob.to_string());
    }
    sel.projection.extend(hidden.iter().cloned());
    let over = if order.is_empty() {
        String::new()
    } else {
        format!("ORDER BY {}", order.join(", "))
    };
    let rank = if order.is_empty() {
        "ROW_NUMBER()"
    } else {
        "RANK()"
    };
    let bound = if percent {
        format!("\"__top_rank\" <= CEIL(\"__top_count\" * {n} / 100.0)")
    } else {
        format!("\"__top_rank\" <= {n}")
    };
    let mut exclude: Vec<String> = hidden
        .iter()
        .filter_map(|h| match h {
            SelectItem::ExprWithAlias { alias, .. } => Some(format!("\"{}\"", alias.value)),
            _ => None,
        })
        .collect();
    exclude.push("\"__top_rank\"".into());
    exclude.push("\"__top_count\"".into());
    let sql = format!(
        "SELECT * EXCLUDE ({}) FROM (SELECT *, {rank} OVER ({over}) AS \"__top_rank\", \
         COUNT(*) OVER () AS \"__top_count\" FROM ({inner}) AS \"__top\") AS \"__top2\" \
         WHERE {bound}{}",
        exclude.join(", "),
        if over.is_empty() {
            String::new()
        } else {
            format!(" {over}")
        }
    );
    super::parse_query(&sql)
}

impl VisitorMut for TopPass {
    type Break = ();

    fn post_visit_query(&mut self, q: &mut Query) -> ControlFlow<()> {
        if self.collect_only {
            if matches!(q.body.as_ref(), SetExpr::Select(s) if s.top.is_some()) {
                self.keys_unique(q);
            }
            return ControlFlow::Continue(());
        }
        if self.error.is_none()
            && let Err(e) = self.top(q)
        {
            self.error = Some(e);
        }
        ControlFlow::Continue(())
    }
}
