//! `ALTER TABLE` on a Jet table, in both dialects, each statement one
//! journaled transaction (or part of an open `BEGIN` … `COMMIT`):
//!
//! - `ADD [COLUMN] c type [NOT NULL] [DEFAULT x] [PRIMARY KEY | UNIQUE]`
//! - `DROP [COLUMN] c [, …]`
//! - `ALTER [COLUMN] c [SET DATA] TYPE type` (Access: `ALTER COLUMN c
//!   LONG`, see [`crate::access::dialect`]); only widenings that keep
//!   every value (the writer's rule)
//! - `RENAME TO u`, `RENAME [COLUMN] a TO b`
//! - `ADD [CONSTRAINT name] PRIMARY KEY | UNIQUE | FOREIGN KEY …`,
//!   `DROP CONSTRAINT name` and `DROP PRIMARY KEY`
//!   ([`super::alter_constraint`])
//!
//! Type names are those of `CREATE TABLE` ([`crate::write::ddl`]); new names
//! (columns, tables, constraints) keep the spelling they are typed with,
//! as in `CREATE TABLE`.
//! Everything the statement refers to is checked here first, and the
//! writer checks again inside the transaction: a refused statement
//! changes nothing (the file stays byte-identical). The session's catalog
//! reads the new schema right after the statement: the handle's read side
//! is reopened by [`crate::handle::JetHandle::write`].

use super::JetSession;
use super::columns::{Refusal, column_of, table_def};
use crate::error::refuse;
use crate::handle::JetHandle;
use datafusion::arrow::array::RecordBatch;
use datafusion::error::Result;
use datafusion::sql::sqlparser::ast::{
    AlterColumnOperation, AlterTable, AlterTableOperation, ColumnOption, Ident, ObjectName,
    RenameTableNameKind,
};
use jet_storage::JetType;
use jet_storage::schema::tdef::IndexKind;
use jet_storage::write::IndexSpec;

impl JetSession {
    /// `ALTER TABLE`: the table must be a Jet table of a database open for
    /// writing; one operation per statement (`DROP COLUMN` may name
    /// several columns).
    pub(super) fn alter_table(&self, at: &AlterTable) -> Result<Vec<RecordBatch>> {
        let written = at.name.to_string();
        let (handle, real) = self.resolve_jet_table(&written)?;
        let Some(handle) = handle else {
            if at.if_exists {
                return Ok(Vec::new());
            }
            return Err(refuse(format!(
                "ALTER TABLE {written}: no table of that name in the open databases; nothing changed"
            )));
        };
        let r = Refusal(&real);
        if !handle.options().writable {
            return Err(
                r.why("the database is open read-only (open it for writing: jetsql --write)")
            );
        }
        if at.only || at.location.is_some() || at.on_cluster.is_some() || at.table_type.is_some() {
            return Err(r.why(
                "ONLY, SET LOCATION, ON CLUSTER and table kinds are not supported for Jet tables",
            ));
        }
        let [op] = at.operations.as_slice() else {
            return Err(r.why("one change per statement (write one ALTER TABLE for each)"));
        };
        // names typed in ALTER TABLE keep their spelling, as in CREATE
        // TABLE (`access::names`): names match regardless of case anyway
        let normalize = false;
        match op {
            AlterTableOperation::AddColumn {
                if_not_exists,
                column_def,
                column_position: None,
                ..
            } => self.add_column(&handle, &real, column_def, *if_not_exists, normalize),
            AlterTableOperation::DropColumn {
                column_names,
                if_exists,
                drop_behavior: None,
                ..
            } => drop_columns(&handle, &real, column_names, *if_exists),
            AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                let def = table_def(&handle, &real)?;
                let old = column_of(&def, &old_column_name.value)
                    .ok_or_else(|| r.why(format!("no column {:?}", old_column_name.value)))?;
                let new = crate::write::ddl::ident(new_column_name, normalize);
                handle.write(|_| Ok(()), |tx, ()| tx.rename_column(&real, &old, &new))?;
                Ok(Vec::new())
            }
            AlterTableOperation::RenameTable { table_name } => {
                let new = match table_name {
                    RenameTableNameKind::To(n) | RenameTableNameKind::As(n) => {
                        new_table_name(&r, n, normalize)?
                    }
                };
                handle.write(|_| Ok(()), |tx, ()| tx.rename_table(&real, &new))?;
                Ok(Vec::new())
            }
            AlterTableOperation::AlterColumn { column_name, op } => {
                alter_column(&handle, &real, column_name, op)
            }
            AlterTableOperation::AddConstraint {
                constraint,
                not_valid: false,
            } => self.add_constraint(&handle, &real, constraint, normalize),
            AlterTableOperation::DropConstraint {
                if_exists,
                name,
                drop_behavior: None,
            } => super::alter_constraint::drop_constraint(&handle, &real, name, *if_exists),
            AlterTableOperation::DropPrimaryKey {
                drop_behavior: None,
            } => {
                let def = table_def(&handle, &real)?;
                let pk = def
                    .indexes
                    .iter()
                    .find(|i| i.kind == IndexKind::PrimaryKey)
                    .map(|i| Ident::new(i.name.clone()))
                    .ok_or_else(|| r.why("the table has no primary key"))?;
                super::alter_constraint::drop_constraint(&handle, &real, &pk, false)
            }
            other => Err(r.why(format!(
                "{other} is not supported for Jet tables (ADD/DROP/ALTER/RENAME COLUMN, RENAME TO, \
                 ADD/DROP CONSTRAINT and DROP PRIMARY KEY are)"
            ))),
        }
    }

    /// `ADD [COLUMN] [IF NOT EXISTS] c type [NOT NULL] [DEFAULT x]
    /// [PRIMARY KEY | UNIQUE]`: the column, and its key as an index, in
    /// one transaction.
    fn add_column(
        &self,
        handle: &JetHandle,
        real: &str,
        cd: &datafusion::sql::sqlparser::ast::ColumnDef,
        if_not_exists: bool,
        normalize: bool,
    ) -> Result<Vec<RecordBatch>> {
        let r = Refusal(real);
        let (spec, keys) = crate::write::ddl::column_def_spec("ALTER TABLE", real, cd, normalize)?;
        let def = table_def(handle, real)?;
        if let Some(existing) = column_of(&def, &spec.name) {
            if if_not_exists {
                return Ok(Vec::new());
            }
            return Err(r.why(format!("the table already has a column {existing:?}")));
        }
        let mut indexes = Vec::new();
        for o in keys {
            let column = spec.name.as_str();
            match &o.option {
                ColumnOption::PrimaryKey(_) => {
                    indexes.push(IndexSpec::primary("PrimaryKey", &[column]));
                }
                ColumnOption::Unique(u) => {
                    let name = u.name.as_ref().or(o.name.as_ref()).map_or_else(
                        || column.to_string(),
                        |n| crate::write::ddl::ident(n, normalize),
                    );
                    indexes.push(IndexSpec::new(&name, &[column]).unique());
                }
                other => return Err(r.why(format!("{other} is not supported"))),
            }
        }
        handle.write(
            |_| Ok(()),
            |tx, ()| {
                tx.add_column(real, &spec)?;
                for i in &indexes {
                    tx.create_index(real, i)?;
                }
                Ok(())
            },
        )?;
        Ok(Vec::new())
    }
}

