//! `DISTINCTROW`: Access drops result rows that come from the same records
//! of the tables whose fields are output ("ALL, DISTINCT, DISTINCTROW, TOP
//! predicates", support.microsoft.com: DISTINCTROW "omits data based on
//! entire duplicate records, not only duplicate fields … has an effect only
//! when you select fields from some, but not all, of the tables used in
//! the query").
//!
//! It is planned exactly, or refused, never approximated:
//! - one table, `*`, or fields of every table: DISTINCTROW has no effect;
//! - a totals query whose every GROUP BY expression is output: its rows
//!   already differ from each other, so there is nothing to drop;
//! - the output holds the primary key of every table that contributes a
//!   field: two rows from the same records are equal, and rows from other
//!   records differ in a key, so DISTINCTROW is `DISTINCT`;
//! - anything else is refused with a message saying what to write.

use crate::catalog::JetTable;
use crate::error::refuse;
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionContext;
use datafusion::sql::sqlparser::ast::{
    Distinct, Expr, GroupByExpr, ObjectNamePart, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Statement, TableFactor, TableWithJoins,
};
use jet_storage::schema::tdef::IndexKind;

/// One table of FROM: its name as resolved, the name it is referred to by
/// (alias or name), its columns and primary key.
struct Source {
    refer: String,
    columns: Vec<String>,
    primary_key: Option<Vec<String>>,
}

/// Applies DISTINCTROW to `s` (see the module docs).
pub(crate) async fn apply(s: &mut Statement, ctx: &SessionContext) -> Result<()> {
    let Statement::Query(q) = s else {
        return Err(refuse("DISTINCTROW applies to SELECT statements only"));
    };
    let SetExpr::Select(sel) = q.body.as_mut() else {
        return Err(refuse("DISTINCTROW applies to a single SELECT"));
    };
    let mut factors = Vec::new();
    for t in &sel.from {
        collect_factors(t, &mut factors)?;
    }
    let everything = sel
        .projection
        .iter()
        .any(|p| matches!(p, SelectItem::Wildcard(_)));
    if factors.len() <= 1 || everything || grouped_rows_differ(sel) {
        return Ok(());
    }
    let mut sources = Vec::new();
    for (name, refer) in factors {
        sources.push(source(ctx, &name, refer).await?);
    }
    let mut contributing = vec![false; sources.len()];
    let mut output_columns: Vec<(usize, String)> = Vec::new();
    for item in &sel.projection {
        let e = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
            // `Products.*`: that table contributes, every column output
            SelectItem::QualifiedWildcard(SelectItemQualifiedWildcardKind::ObjectName(n), _) => {
                let mut r: Vec<String> =
                    n.0.iter()
                        .filter_map(ObjectNamePart::as_ident)
                        .map(|i| i.value.clone())
                        .collect();
                r.push(String::new());
                let i = attribute(&r, &sources)?;
                contributing[i] = true;
                output_columns.extend(sources[i].columns.iter().map(|c| (i, c.clone())));
                continue;
            }
            SelectItem::QualifiedWildcard(..) | SelectItem::ExprWithAliases { .. } => {
                return Err(unsupported());
            }
            SelectItem::Wildcard(_) => return Ok(()),
        };
        let mut refs = Vec::new();
        column_refs(e, &mut refs);
        for r in &refs {
            let i = attribute(r, &sources)?;
            contributing[i] = true;
        }
        // a projection item that is a bare column outputs that column
        if let Some(r) = plain_column(e)
            && let Ok(i) = attribute(&r, &sources)
        {
            output_columns.push((i, r.last().cloned().unwrap_or_default()));
        }
    }
    if contributing.iter().all(|c| *c) {
        return Ok(());
    }
    let keyed = sources.iter().enumerate().all(|(i, src)| {
        !contributing[i]
            || src.primary_key.as_ref().is_some_and(|key| {
                key.iter().all(|k| {
                    output_columns
                        .iter()
                        .any(|(t, c)| *t == i && c.eq_ignore_ascii_case(k))
                })
            })
    });
    if keyed {
        sel.distinct = Some(Distinct::Distinct);
        return Ok(());
    }
    Err(unsupported())
}

fn unsupported() -> DataFusionError {
    refuse(
        "DISTINCTROW over a join that outputs fields of only some tables needs the primary key \
         of each table it outputs fields of among the output fields; add them, use DISTINCT, \
         or an IN (SELECT …) condition on the other tables",
    )
}

/// The tables of one FROM item, nested joins included: (name, how it is
/// referred to).
pub(crate) fn collect_factors(t: &TableWithJoins, out: &mut Vec<(String, String)>) -> Result<()> {
    factor(&t.relation, out)?;
    for j in &t.joins {
        factor(&j.relation, out)?;
    }
    Ok(())
}

