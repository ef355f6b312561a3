//! Index declarations checked and added to a table definition
//! ([`add_index`]), shared by `CREATE TABLE` and `CREATE INDEX`.

use super::spec::{
    INDEX_IGNORE_NULLS, INDEX_REQUIRED, INDEX_UNIQUE, IndexSpec, MAX_INDEX_COLUMNS, bad, check_name,
};
use crate::error::WResult;
use crate::format::types::JetType;
use crate::schema::tdef::{IndexKind, LogicalIndex, RealIndex, TableDef};

/// Most logical indexes a table holds (Access's limit).
pub const MAX_INDEXES: usize = 32;

/// Adds index `idx` to `def` as Access declares one: checks its name (valid,
/// not taken by another index of the table, case-insensitively), that a
/// table has at most one primary key and [`MAX_INDEXES`] indexes, and its
/// key columns (1 to [`MAX_INDEX_COLUMNS`] columns of the table, none
/// twice, no Memo/OLE/complex column). The logical index gets the next
/// free index number; it shares an existing real index with the same key
/// and flags, else a new real index is appended (usage map and root left 0
/// for the caller to fill). Returns the position of the real index and
/// whether it is new. On error `def` is unchanged.
pub fn add_index(def: &mut TableDef, table: &str, idx: &IndexSpec) -> WResult<(usize, bool)> {
    check_name(table, "index", &idx.name)?;
    if def
        .indexes
        .iter()
        .any(|l| l.name.eq_ignore_ascii_case(&idx.name))
    {
        return Err(bad(table, format!("duplicate index name {:?}", idx.name)));
    }
    if idx.primary && def.indexes.iter().any(|l| l.kind == IndexKind::PrimaryKey) {
        return Err(bad(
            table,
            format!("index {:?}: the table has a primary key already", idx.name),
        ));
    }
    if def.indexes.len() >= MAX_INDEXES {
        return Err(bad(
            table,
            format!(
                "index {:?}: a table holds at most {MAX_INDEXES} indexes",
                idx.name
            ),
        ));
    }
    if idx.columns.is_empty() || idx.columns.len() > MAX_INDEX_COLUMNS {
        return Err(bad(
            table,
            format!("index {:?}: 1 to 10 key columns", idx.name),
        ));
    }
    let mut key = Vec::new();
    for (name, dir) in &idx.columns {
        let col = def
            .columns
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| bad(table, format!("index {:?}: no column {name:?}", idx.name)))?;
        if col.jet_type.is_long_value() || col.jet_type == JetType::Complex {
            return Err(bad(
                table,
                format!(
                    "index {:?}: Memo/OLE/complex column {name:?} cannot be a key",
                    idx.name
                ),
            ));
        }
        if key.iter().any(|(n, _)| *n == col.col_num) {
            return Err(bad(
                table,
                format!("index {:?}: column {name:?} twice", idx.name),
            ));
        }
        key.push((col.col_num, *dir));
    }
    let mut flags = 0;
    if idx.unique || idx.primary {
        flags |= INDEX_UNIQUE;
    }
    if idx.ignore_nulls {
        flags |= INDEX_IGNORE_NULLS;
    }
    if idx.primary {
        flags |= INDEX_REQUIRED;
    }
    let (real, fresh) = match def
        .real_indexes
        .iter()
        .position(|r| r.key == key && r.flags == flags)
    {
        Some(r) => (r, false),
        None => {
            def.real_indexes.push(RealIndex {
                key,
                usage_map: 0,
                root_page: 0,
                flags,
            });
            (def.real_indexes.len() - 1, true)
        }
    };
    let number = def.indexes.iter().map(|l| l.number + 1).max().unwrap_or(0);
    def.indexes.push(LogicalIndex {
        name: idx.name.clone(),
        number,
        real_index: real as u32,
        kind: if idx.primary {
            IndexKind::PrimaryKey
        } else {
            IndexKind::Normal
        },
        rel_index: None,
        rel_primary: false,
        rel_table_page: 0,
        cascade_updates: false,
        cascade_deletes: false,
        cascade_null: false,
    });
    Ok((real, fresh))
}
