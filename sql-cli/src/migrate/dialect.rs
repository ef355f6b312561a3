//! Names and literals written the way each target reads them.

use super::types::Target;

/// `name` quoted as an identifier of `t`: `"…"` with `"` doubled, or
/// `` `…` `` with `` ` `` doubled in MySQL.
pub fn ident(t: Target, name: &str) -> String {
    match t {
        Target::Mysql => format!("`{}`", name.replace('`', "``")),
        _ => format!("\"{}\"", name.replace('"', "\"\"")),
    }
}

/// `s` as a string literal of `t`: `'…'` with `'` doubled (and `\`
/// doubled in MySQL, where it escapes by default). In SQLite, whose
/// literals have no escapes, a carriage return or NUL is written as
/// `char(13)` / `char(0)` joined to the rest with `||`, in parentheses:
/// the `sqlite3` shell drops a carriage return before a line's end, and
/// reads no NUL.
pub fn string(t: Target, s: &str) -> String {
    let s = s.replace('\'', "''");
    match t {
        Target::Mysql => format!("'{}'", s.replace('\\', "\\\\")),
        Target::Sqlite if s.contains(['\r', '\0']) => {
            let mut out = String::from("('");
            for ch in s.chars() {
                match ch {
                    '\r' => out.push_str("' || char(13) || '"),
                    '\0' => out.push_str("' || char(0) || '"),
                    c => out.push(c),
                }
            }
            out.push_str("')");
            out
        }
        _ => format!("'{s}'"),
    }
}

/// Bytes as a literal of `t`.
pub fn bytes(t: Target, b: &[u8]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02X}")).collect();
    match t {
        Target::Sqlite | Target::Mysql => format!("X'{hex}'"),
        Target::Postgres => format!("'\\x{hex}'::bytea"),
        Target::Duckdb => format!("from_hex('{hex}')"),
    }
}

/// A Boolean literal of `t`.
pub fn boolean(t: Target, b: bool) -> &'static str {
    match (t, b) {
        (Target::Sqlite, true) => "1",
        (Target::Sqlite, false) => "0",
        (_, true) => "TRUE",
        (_, false) => "FALSE",
    }
}

/// The longest identifier `t` keeps (PostgreSQL cuts names at 63 bytes);
/// `None` when there is no practical limit.
pub fn max_ident_bytes(t: Target) -> Option<usize> {
    match t {
        Target::Postgres => Some(63),
        Target::Mysql => Some(64),
        _ => None,
    }
}

/// `name` cut to at most `max` bytes on a character boundary.
pub fn cut(name: &str, max: usize) -> &str {
    if name.len() <= max {
        return name;
    }
    let mut end = max;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_doubles_the_quote() {
        assert_eq!(
            ident(Target::Postgres, "Order \"X\""),
            "\"Order \"\"X\"\"\""
        );
        assert_eq!(ident(Target::Mysql, "a`b"), "`a``b`");
        assert_eq!(string(Target::Sqlite, "it's"), "'it''s'");
        assert_eq!(
            string(Target::Sqlite, "a\r\nb\0"),
            "('a' || char(13) || '\nb' || char(0) || '')"
        );
        assert_eq!(string(Target::Mysql, "a\\b'"), "'a\\\\b'''");
        assert_eq!(bytes(Target::Postgres, &[1, 0xAB]), "'\\x01AB'::bytea");
        assert_eq!(cut("Umsätze", 5), "Umsä");
        assert_eq!(cut("Umsätze", 4), "Ums");
    }
}
