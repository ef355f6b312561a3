//! A target-neutral model of what a migration moves, read from the
//! storage catalog: user tables with their columns (Access type, Required,
//! DefaultValue, auto-number and its next value), primary keys, other
//! indexes (direction, unique), relationships that enforce integrity
//! (with their cascades) and the saved select queries.

use jet_storage::schema::tdef::{Direction, IndexKind, LogicalIndex};
use jet_storage::{Database, JetType, ObjectKind, SavedQuery, Table};

/// One column of a migrated table.
#[derive(Debug, Clone)]
pub struct ColumnModel {
    /// Name as Access spells it.
    pub name: String,
    /// Position of the column in the storage scan's schema.
    pub source: usize,
    /// The Access type.
    pub jet: JetType,
    /// Characters of a Text column, bytes of a Binary column.
    pub length: u32,
    /// Precision of a Decimal column.
    pub precision: u8,
    /// Scale of a Decimal column.
    pub scale: u8,
    /// The Required property (or a Yes/No column, which holds no NULL).
    pub required: bool,
    /// The DefaultValue expression as stored.
    pub default: Option<String>,
    /// An auto-number (Long or GUID).
    pub auto: bool,
}

/// An index: key columns in order, each with its direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexModel {
    /// The Access index name.
    pub name: String,
    /// Key columns: name and whether descending.
    pub columns: Vec<(String, bool)>,
    /// Whether the index refuses duplicate keys.
    pub unique: bool,
}

/// One user table.
#[derive(Debug, Clone)]
pub struct TableModel {
    /// Name as Access spells it.
    pub name: String,
    /// Columns that migrate, in Access order.
    pub columns: Vec<ColumnModel>,
    /// Complex columns, which do not migrate.
    pub complex: Vec<String>,
    /// The primary key's columns (empty: none).
    pub primary_key: Vec<String>,
    /// The other indexes (not the primary key, not relationship indexes).
    pub indexes: Vec<IndexModel>,
    /// The next auto-number value (one past the larger of the table's
    /// counter and the largest stored value), when a Long column is
    /// an auto-number.
    pub next_auto: Option<i64>,
}

impl TableModel {
    /// The auto-number Long column, if any.
    pub fn auto_long(&self) -> Option<&ColumnModel> {
        self.columns
            .iter()
            .find(|c| c.auto && c.jet == JetType::Long)
    }
}

/// What a delete of a referenced row does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDelete {
    /// Refused while references exist.
    NoAction,
    /// Deletes the referencing rows.
    Cascade,
    /// Sets the references to NULL.
    SetNull,
}

/// A relationship that enforces referential integrity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKey {
    /// The relationship's name (its index name on the referencing side).
    pub name: String,
    /// The referencing table.
    pub table: String,
    /// Its columns.
    pub columns: Vec<String>,
    /// The referenced table.
    pub ref_table: String,
    /// Its columns, in the order of [`ForeignKey::columns`].
    pub ref_columns: Vec<String>,
    /// Updates of the referenced key cascade.
    pub on_update_cascade: bool,
    /// What deletes of referenced rows do.
    pub on_delete: OnDelete,
}

/// Everything a migration moves.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// User tables in catalog order.
    pub tables: Vec<TableModel>,
    /// Relationships whose both tables migrate.
    pub foreign_keys: Vec<ForeignKey>,
    /// Relationships left out, with the reason (for the script's comments).
    pub skipped: Vec<String>,
    /// Saved select-like queries that are not hidden.
    pub queries: Vec<SavedQuery>,
}

/// Key columns of real index `n` of `t`: name and whether descending.
fn key_columns(t: &Table, n: u32) -> Option<Vec<(String, bool)>> {
    let def = t.def();
    let real = def.real_indexes.get(usize::try_from(n).ok()?)?;
    real.key
        .iter()
        .map(|(num, dir)| {
            let c = def.columns.iter().find(|c| c.col_num == *num)?;
            Some((c.name.clone(), *dir == Direction::Descending))
        })
        .collect()
}

