//! Creating and deleting enforced relationships as Access stores them.
//!
//! Format (Jackcess `RelationshipCreator`, `DatabaseImpl.writeRelationship`,
//! `IndexImpl`, `RelationshipImpl`):
//!
//! - the primary ("one") table gets a foreign-key logical index over its
//!   referenced columns, named `.rB`, `.rC`, … (the first name the table
//!   does not use), backed by the table's existing unique index over
//!   those columns; its other-table type byte is 1 (primary);
//! - the referencing table gets a foreign-key logical index named after
//!   the relationship over its referencing columns, backed by an existing
//!   index with the same key columns (any flags) or a new non-unique one;
//!   its other-table type byte is 2;
//! - each names the other's logical index number and TDEF page, and both
//!   carry the cascade bytes: update 1, delete 1 (cascade) or 2 (set NULL);
//! - `MSysRelationships` gets one row per column pair: `ccolumn` (pairs),
//!   `grbit` (0x1 one-to-one, 0x100 cascade updates, 0x1000 cascade
//!   deletes, 0x2000 set NULL on delete), `icolumn` (pair position),
//!   `szColumn`/`szObject` (referencing column and table),
//!   `szReferencedColumn`/`szReferencedObject` (primary column and table),
//!   `szRelationship`;
//! - `MSysObjects` gets a row of type 8 named after the relationship under
//!   the `Relationships` container, with the next free synthetic (negative)
//!   id.

use super::Transaction;
use crate::error::{WResult, WriteError};
use crate::format::OwnedField;
use crate::index::Bookmark;
use crate::index::key::encode_key;
use crate::schema::catalog::{CatalogEntry, ObjectKind};
use crate::schema::tdef::{Direction, IndexKind, LogicalIndex, TableDef};
use crate::write::catalog;
use crate::write::row::Cell;
use crate::write::tdef::index_def::MAX_INDEXES;
use crate::write::tdef::{self as wtdef, INDEX_UNIQUE, IndexSpec};

/// `MSysRelationships.grbit`: both sides unique.
pub const REL_ONE_TO_ONE: i32 = 0x0000_0001;
/// `MSysRelationships.grbit`: cascade updates.
pub const REL_CASCADE_UPDATES: i32 = 0x0000_0100;
/// `MSysRelationships.grbit`: cascade deletes.
pub const REL_CASCADE_DELETES: i32 = 0x0000_1000;
/// `MSysRelationships.grbit`: set NULL on delete.
pub const REL_CASCADE_NULL: i32 = 0x0000_2000;
/// `MSysObjects.Type` of a relationship.
pub const TYPE_RELATIONSHIP: i16 = 8;

/// An enforced relationship as a caller declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationshipSpec {
    /// Relationship name (also the referencing table's index name).
    pub name: String,
    /// The primary ("one") table, whose key is referenced.
    pub primary_table: String,
    /// Its referenced columns (a unique index or primary key must cover
    /// exactly these, in this order).
    pub primary_columns: Vec<String>,
    /// The referencing ("many") table.
    pub foreign_table: String,
    /// Its referencing columns, pairwise of the same types.
    pub foreign_columns: Vec<String>,
    /// Changing a referenced key changes the references.
    pub cascade_update: bool,
    /// Deleting a referenced row deletes the referencing rows.
    pub cascade_delete: bool,
    /// Deleting a referenced row sets the references to NULL.
    pub set_null_on_delete: bool,
}

impl RelationshipSpec {
    /// A relationship without referential actions.
    pub fn new(
        name: &str,
        primary_table: &str,
        primary_columns: &[&str],
        foreign_table: &str,
        foreign_columns: &[&str],
    ) -> RelationshipSpec {
        RelationshipSpec {
            name: name.to_string(),
            primary_table: primary_table.to_string(),
            primary_columns: primary_columns.iter().map(|c| c.to_string()).collect(),
            foreign_table: foreign_table.to_string(),
            foreign_columns: foreign_columns.iter().map(|c| c.to_string()).collect(),
            cascade_update: false,
            cascade_delete: false,
            set_null_on_delete: false,
        }
    }
}

