//! Access `Like` patterns.
//!
//! Access's wildcards ("Like Operator", learn.microsoft.com/office/vba/
//! language/reference/user-interface-help/like-operator): `*` any run of
//! characters, `?` one character, `#` one digit, `[a-c]` one character in
//! the list, `[!a-c]` one not in it; `[*]`, `[?]`, `[#]`, `[[]` match the
//! character itself. In Access SQL a text comparison ignores case, and so
//! does `Like`.
//!
//! A pattern that uses none of Access's wildcards is read as SQL's
//! (`%`, `_`), which is what Access's ANSI-92 mode does: so both habits
//! work. A pattern with Access wildcards becomes a case-insensitive SQL
//! `ILIKE` when it needs only `*` and `?`, otherwise an anchored regular
//! expression.

/// What a literal `Like` pattern becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LikePlan {
    /// `ILIKE pattern` (SQL wildcards, `\` escapes).
    ILike(String),
    /// `~* regex` (anchored, dot matches newlines).
    Regex(String),
}

/// Translates an Access pattern; `None` when it is malformed (an
/// unclosed `[`).
pub fn translate(pattern: &str) -> Option<LikePlan> {
    let access = pattern.contains(['*', '?', '#', '[']);
    if !access {
        return Some(LikePlan::ILike(pattern.to_string()));
    }
    if !pattern.contains(['#', '[']) {
        let mut out = String::with_capacity(pattern.len() + 4);
        for c in pattern.chars() {
            match c {
                '*' => out.push('%'),
                '?' => out.push('_'),
                '%' | '_' | '\\' => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
        return Some(LikePlan::ILike(out));
    }
    let mut re = String::from("(?s)^");
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '#' => re.push_str("[0-9]"),
            '[' => {
                let close = chars[i + 1..].iter().position(|&c| c == ']')? + i + 1;
                let body = &chars[i + 1..close];
                re.push_str(&class(body));
                i = close;
            }
            c => push_escaped(&mut re, c),
        }
        i += 1;
    }
    re.push('$');
    Some(LikePlan::Regex(re))
}

fn push_escaped(re: &mut String, c: char) {
    if c.is_ascii_punctuation() || c == ' ' {
        re.push('\\');
    }
    re.push(c);
}

/// A bracket list as a regex class: `!` first negates, `a-c` is a range,
/// everything else is literal.
fn class(body: &[char]) -> String {
    let (negated, body) = match body.first() {
        Some('!') if body.len() > 1 => (true, &body[1..]),
        _ => (false, body),
    };
    if body.is_empty() {
        // `[]` matches the empty string in Access: nothing to consume
        return String::new();
    }
    let mut out = String::from(if negated { "[^" } else { "[" });
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if i + 2 < body.len() && body[i + 1] == '-' {
            push_class_char(&mut out, c);
            out.push('-');
            push_class_char(&mut out, body[i + 2]);
            i += 3;
            continue;
        }
        push_class_char(&mut out, c);
        i += 1;
    }
    out.push(']');
    out
}

fn push_class_char(out: &mut String, c: char) {
    if matches!(c, '\\' | ']' | '[' | '^' | '-' | '&' | '~') {
        out.push('\\');
    }
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::common::Result;

    fn matches(pattern: &str, text: &str) -> bool {
        match translate(pattern).expect("pattern") {
            LikePlan::Regex(r) => regex_is_match(&format!("(?i){r}"), text),
            LikePlan::ILike(p) => {
                // SQL LIKE, case-insensitive, through the same regex engine
                let mut r = String::from("(?is)^");
                let mut chars = p.chars();
                while let Some(c) = chars.next() {
                    match c {
                        '%' => r.push_str(".*"),
                        '_' => r.push('.'),
                        '\\' => push_escaped(&mut r, chars.next().unwrap_or('\\')),
                        c => push_escaped(&mut r, c),
                    }
                }
                r.push('$');
                regex_is_match(&r, text)
            }
        }
    }

    fn regex_is_match(re: &str, text: &str) -> bool {
        let run = || -> Result<bool> {
            use datafusion::arrow::array::{Array, BooleanArray, StringArray};
            use datafusion::arrow::compute::kernels::comparison::regexp_is_match_scalar;
            let a = StringArray::from(vec![text]);
            let out: BooleanArray = regexp_is_match_scalar(&a, re, None)?;
            Ok(out.value(0) && !out.is_null(0))
        };
        run().expect("regex")
    }

    // The examples of the "Like Operator" page (VBA language reference):
    // "aBBBa" Like "a*a" is True; "F" Like "[A-Z]" True; "F" Like "[!A-Z]"
    // False; "a2a" Like "a#a" True; "aM5b" Like "a[L-P]#[!c-e]" True;
    // "BAT123khg" Like "B?T*" True; "CAT123khg" Like "B?T*" False;
    // "ab" Like "a*b" True; "a*b" Like "a[*]b" True; "axxxxxb" Like "a[*]b"
    // False.
    #[test]
    fn documented_examples() {
        assert!(matches("a*a", "aBBBa"));
        assert!(matches("[A-Z]", "F"));
        assert!(!matches("[!A-Z]", "F"));
        assert!(matches("a#a", "a2a"));
        assert!(matches("a[L-P]#[!c-e]", "aM5b"));
        assert!(matches("B?T*", "BAT123khg"));
        assert!(!matches("B?T*", "CAT123khg"));
        assert!(matches("a*b", "ab"));
        assert!(matches("a[*]b", "a*b"));
        assert!(!matches("a[*]b", "axxxxxb"));
    }

    #[test]
    fn case_and_sql_wildcards() {
        assert!(matches("mountain-100*", "Mountain-100 Silver, 38"));
        assert!(matches("%silver%", "Mountain-100 Silver, 38"));
        assert!(matches("50[%]", "50%"));
        assert!(!matches("50[%]", "500"));
        assert!(matches("a.b*", "a.bc"));
        assert!(!matches("a.b*", "axbc"));
        assert!(matches("line*", "line1\nline2"));
        assert_eq!(translate("[abc"), None);
    }
}
