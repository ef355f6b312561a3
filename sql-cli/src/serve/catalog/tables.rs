//! The rows of the `pg_catalog` tables clients read, built from one
//! served database: its tables (`r`), saved select queries (`v`) and
//! indexes (`i`) in `pg_class`, their columns in `pg_attribute` (typed as
//! result columns are, `super::super::types`), keys and relationships in
//! `pg_index` / `pg_constraint`, defaults in `pg_attrdef`; PostgreSQL's
//! own OIDs for types and schemas. Tables no client here needs filled
//! are present with their columns and no rows, so the clients' joins
//! plan.

use crate::migrate::ddl::{IndexNames, actions};
use crate::migrate::schema::Model;
use crate::migrate::types::Target;
use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Int16Array, Int32Array, Int64Array, ListArray, RecordBatch, StringArray,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use pgwire::api::Type;
use std::collections::HashMap;
use std::sync::Arc;

/// OID of schema `pg_catalog`.
pub const PG_CATALOG: i64 = 11;
/// OID of schema `public`.
pub const PUBLIC: i64 = 2200;
/// OID of schema `information_schema`.
pub const INFORMATION_SCHEMA: i64 = 13000;
/// The first OID of a served relation (PostgreSQL's first user OID).
pub const FIRST_USER_OID: i64 = 16384;

/// One column of a served relation, as `pg_attribute` shows it.
#[derive(Debug, Clone)]
pub struct Attribute {
    /// Its name.
    pub name: String,
    /// Its PostgreSQL type.
    pub ty: Type,
    /// Its type modifier (-1: none).
    pub typmod: i32,
    /// NOT NULL.
    pub not_null: bool,
    /// Its default as SQL text, if any.
    pub default: Option<String>,
}

/// A served table or view.
#[derive(Debug, Clone)]
pub struct Relation {
    /// Its name.
    pub name: String,
    /// `r` (table) or `v` (view).
    pub kind: &'static str,
    /// Its columns.
    pub columns: Vec<Attribute>,
}

/// What the catalog is built from, with OIDs given out.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The database's name (`current_database()`).
    pub database: String,
    /// Every database served (`pg_database`).
    pub databases: Vec<String>,
    /// Tables and views, OID `FIRST_USER_OID + position`.
    pub relations: Vec<Relation>,
    /// Indexes: OID, table OID, name, key column numbers, unique,
    /// primary, definition (`pg_get_indexdef`).
    pub indexes: Vec<Index>,
    /// Constraints (`pg_constraint`).
    pub constraints: Vec<Constraint>,
}

/// One index.
#[derive(Debug, Clone)]
pub struct Index {
    /// Its OID.
    pub oid: i64,
    /// The table's OID.
    pub table: i64,
    /// Its name.
    pub name: String,
    /// Column numbers (1-based) of its key.
    pub keys: Vec<i16>,
    /// Refuses duplicates.
    pub unique: bool,
    /// The primary key.
    pub primary: bool,
    /// `CREATE [UNIQUE] INDEX …`, as `pg_get_indexdef` gives it.
    pub definition: String,
}

/// One constraint: primary key (`p`) or foreign key (`f`).
#[derive(Debug, Clone)]
pub struct Constraint {
    /// Its OID.
    pub oid: i64,
    /// Its name.
    pub name: String,
    /// `p` or `f`.
    pub kind: &'static str,
    /// The table's OID.
    pub table: i64,
    /// The index behind it (0: none).
    pub index: i64,
    /// The referenced table's OID (0: none).
    pub references: i64,
    /// As `pg_get_constraintdef` gives it.
    pub definition: String,
}

