//! `\d` (every table, linked table and saved query) and `\d TABLE`.

use super::{find_named, table};
use crate::session::OpenDb;
use crate::shell::Shell;
use jet_storage::schema::tdef::{Column, Direction, IndexKind, LogicalIndex};
use jet_storage::{Database, JetType, JetVersion, Table};

/// `\d`: one line per table of every open database, and the tables the
/// session created.
pub fn list_tables(shell: &Shell) -> Result<String, String> {
    let mut rows = Vec::new();
    for d in &shell.dbs {
        let db = d.db()?;
        for name in db.table_names() {
            let t = db.table(&name).map_err(|e| format!("{}: {e}", d.name))?;
            rows.push(vec![
                d.name.clone(),
                name.clone(),
                t.def().columns.len().to_string(),
                t.def().indexes.len().to_string(),
                "table".to_string(),
            ]);
        }
        for l in db.linked_tables() {
            rows.push(vec![
                d.name.clone(),
                l.name.clone(),
                String::new(),
                String::new(),
                format!("linked ({:?})", l.kind),
            ]);
        }
        // saved queries: SELECT-type ones are views; action queries are
        // listed for what they are (`jetsql queries` prints their SQL)
        for q in db.queries().unwrap_or_default() {
            if q.hidden {
                continue;
            }
            let kind = if q.kind.is_select_like() {
                format!("view ({} query)", q.kind)
            } else {
                format!("{} query", q.kind)
            };
            rows.push(vec![
                d.name.clone(),
                q.name.clone(),
                String::new(),
                String::new(),
                kind,
            ]);
        }
    }
    if let Some(schema) = shell
        .session
        .context()
        .catalog("datafusion")
        .and_then(|c| c.schema("public"))
    {
        let jet: Vec<String> = shell
            .dbs
            .first()
            .map(|d| {
                d.db().map(|db| {
                    let mut names = db.table_names();
                    names.extend(db.queries().unwrap_or_default().into_iter().map(|q| q.name));
                    names
                })
            })
            .transpose()?
            .unwrap_or_default();
        for name in schema.table_names() {
            if !jet.contains(&name) {
                rows.push(vec![
                    "(session)".into(),
                    name,
                    String::new(),
                    String::new(),
                    "memory".into(),
                ]);
            }
        }
    }
    if rows.is_empty() {
        return Ok("No tables.\n".into());
    }
    let mut out = table(&["database", "table", "columns", "indexes", "kind"], &rows)?;
    // which protection each database has (never its key)
    for d in &shell.dbs {
        let db = d.db()?;
        let p = db.protection();
        if p.scheme != jet_storage::ProtectionScheme::Plain || p.password {
            out.push_str(&format!("{}: {p}\n", d.name));
        }
    }
    Ok(out)
}

/// A Jet type as Access names it, with its size where it has one.
fn jet_type(c: &Column, version: JetVersion) -> String {
    let name = c.jet_type.name();
    match c.jet_type {
        JetType::Text => {
            let chars = if version == JetVersion::Jet3 {
                c.length
            } else {
                c.length / 2
            };
            format!("{name}({chars})")
        }
        JetType::Binary => format!("{name}({})", c.length),
        JetType::Numeric => format!("{name}({},{})", c.precision, c.scale),
        _ => name.to_string(),
    }
}

/// What a logical index is: primary key, foreign key, unique or plain.
pub(super) fn index_kind(t: &Table, i: &LogicalIndex) -> String {
    let def = t.def();
    let unique = usize::try_from(i.real_index)
        .ok()
        .and_then(|n| def.real_indexes.get(n))
        .is_some_and(|r| r.flags & 0x01 != 0);
    match i.kind {
        IndexKind::PrimaryKey => "primary key".to_string(),
        IndexKind::ForeignKey => "foreign key".to_string(),
        IndexKind::Normal if unique => "unique".to_string(),
        IndexKind::Normal => "index".to_string(),
        IndexKind::Other(k) => format!("kind {k:#04x}"),
    }
}

/// The other side of a relationship index: `Table(columns)`.
pub(super) fn fk_target(db: &Database, i: &LogicalIndex) -> String {
    let other = db
        .catalog()
        .iter()
        .find(|e| {
            e.tdef_page() == i.rel_table_page && matches!(e.kind, jet_storage::ObjectKind::Table)
        })
        .map(|e| e.name.clone());
    match &other {
        Some(o) => {
            let cols = db
                .table(o)
                .ok()
                .and_then(|ot| {
                    let n = i.rel_index?;
                    let li = ot.def().indexes.iter().find(|x| x.number == n)?;
                    Some(column_names(&ot, li.real_index))
                })
                .unwrap_or_default();
            format!("{o}({cols})")
        }
        None => format!("TDEF page {}", i.rel_table_page),
    }
}