fn is_unique(t: &Table, i: &LogicalIndex) -> bool {
    usize::try_from(i.real_index)
        .ok()
        .and_then(|n| t.def().real_indexes.get(n))
        .is_some_and(|r| r.flags & 0x01 != 0)
}

/// Reads the model of `db`: every user table, relationship and saved
/// select query.
pub fn read(db: &Database) -> Result<Model, String> {
    let mut model = Model::default();
    let unicode = db.version() != jet_storage::JetVersion::Jet3;
    let mut tables = Vec::new();
    for name in db.table_names() {
        let t = db
            .table(&name)
            .map_err(|e| format!("{}: {e}", jet_storage::error::printable(&name)))?;
        model.tables.push(table_model(&t, unicode));
        tables.push(t);
    }
    for t in &tables {
        for i in &t.def().indexes {
            if i.kind != IndexKind::ForeignKey || i.rel_primary {
                continue;
            }
            match foreign_key(db, t, i) {
                Ok(fk) => model.foreign_keys.push(fk),
                Err(why) => {
                    model
                        .skipped
                        .push(format!("relationship {} of {}: {why}", i.name, t.name()))
                }
            }
        }
    }
    model.queries = db
        .queries()
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|q| q.kind.is_select_like() && !q.hidden)
        .collect();
    Ok(model)
}

fn table_model(t: &Table, unicode: bool) -> TableModel {
    let def = t.def();
    let mut columns = Vec::new();
    let mut complex = Vec::new();
    for (source, c) in def.columns.iter().enumerate() {
        if c.jet_type == JetType::Complex {
            complex.push(c.name.clone());
            continue;
        }
        let length = match c.jet_type {
            JetType::Text if unicode => u32::from(c.length) / 2,
            _ => u32::from(c.length),
        };
        columns.push(ColumnModel {
            name: c.name.clone(),
            source,
            jet: c.jet_type,
            length,
            precision: c.precision,
            scale: c.scale,
            required: c.required || c.jet_type == JetType::Boolean,
            default: c.default_value.clone(),
            auto: c.is_auto_number(),
        });
    }
    let mut primary_key = Vec::new();
    let mut indexes: Vec<IndexModel> = Vec::new();
    for i in &def.indexes {
        let Some(cols) = key_columns(t, i.real_index) else {
            continue;
        };
        // an index over a complex column cannot follow it
        if cols.iter().any(|(c, _)| complex.contains(c)) {
            continue;
        }
        match i.kind {
            IndexKind::PrimaryKey if primary_key.is_empty() => {
                primary_key = cols.into_iter().map(|(c, _)| c).collect();
            }
            IndexKind::Normal | IndexKind::PrimaryKey => {
                let m = IndexModel {
                    name: i.name.clone(),
                    columns: cols,
                    unique: is_unique(t, i),
                };
                if !indexes
                    .iter()
                    .any(|x| x.columns == m.columns && x.unique == m.unique)
                {
                    indexes.push(m);
                }
            }
            IndexKind::ForeignKey | IndexKind::Other(_) => {}
        }
    }
    let next_auto = columns
        .iter()
        .any(|c| c.auto && c.jet == JetType::Long)
        .then(|| i64::from(def.autonumber) + 1);
    TableModel {
        name: t.name().to_string(),
        columns,
        complex,
        primary_key,
        indexes,
        next_auto,
    }
}

