//! What a statement is, as far as the entry point cares: which ones it
//! carries out itself, which write, and the DELETE / UPDATE forms
//! DataFusion 55 would run wrongly (refused here, before planning).

use crate::error::refuse;
use datafusion::error::Result;
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{
    AlterTable, CreateIndex, CreateTable, Expr as SqlExpr, ObjectName, ObjectType,
    Statement as SqlStatement, visit_expressions,
};
use std::ops::ControlFlow;

fn has_subquery(e: &SqlExpr) -> bool {
    let r = visit_expressions(e, |x| match x {
        SqlExpr::Subquery(_) | SqlExpr::InSubquery { .. } | SqlExpr::Exists { .. } => {
            ControlFlow::Break(())
        }
        _ => ControlFlow::Continue(()),
    });
    r.is_break()
}

/// What the statement is, as far as this entry point cares.
pub(super) enum Kind {
    Begin,
    Commit,
    Rollback,
    /// DELETE / UPDATE (possibly under EXPLAIN): whether it has a WHERE.
    Dml(bool),
    /// `DROP TABLE names` (with IF EXISTS).
    DropTable(Vec<String>, bool),
    /// `CREATE TABLE` (column list or `AS SELECT`).
    CreateTable(Box<CreateTable>),
    /// `CREATE INDEX name ON table (…)`.
    CreateIndex(Box<CreateIndex>),
    /// `DROP INDEX names [ON table]` (with IF EXISTS).
    DropIndex(Vec<ObjectName>, Option<ObjectName>, bool),
    /// `ALTER TABLE name operation`.
    AlterTable(Box<AlterTable>),
    /// `INSERT` (possibly under EXPLAIN).
    Insert,
    /// `EXECUTE name [value, …]`: a saved query when one has the name
    /// (else DataFusion's prepared statement of that name).
    Execute(ObjectName, Vec<SqlExpr>),
    Other,
}

impl Kind {
    /// Whether `$n` placeholders may stand in the statement: those
    /// DataFusion plans (queries, INSERT, UPDATE, DELETE).
    pub(super) fn takes_parameters(&self) -> bool {
        matches!(self, Kind::Dml(_) | Kind::Insert | Kind::Other)
    }

    /// Whether the statement may change a database: it then runs under
    /// the writer locks of every writable database ([`JetSession`]).
    pub(super) fn writes(&self) -> bool {
        matches!(
            self,
            Kind::Dml(_)
                | Kind::Insert
                | Kind::DropTable(..)
                | Kind::CreateTable(_)
                | Kind::CreateIndex(_)
                | Kind::DropIndex(..)
                | Kind::AlterTable(_)
        )
    }
}

pub(super) fn classify(s: &DFStatement) -> Result<Kind> {
    match s {
        DFStatement::Explain(e) => explained(classify(&e.statement)?),
        DFStatement::Statement(s) => classify_sql(s),
        _ => Ok(Kind::Other),
    }
}

/// Under `EXPLAIN`, only statements DataFusion plans (DELETE / UPDATE
/// plans never write while planning) go on; the statements this entry
/// point carries out itself would run, so they are refused.
fn explained(k: Kind) -> Result<Kind> {
    match k {
        Kind::Dml(_) | Kind::Insert | Kind::Other => Ok(k),
        _ => Err(refuse(
            "EXPLAIN of BEGIN/COMMIT/ROLLBACK, CREATE TABLE, ALTER TABLE, CREATE/DROP INDEX, DROP TABLE or EXECUTE is not supported; nothing changed",
        )),
    }
}

fn classify_sql(s: &SqlStatement) -> Result<Kind> {
    Ok(match s {
        SqlStatement::StartTransaction { .. } => Kind::Begin,
        SqlStatement::Commit { .. } => Kind::Commit,
        SqlStatement::Rollback {
            savepoint: None, ..
        } => Kind::Rollback,
        SqlStatement::Rollback { .. } => {
            return Err(refuse("ROLLBACK TO SAVEPOINT is not supported"));
        }
        SqlStatement::Explain { statement, .. } => explained(classify_sql(statement)?)?,
        SqlStatement::Delete(d) => {
            if d.limit.is_some() {
                return Err(refuse(
                    "DELETE … LIMIT is not supported (DataFusion 55 ignores the LIMIT, upstream issue 24998); no row changed",
                ));
            }
            if d.selection.as_ref().is_some_and(has_subquery) {
                return Err(refuse(
                    "DELETE with a subquery or EXISTS in its WHERE clause is not supported \
                     (DataFusion 55 would not pass the condition to the table, upstream issue 24654); no row changed",
                ));
            }
            Kind::Dml(d.selection.is_some())
        }
        SqlStatement::Update(u) => {
            if u.from.is_some() {
                return Err(refuse(
                    "UPDATE … FROM is not supported (upstream issue 19950); no row changed",
                ));
            }
            if u.limit.is_some() {
                return Err(refuse("UPDATE … LIMIT is not supported; no row changed"));
            }
            if u.selection.as_ref().is_some_and(has_subquery) {
                return Err(refuse(
                    "UPDATE with a subquery or EXISTS in its WHERE clause is not supported \
                     (DataFusion 55 would not pass the condition to the table, upstream issue 24654); no row changed",
                ));
            }
            Kind::Dml(u.selection.is_some())
        }
        SqlStatement::Drop {
            object_type: ObjectType::Table,
            if_exists,
            names,
            ..
        } => Kind::DropTable(names.iter().map(|n| n.to_string()).collect(), *if_exists),
        SqlStatement::CreateTable(ct) => Kind::CreateTable(Box::new(ct.clone())),
        SqlStatement::CreateIndex(ci) => Kind::CreateIndex(Box::new(ci.clone())),
        SqlStatement::Drop {
            object_type: ObjectType::Index,
            if_exists,
            names,
            table,
            ..
        } => Kind::DropIndex(names.clone(), table.clone(), *if_exists),
        SqlStatement::AlterTable(at) => Kind::AlterTable(Box::new(at.clone())),
        SqlStatement::Insert(_) => Kind::Insert,
        SqlStatement::Execute {
            name: Some(name),
            parameters,
            immediate: false,
            into,
            using,
            output: false,
            default: false,
            ..
        } if into.is_empty() && using.is_empty() => Kind::Execute(name.clone(), parameters.clone()),
        _ => Kind::Other,
    })
}
