//! `ALTER TABLE t ADD [CONSTRAINT name] PRIMARY KEY (cols) | UNIQUE
//! (cols) | FOREIGN KEY (cols) REFERENCES p [(cols)] [ON UPDATE CASCADE]
//! [ON DELETE CASCADE | ON DELETE SET NULL]` and `ALTER TABLE t DROP
//! CONSTRAINT name`.
//!
//! A primary key or unique constraint is an index (built from the rows
//! the table holds; duplicate keys are refused). A foreign key is an
//! enforced Access relationship from `t` (the referencing table) to `p`:
//! afterwards inserts and updates of `t` must reference rows of `p`, and
//! the referential actions (cascade update, cascade delete, set NULL on
//! delete) are carried out by the writer inside the transaction that
//! changes `p`. Without a referenced column list the primary key of `p`
//! is referenced; without a constraint name the relationship is named
//! as Access names it, the two table names joined (`pt`).

use super::JetSession;
use super::columns::{Refusal, column_of, table_def};
use crate::error::refuse;
use crate::handle::JetHandle;
use crate::write::ddl::{ident, key_columns};
use datafusion::arrow::array::RecordBatch;
use datafusion::error::Result;
use datafusion::sql::sqlparser::ast::{
    ForeignKeyConstraint, Ident, IndexColumn, ReferentialAction, TableConstraint,
};
use jet_storage::schema::tdef::{IndexKind, TableDef};
use jet_storage::write::{IndexSpec, RelationshipSpec};
use std::sync::Arc;

fn column_names(def: &TableDef) -> Vec<String> {
    def.columns.iter().map(|c| c.name.clone()).collect()
}

/// The columns of the primary key of `def`, in key order.
fn primary_key(def: &TableDef) -> Option<Vec<String>> {
    let pk = def
        .indexes
        .iter()
        .find(|i| i.kind == IndexKind::PrimaryKey)?;
    let real = def.real_indexes.get(usize::try_from(pk.real_index).ok()?)?;
    real.key
        .iter()
        .map(|(num, _)| {
            def.columns
                .iter()
                .find(|c| c.col_num == *num)
                .map(|c| c.name.clone())
        })
        .collect()
}

impl JetSession {
    /// `ADD [CONSTRAINT name] PRIMARY KEY | UNIQUE | FOREIGN KEY …` on
    /// table `real` of `handle`'s database.
    pub(super) fn add_constraint(
        &self,
        handle: &Arc<JetHandle>,
        real: &str,
        c: &TableConstraint,
        normalize: bool,
    ) -> Result<Vec<RecordBatch>> {
        let r = Refusal(real);
        let def = table_def(handle, real)?;
        let known = column_names(&def);
        let keys = |cols: &[IndexColumn]| key_columns("ALTER TABLE", real, cols, &known, normalize);
        let spec = match c {
            TableConstraint::PrimaryKey(pk) => {
                if pk.index_type.is_some()
                    || !pk.index_options.is_empty()
                    || pk.characteristics.is_some()
                {
                    return Err(r.why("index types, options and DEFERRABLE are not supported"));
                }
                let name = pk
                    .name
                    .as_ref()
                    .or(pk.index_name.as_ref())
                    .map_or_else(|| "PrimaryKey".to_string(), |n| ident(n, normalize));
                IndexSpec {
                    columns: keys(&pk.columns)?,
                    ..IndexSpec::primary(&name, &[])
                }
            }
            TableConstraint::Unique(u) => {
                if u.index_type.is_some()
                    || !u.index_options.is_empty()
                    || u.characteristics.is_some()
                {
                    return Err(r.why("index types, options and DEFERRABLE are not supported"));
                }
                let columns = keys(&u.columns)?;
                let name = u.name.as_ref().or(u.index_name.as_ref()).map_or_else(
                    || {
                        columns
                            .iter()
                            .map(|(c, _)| c.as_str())
                            .collect::<Vec<_>>()
                            .join("_")
                    },
                    |n| ident(n, normalize),
                );
                IndexSpec {
                    columns,
                    ..IndexSpec::new(&name, &[]).unique()
                }
            }
            TableConstraint::ForeignKey(fk) => {
                return self.add_foreign_key(handle, real, &def, fk, normalize);
            }
            other => {
                return Err(r.why(format!(
                    "{other} is not supported (PRIMARY KEY, UNIQUE and FOREIGN KEY are)"
                )));
            }
        };
        handle.write(
            |_| Ok(()),
            |tx, ()| tx.create_index(real, &spec).map(|_| ()),
        )?;
        Ok(Vec::new())
    }

