//! Statements over catalog relations an Access database never fills:
//! row-level security policies, extended statistics, publications,
//! inheritance and partitions, triggers, rewrite rules, sequences (an
//! auto-number is no sequence). psql's `\d`
//! reads each of them with PostgreSQL syntax DataFusion does not plan
//! (`array(SELECT …)`, `int2[]` subscripts). A SELECT whose every branch joins one of these relations with an inner
//! join (or lists it in FROM), without aggregates, is answered as what it
//! provably is, without planning it: no rows, under its columns' names.

use datafusion::sql::sqlparser::ast::{
    Expr, GroupByExpr, JoinOperator, ObjectNamePart, Query, Select, SelectItem, SetExpr,
    TableFactor, Value, visit_expressions, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// The relations, always empty here.
pub const EMPTY_RELATIONS: &[&str] = &[
    "pg_policy",
    "pg_statistic_ext",
    "pg_publication",
    "pg_publication_rel",
    "pg_publication_namespace",
    "pg_inherits",
    "pg_trigger",
    "pg_rewrite",
    "pg_sequence",
];

fn is_empty_relation(f: &TableFactor) -> bool {
    match f {
        TableFactor::Table { name, .. } => name
            .0
            .last()
            .and_then(ObjectNamePart::as_ident)
            .is_some_and(|i| EMPTY_RELATIONS.contains(&i.value.to_lowercase().as_str())),
        _ => false,
    }
}

/// Whether `e` calls an aggregate (which answers one row over none);
/// aggregates inside its subqueries are theirs.
fn aggregates(e: &Expr) -> bool {
    let mut e = e.clone();
    let _ = visit_expressions_mut(&mut e, |x| {
        if matches!(
            x,
            Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. }
        ) {
            *x = Expr::Value(Value::Null.into());
        }
        ControlFlow::<()>::Continue(())
    });
    visit_expressions(&e, |x| match x {
        Expr::Function(f)
            if f.name
                .0
                .last()
                .and_then(ObjectNamePart::as_ident)
                .is_some_and(|i| {
                    matches!(
                        i.value.to_lowercase().as_str(),
                        "count"
                            | "max"
                            | "min"
                            | "sum"
                            | "avg"
                            | "array_agg"
                            | "string_agg"
                            | "bool_and"
                            | "bool_or"
                            | "every"
                    )
                })
                && f.over.is_none() =>
        {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

fn select_is_empty(s: &Select) -> bool {
    if !matches!(&s.group_by, GroupByExpr::Expressions(e, _) if e.is_empty()) || s.having.is_some()
    {
        return false;
    }
    let projects_aggregate = s.projection.iter().any(|p| match p {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => aggregates(e),
        _ => false,
    });
    if projects_aggregate {
        return false;
    }
    s.from.iter().any(|t| {
        is_empty_relation(&t.relation)
            || t.joins.iter().any(|j| {
                matches!(
                    j.join_operator,
                    JoinOperator::Join(_) | JoinOperator::Inner(_)
                ) && is_empty_relation(&j.relation)
            })
    })
}

fn set_is_empty(e: &SetExpr) -> bool {
    match e {
        SetExpr::Select(s) => select_is_empty(s),
        SetExpr::Query(q) => set_is_empty(&q.body),
        // a union of empty branches; an intersection or difference with
        // an empty left side
        SetExpr::SetOperation {
            left, op, right, ..
        } => {
            use datafusion::sql::sqlparser::ast::SetOperator as Op;
            match op {
                Op::Union => set_is_empty(left) && set_is_empty(right),
                _ => set_is_empty(left),
            }
        }
        _ => false,
    }
}

/// The column names of `q` when it provably returns no rows.
pub fn columns_if_empty(q: &Query) -> Option<Vec<String>> {
    if !set_is_empty(&q.body) {
        return None;
    }
    let mut first = q.body.as_ref();
    while let SetExpr::SetOperation { left, .. } = first {
        first = left;
    }
    let SetExpr::Select(s) = first else {
        return None;
    };
    Some(
        s.projection
            .iter()
            .map(|p| match p {
                SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                SelectItem::UnnamedExpr(Expr::Identifier(i)) => i.value.clone(),
                SelectItem::UnnamedExpr(Expr::CompoundIdentifier(p)) => {
                    p.last().map(|i| i.value.clone()).unwrap_or_default()
                }
                _ => "?column?".to_string(),
            })
            .collect(),
    )
}

/// [`columns_if_empty`] of a statement.
pub fn columns_if_empty_statement(
    s: &datafusion::sql::sqlparser::ast::Statement,
) -> Option<Vec<String>> {
    match s {
        datafusion::sql::sqlparser::ast::Statement::Query(q) => columns_if_empty(q),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::ast::Statement;
    use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn columns(sql: &str) -> Option<Vec<String>> {
        let Statement::Query(q) = Parser::parse_sql(&PostgreSqlDialect {}, sql)
            .unwrap()
            .remove(0)
        else {
            panic!("not a query")
        };
        columns_if_empty(&q)
    }

    #[test]
    fn only_provably_empty_statements() {
        assert_eq!(
            columns(
                "SELECT pol.polname, array(select 1) FROM pg_catalog.pg_policy pol WHERE pol.polrelid = '1'"
            ),
            Some(vec!["polname".into(), "?column?".into()])
        );
        assert_eq!(
            columns(
                "SELECT pubname FROM pg_publication p JOIN pg_publication_rel pr ON p.oid = pr.prpubid UNION SELECT pubname FROM pg_publication p WHERE p.puballtables"
            ),
            Some(vec!["pubname".into()])
        );
        // an aggregate answers one row over no rows
        assert_eq!(columns("SELECT count(*) FROM pg_policy"), None);
        // a LEFT JOIN keeps the rows of its left side
        assert_eq!(
            columns(
                "SELECT c.relname FROM pg_class c LEFT JOIN pg_inherits i ON c.oid = i.inhrelid"
            ),
            None
        );
        assert_eq!(columns("SELECT 1 FROM pg_policy UNION SELECT 2"), None);
        // an aggregate of a subquery is the subquery's
        assert_eq!(
            columns(
                "SELECT (SELECT string_agg(attname, ', ') FROM pg_attribute) AS a FROM pg_publication_rel"
            ),
            Some(vec!["a".into()])
        );
    }
}
