//! Saved queries: the rows of the system table `MSysQueries`, joined to
//! their names in `MSysObjects`, rebuilt into Access SQL text.
//!
//! Exports: [`SavedQuery`], [`QueryKind`], [`QueryRow`], [`rebuild`] and
//! [`MAX_JOINS`].
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
mod kind;
mod quote;
mod rows;
mod sql;

use crate::error::{Error, QueryError, Result};
use crate::read::database::Database;
use crate::schema::catalog::ObjectKind;

pub use joins::MAX_JOINS;
pub use kind::QueryKind;
pub use rows::QueryRow;

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
