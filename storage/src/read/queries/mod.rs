//! Saved queries: the rows of the system table `MSysQueries`, joined to
//! their names in `MSysObjects`, rebuilt into Access SQL text.
//!
//! Access does not store a saved query's text. It stores the query as
//! attribute rows in `MSysQueries` (one row per table, output column, join,
//! ordering, …, all keyed by the query's object id), and rebuilds the text
//! when the query is opened in SQL view. This module does the same, following
//! the conventions of Jackcess (`com.healthmarketscience.jackcess.impl.query`):
//! clauses on separate lines, identifiers that hold anything other than
//! ASCII letters, digits and `_` in brackets, and a closing `;` on every
//! query but data-definition and pass-through ones (whose text is stored
//! whole and returned as stored, less the NUL that ends it). Two
//! departures from Jackcess: `TOP n` is kept beside `DISTINCT` or
//! `DISTINCTROW` (Jackcess drops it, Access writes both), and where Jackcess
//! would print `null` for a missing part (a join without an ON condition, a
//! crosstab without a PIVOT column, …) the query is reported unreadable.
//!
//! ```no_run
//! use jet_storage::{Database, OpenOptions};
//! let db = Database::open("nwind.mdb", OpenOptions::default())?;
//! for q in db.queries()? {
//!     match &q.problem {
//!         None => println!("{} ({}):\n{}", q.name, q.kind, q.sql),
//!         Some(p) => println!("unreadable: {p}"),
//!     }
//! }
//! # Ok::<(), jet_storage::Error>(())
//! ```
//!
//! The rebuild is total on untrusted rows: a row set that does not describe
//! a query (a missing union part, two WHERE rows, a join of an unknown
//! type, too many joins, …) gives a [`SavedQuery`] whose
//! [`problem`](SavedQuery::problem) names the query and what is wrong;
//! it never panics and does work linear in the rows (joins, the one nested
//! structure, are capped at [`MAX_JOINS`]).

mod joins;
mod rows;
mod sql;

use crate::catalog::ObjectKind;
use crate::database::Database;
use crate::error::{Error, Result};

pub use crate::error::QueryError;
pub use sql::MAX_JOINS;

/// One row of `MSysQueries`, as the rebuild reads it: every field is
/// optional because every column of the table may be NULL (and `LvExtra`
/// does not exist in Jet3 files).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryRow {
    /// `Attribute`: what the row describes (1 type, 2 parameter, 3 flags,
    /// 4 remote database, 5 input table, 6 output column, 7 join, 8 WHERE,
    /// 9 GROUP BY, 10 HAVING, 11 ORDER BY; 0 and 255 open and close the
    /// query). `None` when NULL or outside 0–255.
    pub attribute: Option<u8>,
    /// `Expression`: an expression, ON condition, union part or stored text.
    pub expression: Option<String>,
    /// `Flag`: the query type, select flags, join type, parameter type, …
    pub flag: Option<i16>,
    /// `LvExtra`: the size of a Text parameter (Jet4 and later).
    pub extra: Option<i32>,
    /// `Name1`: a table, alias, parameter name, TOP count, "D" for DESC, …
    pub name1: Option<String>,
    /// `Name2`: an alias, target column, union part id, …
    pub name2: Option<String>,
}

/// The kind of a saved query, from its `MSysObjects` flags (bits 4–7), or,
/// where those say "select", from the type its `MSysQueries` type row
/// records (as Jackcess decides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueryKind {
    /// `SELECT …`.
    Select,
    /// `… UNION [ALL] …`.
    Union,
    /// `TRANSFORM … SELECT … PIVOT …`.
    Crosstab,
    /// `INSERT INTO … SELECT …` or `INSERT INTO … VALUES (…)`.
    Append,
    /// `UPDATE … SET …`.
    Update,
    /// `DELETE … FROM …`.
    Delete,
    /// `SELECT … INTO …`.
    MakeTable,
    /// `CREATE TABLE`, `ALTER TABLE`, … stored as text.
    DataDefinition,
    /// SQL sent unchanged to an ODBC source, stored as text.
    PassThrough,
    /// A type this reader does not rebuild (SQL-specific bulk, compound or
    /// procedure queries): the value of the `MSysObjects` flags bits 4–7.
    Unknown(u8),
}

impl QueryKind {
    /// Whether the query returns rows (select, union, crosstab) rather
    /// than changing data or the schema.
    pub fn is_select_like(self) -> bool {
        matches!(
            self,
            QueryKind::Select | QueryKind::Union | QueryKind::Crosstab
        )
    }

