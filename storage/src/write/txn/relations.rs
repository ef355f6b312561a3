//! Enforced relationships (referential integrity) as Access keeps them.
//!
//! A relationship with "enforce referential integrity" is stored as a pair
//! of foreign-key logical indexes: one in the table that holds the
//! references (its key columns), one in the primary table (the referenced
//! key), each naming the other's index number and TDEF page, and the
//! primary side flagged. Before a row is written the writer checks, through
//! the other table's B-tree:
//!
//! - inserting or re-keying a referencing row: its key (unless a key column
//!   is NULL, which Access allows) exists in the primary table's index;
//! - deleting or re-keying a referenced row: no row of the referencing
//!   table holds its old key.
//!
//! A relationship's referential actions (cascade update, cascade delete,
//! set NULL on delete) turn the second check into [`super::cascade`]
//! actions on the referencing rows instead of a refusal; without them the
//! change is refused before anything is written.

use super::Transaction;
use super::cascade::{Cascade, CascadeKind, show};
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::index::key::encode_key;
use crate::schema::tdef::{IndexKind, LogicalIndex, TableDef};

impl Transaction<'_> {
    /// Checks the relationships in which `def`'s table holds the
    /// references, for the row `fields` (all of them when `changed` is
    /// `None`, else only those whose key columns `changed` marks).
    pub(super) fn check_references(
        &mut self,
        table: &str,
        def: &TableDef,
        fields: &[OwnedField],
        changed: Option<&[bool]>,
    ) -> WResult<()> {
        self.check_relationships(table, def, fields, changed, None, false)
            .map(|_| ())
    }

    /// Checks the relationships in which `def`'s table is the primary
    /// table, for the row `fields` that is about to be deleted or (with
    /// `changed`, and its new fields `new`) re-keyed: no referencing row may
    /// hold its key, unless the relationship's referential action applies;
    /// the actions to run are returned (deletes before the row goes,
    /// updates after the re-keyed row is written).
    pub(super) fn check_referenced(
        &mut self,
        table: &str,
        def: &TableDef,
        fields: &[OwnedField],
        changed: Option<&[bool]>,
        new: Option<&[OwnedField]>,
    ) -> WResult<Vec<Cascade>> {
        self.check_relationships(table, def, fields, changed, new, true)
    }

    fn check_relationships(
        &mut self,
        table: &str,
        def: &TableDef,
        fields: &[OwnedField],
        changed: Option<&[bool]>,
        new: Option<&[OwnedField]>,
        primary: bool,
    ) -> WResult<Vec<Cascade>> {
        let codec = self.text_codec();
        let mut cascades = Vec::new();
        let relationships = def
            .indexes
            .iter()
            .filter(|li| li.kind == IndexKind::ForeignKey && li.rel_primary == primary);
        for li in relationships {
            let refuse = |other: &str, key: String, why: String| WriteError::ForeignKey {
                table: table.to_string(),
                relationship: li.name.clone(),
                other: other.to_string(),
                key,
                why,
            };
            let positions = key_positions(def, li).ok_or_else(|| {
                refuse(
                    "?",
                    String::new(),
                    "the relationship's index names a column the table lacks".into(),
                )
            })?;
            if changed.is_some_and(|ch| !positions.iter().any(|&p| ch[p])) {
                continue;
            }
            if positions.iter().any(|&p| fields[p] == OwnedField::Null) {
                continue;
            }
            let shown = positions
                .iter()
                .map(|&p| {
                    format!(
                        "{} = {}",
                        def.columns[p].name,
                        show(def, p, &fields[p], codec)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            let other_name = self
                .catalog
                .iter()
                .find(|e| e.is_table() && e.tdef_page() == li.rel_table_page)
                .map(|e| e.name.clone())
                .ok_or_else(|| {
                    refuse(
                        &format!("TDEF page {}", li.rel_table_page),
                        shown.clone(),
                        "the other table is not in the catalog".into(),
                    )
                })?;
            let other = self.state(&other_name)?.def.clone();
            let other_index = li
                .rel_index
                .and_then(|n| other.indexes.iter().find(|x| x.number == n));
            let other_real = other_index.and_then(|oi| {
                Some((
                    other
                        .real_indexes
                        .get(usize::try_from(oi.real_index).ok()?)?,
                    key_positions(&other, oi)?,
                ))
            });
            let Some((other_real, other_positions)) = other_real else {
                return Err(refuse(
                    &other_name,
                    shown,
                    "the other table has no index for the relationship".into(),
                ));
            };
            if other_positions.len() != positions.len()
                || other_positions
                    .iter()
                    .zip(&positions)
                    .any(|(&o, &p)| !same_key_type(&other, o, def, p))
            {
                return Err(refuse(
                    &other_name,
                    shown,
                    "the key columns of the two tables differ in number or type".into(),
                ));
            }
            let mut other_fields = vec![OwnedField::Null; other.columns.len()];
            for (&o, &p) in other_positions.iter().zip(&positions) {
                other_fields[o] = fields[p].clone();
            }
            let key = encode_key(&other.columns, &other_real.key, &other_fields, self.version)
                .map_err(|source| WriteError::IndexKey {
                    table: other_name.clone(),
                    source,
                })?;
            // the maintainer may hold index pages changed by this
            // transaction in memory: the B-tree read below needs them
            if let Some(m) = self.maintainer.as_deref_mut() {
                m.flush(&mut self.ov)?;
            }
            let exists = crate::index::write::key_exists(
                &self.ov,
                self.version.layout(),
                other_real.root_page,
                other.page,
                &key,
            )
            .map_err(|e| WriteError::Index {
                table: other_name.clone(),
                why: format!("index rooted at page {}: {e}", other_real.root_page),
            })?;
            match (primary, exists) {
                (false, false) => {
                    return Err(refuse(
                        &other_name,
                        shown,
                        format!("no row of {other_name:?} has this key"),
                    ));
                }
                (true, true) => {
                    let kind = match (changed.is_some(), new) {
                        (true, Some(new)) if li.cascade_updates => Some(CascadeKind::Rekey(
                            other_positions
                                .iter()
                                .zip(&positions)
                                .map(|(&o, &p)| (o, new[p].clone()))
                                .collect(),
                        )),
                        (false, _) if li.cascade_deletes => Some(CascadeKind::Delete),
                        (false, _) if li.cascade_null => {
                            Some(CascadeKind::SetNull(other_positions.clone()))
                        }
                        _ => None,
                    };
                    let Some(kind) = kind else {
                        return Err(refuse(
                            &other_name,
                            shown,
                            format!("rows of {other_name:?} reference this key"),
                        ));
                    };
                    let rows = self.rows_with_key(&other, other_real, &key)?;
                    cascades.push(Cascade {
                        table: other_name,
                        relationship: li.name.clone(),
                        rows,
                        kind,
                    });
                }
                _ => {}
            }
        }
        Ok(cascades)
    }
}

/// Positions in `def.columns` of the key columns of `li`'s real index.
fn key_positions(def: &TableDef, li: &LogicalIndex) -> Option<Vec<usize>> {
    let real = def.real_indexes.get(usize::try_from(li.real_index).ok()?)?;
    real.key
        .iter()
        .map(|(n, _)| def.columns.iter().position(|c| c.col_num == *n))
        .collect()
}

/// Whether a value stored in column `p` of `a` is stored the same way in
/// column `o` of `b` (the same Jet type; an auto-number Long is a Long).
fn same_key_type(b: &TableDef, o: usize, a: &TableDef, p: usize) -> bool {
    b.columns[o].jet_type == a.columns[p].jet_type
}