impl Transaction<'_> {
    /// Creates the enforced relationship `spec` (see the module
    /// documentation for what is written). Afterwards inserts and updates
    /// of the referencing table and deletes and re-keys of the primary
    /// table are checked against it, and its referential actions run in
    /// the transaction that changes the primary row
    /// (`txn::cascade`). Refused before anything is
    /// written, with [`WriteError::BadDefinition`] naming the relationship:
    /// an invalid or taken name (relationships, and the referencing
    /// table's indexes), unknown, system or identical tables, unknown,
    /// repeated or mismatched columns, no unique index on the primary
    /// columns, more than 32 indexes on a side, both cascade delete and
    /// set NULL, and a row of the referencing table whose key (no column
    /// NULL) the primary table does not hold (the message names its
    /// values).
    pub fn create_relationship(&mut self, spec: &RelationshipSpec) -> WResult<()> {
        self.refuse_jet3_schema(&format!("creating relationship {:?}", spec.name))?;
        self.flush_indexes()?;
        let name = spec.name.as_str();
        let refuse = |why: String| WriteError::BadDefinition {
            table: spec.foreign_table.clone(),
            why: format!("relationship {name:?}: {why}"),
        };
        wtdef::check_name(&spec.foreign_table, "relationship", name)?;
        if spec.cascade_delete && spec.set_null_on_delete {
            return Err(refuse(
                "cascade delete and set NULL on delete exclude each other".into(),
            ));
        }
        let (primary, foreign) = (
            self.user_table(&spec.primary_table)?,
            self.user_table(&spec.foreign_table)?,
        );
        if primary.eq_ignore_ascii_case(&foreign) {
            return Err(WriteError::Unsupported(format!(
                "relationship {name:?} of table {primary:?} with itself"
            )));
        }
        if !self.relationship_rows(name)?.is_empty()
            || self.catalog.iter().any(|e| {
                e.kind == ObjectKind::Other(TYPE_RELATIONSHIP) && e.name.eq_ignore_ascii_case(name)
            })
        {
            return Err(refuse("a relationship has this name".into()));
        }
        let pdef = self.state(&primary)?.def.clone();
        let fdef = self.state(&foreign)?.def.clone();
        self.check_indexes_def(&foreign, &fdef)?;
        if fdef
            .indexes
            .iter()
            .any(|li| li.name.eq_ignore_ascii_case(name))
        {
            return Err(refuse(format!(
                "table {foreign:?} has an index of this name"
            )));
        }
        let n = spec.primary_columns.len();
        if n == 0 || n > wtdef::MAX_INDEX_COLUMNS || spec.foreign_columns.len() != n {
            return Err(refuse(
                "1 to 10 columns on each side, as many on both".into(),
            ));
        }
        let ppos = positions(&pdef, &spec.primary_columns).map_err(|c| {
            refuse(format!(
                "table {primary:?} has no column {c:?} (or names it twice)"
            ))
        })?;
        let fpos = positions(&fdef, &spec.foreign_columns).map_err(|c| {
            refuse(format!(
                "table {foreign:?} has no column {c:?} (or names it twice)"
            ))
        })?;
        for (&p, &f) in ppos.iter().zip(&fpos) {
            if pdef.columns[p].jet_type != fdef.columns[f].jet_type {
                return Err(refuse(format!(
                    "columns {:?} ({}) and {:?} ({}) differ in type",
                    pdef.columns[p].name,
                    pdef.columns[p].jet_type.name(),
                    fdef.columns[f].name,
                    fdef.columns[f].jet_type.name()
                )));
            }
        }
        let pkey: Vec<u16> = ppos.iter().map(|&p| pdef.columns[p].col_num).collect();
        let fkey: Vec<u16> = fpos.iter().map(|&p| fdef.columns[p].col_num).collect();
        let cols = |k: &[(u16, Direction)]| k.iter().map(|(c, _)| *c).collect::<Vec<_>>();
        let preal = pdef
            .real_indexes
            .iter()
            .position(|r| r.flags & INDEX_UNIQUE != 0 && cols(&r.key) == pkey)
            .ok_or_else(|| {
                refuse(format!(
                    "table {primary:?} has no unique index (or primary key) on exactly ({})",
                    spec.primary_columns.join(", ")
                ))
            })?;
        if pdef.indexes.len() >= MAX_INDEXES || fdef.indexes.len() >= MAX_INDEXES {
            return Err(refuse(format!(
                "a table holds at most {MAX_INDEXES} indexes"
            )));
        }
        // every referencing row's key (no column NULL) is a primary key
        let pri = pdef.real_indexes[preal].clone();
        let l = self.layout();
        let version = self.version;
        let codec = self.text_codec();
        let mut missing: Option<String> = None;
        let ov = &self.ov;
        self.each_live_row(&fdef, |_, fields| {
            if missing.is_some() || fpos.iter().any(|&f| fields[f] == OwnedField::Null) {
                return Ok(());
            }
            let mut other = vec![OwnedField::Null; pdef.columns.len()];
            for (&p, &f) in ppos.iter().zip(&fpos) {
                other[p] = fields[f].clone();
            }
            let key = encode_key(&pdef.columns, &pri.key, &other, version).map_err(|source| {
                WriteError::IndexKey {
                    table: primary.clone(),
                    source,
                }
            })?;
            let found = crate::index::write::key_exists(ov, l, pri.root_page, pdef.page, &key)
                .map_err(|e| WriteError::Index {
                    table: primary.clone(),
                    why: format!("index rooted at page {}: {e}", pri.root_page),
                })?;
            if !found {
                missing = Some(
                    fpos.iter()
                        .map(|&f| {
                            format!(
                                "{} = {}",
                                fdef.columns[f].name,
                                super::cascade::show(&fdef, f, &fields[f], codec)
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                );
            }
            Ok(())
        })?;
        if let Some(key) = missing {
            return Err(refuse(format!(
                "a row of {foreign:?} ({key}) references no row of {primary:?}; nothing was written"
            )));
        }
        let parent = self
            .catalog
            .iter()
            .find(|e| {
                e.name == "Relationships"
                    && e.parent_id == catalog::ROOT_ID
                    && e.kind == ObjectKind::Other(catalog::TYPE_CONTAINER)
            })
            .map(|e| e.id)
            .ok_or_else(|| refuse("the catalog has no Relationships container".into()))?;
        let id = self
            .catalog
            .iter()
            .map(|e| e.id)
            .filter(|&i| i < 0)
            .max()
            .unwrap_or(i32::MIN + 1)
            .checked_add(1)
            .filter(|&i| i < 0)
            .ok_or_else(|| refuse("no synthetic object id is free".into()))?;
        // the two logical indexes
        let pnum = next_number(&pdef);
        let fnum = next_number(&fdef);
        let pname = (b'B'..=b'Z')
            .chain(b'a'..=b'z')
            .map(|c| format!(".r{}", c as char))
            .find(|n| {
                !pdef
                    .indexes
                    .iter()
                    .any(|li| li.name.eq_ignore_ascii_case(n))
            })
            .ok_or_else(|| refuse(format!("table {primary:?}: no free .r index name")))?;
        let fk =
            |name: String, number, real_index, other_number, other_page, primary| LogicalIndex {
                name,
                number,
                real_index,
                kind: IndexKind::ForeignKey,
                rel_index: Some(other_number),
                rel_primary: primary,
                rel_table_page: other_page,
                cascade_updates: spec.cascade_update,
                cascade_deletes: spec.cascade_delete,
                cascade_null: spec.set_null_on_delete,
            };
        let mut pnew = pdef.clone();
        pnew.indexes
            .push(fk(pname, pnum, preal as u32, fnum, fdef.page, true));
        let pchain = crate::schema::tdef::read_chain(&self.ov, pdef.page)?;
        let pbytes = wtdef::splice::with_added_index(
            self.tdef_format(),
            &primary,
            &pdef,
            &pchain,
            &pnew,
            false,
        )?;
        let freal = fdef.real_indexes.iter().position(|r| {
            cols(&r.key) == fkey && r.key.iter().all(|k| k.1 == Direction::Ascending)
        });
        let one_to_one = fdef
            .real_indexes
            .iter()
            .any(|r| r.flags & INDEX_UNIQUE != 0 && cols(&r.key) == fkey);
        let shared = match freal {
            Some(r) => {
                let mut fnew = fdef.clone();
                fnew.indexes
                    .push(fk(name.to_string(), fnum, r as u32, pnum, pdef.page, false));
                let fchain = crate::schema::tdef::read_chain(&self.ov, fdef.page)?;
                Some((
                    fnew.clone(),
                    wtdef::splice::with_added_index(
                        self.tdef_format(),
                        &foreign,
                        &fdef,
                        &fchain,
                        &fnew,
                        false,
                    )?,
                ))
            }
            None => None,
        };
        // every check is done: from here on pages are written
        wtdef::write_chain(&mut self.ov, pdef.page, &pbytes, true)?;
        self.state(&primary)?.def = pnew;
        match shared {
            Some((fnew, bytes)) => {
                wtdef::write_chain(&mut self.ov, fdef.page, &bytes, true)?;
                self.state(&foreign)?.def = fnew;
            }
            None => {
                let ispec = IndexSpec {
                    columns: spec
                        .foreign_columns
                        .iter()
                        .map(|c| (c.clone(), Direction::Ascending))
                        .collect(),
                    ..IndexSpec::new(name, &[])
                };
                self.create_index(&foreign, &ispec)?;
                // the new logical index becomes the foreign-key index
                let built = self.state(&foreign)?.def.clone();
                let pos = built.indexes.len() - 1;
                let mut without = built.clone();
                without.indexes.pop();
                let mut fnew = built.clone();
                let li = &mut fnew.indexes[pos];
                *li = fk(
                    li.name.clone(),
                    li.number,
                    li.real_index,
                    pnum,
                    pdef.page,
                    false,
                );
                let chain = crate::schema::tdef::read_chain(&self.ov, fdef.page)?;
                let cut = wtdef::splice::with_dropped_index(
                    self.tdef_format(),
                    &foreign,
                    &built,
                    &chain,
                    &without,
                    pos,
                    None,
                )?;
                let bytes = wtdef::splice::with_added_index(
                    self.tdef_format(),
                    &foreign,
                    &without,
                    &cut,
                    &fnew,
                    false,
                )?;
                wtdef::write_chain(&mut self.ov, fdef.page, &bytes, true)?;
                self.state(&foreign)?.def = fnew;
            }
        }
        let flag = |on: bool, bit: i32| if on { bit } else { 0 };
        let grbit = flag(one_to_one, REL_ONE_TO_ONE)
            | flag(spec.cascade_update, REL_CASCADE_UPDATES)
            | flag(spec.cascade_delete, REL_CASCADE_DELETES)
            | flag(spec.set_null_on_delete, REL_CASCADE_NULL);
        for (i, (&p, &f)) in ppos.iter().zip(&fpos).enumerate() {
            self.insert_named(
                "MSysRelationships",
                vec![
                    ("ccolumn", Cell::Int(n as i128)),
                    ("grbit", Cell::Int(grbit.into())),
                    ("icolumn", Cell::Int(i as i128)),
                    ("szColumn", Cell::Text(fdef.columns[f].name.clone())),
                    ("szObject", Cell::Text(foreign.clone())),
                    (
                        "szReferencedColumn",
                        Cell::Text(pdef.columns[p].name.clone()),
                    ),
                    ("szReferencedObject", Cell::Text(primary.clone())),
                    ("szRelationship", Cell::Text(name.to_string())),
                ],
            )?;
        }
        let row = catalog::object_row(id, parent, name, TYPE_RELATIONSHIP, 0, self.clock);
        self.insert_named("MSysObjects", row)?;
        self.catalog.push(CatalogEntry {
            name: name.to_string(),
            id,
            parent_id: parent,
            kind: ObjectKind::Other(TYPE_RELATIONSHIP),
            flags: 0,
            props: Vec::new(),
        });
        Ok(())
    }

    /// Deletes relationship `name` (case-insensitively): its
    /// `MSysRelationships` rows, its `MSysObjects` row, and, for an
    /// enforced one, the foreign-key logical index of each table (a real
    /// index no other logical index shares goes too; the primary key
    /// stays). Afterwards neither table's writes are checked against it.
    /// Refused with [`WriteError::BadDefinition`] when no relationship has
    /// the name.
    pub fn drop_relationship(&mut self, name: &str) -> WResult<()> {
        self.refuse_jet3_schema(&format!("dropping relationship {name:?}"))?;
        self.flush_indexes()?;
        let rows = self.relationship_rows(name)?;
        let Some((_, first)) = rows.first().cloned() else {
            return Err(WriteError::BadDefinition {
                table: "MSysRelationships".into(),
                why: format!("no relationship is named {name:?}"),
            });
        };
        let (foreign, primary) = (first.0.clone(), first.1.clone());
        let exists = |t: &str| {
            self.catalog
                .iter()
                .any(|e| e.kind == ObjectKind::Table && e.name.eq_ignore_ascii_case(t))
        };
        if exists(&foreign) && exists(&primary) {
            let pdef = self.state(&primary)?.def.clone();
            let fdef = self.state(&foreign)?.def.clone();
            let fpos = fdef.indexes.iter().position(|li| {
                li.kind == IndexKind::ForeignKey
                    && !li.rel_primary
                    && li.rel_table_page == pdef.page
                    && li.name.eq_ignore_ascii_case(name)
            });
            if let Some(fp) = fpos {
                let other = fdef.indexes[fp].rel_index;
                let number = fdef.indexes[fp].number;
                self.remove_logical_index(&foreign, fp)?;
                let pp = pdef.indexes.iter().position(|li| {
                    li.kind == IndexKind::ForeignKey
                        && li.rel_primary
                        && li.rel_table_page == fdef.page
                        && Some(li.number) == other
                        && li.rel_index == Some(number)
                });
                if let Some(pp) = pp {
                    self.remove_logical_index(&primary, pp)?;
                }
            }
        }
        let bms: Vec<Bookmark> = rows.iter().map(|(bm, _)| *bm).collect();
        self.delete_rows("MSysRelationships", &bms)?;
        let objects: Vec<CatalogEntry> = self
            .catalog
            .iter()
            .filter(|e| {
                e.kind == ObjectKind::Other(TYPE_RELATIONSHIP) && e.name.eq_ignore_ascii_case(name)
            })
            .cloned()
            .collect();
        for e in objects {
            if let Some(bm) = self.find_object_row(e.id)? {
                self.delete_rows("MSysObjects", &[bm])?;
            }
            self.catalog.retain(|c| c != &e);
        }
        Ok(())
    }

    /// The stored name of user table `name`.
    fn user_table(&mut self, name: &str) -> WResult<String> {
        match self.entry(name) {
            Some(e) if e.is_system() => Err(WriteError::Unsupported(format!(
                "a relationship of system table {:?}",
                e.name
            ))),
            Some(_) => Ok(self.state(name)?.name.clone()),
            None => Err(WriteError::NoSuchTable(name.to_string())),
        }
    }

    /// The `MSysRelationships` rows of relationship `name`: bookmark and
    /// (szObject, szReferencedObject).
    fn relationship_rows(&mut self, name: &str) -> WResult<Vec<(Bookmark, (String, String))>> {
        const REL: &str = "MSysRelationships";
        let rows = self.text_rows(REL)?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let def = self.state(REL)?.def.clone();
        let mut bms = Vec::new();
        self.each_live_row(&def, |bm, _| {
            bms.push(bm);
            Ok(())
        })?;
        let at = |n: &str| {
            def.columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))
        };
        let (rel, obj, refd) = (
            at("szRelationship"),
            at("szObject"),
            at("szReferencedObject"),
        );
        let get = |row: &[Option<String>], i: Option<usize>| {
            i.and_then(|i| row[i].clone()).unwrap_or_default()
        };
        Ok(bms
            .into_iter()
            .zip(rows)
            .filter(|(_, (_, row))| get(row, rel).eq_ignore_ascii_case(name))
            .map(|(bm, (_, row))| (bm, (get(&row, obj), get(&row, refd))))
            .collect())
    }

    /// The `MSysObjects` row whose `Id` is `id`.
    fn find_object_row(&mut self, id: i32) -> WResult<Option<Bookmark>> {
        let def = self.state("MSysObjects")?.def.clone();
        let Some(i) = def.columns.iter().position(|c| c.name == "Id") else {
            return Ok(None);
        };
        let mut hit = None;
        self.each_live_row(&def, |bm, fields| {
            if matches!(&fields[i], OwnedField::Bytes(b) if b.len() == 4 && i32::from_le_bytes([b[0], b[1], b[2], b[3]]) == id)
            {
                hit.get_or_insert(bm);
            }
            Ok(())
        })?;
        Ok(hit)
    }
}

/// Positions in `def.columns` of `names` (case-insensitively), each once;
/// the offending name otherwise.
fn positions(def: &TableDef, names: &[String]) -> Result<Vec<usize>, String> {
    let mut out: Vec<usize> = Vec::with_capacity(names.len());
    for n in names {
        let l = n.to_lowercase();
        let p = def
            .columns
            .iter()
            .position(|c| c.name.to_lowercase() == l)
            .filter(|p| !out.contains(p))
            .ok_or_else(|| n.clone())?;
        out.push(p);
    }
    Ok(out)
}

/// The number a new logical index of `def` gets.
fn next_number(def: &TableDef) -> u32 {
    def.indexes.iter().map(|l| l.number + 1).max().unwrap_or(0)
}