    /// The kind whose `MSysObjects` flags bits 4–7 are `bits` (`flags & 0xF0`).
    pub fn from_object_flag(bits: u8) -> QueryKind {
        match bits {
            0 => QueryKind::Select,
            16 => QueryKind::Crosstab,
            32 => QueryKind::Delete,
            48 => QueryKind::Update,
            64 => QueryKind::Append,
            80 => QueryKind::MakeTable,
            96 => QueryKind::DataDefinition,
            112 => QueryKind::PassThrough,
            128 => QueryKind::Union,
            other => QueryKind::Unknown(other),
        }
    }

    /// The value of `MSysObjects` flags bits 4–7 for this kind.
    pub fn object_flag(self) -> u8 {
        match self {
            QueryKind::Select => 0,
            QueryKind::Crosstab => 16,
            QueryKind::Delete => 32,
            QueryKind::Update => 48,
            QueryKind::Append => 64,
            QueryKind::MakeTable => 80,
            QueryKind::DataDefinition => 96,
            QueryKind::PassThrough => 112,
            QueryKind::Union => 128,
            QueryKind::Unknown(bits) => bits,
        }
    }

    /// The kind whose type row (attribute 1) carries `flag`, if any.
    pub fn from_row_type(flag: i16) -> Option<QueryKind> {
        Some(match flag {
            1 => QueryKind::Select,
            2 => QueryKind::MakeTable,
            3 => QueryKind::Append,
            4 => QueryKind::Update,
            5 => QueryKind::Delete,
            6 => QueryKind::Crosstab,
            7 => QueryKind::DataDefinition,
            8 => QueryKind::PassThrough,
            9 => QueryKind::Union,
            _ => return None,
        })
    }

    /// The `Flag` of this kind's type row (attribute 1); `None` for
    /// [`QueryKind::Unknown`].
    pub fn row_type(self) -> Option<i16> {
        Some(match self {
            QueryKind::Select => 1,
            QueryKind::MakeTable => 2,
            QueryKind::Append => 3,
            QueryKind::Update => 4,
            QueryKind::Delete => 5,
            QueryKind::Crosstab => 6,
            QueryKind::DataDefinition => 7,
            QueryKind::PassThrough => 8,
            QueryKind::Union => 9,
            QueryKind::Unknown(_) => return None,
        })
    }
}

impl std::fmt::Display for QueryKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryKind::Select => f.write_str("select"),
            QueryKind::Union => f.write_str("union"),
            QueryKind::Crosstab => f.write_str("crosstab"),
            QueryKind::Append => f.write_str("append"),
            QueryKind::Update => f.write_str("update"),
            QueryKind::Delete => f.write_str("delete"),
            QueryKind::MakeTable => f.write_str("make-table"),
            QueryKind::DataDefinition => f.write_str("data-definition"),
            QueryKind::PassThrough => f.write_str("pass-through"),
            QueryKind::Unknown(bits) => write!(f, "unknown (type flags {bits})"),
        }
    }
}

/// A saved query of a database, rebuilt from its `MSysQueries` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedQuery {
    /// Name, as in `MSysObjects`.
    pub name: String,
    /// Object id (`MSysObjects.Id`, the key of its `MSysQueries` rows).
    pub id: i32,
    /// Kind.
    pub kind: QueryKind,
    /// Whether Access hides the query: its name starts with `~sq_` (a
    /// query behind a form, report or control) or its `MSysObjects` flags
    /// carry the hidden bit (0x08).
    pub hidden: bool,
    /// Declared parameters in order: name as stored (brackets included
    /// when stored so) and declared type (`Text`, `Text(50)`, `Long`,
    /// `DateTime`, `Value`, …). Empty for data-definition and pass-through
    /// queries, and when the query is unreadable.
    pub parameters: Vec<(String, String)>,
    /// The ODBC connect string of a pass-through query; `None` otherwise.
    pub connect: Option<String>,
    /// The Access SQL text. Empty exactly when `problem` is set.
    pub sql: String,
    /// Why the query could not be rebuilt; `None` when `sql` holds its text.
    pub problem: Option<QueryError>,
}

impl SavedQuery {
    /// The SQL text, or the reason it could not be rebuilt as an
    /// [`Error::Query`].
    pub fn checked_sql(&self) -> Result<&str> {
        match &self.problem {
            None => Ok(&self.sql),
            Some(p) => Err(Error::Query(p.clone())),
        }
    }
}

