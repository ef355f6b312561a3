//! The statement-shape check: before a statement is parsed, its text is
//! scanned once (no recursion, linear time) and a statement too deeply
//! nested, with too long an operator chain or too many query blocks is
//! refused with a message naming the measure and its limit. Parsing,
//! planning and dropping a statement recurse over its tree; these limits
//! keep every tree small enough to answer within seconds on any thread.

use datafusion::error::{DataFusionError, Result};

/// Deepest nesting of parentheses a statement may have.
pub const MAX_NESTING: usize = 40;

/// Most binary operators (`+`, `||`, `&`, `AND`, `OR`, comparisons, …)
/// and set operators (`UNION`, `INTERSECT`, `EXCEPT`) one expression
/// level may chain (between two commas or parentheses). Planning an
/// Access `&` chain grows faster than its length (100 terms: 0.3 s, 400:
/// 22 s, measured on the release build), so the limit is low.
pub const MAX_CHAIN: usize = 200;

/// Most `SELECT`s (query blocks: subqueries, `UNION` branches, CTEs) one
/// statement may hold.
pub const MAX_SELECTS: usize = 500;

/// What one statement measured.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Deepest parenthesis nesting.
    pub nesting: usize,
    /// Longest operator chain at one level.
    pub chain: usize,
    /// `SELECT` keywords.
    pub selects: usize,
}

/// How the text of a statement is read: as Access SQL or as DataFusion's
/// SQL (the session's dialect; this module names its own so that it does
/// not import the Access front end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Access SQL: `--` starts a comment only before whitespace, `/*` is
    /// no comment (a division sign and `*`), `Eqv` and `Imp` are
    /// operators.
    Access,
    /// DataFusion's SQL.
    DataFusion,
}

/// Measures every statement of `sql` (split at `;` outside quotes) and
/// returns the largest of each measure.
pub fn measure(sql: &str) -> Vec<Shape> {
    measure_in(sql, Reading::DataFusion)
}

