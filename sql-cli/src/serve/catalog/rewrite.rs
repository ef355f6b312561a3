//! PostgreSQL syntax in client catalog queries that DataFusion does not
//! plan, rewritten to what it means here, on sqlparser's tree:
//! `COLLATE …` dropped (names compare as stored); `OPERATOR(pg_catalog.~)`
//! as `~`; `pg_catalog.` taken off function names (the functions are the
//! catalog's own); casts to PostgreSQL's object-reference and internal
//! types (`'Orders'::regclass`, `::oid`, `::pg_catalog.text`, `"char"`)
//! as the OID looked up or the plain type.

use super::tables::{FIRST_USER_OID, Snapshot, TYPES};
use datafusion::sql::sqlparser::ast::{
    BinaryOperator, CastKind, DataType as SqlType, Expr, Ident, ObjectName, ObjectNamePart,
    SelectItem, SetExpr, Statement, Value, ValueWithSpan, visit_expressions_mut,
};
use std::ops::ControlFlow;

/// The last part of `name`, lower-cased.
fn last(name: &ObjectName) -> String {
    name.0
        .last()
        .and_then(ObjectNamePart::as_ident)
        .map(|i| i.value.to_lowercase())
        .unwrap_or_default()
}

/// The standard operator `OPERATOR(schema.op)` names.
fn operator(parts: &[String]) -> Option<BinaryOperator> {
    Some(match parts.last()?.as_str() {
        "~" => BinaryOperator::PGRegexMatch,
        "~*" => BinaryOperator::PGRegexIMatch,
        "!~" => BinaryOperator::PGRegexNotMatch,
        "!~*" => BinaryOperator::PGRegexNotIMatch,
        "~~" => BinaryOperator::PGLikeMatch,
        "!~~" => BinaryOperator::PGNotLikeMatch,
        "=" => BinaryOperator::Eq,
        "<>" => BinaryOperator::NotEq,
        "<" => BinaryOperator::Lt,
        "<=" => BinaryOperator::LtEq,
        ">" => BinaryOperator::Gt,
        ">=" => BinaryOperator::GtEq,
        _ => return None,
    })
}

/// A string literal's text.
fn literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::Value(ValueWithSpan {
            value: Value::SingleQuotedString(s),
            ..
        }) => Some(s),
        _ => None,
    }
}

fn number(n: i64) -> Expr {
    Expr::Value(Value::Number(n.to_string(), false).into())
}

/// The OID `name::regclass` names: a served relation (quoted or not,
/// with `public.` or without), else 0.
pub fn regclass(s: &Snapshot, name: &str) -> i64 {
    if let Ok(oid) = name.trim().parse::<i64>() {
        return oid;
    }
    let name = name
        .strip_prefix("public.")
        .or_else(|| name.strip_prefix("pg_catalog."))
        .unwrap_or(name);
    let name = name
        .strip_prefix('"')
        .and_then(|n| n.strip_suffix('"'))
        .map_or_else(|| name.to_lowercase(), |n| n.replace("\"\"", "\""));
    if let Some(i) = s.relations.iter().position(|r| r.name == name) {
        return FIRST_USER_OID + i as i64;
    }
    if let Some(x) = s.indexes.iter().find(|x| x.name == name) {
        return x.oid;
    }
    // catalog relations by name (`'pg_class'::regclass` in JDBC)
    match name.as_str() {
        "pg_class" => 1259,
        "pg_type" => 1247,
        "pg_attribute" => 1249,
        "pg_namespace" => 2615,
        "pg_constraint" => 2606,
        _ => 0,
    }
}

