//! Splitting input into statements: SQL statements end with `;` outside
//! quotes and comments; a line that starts with `\` (where a statement
//! would start) is a meta-command and ends at the end of its line.
//!
//! What is a comment depends on the session's SQL dialect, as the
//! provider reads it: in DataFusion's SQL `--` runs to the end of the
//! line and `/* */` encloses one; Access SQL has no comments, and jetsql
//! reads `--` before whitespace as one (its scripts and `jetsql dump`
//! write `-- note` lines) but `--` before anything else as two minus
//! signs (`SELECT 30--7;` ends at its `;`), and `/*` as a division sign
//! followed by `*`.

use jet_provider::SqlDialect;

/// One unit of work read from a script or the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A SQL statement without its terminating `;`.
    Sql(String),
    /// A meta-command line without its leading `\`, trimmed.
    Meta(String),
}

/// An item with where it lies in the text it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The 1-based line its first non-blank character is on.
    pub line: usize,
    /// The byte just past it: after a statement's `;`, at the end of a
    /// meta-command's line.
    pub end: usize,
    /// The item.
    pub item: Item,
}

/// Lexical state while scanning SQL text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    Single,
    Double,
    Bracket,
    Backtick,
    LineComment,
    BlockComment,
}

/// Splits `text`, read in `dialect`, into items. Returns the items and
/// the trailing text that is not yet a complete statement (no
/// terminating `;`), trimmed; empty when everything was complete.
pub fn split(text: &str, dialect: SqlDialect) -> (Vec<Item>, String) {
    let (items, rest) = split_placed(text, dialect);
    (items.into_iter().map(|p| p.item).collect(), rest)
}

/// The 1-based line of `text` on which the item starting at byte `start`
/// begins (its first non-blank character).
fn line_at(text: &str, start: usize) -> usize {
    let lead = text[start..].len() - text[start..].trim_start().len();
    text[..start + lead].matches('\n').count() + 1
}

/// Whether `--` at byte `i` of `text` starts a comment in `dialect`: in
/// Access SQL only before whitespace.
fn line_comment_at(text: &str, i: usize, dialect: SqlDialect) -> bool {
    text[i..].starts_with("--")
        && (dialect != SqlDialect::Access
            || text[i + 2..]
                .chars()
                .next()
                .is_some_and(char::is_whitespace))
}

/// Whether `/*` at byte `i` of `text` starts a comment in `dialect`: never
/// in Access SQL.
fn block_comment_at(text: &str, i: usize, dialect: SqlDialect) -> bool {
    dialect != SqlDialect::Access && text[i..].starts_with("/*")
}

