//! Tables linked from another Access database (MSysObjects type 6): the
//! target file is found, opened read-only, and its table answers under
//! the link's local name like a local table (index pushdowns included).
//!
//! Where the target is looked for, in order (the stored path is often an
//! absolute Windows path from the machine that made the link):
//!
//! 1. the stored path as it is, when it is absolute and exists here;
//! 2. a relative stored path, resolved against the linking database's
//!    directory;
//! 3. the stored path's file name (after its last `\` or `/`) in the
//!    linking database's directory.
//!
//! A target found nowhere is an error naming the linked table and every
//! path tried, raised when a statement names the table (opening the
//! linking database never fails for it). A link to a table that is itself
//! linked in the target is not followed further (the error says so).

use super::table::JetTable;
use crate::handle::JetOptions;
use datafusion::error::{DataFusionError, Result};
use jet_storage::{Database, ObjectKind, OpenOptions};
use std::path::{Path, PathBuf};

/// The linked Access tables of `db` (not ODBC links): local name, stored
/// database path, table name in the target.
pub fn access_links(db: &Database) -> Vec<(String, String, String)> {
    db.linked_tables()
        .into_iter()
        .filter(|e| !e.is_system())
        .filter_map(|e| match &e.kind {
            ObjectKind::Linked {
                database,
                foreign_name,
            } => Some((e.name.clone(), database.clone(), foreign_name.clone())),
            _ => None,
        })
        .collect()
}

/// The paths tried for a link's stored `database` path, in order, for a
/// linking database at `linking` (see the module documentation).
pub fn candidates(database: &str, linking: Option<&Path>) -> Vec<PathBuf> {
    let stored = Path::new(database);
    let mut out = Vec::new();
    if stored.is_absolute() {
        out.push(stored.to_path_buf());
    }
    let dir = linking.and_then(Path::parent);
    if let Some(dir) = dir {
        let windows_absolute =
            database.starts_with('\\') || database.get(1..3).is_some_and(|s| s.starts_with(':'));
        if stored.is_relative() && !windows_absolute {
            out.push(dir.join(database.replace('\\', "/")));
        }
        let file = database
            .rsplit(['\\', '/'])
            .next()
            .filter(|f| !f.is_empty() && *f != "." && *f != "..");
        if let Some(file) = file {
            out.push(dir.join(file));
        }
    }
    out.dedup();
    out
}

/// The table linked as `local` in `db`, stored as `foreign` in the
/// database at `database`: opened read-only with `options`' password.
pub fn open_link(
    db: &Database,
    local: &str,
    database: &str,
    foreign: &str,
    options: &JetOptions,
) -> Result<JetTable> {
    let tried = candidates(database, db.path());
    let Some(found) = tried.iter().find(|p| p.is_file()) else {
        let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        return Err(DataFusionError::Plan(format!(
            "linked table {local:?}: its database \"{database}\" was not found (tried {})",
            list.join(", ")
        )));
    };
    let target = Database::open(
        found,
        OpenOptions {
            password: options.password.clone(),
            ..OpenOptions::default()
        },
    )
    .map_err(|e| {
        DataFusionError::Plan(format!(
            "linked table {local:?}: cannot open its database {}: {e}",
            found.display()
        ))
    })?;
    let table = target.table(foreign).map_err(|e| {
        DataFusionError::Plan(format!(
            "linked table {local:?}: table {foreign:?} of {}: {e}",
            found.display()
        ))
    })?;
    let read_only = JetOptions {
        writable: false,
        ..options.clone()
    };
    Ok(JetTable::new(table, target, read_only))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_in_order() {
        let linking = Path::new("/data/db/linker.accdb");
        assert_eq!(
            candidates("Z:\\jackcess_test\\linkeeTest.accdb", Some(linking)),
            vec![PathBuf::from("/data/db/linkeeTest.accdb")]
        );
        assert_eq!(
            candidates("sub\\other.mdb", Some(linking)),
            vec![
                PathBuf::from("/data/db/sub/other.mdb"),
                PathBuf::from("/data/db/other.mdb"),
            ]
        );
        assert_eq!(
            candidates("/abs/x.mdb", Some(linking)),
            vec![PathBuf::from("/abs/x.mdb"), PathBuf::from("/data/db/x.mdb")]
        );
        assert_eq!(
            candidates("..", Some(linking)),
            vec![PathBuf::from("/data/db/..")]
        );
        assert!(candidates("x.mdb", None).is_empty());
    }
}