/// Rewrites `stmt` in place.
pub fn rewrite(stmt: &mut Statement, s: &Snapshot) {
    name_function_columns(stmt);
    // set-returning functions in FROM are DataFusion's own table
    // functions: `pg_catalog.generate_series(1, n) pos(n)`
    let _ = datafusion::sql::sqlparser::ast::visit_relations_mut(stmt, |name| {
        if name.0.len() == 2 && last(name) == "generate_series" {
            name.0.remove(0);
        }
        ControlFlow::<()>::Continue(())
    });
    let _ = visit_expressions_mut(stmt, |e| {
        let replaced = match e {
            Expr::Collate { expr, .. } => Some((**expr).clone()),
            Expr::BinaryOp {
                left,
                op: BinaryOperator::PGCustomBinaryOperator(parts),
                right,
            } => operator(parts).map(|op| Expr::BinaryOp {
                left: left.clone(),
                op,
                right: right.clone(),
            }),
            // generate_subscripts(a, 1): the positions 1‥n of a, unnested
            // beside `unnest(a)` as PostgreSQL pairs them
            Expr::Function(f) if last(&f.name) == "generate_subscripts" => subscripts(f),
            // information_schema._pg_expandarray(a): one row per element,
            // a struct {x: element, n: position}
            Expr::Function(f) if last(&f.name) == "_pg_expandarray" => expandarray(f),
            // (composite).field
            Expr::CompoundFieldAccess { root, access_chain } => field_of(root, access_chain),
            Expr::Function(f) if f.name.0.len() == 2 => {
                let mut f = f.clone();
                f.name = ObjectName(vec![f.name.0[1].clone()]);
                Some(Expr::Function(f))
            }
            Expr::Cast {
                expr, data_type, ..
            } => cast(expr, data_type, s),
            // a scalar subquery over a relation that has no rows is NULL
            Expr::Subquery(q) if super::empty::columns_if_empty(q).is_some() => {
                Some(Expr::Value(Value::Null.into()))
            }
            Expr::Subquery(q) => one_row(q),
            _ => None,
        };
        if let Some(r) = replaced {
            *e = r;
        }
        ControlFlow::<()>::Continue(())
    });
}

/// A cast to one of PostgreSQL's own types, as a DataFusion expression.
fn cast(expr: &Expr, to: &SqlType, s: &Snapshot) -> Option<Expr> {
    let name = match to {
        SqlType::Custom(name, _) => last(name),
        SqlType::Regclass => "regclass".into(),
        _ => return None,
    };
    let plain = |t: SqlType| {
        Some(Expr::Cast {
            kind: CastKind::Cast,
            expr: Box::new(expr.clone()),
            data_type: t,
            array: false,
            format: None,
        })
    };
    match name.as_str() {
        "regclass" => match literal(expr) {
            Some(n) => Some(number(regclass(s, n))),
            // a name or a number known only when the statement runs (a
            // parameter): looked up then
            None => call("pg_regclass", expr),
        },
        "regtype" => match literal(expr) {
            Some(n) => Some(number(
                TYPES
                    .iter()
                    .find(|t| t.1 == n.to_lowercase())
                    .map_or(0, |t| t.0),
            )),
            None => plain(SqlType::BigInt(None)),
        },
        "regproc" | "regprocedure" | "regnamespace" | "regrole" | "oid" | "xid" => {
            match literal(expr) {
                Some(n) => Some(number(n.parse().unwrap_or(0))),
                None => plain(SqlType::BigInt(None)),
            }
        }
        "text" | "name" | "char" | "bpchar" => plain(SqlType::Text),
        "int2" => plain(SqlType::SmallInt(None)),
        "int4" => plain(SqlType::Int(None)),
        "int8" => plain(SqlType::BigInt(None)),
        "bool" => plain(SqlType::Boolean),
        _ => None,
    }
}

/// A function call in the select list without an alias is named as
/// PostgreSQL names it: by the function (`SELECT version()` gives a
/// column `version`).
fn name_function_columns(stmt: &mut Statement) {
    let Statement::Query(q) = stmt else { return };
    let SetExpr::Select(select) = q.body.as_mut() else {
        return;
    };
    let names: Vec<String> = select
        .projection
        .iter()
        .filter_map(|p| match p {
            SelectItem::UnnamedExpr(Expr::Function(f)) => Some(last(&f.name)),
            _ => None,
        })
        .collect();
    for item in &mut select.projection {
        if let SelectItem::UnnamedExpr(Expr::Function(f)) = item {
            // two calls of one function keep DataFusion's distinct names
            let name = last(&f.name);
            if names.iter().filter(|n| **n == name).count() > 1 {
                continue;
            }
            let alias = Ident::new(name);
            *item = SelectItem::ExprWithAlias {
                expr: Expr::Function(f.clone()),
                alias,
            };
        }
    }
}