/// Rebuilds one saved query from its `MSysObjects` name and flags and its
/// `MSysQueries` rows in table order. A pure function: it never panics,
/// and on rows that do not describe a query it returns the query with
/// [`SavedQuery::problem`] set (and empty `sql` and `parameters`).
pub fn rebuild(name: &str, id: i32, object_flags: u32, rows: &[QueryRow]) -> SavedQuery {
    let kind = sql::kind_for(object_flags, rows);
    let hidden = object_flags & 0x08 != 0 || name.starts_with("~sq_");
    let mut q = SavedQuery {
        name: name.to_string(),
        id,
        kind,
        hidden,
        parameters: Vec::new(),
        connect: None,
        sql: String::new(),
        problem: None,
    };
    let built = if rows.is_empty() {
        Err("it has no rows in MSysQueries".to_string())
    } else {
        sql::build(kind, rows)
    };
    match built {
        Ok(b) => {
            q.sql = b.sql;
            q.parameters = b.parameters;
            q.connect = b.connect;
        }
        Err(what) => {
            q.problem = Some(QueryError {
                query: name.to_string(),
                what,
            })
        }
    }
    q
}

impl Database {
    /// Every saved query of the database, in catalog order, each rebuilt
    /// into Access SQL (see [`rebuild`]). A query whose rows do not
    /// describe a query is listed with [`SavedQuery::problem`] set; an
    /// error is returned only when `MSysQueries` itself cannot be read (a
    /// damaged page, a column of the wrong type). A database without
    /// saved queries gives an empty list; one whose catalog lists queries
    /// but that has no `MSysQueries` table lists them, each with a problem.
    pub fn queries(&self) -> Result<Vec<SavedQuery>> {
        let entries: Vec<_> = self
            .catalog()
            .iter()
            .filter(|e| e.kind == ObjectKind::Query)
            .collect();
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let by_id = rows::read_rows(self)?;
        Ok(entries
            .into_iter()
            .map(|e| match &by_id {
                Some(map) => {
                    let rows = map.get(&e.id).map(Vec::as_slice).unwrap_or(&[]);
                    rebuild(&e.name, e.id, e.flags, rows)
                }
                None => {
                    let mut q = rebuild(&e.name, e.id, e.flags, &[]);
                    q.problem = Some(QueryError {
                        query: e.name.clone(),
                        what: "the database has no MSysQueries table".into(),
                    });
                    q
                }
            })
            .collect())
    }

    /// The saved query named `name` (case-insensitive, as Access compares),
    /// rebuilt. Refuses with [`Error::Query`] when there is no such query
    /// or its rows do not describe a query.
    pub fn query(&self, name: &str) -> Result<SavedQuery> {
        let mut all = self.queries()?;
        let lower = name.to_lowercase();
        let found = all
            .iter()
            .position(|q| q.name == name)
            .or_else(|| all.iter().position(|q| q.name.to_lowercase() == lower));
        let Some(i) = found else {
            return Err(Error::Query(QueryError {
                query: name.to_string(),
                what: "no saved query of that name".into(),
            }));
        };
        let q = all.swap_remove(i);
        match &q.problem {
            Some(p) => Err(Error::Query(p.clone())),
            None => Ok(q),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_rows_is_a_problem_not_a_panic() {
        let q = rebuild("a\nb", 7, 0, &[]);
        let p = q.problem.expect("problem");
        assert_eq!(
            p.to_string(),
            "saved query \"a\\u{a}b\": it has no rows in MSysQueries"
        );
        assert!(q.sql.is_empty());
    }

    #[test]
    fn hidden_by_name_or_flag() {
        let rows = [QueryRow {
            attribute: Some(1),
            flag: Some(7),
            expression: Some("DROP TABLE t\0".into()),
            ..QueryRow::default()
        }];
        let q = rebuild("~sq_ffrm", 1, 96, &rows);
        assert!(q.hidden);
        assert_eq!(q.sql, "DROP TABLE t");
        assert!(rebuild("x", 1, 96 | 8, &rows).hidden);
        assert!(!rebuild("x", 1, 96, &rows).hidden);
    }

    #[test]
    fn kinds_round_trip() {
        for bits in (0..=240).step_by(16) {
            let k = QueryKind::from_object_flag(bits);
            assert_eq!(k.object_flag(), bits);
            if let Some(t) = k.row_type() {
                assert_eq!(QueryKind::from_row_type(t), Some(k));
            }
        }
        assert!(QueryKind::Crosstab.is_select_like());
        assert!(!QueryKind::MakeTable.is_select_like());
    }
}