/// `"name"` quoted as PostgreSQL prints an identifier that needs it.
pub fn quoted(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

impl Snapshot {
    /// Keys, indexes and relationships of `model` over `relations`
    /// (whose tables the model describes, found by name).
    pub fn with_keys(mut self, model: &Model) -> Snapshot {
        let oid_of = |name: &str, rels: &[Relation]| {
            rels.iter()
                .position(|r| r.kind == "r" && r.name == name)
                .map(|i| FIRST_USER_OID + i as i64)
        };
        let mut next = FIRST_USER_OID + self.relations.len() as i64;
        let rels = self.relations.clone();
        // index names as `jetsql migrate` gives them (PostgreSQL's are
        // unique in a schema, Access's in a table)
        let mut index_names = IndexNames::new(Target::Postgres);
        for t in &model.tables {
            let Some(table) = oid_of(&t.name, &rels) else {
                continue;
            };
            let rel = &rels[(table - FIRST_USER_OID) as usize];
            let num = |c: &str| {
                rel.columns
                    .iter()
                    .position(|a| a.name == c)
                    .map_or(0, |i| i as i16 + 1)
            };
            let list = |cols: &[(String, bool)]| {
                cols.iter()
                    .map(|(c, desc)| {
                        if *desc {
                            format!("{} DESC", quoted(c))
                        } else {
                            quoted(c)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut add = |name: String, cols: Vec<(String, bool)>, unique: bool, primary: bool| {
                let oid = next;
                next += 1;
                let definition = format!(
                    "CREATE {}INDEX {} ON public.{} USING btree ({})",
                    if unique { "UNIQUE " } else { "" },
                    quoted(&name),
                    quoted(&t.name),
                    list(&cols)
                );
                self.indexes.push(Index {
                    oid,
                    table,
                    name: name.clone(),
                    keys: cols.iter().map(|(c, _)| num(c)).collect(),
                    unique,
                    primary,
                    definition,
                });
                // only the primary key is a constraint: `jetsql migrate`
                // makes the other unique indexes with CREATE UNIQUE INDEX
                if primary {
                    let coid = next;
                    next += 1;
                    self.constraints.push(Constraint {
                        oid: coid,
                        name,
                        kind: "p",
                        table,
                        index: oid,
                        references: 0,
                        definition: format!("PRIMARY KEY ({})", list(&cols)),
                    });
                }
            };
            if !t.primary_key.is_empty() {
                let cols = t.primary_key.iter().map(|c| (c.clone(), false)).collect();
                add(format!("{}_pkey", t.name), cols, true, true);
            }
            for i in &t.indexes {
                let name = index_names.name(&t.name, &i.name);
                add(name, i.columns.clone(), i.unique, false);
            }
        }
        for fk in &model.foreign_keys {
            let (Some(table), Some(references)) =
                (oid_of(&fk.table, &rels), oid_of(&fk.ref_table, &rels))
            else {
                continue;
            };
            let list = |cols: &[String]| {
                cols.iter()
                    .map(|c| quoted(c))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            self.constraints.push(Constraint {
                oid: next,
                name: fk.name.clone(),
                kind: "f",
                table,
                index: 0,
                references,
                definition: format!(
                    "FOREIGN KEY ({}) REFERENCES {}({}){}",
                    list(&fk.columns),
                    quoted(&fk.ref_table),
                    list(&fk.ref_columns),
                    actions(fk)
                ),
            });
            next += 1;
        }
        self
    }
}

/// A column builder: the field (with `pg.type`, the PostgreSQL type OID
/// it is sent as) and its values.
enum Col {
    Oid(Vec<i64>),
    Name(Vec<Option<String>>),
    Char(Vec<String>),
    Text(Vec<Option<String>>),
    Bool(Vec<bool>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    /// An `int2vector` column (key column numbers): a list of `Int16` to
    /// the engine, `1 2` to clients.
    I16Lists(Vec<Vec<i16>>),
    /// A text array column with no value (`aclitem[]`, `text[]`): its
    /// number of rows.
    NullTextArray(usize),
}

fn batch(columns: Vec<(&str, Col)>) -> (SchemaRef, RecordBatch) {
    let mut fields = Vec::new();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    for (name, col) in columns {
        let (dt, oid, array): (DataType, u32, ArrayRef) = match col {
            Col::Oid(v) => (DataType::Int64, 26, Arc::new(Int64Array::from(v))),
            Col::Name(v) => (DataType::Utf8, 19, Arc::new(StringArray::from(v))),
            Col::Char(v) => (DataType::Utf8, 18, Arc::new(StringArray::from(v))),
            Col::Text(v) => (DataType::Utf8, 25, Arc::new(StringArray::from(v))),
            Col::Bool(v) => (DataType::Boolean, 16, Arc::new(BooleanArray::from(v))),
            Col::I16(v) => (DataType::Int16, 21, Arc::new(Int16Array::from(v))),
            Col::I32(v) => (DataType::Int32, 23, Arc::new(Int32Array::from(v))),
            Col::I16Lists(v) => {
                let item = Arc::new(Field::new_list_field(DataType::Int16, true));
                let list = ListArray::from_iter_primitive::<
                    datafusion::arrow::datatypes::Int16Type,
                    _,
                    _,
                >(
                    v.into_iter()
                        .map(|l| Some(l.into_iter().map(Some).collect::<Vec<_>>())),
                );
                (DataType::List(item), 22, Arc::new(list))
            }
            Col::NullTextArray(n) => {
                let item = Arc::new(Field::new_list_field(DataType::Utf8, true));
                (
                    DataType::List(item.clone()),
                    1009,
                    Arc::new(ListArray::new_null(item, n)),
                )
            }
        };
        fields.push(
            Field::new(name, dt, true)
                .with_metadata(HashMap::from([("pg.type".to_string(), oid.to_string())])),
        );
        arrays.push(array);
    }
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), arrays).expect("columns of equal length");
    (schema, batch)
}

/// The types PostgreSQL clients meet here: OID, name, length, array OID.
pub const TYPES: &[(i64, &str, i16, i64)] = &[
    (16, "bool", 1, 1000),
    (17, "bytea", -1, 1001),
    (18, "char", 1, 1002),
    (19, "name", 64, 1003),
    (20, "int8", 8, 1016),
    (21, "int2", 2, 1005),
    (23, "int4", 4, 1007),
    (25, "text", -1, 1009),
    (26, "oid", 4, 1028),
    (700, "float4", 4, 1021),
    (701, "float8", 8, 1022),
    (1043, "varchar", -1, 1015),
    (1082, "date", 4, 1182),
    (1083, "time", 8, 1183),
    (1114, "timestamp", 8, 1115),
    (1700, "numeric", -1, 1231),
    (2950, "uuid", 16, 2951),
];

/// Every `pg_catalog` table: name, schema and rows.
pub fn pg_catalog(s: &Snapshot) -> Vec<(&'static str, SchemaRef, RecordBatch)> {
    let mut out = Vec::new();
    let mut put =
        |name: &'static str, (schema, b): (SchemaRef, RecordBatch)| out.push((name, schema, b));
    let names = |v: &[&str]| v.iter().map(|x| Some(x.to_string())).collect::<Vec<_>>();
    put(
        "pg_namespace",
        batch(vec![
            (
                "oid",
                Col::Oid(vec![PG_CATALOG, PUBLIC, INFORMATION_SCHEMA]),
            ),
            (
                "nspname",
                Col::Name(names(&["pg_catalog", "public", "information_schema"])),
            ),
            ("nspowner", Col::Oid(vec![10, 10, 10])),
            ("nspacl", Col::NullTextArray(3)),
        ]),
    );
    // relations, then indexes
    let n = s.relations.len() + s.indexes.len();
    let mut oid = Vec::with_capacity(n);
    let mut relname = Vec::with_capacity(n);
    let mut relkind = Vec::with_capacity(n);
    let mut relnatts = Vec::with_capacity(n);
    let mut relhasindex = Vec::with_capacity(n);
    let mut relam = Vec::with_capacity(n);
    for (i, r) in s.relations.iter().enumerate() {
        let o = FIRST_USER_OID + i as i64;
        oid.push(o);
        relname.push(Some(r.name.clone()));
        relkind.push(r.kind.to_string());
        relnatts.push(r.columns.len() as i16);
        relhasindex.push(s.indexes.iter().any(|x| x.table == o));
        relam.push(if r.kind == "r" { 2 } else { 0 });
    }
    for x in &s.indexes {
        oid.push(x.oid);
        relname.push(Some(x.name.clone()));
        relkind.push("i".to_string());
        relnatts.push(x.keys.len() as i16);
        relhasindex.push(false);
        relam.push(403);
    }
    let k = oid.len();
    put(
        "pg_class",
        batch(vec![
            ("oid", Col::Oid(oid)),
            ("relname", Col::Name(relname)),
            ("relnamespace", Col::Oid(vec![PUBLIC; k])),
            ("reltype", Col::Oid(vec![0; k])),
            ("reloftype", Col::Oid(vec![0; k])),
            ("relowner", Col::Oid(vec![10; k])),
            ("relam", Col::Oid(relam)),
            ("relfilenode", Col::Oid(vec![0; k])),
            ("reltablespace", Col::Oid(vec![0; k])),
            ("relpages", Col::I32(vec![0; k])),
            ("reltuples", Col::I32(vec![-1; k])),
            ("reltoastrelid", Col::Oid(vec![0; k])),
            ("relhasindex", Col::Bool(relhasindex)),
            ("relisshared", Col::Bool(vec![false; k])),
            ("relpersistence", Col::Char(vec!["p".into(); k])),
            ("relkind", Col::Char(relkind)),
            ("relnatts", Col::I16(relnatts)),
            ("relchecks", Col::I16(vec![0; k])),
            ("relhasrules", Col::Bool(vec![false; k])),
            ("relhastriggers", Col::Bool(vec![false; k])),
            ("relhassubclass", Col::Bool(vec![false; k])),
            ("relrowsecurity", Col::Bool(vec![false; k])),
            ("relforcerowsecurity", Col::Bool(vec![false; k])),
            ("relispopulated", Col::Bool(vec![true; k])),
            ("relreplident", Col::Char(vec!["d".into(); k])),
            ("relispartition", Col::Bool(vec![false; k])),
            ("relacl", Col::NullTextArray(k)),
            ("reloptions", Col::NullTextArray(k)),
            ("relpartbound", Col::Text(vec![None; k])),
        ]),
    );
    let mut a = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    let mut defs = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, r) in s.relations.iter().enumerate() {
        let rel = FIRST_USER_OID + i as i64;
        for (j, c) in r.columns.iter().enumerate() {
            let len = TYPES
                .iter()
                .find(|t| t.0 == i64::from(c.ty.oid()))
                .map_or(-1, |t| t.2);
            a.0.push(rel);
            a.1.push(Some(c.name.clone()));
            a.2.push(i64::from(c.ty.oid()));
            a.3.push(j as i16 + 1);
            a.4.push(len);
            a.5.push(c.typmod);
            a.6.push(c.not_null);
            a.7.push(c.default.is_some());
            if let Some(d) = &c.default {
                defs.0.push(FIRST_USER_OID * 4 + defs.0.len() as i64);
                defs.1.push(rel);
                defs.2.push(j as i16 + 1);
                defs.3.push(Some(d.clone()));
            }
        }
    }
    let k = a.0.len();
    let collation =
        a.2.iter()
            .map(|t| if matches!(*t, 25 | 1043) { 100 } else { 0 })
            .collect();
    put(
        "pg_attribute",
        batch(vec![
            ("attrelid", Col::Oid(a.0)),
            ("attname", Col::Name(a.1)),
            ("atttypid", Col::Oid(a.2)),
            ("attnum", Col::I16(a.3)),
            ("attlen", Col::I16(a.4)),
            ("atttypmod", Col::I32(a.5)),
            ("attnotnull", Col::Bool(a.6)),
            ("atthasdef", Col::Bool(a.7)),
            ("attisdropped", Col::Bool(vec![false; k])),
            ("attidentity", Col::Char(vec![String::new(); k])),
            ("attgenerated", Col::Char(vec![String::new(); k])),
            ("attcollation", Col::Oid(collation)),
            ("attndims", Col::I16(vec![0; k])),
            ("attstattarget", Col::I16(vec![-1; k])),
        ]),
    );
    put(
        "pg_attrdef",
        batch(vec![
            ("oid", Col::Oid(defs.0)),
            ("adrelid", Col::Oid(defs.1)),
            ("adnum", Col::I16(defs.2)),
            ("adbin", Col::Text(defs.3)),
        ]),
    );
    let k = TYPES.len();
    put(
        "pg_type",
        batch(vec![
            ("oid", Col::Oid(TYPES.iter().map(|t| t.0).collect())),
            (
                "typname",
                Col::Name(TYPES.iter().map(|t| Some(t.1.to_string())).collect()),
            ),
            ("typnamespace", Col::Oid(vec![PG_CATALOG; k])),
            ("typowner", Col::Oid(vec![10; k])),
            ("typlen", Col::I16(TYPES.iter().map(|t| t.2).collect())),
            (
                "typbyval",
                Col::Bool(TYPES.iter().map(|t| (1..=8).contains(&t.2)).collect()),
            ),
            ("typtype", Col::Char(vec!["b".into(); k])),
            (
                "typcategory",
                Col::Char(TYPES.iter().map(|t| category(t.0).to_string()).collect()),
            ),
            ("typisdefined", Col::Bool(vec![true; k])),
            ("typdelim", Col::Char(vec![",".into(); k])),
            ("typrelid", Col::Oid(vec![0; k])),
            ("typelem", Col::Oid(vec![0; k])),
            ("typarray", Col::Oid(TYPES.iter().map(|t| t.3).collect())),
            (
                "typinput",
                Col::Text(TYPES.iter().map(|t| Some(format!("{}in", t.1))).collect()),
            ),
            ("typbasetype", Col::Oid(vec![0; k])),
            ("typtypmod", Col::I32(vec![-1; k])),
            ("typnotnull", Col::Bool(vec![false; k])),
            ("typndims", Col::I32(vec![0; k])),
            (
                "typcollation",
                Col::Oid(
                    TYPES
                        .iter()
                        .map(|t| if matches!(t.0, 25 | 1043) { 100 } else { 0 })
                        .collect(),
                ),
            ),
        ]),
    );
    let k = s.indexes.len();
    put(
        "pg_index",
        batch(vec![
            (
                "indexrelid",
                Col::Oid(s.indexes.iter().map(|x| x.oid).collect()),
            ),
            (
                "indrelid",
                Col::Oid(s.indexes.iter().map(|x| x.table).collect()),
            ),
            (
                "indnatts",
                Col::I16(s.indexes.iter().map(|x| x.keys.len() as i16).collect()),
            ),
            (
                "indnkeyatts",
                Col::I16(s.indexes.iter().map(|x| x.keys.len() as i16).collect()),
            ),
            (
                "indisunique",
                Col::Bool(s.indexes.iter().map(|x| x.unique).collect()),
            ),
            (
                "indisprimary",
                Col::Bool(s.indexes.iter().map(|x| x.primary).collect()),
            ),
            ("indisexclusion", Col::Bool(vec![false; k])),
            ("indimmediate", Col::Bool(vec![true; k])),
            ("indisclustered", Col::Bool(vec![false; k])),
            ("indisvalid", Col::Bool(vec![true; k])),
            ("indisready", Col::Bool(vec![true; k])),
            ("indislive", Col::Bool(vec![true; k])),
            ("indisreplident", Col::Bool(vec![false; k])),
            ("indnullsnotdistinct", Col::Bool(vec![false; k])),
            (
                "indkey",
                Col::I16Lists(s.indexes.iter().map(|x| x.keys.clone()).collect()),
            ),
            (
                "indoption",
                Col::I16Lists(s.indexes.iter().map(|x| vec![0; x.keys.len()]).collect()),
            ),
            (
                "indclass",
                Col::I16Lists(s.indexes.iter().map(|x| vec![0; x.keys.len()]).collect()),
            ),
            ("indexprs", Col::Text(vec![None; k])),
            ("indpred", Col::Text(vec![None; k])),
        ]),
    );
    let c = &s.constraints;
    let k = c.len();
    put(
        "pg_constraint",
        batch(vec![
            ("oid", Col::Oid(c.iter().map(|x| x.oid).collect())),
            (
                "conname",
                Col::Name(c.iter().map(|x| Some(x.name.clone())).collect()),
            ),
            ("connamespace", Col::Oid(vec![PUBLIC; k])),
            (
                "contype",
                Col::Char(c.iter().map(|x| x.kind.to_string()).collect()),
            ),
            ("condeferrable", Col::Bool(vec![false; k])),
            ("condeferred", Col::Bool(vec![false; k])),
            ("convalidated", Col::Bool(vec![true; k])),
            ("conrelid", Col::Oid(c.iter().map(|x| x.table).collect())),
            ("contypid", Col::Oid(vec![0; k])),
            ("conindid", Col::Oid(c.iter().map(|x| x.index).collect())),
            (
                "confrelid",
                Col::Oid(c.iter().map(|x| x.references).collect()),
            ),
            ("conislocal", Col::Bool(vec![true; k])),
            ("coninhcount", Col::I16(vec![0; k])),
            ("connoinherit", Col::Bool(vec![true; k])),
        ]),
    );
    let d = &s.databases;
    let k = d.len();
    put(
        "pg_database",
        batch(vec![
            ("oid", Col::Oid((0..k as i64).map(|i| 16000 + i).collect())),
            (
                "datname",
                Col::Name(d.iter().map(|x| Some(x.clone())).collect()),
            ),
            ("datdba", Col::Oid(vec![10; k])),
            ("encoding", Col::I32(vec![6; k])),
            ("datlocprovider", Col::Char(vec!["c".into(); k])),
            ("datistemplate", Col::Bool(vec![false; k])),
            ("datallowconn", Col::Bool(vec![true; k])),
            ("datconnlimit", Col::I32(vec![-1; k])),
            ("datcollate", Col::Text(vec![Some("C.UTF-8".into()); k])),
            ("datctype", Col::Text(vec![Some("C.UTF-8".into()); k])),
            ("daticulocale", Col::Text(vec![None; k])),
            ("datacl", Col::NullTextArray(k)),
        ]),
    );
    put(
        "pg_am",
        batch(vec![
            ("oid", Col::Oid(vec![2, 403])),
            ("amname", Col::Name(names(&["heap", "btree"]))),
            ("amtype", Col::Char(vec!["t".into(), "i".into()])),
        ]),
    );
    put(
        "pg_collation",
        batch(vec![
            ("oid", Col::Oid(vec![100, 950])),
            ("collname", Col::Name(names(&["default", "C"]))),
            ("collnamespace", Col::Oid(vec![PG_CATALOG; 2])),
        ]),
    );
    put(
        "pg_roles",
        batch(vec![
            ("oid", Col::Oid(vec![10])),
            ("rolname", Col::Name(names(&["jetsql"]))),
            ("rolsuper", Col::Bool(vec![false])),
            ("rolcanlogin", Col::Bool(vec![true])),
        ]),
    );
    put(
        "pg_description",
        batch(vec![
            ("objoid", Col::Oid(vec![])),
            ("classoid", Col::Oid(vec![])),
            ("objsubid", Col::I32(vec![])),
            ("description", Col::Text(vec![])),
        ]),
    );
    put(
        "pg_inherits",
        batch(vec![
            ("inhrelid", Col::Oid(vec![])),
            ("inhparent", Col::Oid(vec![])),
            ("inhseqno", Col::I32(vec![])),
            ("inhdetachpending", Col::Bool(vec![])),
        ]),
    );
    // the default btree operator class of each type served: none other
    put(
        "pg_opclass",
        batch(vec![
            ("oid", Col::Oid(vec![])),
            ("opcmethod", Col::Oid(vec![])),
            ("opcname", Col::Name(vec![])),
            ("opcnamespace", Col::Oid(vec![])),
            ("opcdefault", Col::Bool(vec![])),
        ]),
    );
    put(
        "pg_sequence",
        batch(vec![
            ("seqrelid", Col::Oid(vec![])),
            ("seqtypid", Col::Oid(vec![])),
            ("seqstart", Col::Oid(vec![])),
            ("seqincrement", Col::Oid(vec![])),
            ("seqmax", Col::Oid(vec![])),
            ("seqmin", Col::Oid(vec![])),
            ("seqcache", Col::Oid(vec![])),
            ("seqcycle", Col::Bool(vec![])),
        ]),
    );
    put(
        "pg_tablespace",
        batch(vec![
            ("oid", Col::Oid(vec![1663])),
            ("spcname", Col::Name(names(&["pg_default"]))),
        ]),
    );
    out
}

/// `pg_type.typcategory` of a type OID.
fn category(oid: i64) -> char {
    match oid {
        16 => 'B',
        20 | 21 | 23 | 26 | 700 | 701 | 1700 => 'N',
        1082 | 1083 | 1114 => 'D',
        18 | 19 | 25 | 1043 => 'S',
        _ => 'U',
    }
}

/// `format_type(oid, typmod)`: the type's name as `\d` shows it.
pub fn format_type(oid: i64, typmod: i32) -> Option<String> {
    Some(match oid {
        16 => "boolean".into(),
        17 => "bytea".into(),
        18 => "\"char\"".into(),
        19 => "name".into(),
        20 => "bigint".into(),
        21 => "smallint".into(),
        23 => "integer".into(),
        25 => "text".into(),
        26 => "oid".into(),
        700 => "real".into(),
        701 => "double precision".into(),
        1043 if typmod >= 4 => format!("character varying({})", typmod - 4),
        1043 => "character varying".into(),
        1082 => "date".into(),
        1083 => "time without time zone".into(),
        1114 => "timestamp without time zone".into(),
        1700 if typmod >= 4 => {
            let m = typmod - 4;
            format!("numeric({},{})", m >> 16, m & 0xffff)
        }
        1700 => "numeric".into(),
        2950 => "uuid".into(),
        _ => return None,
    })
}
