//! Brackets around names in rebuilt SQL, shared by the statement builder
//! (`sql`) and the FROM list (`joins`): a name is bracketed where it holds
//! anything but ASCII letters, digits and `_`, an identifier part by part,
//! and an alias follows ` AS `.

/// Whether `s` needs brackets: it holds a character other than an ASCII
/// letter, digit or `_`.
fn needs_brackets(s: &str) -> bool {
    s.chars().any(|c| !(c.is_ascii_alphanumeric() || c == '_'))
}

/// Whether `s` is already in brackets.
fn is_bracketed(s: &str) -> bool {
    s.len() >= 2 && s.starts_with('[') && s.ends_with(']')
}

/// Appends `s` in brackets unless it already is.
pub(crate) fn quoted_to(out: &mut String, s: &str) {
    if is_bracketed(s) {
        out.push_str(s);
    } else {
        out.push('[');
        out.push_str(s);
        out.push(']');
    }
}

/// Appends `s`, bracketed where it needs brackets. An `identifier` is
/// taken as dot-separated parts each bracketed on its own (empty trailing
/// parts dropped, as Java's `String.split` drops them).
pub(crate) fn optional_quoted_to(out: &mut String, s: &str, identifier: bool) {
    let mut parts: Vec<&str> = if identifier {
        s.split('.').collect()
    } else {
        vec![s]
    };
    if identifier {
        while parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        if parts.len() == 1 && parts[0].is_empty() && !s.is_empty() {
            parts.clear();
        }
    }
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        if needs_brackets(p) {
            quoted_to(out, p);
        } else {
            out.push_str(p);
        }
    }
}

/// Appends ` AS alias` when there is an alias (bracketed as a whole where
/// it needs brackets).
pub(crate) fn alias_to(out: &mut String, alias: Option<&str>) {
    if let Some(a) = alias {
        out.push_str(" AS ");
        optional_quoted_to(out, a, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_bracketed_per_part() {
        let q = |s: &str, id: bool| {
            let mut o = String::new();
            optional_quoted_to(&mut o, s, id);
            o
        };
        assert_eq!(q("Table1", true), "Table1");
        assert_eq!(q("Order Details", true), "[Order Details]");
        assert_eq!(q("a b.c", true), "[a b].c");
        assert_eq!(q("Some.Alias", false), "[Some.Alias]");
        assert_eq!(q("[x y]", false), "[x y]");
        assert_eq!(q("a.", true), "a");
        assert_eq!(q(".", true), "");
        assert_eq!(q("", true), "");
    }
}