fn foreign_key(db: &Database, t: &Table, i: &LogicalIndex) -> Result<ForeignKey, String> {
    let other = db
        .catalog()
        .iter()
        .find(|e| e.tdef_page() == i.rel_table_page && matches!(e.kind, ObjectKind::Table))
        .map(|e| e.name.clone())
        .ok_or("the referenced table is not a user table")?;
    let ot = db.table(&other).map_err(|e| e.to_string())?;
    let rel = i.rel_index.ok_or("no index on the referenced side")?;
    let oi = ot
        .def()
        .indexes
        .iter()
        .find(|x| x.number == rel)
        .ok_or("the referenced index is missing")?;
    let columns = key_columns(t, i.real_index).ok_or("unreadable key")?;
    let ref_columns = key_columns(&ot, oi.real_index).ok_or("unreadable referenced key")?;
    if columns.len() != ref_columns.len() || columns.is_empty() {
        return Err("the two sides' keys differ in length".into());
    }
    Ok(ForeignKey {
        name: i.name.clone(),
        table: t.name().to_string(),
        columns: columns.into_iter().map(|(c, _)| c).collect(),
        ref_table: other,
        ref_columns: ref_columns.into_iter().map(|(c, _)| c).collect(),
        on_update_cascade: i.cascade_updates,
        on_delete: if i.cascade_deletes {
            OnDelete::Cascade
        } else if i.cascade_null {
            OnDelete::SetNull
        } else {
            OnDelete::NoAction
        },
    })
}

/// Whether the referenced columns of `fk` are the primary key or a
/// unique index of their table (as in any order): what SQL requires of a
/// foreign key's target.
pub fn references_a_key(model: &Model, fk: &ForeignKey) -> bool {
    let Some(t) = model.tables.iter().find(|t| t.name == fk.ref_table) else {
        return false;
    };
    let same = |cols: &mut dyn Iterator<Item = &String>| {
        let mut a: Vec<&String> = cols.collect();
        let mut b: Vec<&String> = fk.ref_columns.iter().collect();
        a.sort();
        b.sort();
        a == b
    };
    same(&mut t.primary_key.iter())
        || t.indexes
            .iter()
            .any(|i| i.unique && same(&mut i.columns.iter().map(|(c, _)| c)))
}

/// Column names PostgreSQL keeps for its system columns.
const PG_SYSTEM_COLUMNS: &[&str] = &["tableoid", "xmin", "cmin", "xmax", "cmax", "ctid"];

/// The name a column gets in `target`: its own, except that PostgreSQL's
/// system column names (`ctid`, `xmin`, …, ignoring case) get a `_`
/// appended (more while that clashes with another column of the table).
pub fn target_column_name(target: super::types::Target, table: &[String], name: &str) -> String {
    if target != super::types::Target::Postgres
        || !PG_SYSTEM_COLUMNS
            .iter()
            .any(|s| s.eq_ignore_ascii_case(name))
    {
        return name.to_string();
    }
    let mut n = format!("{name}_");
    while table.iter().any(|c| c.eq_ignore_ascii_case(&n)) {
        n.push('_');
    }
    n
}

/// `model` with the column names `target` needs ([`target_column_name`])
/// everywhere they appear (columns, keys, indexes, foreign keys), and a
/// note per renamed column.
pub fn for_target(model: &Model, target: super::types::Target) -> (Model, Vec<String>) {
    let mut m = model.clone();
    let mut notes = Vec::new();
    let mut renames: Vec<(String, String, String)> = Vec::new();
    for t in &mut m.tables {
        let names: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
        for c in &mut t.columns {
            let new = target_column_name(target, &names, &c.name);
            if new != c.name {
                notes.push(format!(
                    "column {}.{} is named {new} ({} reserves the name)",
                    t.name,
                    c.name,
                    target.name()
                ));
                renames.push((t.name.clone(), c.name.clone(), new.clone()));
                c.name = new;
            }
        }
    }
    let rename = |table: &str, col: &mut String| {
        if let Some((_, _, new)) = renames.iter().find(|(t, c, _)| t == table && c == col) {
            *col = new.clone();
        }
    };
    for t in &mut m.tables {
        let name = t.name.clone();
        t.primary_key.iter_mut().for_each(|c| rename(&name, c));
        for i in &mut t.indexes {
            i.columns.iter_mut().for_each(|(c, _)| rename(&name, c));
        }
    }
    for fk in &mut m.foreign_keys {
        let (t, r) = (fk.table.clone(), fk.ref_table.clone());
        fk.columns.iter_mut().for_each(|c| rename(&t, c));
        fk.ref_columns.iter_mut().for_each(|c| rename(&r, c));
    }
    (m, notes)
}