fn factor(f: &TableFactor, out: &mut Vec<(String, String)>) -> Result<()> {
    match f {
        TableFactor::Table { name, alias, .. } => {
            let last = name
                .0
                .last()
                .and_then(ObjectNamePart::as_ident)
                .map(|i| i.value.clone())
                .unwrap_or_default();
            let full = name
                .0
                .iter()
                .filter_map(ObjectNamePart::as_ident)
                .map(|i| i.value.clone())
                .collect::<Vec<_>>();
            let refer = alias.as_ref().map_or(last, |a| a.name.value.clone());
            out.push((full.join("\u{1}"), refer));
            Ok(())
        }
        TableFactor::NestedJoin {
            table_with_joins, ..
        } => collect_factors(table_with_joins, out),
        _ => Err(refuse(
            "DISTINCTROW over a subquery or table function is not supported; use DISTINCT",
        )),
    }
}

async fn source(ctx: &SessionContext, name: &str, refer: String) -> Result<Source> {
    let provider = ctx.table_provider(reference_of(name)?).await?;
    let columns = provider
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let primary_key = (provider.as_ref() as &dyn std::any::Any)
        .downcast_ref::<JetTable>()
        .and_then(|t| {
            let def = t.table().def();
            let pk = def
                .indexes
                .iter()
                .find(|l| l.kind == IndexKind::PrimaryKey)?;
            let real = def.real_indexes.get(pk.real_index as usize)?;
            real.key
                .iter()
                .map(|(num, _)| {
                    def.columns
                        .iter()
                        .find(|c| c.col_num == *num)
                        .map(|c| c.name.clone())
                })
                .collect::<Option<Vec<String>>>()
        });
    Ok(Source {
        refer,
        columns,
        primary_key,
    })
}

/// The table reference of a name [`collect_factors`] gave.
pub(crate) fn reference_of(name: &str) -> Result<datafusion::common::TableReference> {
    let parts: Vec<&str> = name.split('\u{1}').collect();
    Ok(match parts.as_slice() {
        [t] => datafusion::common::TableReference::bare(*t),
        [s, t] => datafusion::common::TableReference::partial(*s, *t),
        [c, s, t] => datafusion::common::TableReference::full(*c, *s, *t),
        _ => return Err(unsupported()),
    })
}

/// True when the rows of a totals query cannot repeat: it has no GROUP BY
/// (one row) or every GROUP BY expression is output.
fn grouped_rows_differ(sel: &Select) -> bool {
    let GroupByExpr::Expressions(keys, _) = &sel.group_by else {
        return false;
    };
    if keys.is_empty() {
        return false;
    }
    keys.iter().all(|k| {
        sel.projection.iter().any(|p| match p {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e == k,
            _ => false,
        })
    })
}

/// The column references in `e`, each as its name parts.
fn column_refs(e: &Expr, out: &mut Vec<Vec<String>>) {
    use datafusion::sql::sqlparser::ast::Visit;
    struct Refs<'a>(&'a mut Vec<Vec<String>>);
    impl datafusion::sql::sqlparser::ast::Visitor for Refs<'_> {
        type Break = ();
        fn pre_visit_expr(&mut self, e: &Expr) -> std::ops::ControlFlow<()> {
            match e {
                Expr::Identifier(i) => self.0.push(vec![i.value.clone()]),
                Expr::CompoundIdentifier(parts) => {
                    self.0.push(parts.iter().map(|p| p.value.clone()).collect())
                }
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        }
    }
    let _ = e.visit(&mut Refs(out));
}

fn plain_column(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::Identifier(i) => Some(vec![i.value.clone()]),
        Expr::CompoundIdentifier(parts) => Some(parts.iter().map(|p| p.value.clone()).collect()),
        Expr::Nested(inner) => plain_column(inner),
        _ => None,
    }
}

/// Which source a column reference names: by its qualifier, or by the one
/// table that has a column of that name.
fn attribute(r: &[String], sources: &[Source]) -> Result<usize> {
    let found: Vec<usize> = match r {
        [col] => sources
            .iter()
            .enumerate()
            .filter(|(_, s)| s.columns.iter().any(|c| c.eq_ignore_ascii_case(col)))
            .map(|(i, _)| i)
            .collect(),
        [.., table, _] => sources
            .iter()
            .enumerate()
            .filter(|(_, s)| s.refer.eq_ignore_ascii_case(table))
            .map(|(i, _)| i)
            .collect(),
        [] => Vec::new(),
    };
    match found.as_slice() {
        [i] => Ok(*i),
        _ => Err(unsupported()),
    }
}