/// [`measure`] reading `sql` as `reading` says: in the Access dialect
/// `--` starts a comment only before whitespace (`30--7` is arithmetic,
/// and what follows it is measured), `/*` starts none (what follows it
/// is measured too), and `Eqv` and `Imp` are operators.
pub fn measure_in(sql: &str, reading: Reading) -> Vec<Shape> {
    let access = reading == Reading::Access;
    let mut out = Vec::new();
    let mut cur = Shape::default();
    // operator counts, one per open parenthesis level
    let mut levels: Vec<usize> = vec![0];
    let b = sql.as_bytes();
    let mut i = 0;
    let bump = |levels: &mut Vec<usize>, cur: &mut Shape| {
        if let Some(top) = levels.last_mut() {
            *top += 1;
            cur.chain = cur.chain.max(*top);
        }
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'`' | b'[' => {
                let close = if c == b'[' { b']' } else { c };
                i += 1;
                while i < b.len() {
                    if b[i] == close {
                        // a doubled quote is one quote inside the text
                        if close != b']' && b.get(i + 1) == Some(&close) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
                continue;
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && (!access || sql[i + 2..].chars().next().is_some_and(char::is_whitespace)) =>
            {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if !access && b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'(' => {
                levels.push(0);
                cur.nesting = cur.nesting.max(levels.len() - 1);
            }
            b')' if levels.len() > 1 => {
                levels.pop();
            }
            b')' => {}
            b',' => {
                if let Some(top) = levels.last_mut() {
                    *top = 0;
                }
            }
            b';' => {
                out.push(cur);
                cur = Shape::default();
                levels.clear();
                levels.push(0);
            }
            b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'&' | b'\\' | b'=' | b'<' | b'>' | b'|'
            | b'!' => {
                // a run of operator characters (`||`, `<=`, `<>`) is one operator
                let mut j = i + 1;
                while j < b.len() && matches!(b[j], b'|' | b'=' | b'>' | b'<') {
                    j += 1;
                }
                bump(&mut levels, &mut cur);
                i = j;
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80)
                {
                    i += 1;
                }
                let word = &sql[start..i];
                if word.eq_ignore_ascii_case("select") {
                    cur.selects += 1;
                } else if [
                    "and",
                    "or",
                    "xor",
                    "mod",
                    "union",
                    "intersect",
                    "except",
                    "like",
                ]
                .iter()
                .any(|k| word.eq_ignore_ascii_case(k))
                    || (access
                        && (word.eq_ignore_ascii_case("eqv") || word.eq_ignore_ascii_case("imp")))
                {
                    bump(&mut levels, &mut cur);
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(cur);
    out
}

/// Refuses `sql` when one of its statements exceeds [`MAX_NESTING`],
/// [`MAX_CHAIN`] or [`MAX_SELECTS`]; the error names the measure, its
/// value and the limit.
pub fn check(sql: &str) -> Result<()> {
    check_in(sql, Reading::DataFusion)
}

/// [`check`] reading `sql` as `reading` says (see [`measure_in`]).
pub fn check_in(sql: &str, reading: Reading) -> Result<()> {
    for s in measure_in(sql, reading) {
        if s.nesting > MAX_NESTING {
            return Err(too(format!(
                "statement too deeply nested: {} levels of parentheses, the limit is {MAX_NESTING}",
                s.nesting
            )));
        }
        if s.chain > MAX_CHAIN {
            return Err(too(format!(
                "statement too long a chain: {} operators in one expression (or UNION branches), \
                 the limit is {MAX_CHAIN}; split it, or use IN (…) for a list of values",
                s.chain
            )));
        }
        if s.selects > MAX_SELECTS {
            return Err(too(format!(
                "statement has too many query blocks: {} SELECTs (subqueries, UNION branches, CTEs), \
                 the limit is {MAX_SELECTS}",
                s.selects
            )));
        }
    }
    Ok(())
}

fn too(msg: String) -> DataFusionError {
    DataFusionError::Plan(msg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_nesting_chains_and_selects() {
        let s = measure("SELECT ((1 + 2) * 3), 'a(((' || \"b))\" FROM [x(] WHERE a = 1 AND b < 2");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].nesting, 2);
        // `||`, `=`, AND, `<` at the top level after the comma
        assert_eq!(s[0].chain, 4);
        assert_eq!(s[0].selects, 1);
        let s = measure("SELECT 1 UNION ALL SELECT 2; SELECT 'it''s; (' -- ((\n");
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].chain, s[0].selects), (1, 2));
        assert_eq!((s[1].nesting, s[1].chain, s[1].selects), (0, 0, 1));
    }

    #[test]
    fn access_double_minus_is_measured_as_operators() {
        // `--(` in Access is two minus signs and a parenthesis, not a comment
        let sql = format!("SELECT 1--{}1{}", "(".repeat(41), ")".repeat(41));
        assert_eq!(measure(&sql)[0].nesting, 0);
        assert_eq!(measure_in(&sql, Reading::Access)[0].nesting, 41);
        assert!(check_in(&sql, Reading::Access).is_err());
        // `-- ` is a comment in both
        let sql = format!("SELECT 1 -- {}\n", "(".repeat(41));
        assert_eq!(measure_in(&sql, Reading::Access)[0].nesting, 0);
        // Eqv and Imp chain like And
        let sql = format!("SELECT a{}", " Eqv a Imp a".repeat(101));
        assert_eq!(measure_in(&sql, Reading::Access)[0].chain, 202);
        assert_eq!(measure(&sql)[0].chain, 0);
    }

    #[test]
    fn access_slash_star_is_measured_as_operators() {
        // `/*` in Access is a division sign and `*`: what follows counts,
        // and a `;` after it ends the statement
        let sql = format!("SELECT 1 /* {}1{} */", "(".repeat(41), ")".repeat(41));
        assert_eq!(measure(&sql)[0].nesting, 0);
        assert_eq!(measure_in(&sql, Reading::Access)[0].nesting, 41);
        assert!(check_in(&sql, Reading::Access).is_err());
        assert_eq!(measure("SELECT 1 /* ; */").len(), 1);
        assert_eq!(measure_in("SELECT 1 /* ; */", Reading::Access).len(), 2);
    }

    #[test]
    fn refuses_past_each_limit_and_names_it() {
        let deep = format!("SELECT {}1{}", "(".repeat(41), ")".repeat(41));
        let e = check(&deep).unwrap_err().to_string();
        assert!(e.contains("41 levels") && e.contains("limit is 40"), "{e}");
        assert!(check(&format!("SELECT {}1{}", "(".repeat(40), ")".repeat(40))).is_ok());
        let chain = format!("SELECT 1{}", " + 1".repeat(201));
        let e = check(&chain).unwrap_err().to_string();
        assert!(e.contains("201 operators"), "{e}");
        assert!(check(&format!("SELECT 1{}", " + 1".repeat(200))).is_ok());
        let unions = format!("SELECT 1{}", " UNION ALL SELECT 1".repeat(150));
        assert!(check(&unions).is_ok());
        let ctes: Vec<String> = (0..600).map(|i| format!("c{i} AS (SELECT 1)")).collect();
        let unions = format!("WITH {} SELECT 1", ctes.join(", "));
        let e = check(&unions).unwrap_err().to_string();
        assert!(
            e.contains("601 SELECTs") && e.contains("limit is 500"),
            "{e}"
        );
        // a long IN list is a list, not a chain
        let list: Vec<String> = (0..50_000).map(|i| i.to_string()).collect();
        assert!(check(&format!("SELECT 1 WHERE 1 IN ({})", list.join(","))).is_ok());
    }
}
