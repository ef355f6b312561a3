//! Access's DELETE target list: `DELETE Orders.* FROM Orders WHERE …`
//! (and `DELETE * FROM …`, `DELETE Table1.col1, Table1.col2 FROM Table1
//! …`). Access deletes whole rows whatever the list names, so the list
//! (lifted out by the pre-lexer) goes when it names only the one table of
//! the FROM clause. A DELETE over a join (Access deletes the rows of one
//! table that have partners in the others) is refused.
//!
//! (`SELECT … INTO t`, the make-table form, is `CREATE TABLE t AS SELECT`:
//! see the select rewrite.)

use crate::error::refuse;
use datafusion::error::Result;
use datafusion::sql::sqlparser::ast::{Delete, FromTable, TableFactor, TableWithJoins};

/// One name part without its brackets or quotes.
fn bare(part: &str) -> &str {
    let p = part.trim();
    for (a, b) in [('[', ']'), ('"', '"'), ('`', '`')] {
        if let Some(inner) = p.strip_prefix(a).and_then(|r| r.strip_suffix(b)) {
            return inner;
        }
    }
    p
}

/// The table part of a DELETE target (`T.*`, `T.col`, `T`; `*` has none),
/// split at the first dot outside brackets and quotes.
fn target_table(target: &str) -> Option<&str> {
    let t = target.trim();
    if t == "*" {
        return None;
    }
    let mut quote: Option<char> = None;
    for (i, c) in t.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '[') => quote = Some(']'),
            (None, '"' | '`') => quote = Some(c),
            (None, '.') => return Some(bare(&t[..i])),
            _ => {}
        }
    }
    Some(bare(t))
}

/// The name and alias of the only table of a FROM clause without joins.
fn single_table(from: &[TableWithJoins]) -> Option<(String, Option<String>)> {
    let [t] = from else { return None };
    if !t.joins.is_empty() {
        return None;
    }
    match &t.relation {
        TableFactor::Table { name, alias, .. } => Some((
            name.0.last().map(|p| p.to_string()).unwrap_or_default(),
            alias.as_ref().map(|a| a.name.value.clone()),
        )),
        _ => None,
    }
}

/// Checks Access's DELETE target list (lifted by the pre-lexer) against
/// the statement's FROM clause: every target must name its one table.
pub(crate) fn check_delete_targets(d: &Delete, targets: &[String]) -> Result<()> {
    if targets.is_empty() {
        return Ok(());
    }
    let from = match &d.from {
        FromTable::WithFromKeyword(f) | FromTable::WithoutKeyword(f) => f,
    };
    let Some((table, alias)) = single_table(from) else {
        return Err(refuse(
            "DELETE … FROM with a join is not supported (Access would delete the rows of one table \
             that have partners in the others; write DELETE FROM table WHERE key IN (…) instead); \
             no row changed",
        ));
    };
    let table = bare(&table).to_string();
    for t in targets {
        let Some(named) = target_table(t) else {
            continue;
        };
        let names_it = named.eq_ignore_ascii_case(&table)
            || alias
                .as_ref()
                .is_some_and(|a| named.eq_ignore_ascii_case(a));
        if !names_it {
            return Err(refuse(format!(
                "DELETE {t} FROM {table}: the target names another table than the one rows are \
                 deleted from; no row changed"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_target_tables_are_read_through_brackets() {
        assert_eq!(target_table("[Order Details].*"), Some("Order Details"));
        assert_eq!(target_table("Table1.col1"), Some("Table1"));
        assert_eq!(target_table("[a.b].[c]"), Some("a.b"));
        assert_eq!(target_table("Orders"), Some("Orders"));
        assert_eq!(target_table("*"), None);
    }
}