/// Aggregate functions: a scalar subquery selecting one already returns
/// one row.
const AGGREGATES: &[&str] = &[
    "count",
    "max",
    "min",
    "sum",
    "avg",
    "array_agg",
    "string_agg",
    "bool_and",
    "bool_or",
];

/// A scalar subquery that looks up one catalog row by key (`(SELECT
/// pg_get_expr(d.adbin, …) FROM pg_attrdef d WHERE d.adrelid =
/// a.attrelid AND d.adnum = a.attnum)`), with its value wrapped in `max`:
/// DataFusion plans a correlated scalar subquery only when it is
/// aggregated. The same answer wherever the subquery finds at most one
/// row, which holds for every such lookup in the clients' catalog SQL
/// (by OID, or by relation and column number).
fn one_row(q: &datafusion::sql::sqlparser::ast::Query) -> Option<Expr> {
    use datafusion::sql::sqlparser::ast::{
        FunctionArg, FunctionArgExpr, FunctionArguments, GroupByExpr,
    };
    let SetExpr::Select(select) = q.body.as_ref() else {
        return None;
    };
    if select.projection.len() != 1
        || !matches!(&select.group_by, GroupByExpr::Expressions(e, _) if e.is_empty())
    {
        return None;
    }
    let (inner, alias) = match &select.projection[0] {
        SelectItem::UnnamedExpr(e) => (e, None),
        SelectItem::ExprWithAlias { expr, alias } => (expr, Some(alias.clone())),
        _ => return None,
    };
    if let Expr::Function(f) = inner
        && AGGREGATES.contains(&last(&f.name).as_str())
    {
        return None;
    }
    let Ok(Expr::Function(mut max)) = datafusion::sql::sqlparser::parser::Parser::new(
        &datafusion::sql::sqlparser::dialect::PostgreSqlDialect {},
    )
    .try_with_sql("max(1)")
    .and_then(|mut p| p.parse_expr()) else {
        return None;
    };
    if let FunctionArguments::List(list) = &mut max.args {
        list.args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(inner.clone()))];
    }
    let mut q = Box::new(q.clone());
    let mut lifted = Vec::new();
    if let SetExpr::Select(select) = q.body.as_mut() {
        select.projection[0] = match alias {
            Some(alias) => SelectItem::ExprWithAlias {
                expr: Expr::Function(max),
                alias,
            },
            None => SelectItem::UnnamedExpr(Expr::Function(max)),
        };
        lifted = lift_outer_conditions(select);
    }
    if lifted.is_empty() {
        return Some(Expr::Subquery(q));
    }
    // the lifted conditions guard the lookup
    let guard: Vec<String> = lifted.iter().map(|c| format!("({c})")).collect();
    let text = format!("CASE WHEN {} THEN ({q}) END", guard.join(" AND "));
    datafusion::sql::sqlparser::parser::Parser::new(
        &datafusion::sql::sqlparser::dialect::PostgreSqlDialect {},
    )
    .try_with_sql(&text)
    .and_then(|mut p| p.parse_expr())
    .ok()
}

/// The names a SELECT's FROM list binds (aliases, else table names).
fn bound_names(select: &datafusion::sql::sqlparser::ast::Select) -> Vec<String> {
    use datafusion::sql::sqlparser::ast::TableFactor;
    let mut names = Vec::new();
    for t in &select.from {
        for f in std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)) {
            if let TableFactor::Table { name, alias, .. } = f {
                names.push(match alias {
                    Some(a) => a.name.value.to_lowercase(),
                    None => last(name),
                });
            }
        }
    }
    names
}

/// Whether `e` names a column of the outer query (a qualifier the
/// subquery does not bind).
fn is_outer(e: &Expr, inner: &[String]) -> bool {
    qualifier(e).is_some_and(|q| !inner.contains(&q))
}

