//! Splitting input into statements: SQL statements end with `;` outside
//! quotes and comments; a line that starts with `\` (where a statement
//! would start) is a meta-command and ends at the end of its line.

/// One unit of work read from a script or the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A SQL statement without its terminating `;`.
    Sql(String),
    /// A meta-command line without its leading `\`, trimmed.
    Meta(String),
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

/// Splits `text` into items. Returns the items and the trailing text that
/// is not yet a complete statement (no terminating `;`), trimmed; empty
/// when everything was complete.
pub fn split(text: &str) -> (Vec<Item>, String) {
    let (items, rest) = split_lines(text);
    (items.into_iter().map(|(_, i)| i).collect(), rest)
}

/// The 1-based line of `text` on which the item starting at byte `start`
/// begins (its first non-blank character).
fn line_at(text: &str, start: usize) -> usize {
    let lead = text[start..].len() - text[start..].trim_start().len();
    text[..start + lead].matches('\n').count() + 1
}

/// [`split`], each item with the line it starts on.
pub fn split_lines(text: &str) -> (Vec<(usize, Item)>, String) {
    let mut items = Vec::new();
    let mut state = State::Code;
    let mut start = 0usize;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match state {
            State::Code => {
                if text[start..i].trim().is_empty() && c == '\\' {
                    let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                    items.push((
                        line_at(text, i),
                        Item::Meta(text[i + 1..end].trim().to_string()),
                    ));
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
                    '-' if chars.peek().is_some_and(|&(_, n)| n == '-') => {
                        chars.next();
                        state = State::LineComment;
                    }
                    '/' if chars.peek().is_some_and(|&(_, n)| n == '*') => {
                        chars.next();
                        state = State::BlockComment;
                    }
                    ';' => {
                        let stmt = text[start..i].trim();
                        if !is_blank_sql(stmt) {
                            items.push((line_at(text, start), Item::Sql(stmt.to_string())));
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
    let rest = text[start..].trim();
    let rest = if is_blank_sql(rest) { "" } else { rest };
    (items, rest.to_string())
}

/// Whether `s` holds nothing but whitespace and complete comments.
fn is_blank_sql(s: &str) -> bool {
    let mut rest = s.trim_start();
    loop {
        if rest.is_empty() {
            return true;
        }
        if let Some(r) = rest.strip_prefix("--") {
            match r.find('\n') {
                Some(n) => rest = r[n..].trim_start(),
                None => return true,
            }
        } else if let Some(r) = rest.strip_prefix("/*") {
            match r.find("*/") {
                Some(n) => rest = r[n + 2..].trim_start(),
                None => return false,
            }
        } else {
            return false;
        }
    }
}

/// Whether the prompt buffer `text` is ready to run: it ends with a
/// complete statement or meta-command, or holds nothing.
pub fn is_complete(text: &str) -> bool {
    split(text).1.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sql(s: &str) -> Item {
        Item::Sql(s.to_string())
    }

    #[test]
    fn statements_end_at_semicolons_outside_quotes_and_comments() {
        let (items, rest) =
            split("select 1; select ';' as \"a;b\" -- x;y\n, [c;d] from t /* ; */;\nselect 2");
        assert_eq!(
            items,
            vec![
                sql("select 1"),
                sql("select ';' as \"a;b\" -- x;y\n, [c;d] from t /* ; */")
            ]
        );
        assert_eq!(rest, "select 2");
    }

    #[test]
    fn meta_commands_are_lines_at_statement_starts() {
        let (items, rest) = split("\\d\n  \\d Orders \nselect '\\d';\\timing\n");
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
        assert!(is_complete(""));
        assert!(is_complete("  -- just a comment"));
        assert!(is_complete("select 1;"));
        assert!(is_complete("\\d"));
        assert!(!is_complete("select 1"));
        assert!(!is_complete("select ';"));
        assert!(!is_complete("select 1 /* ; "));
        assert!(is_complete("select 1; -- done"));
    }
}