/// The new name of `RENAME TO name`: one part (a table stays in its
/// database).
fn new_table_name(r: &Refusal<'_>, n: &ObjectName, normalize: bool) -> Result<String> {
    match crate::write::ddl::name_parts(n, normalize).as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(r.why(format!(
            "RENAME TO {n}: name the new table without a database or schema (it stays where it is)"
        ))),
    }
}

/// `DROP [COLUMN] [IF EXISTS] c [, …]`: every named column in one
/// transaction (with IF EXISTS, names the table lacks are skipped).
fn drop_columns(
    handle: &JetHandle,
    real: &str,
    names: &[Ident],
    if_exists: bool,
) -> Result<Vec<RecordBatch>> {
    let r = Refusal(real);
    let def = table_def(handle, real)?;
    let mut columns = Vec::new();
    for n in names {
        match column_of(&def, &n.value) {
            Some(c) => columns.push(c),
            None if if_exists => {}
            None => return Err(r.why(format!("no column {:?}", n.value))),
        }
    }
    if columns.is_empty() {
        return Ok(Vec::new());
    }
    handle.write(
        |_| Ok(()),
        |tx, ()| {
            for c in &columns {
                tx.drop_column(real, c)?;
            }
            Ok(())
        },
    )?;
    Ok(Vec::new())
}

/// `ALTER [COLUMN] c [SET DATA] TYPE type`: the writer's widenings.
fn alter_column(
    handle: &JetHandle,
    real: &str,
    column: &Ident,
    op: &AlterColumnOperation,
) -> Result<Vec<RecordBatch>> {
    let r = Refusal(real);
    let AlterColumnOperation::SetDataType {
        data_type,
        using: None,
        ..
    } = op
    else {
        return Err(r.why(format!(
            "ALTER COLUMN {} {op} is not supported (only a column's type changes: \
             ALTER COLUMN c TYPE type, in Access ALTER COLUMN c type)",
            column.value
        )));
    };
    let def = table_def(handle, real)?;
    let col = column_of(&def, &column.value)
        .ok_or_else(|| r.why(format!("no column {:?}", column.value)))?;
    let spec = crate::write::ddl::typed_column("ALTER TABLE", real, &col, &data_type.to_string())?;
    if spec.auto_number {
        return Err(r.why(format!(
            "column {col:?} cannot become an auto-number (COUNTER)"
        )));
    }
    let chars = (spec.jet_type == JetType::Text).then_some(spec.size);
    handle.write(
        |_| Ok(()),
        |tx, ()| tx.alter_column_type(real, &col, spec.jet_type, chars),
    )?;
    Ok(Vec::new())
}