fn is_inner(e: &Expr, inner: &[String]) -> bool {
    qualifier(e).is_some_and(|q| inner.contains(&q))
}

/// The relation a qualified column names (`a` of `a.x`, `pg_class` of
/// `pg_catalog.pg_class.relname`), lower-cased.
fn qualifier(e: &Expr) -> Option<String> {
    match e {
        Expr::CompoundIdentifier(p) if p.len() >= 2 => Some(p[p.len() - 2].value.to_lowercase()),
        _ => None,
    }
}

/// Which columns `e` reads: (some outer, some inner or unqualified).
fn reads(e: &Expr, inner: &[String]) -> (bool, bool) {
    let (mut outer, mut own) = (false, false);
    let _ = datafusion::sql::sqlparser::ast::visit_expressions(e, |x| {
        match x {
            Expr::CompoundIdentifier(_) if is_outer(x, inner) => outer = true,
            Expr::CompoundIdentifier(_) | Expr::Identifier(_) => own = true,
            _ => {}
        }
        ControlFlow::<()>::Continue(())
    });
    (outer, own)
}

/// The conjuncts of `e`.
fn conjuncts(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts(*left, out);
            conjuncts(*right, out);
        }
        Expr::Nested(inner) => conjuncts(*inner, out),
        e => out.push(e),
    }
}

/// Leaves in a correlated subquery's WHERE only what DataFusion
/// decorrelates: equalities between an inner and an outer column, and
/// conditions on inner columns. An outer column equal to an inner one
/// is replaced by the inner one in the other conditions (`c.oid =
/// a.attcollation AND a.attcollation <> t.typcollation` reads
/// `c.oid <> t.typcollation`); conditions on outer columns only are
/// returned, to guard the lookup from outside. Equivalent rewrites: the
/// subquery finds the same rows where the guards hold, and is not asked
/// where they do not.
fn lift_outer_conditions(select: &mut datafusion::sql::sqlparser::ast::Select) -> Vec<Expr> {
    let Some(selection) = select.selection.take() else {
        return Vec::new();
    };
    let inner = bound_names(select);
    let mut all = Vec::new();
    conjuncts(selection, &mut all);
    // outer column text → inner column it equals
    let mut same: Vec<(String, Expr)> = Vec::new();
    for c in &all {
        if let Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } = c
        {
            if is_outer(left, &inner) && is_inner(right, &inner) {
                same.push((left.to_string(), (**right).clone()));
            } else if is_inner(left, &inner) && is_outer(right, &inner) {
                same.push((right.to_string(), (**left).clone()));
            }
        }
    }
    let mut kept = Vec::new();
    let mut lifted = Vec::new();
    for mut c in all {
        let is_key = matches!(&c, Expr::BinaryOp { left, op: BinaryOperator::Eq, right }
            if (is_outer(left, &inner) && is_inner(right, &inner))
                || (is_inner(left, &inner) && is_outer(right, &inner)));
        if !is_key {
            let _ = visit_expressions_mut(&mut c, |x| {
                if is_outer(x, &inner)
                    && let Some((_, to)) = same.iter().find(|(from, _)| *from == x.to_string())
                {
                    *x = to.clone();
                }
                ControlFlow::<()>::Continue(())
            });
        }
        match reads(&c, &inner) {
            (true, false) => lifted.push(c),
            _ => kept.push(c),
        }
    }
    select.selection = kept.into_iter().reduce(|a, b| Expr::BinaryOp {
        left: Box::new(a),
        op: BinaryOperator::And,
        right: Box::new(b),
    });
    lifted
}

/// `sql` parsed as one PostgreSQL expression.
fn parsed(sql: &str) -> Option<Expr> {
    datafusion::sql::sqlparser::parser::Parser::new(
        &datafusion::sql::sqlparser::dialect::PostgreSqlDialect {},
    )
    .try_with_sql(sql)
    .and_then(|mut p| p.parse_expr())
    .ok()
}