    /// `ADD [CONSTRAINT name] FOREIGN KEY (cols) REFERENCES p [(cols)]
    /// [ON UPDATE …] [ON DELETE …]`: an enforced relationship.
    fn add_foreign_key(
        &self,
        handle: &Arc<JetHandle>,
        real: &str,
        def: &TableDef,
        fk: &ForeignKeyConstraint,
        normalize: bool,
    ) -> Result<Vec<RecordBatch>> {
        let r = Refusal(real);
        if fk.index_name.is_some() || fk.match_kind.is_some() || fk.characteristics.is_some() {
            return Err(r.why(
                "an index name, MATCH and DEFERRABLE are not supported on a Jet foreign key",
            ));
        }
        let written = fk.foreign_table.to_string();
        let (primary_handle, primary) = self.resolve_jet_table(&written)?;
        match primary_handle {
            Some(h) if Arc::ptr_eq(&h, handle) => {}
            Some(_) => {
                return Err(r.why(format!(
                    "table {primary:?} is in another database (a relationship joins two tables of one database)"
                )));
            }
            None => return Err(r.why(format!("REFERENCES {written}: no table of that name"))),
        }
        let pdef = table_def(handle, &primary)?;
        let foreign_columns = fk
            .columns
            .iter()
            .map(|c| {
                column_of(def, &c.value).ok_or_else(|| r.why(format!("no column {:?}", c.value)))
            })
            .collect::<Result<Vec<_>>>()?;
        let primary_columns = if fk.referred_columns.is_empty() {
            primary_key(&pdef).ok_or_else(|| {
                r.why(format!(
                    "REFERENCES {primary:?} without columns names its primary key, and it has none"
                ))
            })?
        } else {
            fk.referred_columns
                .iter()
                .map(|c| {
                    column_of(&pdef, &c.value).ok_or_else(|| {
                        r.why(format!("table {primary:?} has no column {:?}", c.value))
                    })
                })
                .collect::<Result<Vec<_>>>()?
        };
        let name = fk
            .name
            .as_ref()
            .map_or_else(|| format!("{primary}{real}"), |n| ident(n, normalize));
        let mut spec = RelationshipSpec {
            name,
            primary_table: primary.clone(),
            primary_columns,
            foreign_table: real.to_string(),
            foreign_columns,
            cascade_update: false,
            cascade_delete: false,
            set_null_on_delete: false,
        };
        match &fk.on_update {
            None | Some(ReferentialAction::NoAction | ReferentialAction::Restrict) => {}
            Some(ReferentialAction::Cascade) => spec.cascade_update = true,
            Some(other) => {
                return Err(r.why(format!(
                    "ON UPDATE {other} is not supported (Access cascades updates or refuses them: \
                     ON UPDATE CASCADE or NO ACTION)"
                )));
            }
        }
        match &fk.on_delete {
            None | Some(ReferentialAction::NoAction | ReferentialAction::Restrict) => {}
            Some(ReferentialAction::Cascade) => spec.cascade_delete = true,
            Some(ReferentialAction::SetNull) => spec.set_null_on_delete = true,
            Some(other) => {
                return Err(r.why(format!(
                    "ON DELETE {other} is not supported (ON DELETE CASCADE, SET NULL or NO ACTION)"
                )));
            }
        }
        handle.write(|_| Ok(()), |tx, ()| tx.create_relationship(&spec))?;
        Ok(Vec::new())
    }
}

/// `DROP CONSTRAINT [IF EXISTS] name` on table `real`: the relationship
/// of that name whose referencing table it is, else its index of that
/// name (a primary key, a unique or plain index).
pub(super) fn drop_constraint(
    handle: &JetHandle,
    real: &str,
    name: &Ident,
    if_exists: bool,
) -> Result<Vec<RecordBatch>> {
    let def = table_def(handle, real)?;
    let found = def
        .indexes
        .iter()
        .find(|i| i.name.eq_ignore_ascii_case(&name.value));
    let Some(index) = found else {
        if if_exists {
            return Ok(Vec::new());
        }
        return Err(refuse(format!(
            "ALTER TABLE {real:?}: no constraint {:?} (a relationship is dropped from its \
             referencing table); nothing changed",
            name.value
        )));
    };
    let exact = index.name.clone();
    // the primary side of a relationship is a logical index sharing the
    // real index of the key it references: that key stays while it does
    let backs_relationship = index.kind != IndexKind::ForeignKey
        && def.indexes.iter().any(|i| {
            i.kind == IndexKind::ForeignKey && i.rel_primary && i.real_index == index.real_index
        });
    if backs_relationship {
        return Err(refuse(format!(
            "ALTER TABLE {real:?}: index {exact:?} is referenced by a relationship \
             (drop the relationship first); nothing changed"
        )));
    }
    if index.kind == IndexKind::ForeignKey && !index.rel_primary {
        handle.write(|_| Ok(()), |tx, ()| tx.drop_relationship(&exact))?;
    } else {
        handle.write(|_| Ok(()), |tx, ()| tx.drop_index(real, &exact))?;
    }
    Ok(Vec::new())
}
