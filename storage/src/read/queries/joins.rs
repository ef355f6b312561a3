//! The FROM list: input tables (attribute 5) combined by joins
//! (attribute 7) into nested join expressions, as Jackcess nests them.
//!
//! Each join row names its two tables (by alias where the table has one).
//! Sources start as the input tables in order; a join takes the sources
//! holding its two tables out of the list (a name absent from every source
//! becomes a new table source) and appends the join of the two. A join
//! whose two tables already lie in one join of the same type adds its
//! condition to that join (conditions then read `(c2) AND (c1)`, newest
//! first). Joins below the top level are parenthesised.

use super::quote::{alias_to, optional_quoted_to, quoted_to};
use super::rows::QueryRow;
use crate::error::printable;

/// The most joins one query may have; a query with more is reported
/// unreadable rather than rebuilt (Access itself allows far fewer).
pub const MAX_JOINS: usize = 256;

/// A table source of the FROM list.
enum Source {
    /// One input table: the name it is joined by (its alias, else its
    /// name) and its rendered text.
    Table { key: Option<String>, text: String },
    /// A join of two sources.
    Join {
        left: Box<Source>,
        right: Box<Source>,
        kind: i16,
        /// ON conditions, in rendered order.
        on: Vec<String>,
    },
}

impl Source {
    /// A table source for a name that only a join row mentions.
    fn named(name: &str) -> Source {
        let mut text = String::new();
        optional_quoted_to(&mut text, name, true);
        Source::Table {
            key: Some(name.to_string()),
            text,
        }
    }

    /// Whether `table` is this source or one of the tables it joins
    /// (case-insensitive). Walks the tree with an explicit stack.
    fn contains(&self, table: &str) -> bool {
        let mut stack = vec![self];
        while let Some(s) = stack.pop() {
            match s {
                Source::Table { key: Some(k), .. } => {
                    if eq_ignore_case(k, table) {
                        return true;
                    }
                }
                Source::Table { key: None, .. } => {}
                Source::Join { left, right, .. } => {
                    stack.push(right);
                    stack.push(left);
                }
            }
        }
        false
    }

    /// Appends the source's SQL. Recursion depth is at most the number of
    /// joins, which the caller caps at [`MAX_JOINS`].
    fn render(&self, out: &mut String, top: bool) -> Result<(), String> {
        match self {
            Source::Table { text, .. } => out.push_str(text),
            Source::Join {
                left,
                right,
                kind,
                on,
            } => {
                let word = match kind {
                    1 => " INNER JOIN ",
                    2 => " LEFT JOIN ",
                    3 => " RIGHT JOIN ",
                    other => return Err(format!("a join has the unknown join type {other}")),
                };
                if !top {
                    out.push('(');
                }
                left.render(out, false)?;
                out.push_str(word);
                right.render(out, false)?;
                out.push_str(" ON ");
                if on.len() > 1 {
                    out.push('(');
                }
                out.push_str(&on.join(") AND ("));
                if on.len() > 1 {
                    out.push(')');
                }
                if !top {
                    out.push(')');
                }
            }
        }
        Ok(())
    }
}

/// Whether `a` and `b` are equal ignoring case.
pub(crate) fn eq_ignore_case(a: &str, b: &str) -> bool {
    a == b
        || a.chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase))
}

/// The FROM list's items, rendered: the input tables `tables` combined by
/// the join rows `joins`. Refuses more than [`MAX_JOINS`] joins, a join
/// row without both table names, type or condition, and a join whose
/// tables are already joined with another join type.
pub(crate) fn from_list(tables: &[&QueryRow], joins: &[&QueryRow]) -> Result<Vec<String>, String> {
    if joins.len() > MAX_JOINS {
        return Err(format!(
            "it has {} joins; at most {MAX_JOINS} are rebuilt",
            joins.len()
        ));
    }
    let mut list: Vec<Source> = Vec::with_capacity(tables.len() + joins.len());
    for t in tables {
        let mut text = String::new();
        if let Some(e) = &t.expression {
            quoted_to(&mut text, e);
            text.push('.');
        }
        if let Some(n) = &t.name1 {
            optional_quoted_to(&mut text, n, true);
        }
        alias_to(&mut text, t.name2.as_deref());
        let key = t.name2.clone().or_else(|| t.name1.clone());
        list.push(Source::Table { key, text });
    }
    for (n, j) in joins.iter().enumerate() {
        let n = n + 1;
        let (Some(from), Some(to)) = (j.name1.as_deref(), j.name2.as_deref()) else {
            return Err(format!("join {n} does not name both of its tables"));
        };
        let Some(kind) = j.flag else {
            return Err(format!(
                "the join of \"{}\" and \"{}\" has no join type",
                printable(from),
                printable(to)
            ));
        };
        let Some(on) = j.expression.clone() else {
            return Err(format!(
                "the join of \"{}\" and \"{}\" has no ON condition",
                printable(from),
                printable(to)
            ));
        };
        let mut from_at = None;
        let mut to_at = None;
        let mut both_in_one = false;
        for (i, s) in list.iter().enumerate() {
            if from_at.is_some() && to_at.is_some() {
                break;
            }
            if from_at.is_none() && s.contains(from) {
                from_at = Some(i);
                if to_at.is_none() && s.contains(to) {
                    to_at = Some(i);
                    both_in_one = true;
                    break;
                }
            } else if to_at.is_none() && s.contains(to) {
                to_at = Some(i);
            }
        }
        if both_in_one {
            let joined = from_at.and_then(|i| list.get_mut(i));
            match joined {
                Some(Source::Join {
                    kind: k, on: conds, ..
                }) if *k == kind => conds.insert(0, on),
                _ => {
                    return Err(format!(
                        "the joins of \"{}\" and \"{}\" have inconsistent join types",
                        printable(from),
                        printable(to)
                    ));
                }
            }
            continue;
        }
        // take the two sources out, the later index first
        let mut take = |at: Option<usize>| at.filter(|&i| i < list.len()).map(|i| list.remove(i));
        let (left, right) = match (from_at, to_at) {
            (Some(a), Some(b)) if a > b => {
                let l = take(Some(a));
                (l, take(Some(b)))
            }
            (a, b) => {
                let r = take(b);
                (take(a), r)
            }
        };
        list.push(Source::Join {
            left: Box::new(left.unwrap_or_else(|| Source::named(from))),
            right: Box::new(right.unwrap_or_else(|| Source::named(to))),
            kind,
            on: vec![on],
        });
    }
    list.iter()
        .map(|s| {
            let mut out = String::new();
            s.render(&mut out, true).map(|()| out)
        })
        .collect()
}