/// [`split`], each item with its line and end ([`Placed`]).
pub fn split_placed(text: &str, dialect: SqlDialect) -> (Vec<Placed>, String) {
    let mut items = Vec::new();
    let mut state = State::Code;
    let mut start = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match state {
            State::Code => {
                if text[start..i].trim().is_empty() && c == '\\' {
                    let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                    items.push(Placed {
                        line: line_at(text, i),
                        end,
                        item: Item::Meta(text[i + 1..end].trim().to_string()),
                    });
                    start = end;
                    while chars.peek().is_some_and(|&(j, _)| j < end) {
                        chars.next();
                    }
                    continue;
                }
                match c {
                    '\'' => state = State::Single,
                    '"' => state = State::Double,
                    '[' => state = State::Bracket,
                    '`' => state = State::Backtick,
                    '-' if line_comment_at(text, i, dialect) => {
                        chars.next();
                        state = State::LineComment;
                    }
                    '/' if block_comment_at(text, i, dialect) => {
                        chars.next();
                        state = State::BlockComment;
                    }
                    ';' => {
                        // blank or not as written: `--` before a line
                        // break is a comment in Access SQL, before the end
                        // of the trimmed text it would not be
                        let stmt = &text[start..i];
                        if !is_blank_sql(stmt, dialect) {
                            items.push(Placed {
                                line: line_at(text, start),
                                end: i + 1,
                                item: Item::Sql(stmt.trim().to_string()),
                            });
                        }
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            State::Single if c == '\'' => state = State::Code,
            State::Double if c == '"' => state = State::Code,
            State::Bracket if c == ']' => state = State::Code,
            State::Backtick if c == '`' => state = State::Code,
            State::LineComment if c == '\n' => state = State::Code,
            State::BlockComment if c == '*' && chars.peek().is_some_and(|&(_, n)| n == '/') => {
                chars.next();
                state = State::Code;
            }
            _ => {}
        }
    }
    let rest = &text[start..];
    let rest = if is_blank_sql(rest, dialect) {
        ""
    } else {
        rest.trim()
    };
    (items, rest.to_string())
}

/// Whether `s` holds nothing but whitespace and complete comments of
/// `dialect`.
fn is_blank_sql(s: &str, dialect: SqlDialect) -> bool {
    let mut rest = s.trim_start();
    loop {
        if rest.is_empty() {
            return true;
        }
        if line_comment_at(rest, 0, dialect) {
            match rest.find('\n') {
                Some(n) => rest = rest[n..].trim_start(),
                None => return true,
            }
        } else if block_comment_at(rest, 0, dialect) {
            match rest[2..].find("*/") {
                Some(n) => rest = rest[n + 4..].trim_start(),
                None => return false,
            }
        } else {
            return false;
        }
    }
}

/// Whether the prompt buffer `text`, read in `dialect`, is ready to run:
/// it ends with a complete statement or meta-command, or holds nothing.
pub fn is_complete(text: &str, dialect: SqlDialect) -> bool {
    split(text, dialect).1.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACCESS: SqlDialect = SqlDialect::Access;
    const DATAFUSION: SqlDialect = SqlDialect::DataFusion;

    fn sql(s: &str) -> Item {
        Item::Sql(s.to_string())
    }

    #[test]
    fn statements_end_at_semicolons_outside_quotes_and_comments() {
        let (items, rest) = split(
            "select 1; select ';' as \"a;b\" -- x;y\n, [c;d] from t /* ; */;\nselect 2",
            DATAFUSION,
        );
        assert_eq!(
            items,
            vec![
                sql("select 1"),
                sql("select ';' as \"a;b\" -- x;y\n, [c;d] from t /* ; */")
            ]
        );
        assert_eq!(rest, "select 2");
        // `-- ` is a comment in Access SQL too
        let (items, rest) = split("select 1 -- x;y\n, [c;d] from t;", ACCESS);
        assert_eq!(items, vec![sql("select 1 -- x;y\n, [c;d] from t")]);
        assert_eq!(rest, "");
    }

    #[test]
    fn access_has_no_comments_but_dash_dash_space() {
        // `30--7` is 30 - (-7): the `;` after it ends the statement
        let (items, rest) = split("SELECT 30--7;\nSELECT 2;", ACCESS);
        assert_eq!(items, vec![sql("SELECT 30--7"), sql("SELECT 2")]);
        assert_eq!(rest, "");
        assert!(is_complete("SELECT 30--7;", ACCESS));
        // DataFusion's SQL reads `--7;` as a comment
        assert!(!is_complete("SELECT 30--7;", DATAFUSION));
        assert_eq!(split("SELECT 30--7;\nSELECT 2;", DATAFUSION).0.len(), 1);
        // `/*` is a division sign and `*` in Access: the `;` ends it
        let (items, rest) = split("SELECT 1 /* ; */;", ACCESS);
        assert_eq!(items, vec![sql("SELECT 1 /*"), sql("*/")]);
        assert_eq!(rest, "");
        assert!(!is_complete("SELECT 1 /* ; ", DATAFUSION));
        assert!(is_complete("SELECT 1 /* ; ", ACCESS));
        // `--` at the end of a line is followed by the line break: a
        // comment; at the very end of the text it is not
        assert!(is_complete("SELECT 1;--\n", ACCESS));
        assert!(!is_complete("SELECT 1;--", ACCESS));
        assert!(is_complete("SELECT 1;--", DATAFUSION));
        // blank text is blank in both, a lone `/* */` only in DataFusion's
        assert!(is_complete("  -- just a comment", ACCESS));
        assert!(is_complete("/* note */", DATAFUSION));
        assert!(!is_complete("/* note */", ACCESS));
    }

    #[test]
    fn items_know_their_line_and_end() {
        let text = "\\d\nselect 1;\n\n  select\n2;";
        let (items, rest) = split_placed(text, ACCESS);
        assert_eq!(rest, "");
        let got: Vec<(usize, usize)> = items.iter().map(|p| (p.line, p.end)).collect();
        assert_eq!(got, vec![(1, 2), (2, 12), (4, text.len())]);
        assert_eq!(&text[items[0].end..items[1].end], "\nselect 1;");
    }

    #[test]
    fn meta_commands_are_lines_at_statement_starts() {
        let (items, rest) = split("\\d\n  \\d Orders \nselect '\\d';\\timing\n", ACCESS);
        assert_eq!(
            items,
            vec![
                Item::Meta("d".into()),
                Item::Meta("d Orders".into()),
                sql("select '\\d'"),
                Item::Meta("timing".into()),
            ]
        );
        assert_eq!(rest, "");
    }

    #[test]
    fn completeness() {
        for d in [ACCESS, DATAFUSION] {
            assert!(is_complete("", d));
            assert!(is_complete("  -- just a comment", d));
            assert!(is_complete("select 1;", d));
            assert!(is_complete("\\d", d));
            assert!(!is_complete("select 1", d));
            assert!(!is_complete("select ';", d));
            assert!(is_complete("select 1; -- done", d));
        }
        assert!(!is_complete("select 1 /* ; ", DATAFUSION));
    }
}
