//! Helpers shared by the saved-query tests (`queries.rs`,
//! `queries_rows.rs`): corpus paths, `MSysQueries` row builders and
//! row strategies.
#![allow(dead_code)]

use jet_storage::read::queries::rebuild;
use jet_storage::{Database, OpenOptions, QueryKind, QueryRow};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// The corpus directory: `$JET_CORPUS`, else `../../shared/corpus` from the crate.
pub fn corpus_root() -> Option<PathBuf> {
    let root = std::env::var_os("JET_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if root.is_dir() {
        return Some(root);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("corpus {} is missing under CI", root.display());
    }
    eprintln!("skipping: corpus {} not found", root.display());
    None
}

pub fn corpus_file(rel: &str) -> Option<PathBuf> {
    let p = corpus_root()?.join(rel);
    if p.exists() {
        return Some(p);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("corpus file {} is missing under CI", p.display());
    }
    eprintln!("skipping: corpus file {} not found", p.display());
    None
}

/// Whitespace runs made one space, ends trimmed.
pub fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn open(path: &Path) -> Database {
    Database::open(path, OpenOptions::default())
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

pub const TYPE: u8 = 1;
pub const PARAMETER: u8 = 2;
pub const FLAGS: u8 = 3;
pub const REMOTE: u8 = 4;
pub const TABLE: u8 = 5;
pub const COLUMN: u8 = 6;
pub const JOIN: u8 = 7;
pub const WHERE: u8 = 8;
pub const GROUP_BY: u8 = 9;
pub const HAVING: u8 = 10;
pub const ORDER_BY: u8 = 11;

pub fn row(
    attribute: u8,
    expression: Option<&str>,
    flag: Option<i16>,
    extra: Option<i32>,
    name1: Option<&str>,
    name2: Option<&str>,
) -> QueryRow {
    QueryRow {
        attribute: Some(attribute),
        expression: expression.map(str::to_string),
        flag,
        extra,
        name1: name1.map(str::to_string),
        name2: name2.map(str::to_string),
    }
}

/// Jackcess's `newRow(attr, expr, name1, name2)`.
pub fn r4(a: u8, e: Option<&str>, n1: Option<&str>, n2: Option<&str>) -> QueryRow {
    row(a, e, None, None, n1, n2)
}

/// Jackcess's `newRow(attr, expr, flag, name1, name2)`.
pub fn r5(a: u8, e: Option<&str>, f: i16, n1: Option<&str>, n2: Option<&str>) -> QueryRow {
    row(a, e, Some(f), None, n1, n2)
}

/// A query under test, as Jackcess's `newQuery` makes it: a type row
/// first, then `rows`, with the kind's object flag.
pub struct TestQuery {
    pub flags: u32,
    pub rows: Vec<QueryRow>,
}

impl TestQuery {
    pub fn new(kind: QueryKind, type_expr: Option<&str>, type_name1: Option<&str>) -> Self {
        TestQuery {
            flags: u32::from(kind.object_flag()),
            rows: vec![row(
                TYPE,
                type_expr,
                kind.row_type(),
                None,
                type_name1,
                None,
            )],
        }
    }
    pub fn add(&mut self, rows: impl IntoIterator<Item = QueryRow>) -> &mut Self {
        self.rows.extend(rows);
        self
    }
    pub fn remove(&mut self, attribute: u8) -> &mut Self {
        self.rows.retain(|r| r.attribute != Some(attribute));
        self
    }
    pub fn replace(&mut self, r: QueryRow) -> &mut Self {
        let a = r.attribute.unwrap_or(0);
        self.remove(a).add([r])
    }
    pub fn set_flag(&mut self, f: i16) -> &mut Self {
        self.replace(row(FLAGS, None, Some(f), None, None, None))
    }
    pub fn sql(&self) -> String {
        let q = rebuild("TestQuery", 13, self.flags, &self.rows);
        if let Some(p) = &q.problem {
            panic!("unexpected problem: {p}");
        }
        q.sql
    }
    pub fn expect(&self, lines: &[&str]) {
        assert_eq!(norm(&self.sql()), norm(&lines.join("\n")));
    }
    pub fn expect_problem(&self) {
        let q = rebuild("TestQuery", 13, self.flags, &self.rows);
        let p = q.problem.expect("a problem");
        assert!(q.sql.is_empty());
        let text = p.to_string();
        assert!(text.contains("TestQuery"), "{text}");
        println!("refused as expected: {text}");
    }
}

pub fn any_text() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        2 => Just(None),
        3 => prop::sample::select(vec![
            "T1", "T2", "t1", "T3", "A B", "[T4]", "x.y", ".", "", "X7YZ_____1",
            "X7YZ_____2", "D", "d", "5", "a\r\nb", "\0", "é", "T1.c = T2.c",
        ])
        .prop_map(|s| Some(s.to_string())),
        1 => "\\PC{0,12}".prop_map(Some),
    ]
}

pub fn any_flag() -> impl Strategy<Value = Option<i16>> {
    prop_oneof![
        1 => Just(None),
        3 => (0i16..=12).prop_map(Some),
        1 => prop::sample::select(vec![-1i16, i16::MIN, 0x31, 0x3F, 0x18, 0x7FFF])
            .prop_map(Some),
        1 => any::<i16>().prop_map(Some),
    ]
}

pub fn any_row() -> impl Strategy<Value = QueryRow> {
    (
        prop_oneof![
            1 => Just(None),
            8 => (0u8..=11).prop_map(Some),
            1 => Just(Some(255)),
            1 => any::<u8>().prop_map(Some),
        ],
        any_text(),
        any_flag(),
        prop::option::of(-2i32..300),
        any_text(),
        any_text(),
    )
        .prop_map(
            |(attribute, expression, flag, extra, name1, name2)| QueryRow {
                attribute,
                expression,
                flag,
                extra,
                name1,
                name2,
            },
        )
}

pub fn any_object_flags() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => prop::sample::select(vec![0u32, 16, 32, 48, 64, 80, 96, 112, 128, 8, 0x50 | 8]),
        1 => any::<u32>(),
    ]
}

/// What every rebuild must hold, whatever its rows.
pub fn check_invariants(q: &jet_storage::SavedQuery) {
    assert_eq!(q.problem.is_some(), q.sql.is_empty(), "{q:?}");
    if let Some(p) = &q.problem {
        assert!(q.parameters.is_empty());
        let text = p.to_string();
        assert!(!text.contains("Some(") && !text.contains("None"), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    } else if !matches!(q.kind, QueryKind::DataDefinition | QueryKind::PassThrough) {
        assert!(q.sql.ends_with(';'), "{}", q.sql);
    }
}
