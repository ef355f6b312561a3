//! `CREATE [UNIQUE] INDEX name ON t (col [ASC|DESC], …)` and `DROP INDEX
//! name [ON t]` on a Jet table, each one journaled transaction.
//!
//! The index is built from the rows the table holds (bottom-up, as one
//! maintained row by row would be); a unique index over duplicate keys, a
//! taken name, a Memo or OLE key column and the like are refused before
//! anything is written, so the file stays byte-identical.

use super::JetSession;
use crate::error::refuse;
use datafusion::arrow::array::RecordBatch;
use datafusion::error::Result;
use datafusion::sql::sqlparser::ast::{CreateIndex, Expr as SqlExpr, ObjectName};
use jet_storage::schema::tdef::Direction;
use jet_storage::write::IndexSpec;

/// A name part without its quotes or brackets.
fn last_part(name: &ObjectName) -> String {
    name.0
        .last()
        .and_then(|p| p.as_ident())
        .map_or_else(|| name.to_string(), |i| i.value.clone())
}

impl JetSession {
    /// `CREATE INDEX` on the Jet table `real` of `handle`'s database.
    pub(super) fn create_jet_index(
        &self,
        handle: &crate::handle::JetHandle,
        real: &str,
        ci: &CreateIndex,
    ) -> Result<Vec<RecordBatch>> {
        let what = |m: &str| {
            refuse(format!(
                "CREATE INDEX on table {real:?}: {m}; nothing changed"
            ))
        };
        let name = ci
            .name
            .as_ref()
            .map(last_part)
            .ok_or_else(|| what("an index needs a name"))?;
        if ci.using.is_some()
            || ci.concurrently
            || !ci.include.is_empty()
            || ci.nulls_distinct.is_some()
            || !ci.with.is_empty()
            || ci.predicate.is_some()
            || !ci.index_options.is_empty()
            || !ci.alter_options.is_empty()
        {
            return Err(what(
                "USING, CONCURRENTLY, INCLUDE, NULLS DISTINCT, WITH, WHERE and index options are not \
                 supported for Jet indexes",
            ));
        }
        let db = handle.database()?;
        let table = db.table(real).map_err(crate::error::to_df)?;
        let def = table.def();
        if def
            .indexes
            .iter()
            .any(|i| i.name.eq_ignore_ascii_case(&name))
        {
            if ci.if_not_exists {
                return Ok(Vec::new());
            }
            return Err(what(&format!(
                "the table already has an index named {name:?}"
            )));
        }
        let mut columns = Vec::new();
        for c in &ci.columns {
            let typed = match &c.column.expr {
                SqlExpr::Identifier(i) => i.value.clone(),
                SqlExpr::CompoundIdentifier(parts) => {
                    parts.last().map(|i| i.value.clone()).unwrap_or_default()
                }
                other => {
                    return Err(what(&format!(
                        "{other} is not a column: a Jet index keys columns"
                    )));
                }
            };
            let column = def
                .columns
                .iter()
                .find(|col| col.name == typed)
                .or_else(|| {
                    def.columns
                        .iter()
                        .find(|col| col.name.eq_ignore_ascii_case(&typed))
                })
                .ok_or_else(|| what(&format!("no column {typed:?}")))?;
            let direction = if c.column.options.asc == Some(false) {
                Direction::Descending
            } else {
                Direction::Ascending
            };
            columns.push((column.name.clone(), direction));
        }
        drop(db);
        let spec = IndexSpec {
            name,
            columns,
            primary: false,
            unique: ci.unique,
            ignore_nulls: false,
        };
        handle.write(
            |_| Ok(()),
            |tx, ()| tx.create_index(real, &spec).map(|_| ()),
        )?;
        Ok(Vec::new())
    }

    /// `DROP INDEX names [ON table]`: each named index of the table (of
    /// the one table of the default database that has an index of that
    /// name when no table is given).
    pub(super) fn drop_jet_indexes(
        &self,
        names: &[ObjectName],
        table: Option<&ObjectName>,
        if_exists: bool,
    ) -> Result<Option<Vec<RecordBatch>>> {
        for n in names {
            let index = last_part(n);
            let (handle, real) = match table {
                Some(t) => match self.resolve_jet_table(&t.to_string())? {
                    (Some(h), real) => (h, real),
                    (None, _) => return Ok(None),
                },
                None => match self.table_with_index(&index)? {
                    Some(found) => found,
                    None if if_exists => continue,
                    None => {
                        return Err(refuse(format!(
                            "DROP INDEX {index:?}: no table of the database has an index of that name \
                             (DROP INDEX name ON table names the table); nothing changed"
                        )));
                    }
                },
            };
            let exists = handle
                .database()?
                .table(&real)
                .map_err(crate::error::to_df)?
                .def()
                .indexes
                .iter()
                .find(|i| i.name.eq_ignore_ascii_case(&index))
                .map(|i| i.name.clone());
            let Some(exact) = exists else {
                if if_exists {
                    continue;
                }
                return Err(refuse(format!(
                    "DROP INDEX {index:?}: table {real:?} has no index of that name; nothing changed"
                )));
            };
            handle.write(|_| Ok(()), |tx, ()| tx.drop_index(&real, &exact))?;
        }
        Ok(Some(Vec::new()))
    }

    /// The one table of the default database with an index named `index`.
    fn table_with_index(
        &self,
        index: &str,
    ) -> Result<Option<(std::sync::Arc<crate::handle::JetHandle>, String)>> {
        let default = self
            .default_db
            .lock()
            .map_err(|_| datafusion::error::DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let handles = self
            .handles
            .lock()
            .map_err(|_| datafusion::error::DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let Some((_, handle)) = handles
            .into_iter()
            .find(|(n, _)| default.as_ref().is_some_and(|d| d.eq_ignore_ascii_case(n)))
        else {
            return Ok(None);
        };
        let db = handle.database()?;
        let mut found = Vec::new();
        for t in db.table_names() {
            let table = db.table(&t).map_err(crate::error::to_df)?;
            if table
                .def()
                .indexes
                .iter()
                .any(|i| i.name.eq_ignore_ascii_case(index))
            {
                found.push(t);
            }
        }
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some((handle.clone(), one.clone()))),
            many => Err(refuse(format!(
                "DROP INDEX {index:?}: tables {} each have an index of that name; say which with \
                 DROP INDEX {index} ON table; nothing changed",
                many.join(", ")
            ))),
        }
    }
}
