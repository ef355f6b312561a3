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
/// doubled in MySQL, where it escapes by default).
pub fn string(t: Target, s: &str) -> String {
    let s = s.replace('\'', "''");
    match t {
        Target::Mysql => format!("'{}'", s.replace('\\', "\\\\")),
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
        assert_eq!(string(Target::Mysql, "a\\b'"), "'a\\\\b'''");
        assert_eq!(bytes(Target::Postgres, &[1, 0xAB]), "'\\x01AB'::bytea");
        assert_eq!(cut("Umsätze", 5), "Umsä");
        assert_eq!(cut("Umsätze", 4), "Ums");
    }
}