/// The referential actions of a relationship index.
pub(super) fn actions(i: &LogicalIndex) -> String {
    let mut on = Vec::new();
    if i.cascade_updates {
        on.push("cascade updates");
    }
    if i.cascade_deletes {
        on.push("cascade deletes");
    }
    if i.cascade_null {
        on.push("set null on delete");
    }
    on.join(", ")
}

/// The key columns of real index `real_index`, `DESC` marked.
pub(super) fn column_names(t: &Table, real_index: u32) -> String {
    let def = t.def();
    let Some(real) = usize::try_from(real_index)
        .ok()
        .and_then(|i| def.real_indexes.get(i))
    else {
        return "?".into();
    };
    real.key
        .iter()
        .map(|(num, dir)| {
            let name = def
                .columns
                .iter()
                .find(|c| c.col_num == *num)
                .map_or_else(|| format!("#{num}"), |c| c.name.clone());
            match dir {
                Direction::Ascending => name,
                Direction::Descending => format!("{name} DESC"),
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `\d NAME`: the table's columns, indexes and keys; for a saved query
/// its SQL, parameters and columns ([`super::describe_query`]).
pub fn describe(shell: &Shell, name: &str) -> Result<String, String> {
    let tables_of = |d: &OpenDb| Ok(d.db().map(|db| db.table_names()).unwrap_or_default());
    let Some((i, real_name)) = find_named(&shell.dbs, name, tables_of, |n: &String| n)? else {
        return super::describe_query(shell, name);
    };
    let d = &shell.dbs[i];
    let db = d.db()?;
    let t = db
        .table(&real_name)
        .map_err(|e| format!("{}: {e}", d.name))?;
    let def = t.def();
    let version = db.version();
    let mut out = format!(
        "Table \"{real_name}\" in {} ({version:?}, TDEF page {}, {} rows stated)\n",
        d.name, def.page, def.stated_rows
    );
    let schema = t.schema();
    let rows: Vec<Vec<String>> = def
        .columns
        .iter()
        .zip(schema.fields())
        .map(|(c, f)| {
            let mut extra = Vec::new();
            if c.is_auto_number() {
                extra.push("auto-number");
            }
            if c.is_hyperlink() {
                extra.push("hyperlink");
            }
            if c.is_calculated() {
                extra.push("calculated");
            }
            vec![
                c.name.clone(),
                jet_type(c, version),
                f.data_type().to_string(),
                // Yes/No lives in the null mask: it is never NULL
                if c.required || c.jet_type == JetType::Boolean {
                    "NOT NULL"
                } else {
                    ""
                }
                .to_string(),
                c.default_value.clone().unwrap_or_default(),
                extra.join(", "),
            ]
        })
        .collect();
    out.push_str(&table(
        &[
            "column",
            "jet type",
            "arrow type",
            "null",
            "default",
            "flags",
        ],
        &rows,
    )?);
    let table_props = super::properties::table_rows(&t);
    if !table_props.is_empty() {
        out.push_str("Table properties:\n");
        out.push_str(&table(&["property", "value"], &table_props)?);
    }
    let column_props = super::properties::column_rows(&t);
    if !column_props.is_empty() {
        out.push_str("Column properties:\n");
        out.push_str(&table(&["column", "property", "value"], &column_props)?);
    }
    let mut index_rows = Vec::new();
    let mut fk_rows = Vec::new();
    let mut referenced_rows = Vec::new();
    for i in &def.indexes {
        let cols = column_names(&t, i.real_index);
        if i.kind == IndexKind::ForeignKey {
            let row = vec![i.name.clone(), cols.clone(), fk_target(&db, i), actions(i)];
            if i.rel_primary {
                referenced_rows.push(row);
            } else {
                fk_rows.push(row);
            }
        }
        index_rows.push(vec![i.name.clone(), index_kind(&t, i), cols]);
    }
    if !index_rows.is_empty() {
        out.push_str("Indexes:\n");
        out.push_str(&table(&["index", "kind", "columns"], &index_rows)?);
    }
    if !fk_rows.is_empty() {
        out.push_str("Foreign keys:\n");
        out.push_str(&table(
            &["name", "columns", "references", "actions"],
            &fk_rows,
        )?);
    }
    if !referenced_rows.is_empty() {
        out.push_str("Referenced by:\n");
        out.push_str(&table(
            &["name", "columns", "referencing", "actions"],
            &referenced_rows,
        )?);
    }
    Ok(out)
}
