//! `\di [TABLE]` (every index of every open database, or of one table)
//! and `\dr` (every relationship: the referencing table and columns, the
//! referenced ones, and the referential actions).

use super::table;
use super::tables::{actions, column_names, fk_target, index_kind};
use crate::shell::Shell;
use jet_storage::schema::tdef::IndexKind;

/// `\di`: one line per index (of `only`'s table when given; names match
/// ignoring case).
pub fn list_indexes(shell: &Shell, only: &str) -> Result<String, String> {
    let only = super::unquote(only);
    let mut rows = Vec::new();
    for d in &shell.dbs {
        let db = d.db()?;
        for name in db.table_names() {
            if !only.is_empty() && !name.eq_ignore_ascii_case(only) {
                continue;
            }
            let t = db.table(&name).map_err(|e| format!("{}: {e}", d.name))?;
            for i in &t.def().indexes {
                rows.push(vec![
                    d.name.clone(),
                    name.clone(),
                    i.name.clone(),
                    index_kind(&t, i),
                    column_names(&t, i.real_index),
                ]);
            }
        }
    }
    if rows.is_empty() {
        return Ok(if only.is_empty() {
            "No indexes.\n".into()
        } else {
            format!("No table named {only:?} has indexes.\n")
        });
    }
    table(&["database", "table", "index", "kind", "columns"], &rows)
}

/// `\dr`: one line per relationship, from the referencing side.
pub fn list_relationships(shell: &Shell) -> Result<String, String> {
    let mut rows = Vec::new();
    for d in &shell.dbs {
        let db = d.db()?;
        for name in db.table_names() {
            let t = db.table(&name).map_err(|e| format!("{}: {e}", d.name))?;
            for i in &t.def().indexes {
                if i.kind != IndexKind::ForeignKey || i.rel_primary {
                    continue;
                }
                rows.push(vec![
                    d.name.clone(),
                    i.name.clone(),
                    format!("{name}({})", column_names(&t, i.real_index)),
                    fk_target(&db, i),
                    actions(i),
                ]);
            }
        }
    }
    if rows.is_empty() {
        return Ok("No relationships.\n".into());
    }
    table(
        &["database", "relationship", "table", "references", "actions"],
        &rows,
    )
}