/// The first argument of `f`, if it is a plain expression.
fn first_arg(f: &datafusion::sql::sqlparser::ast::Function) -> Option<&Expr> {
    use datafusion::sql::sqlparser::ast::{FunctionArg, FunctionArgExpr, FunctionArguments};
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    match list.args.first() {
        Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(e))) => Some(e),
        _ => None,
    }
}

/// `unnest(range(1, array_length(a) + 1))` for `generate_subscripts(a, 1)`.
fn subscripts(f: &datafusion::sql::sqlparser::ast::Function) -> Option<Expr> {
    let array = first_arg(f)?;
    parsed(&format!(
        "unnest(range(1, CAST(array_length({array}) AS BIGINT) + 1))"
    ))
}

/// `(root).field` as `get_field(root, 'field')` (DataFusion reads a dot
/// after a parenthesised expression only on a column).
fn field_of(root: &Expr, chain: &[datafusion::sql::sqlparser::ast::AccessExpr]) -> Option<Expr> {
    use datafusion::sql::sqlparser::ast::AccessExpr;
    let [AccessExpr::Dot(Expr::Identifier(field))] = chain else {
        return None;
    };
    let key = if field.quote_style.is_some() {
        field.value.clone()
    } else {
        field.value.to_lowercase()
    };
    parsed(&format!("get_field({root}, '{}')", key.replace('\'', "''")))
}

/// `_pg_expandarray(a)` as `unnest(pg_expandarray(a))`.
fn expandarray(f: &datafusion::sql::sqlparser::ast::Function) -> Option<Expr> {
    parsed(&format!("unnest(pg_expandarray({}))", first_arg(f)?))
}

/// `name(arg)`.
fn call(name: &str, arg: &Expr) -> Option<Expr> {
    parsed(&format!("{name}({arg})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::sql::sqlparser::dialect::PostgreSqlDialect;
    use datafusion::sql::sqlparser::parser::Parser;

    fn rewritten(sql: &str) -> String {
        let mut s = Parser::parse_sql(&PostgreSqlDialect {}, sql)
            .unwrap()
            .remove(0);
        let snap = Snapshot {
            relations: vec![super::super::tables::Relation {
                name: "Orders".into(),
                kind: "r",
                columns: vec![],
            }],
            ..Snapshot::default()
        };
        rewrite(&mut s, &snap);
        s.to_string()
    }

    #[test]
    fn psql_syntax_becomes_datafusions() {
        assert_eq!(
            rewritten(
                "SELECT c.oid FROM pg_catalog.pg_class c WHERE c.relname OPERATOR(pg_catalog.~) '^(Orders)$' COLLATE pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid)"
            ),
            "SELECT c.oid FROM pg_catalog.pg_class c WHERE c.relname ~ '^(Orders)$' AND pg_table_is_visible(c.oid)"
        );
        assert_eq!(
            rewritten(
                "SELECT '\"Orders\"'::regclass, 'orders'::regclass, 'int4'::regtype, x::regclass, y::pg_catalog.text"
            ),
            "SELECT 16384, 0, 23, pg_regclass(x), CAST(y AS TEXT)"
        );
        assert_eq!(
            rewritten(
                "SELECT (SELECT c.collname FROM pg_collation c WHERE c.oid = a.attcollation) AS k, (SELECT count(*) FROM t) FROM pg_attribute a"
            ),
            "SELECT (SELECT max(c.collname) FROM pg_collation c WHERE c.oid = a.attcollation) AS k, (SELECT count(*) FROM t) FROM pg_attribute a"
        );
        assert_eq!(
            rewritten(
                "SELECT (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation AND a.atthasdef) FROM pg_attribute a"
            ),
            "SELECT CASE WHEN (a.atthasdef) THEN (SELECT max(c.collname) FROM pg_catalog.pg_collation c, pg_catalog.pg_type t WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND c.oid <> t.typcollation) END FROM pg_attribute a"
        );
        assert_eq!(
            rewritten("SELECT pg_catalog.version(), current_schema() AS s"),
            "SELECT version() AS version, current_schema() AS s"
        );
    }
}
