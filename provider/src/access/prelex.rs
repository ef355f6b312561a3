//! The clauses of Access SQL that sqlparser has no grammar for, lifted out
//! before parsing: the text splits into statements at top-level `;`, and
//! in each statement `PARAMETERS …;` (a leading declaration),
//! `DISTINCTROW`, `TRANSFORM <aggregate>` (before the SELECT), `PIVOT
//! <expr> [IN (…)]` (after it) and the target list of `DELETE <targets>
//! FROM` are replaced by spaces of the same length,
//! so every position the parser reports is still a position in the text
//! the user typed. What was lifted is kept with its offset.
//!
//! Access SQL has no comments. `--` before whitespace stays a comment to
//! the end of the line (jetsql's scripts and `jetsql dump` write them),
//! but `--` before anything else is two minus signs (`30--7`), and `/*`
//! is a division sign followed by `*`: a `;` after either ends the
//! statement, and [`slash_star`] finds the `/*` the front end refuses.

/// One statement of the script, with what was lifted from it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Piece {
    /// Byte offset of the statement in the script.
    pub offset: usize,
    /// The statement's text with the lifted clauses blanked.
    pub text: String,
    /// `PARAMETERS` declarations: (name, type text).
    pub parameters: Vec<(String, String)>,
    /// Whether `DISTINCTROW` was written.
    pub distinctrow: bool,
    /// `TRANSFORM`'s aggregate expression and its offset in `text`.
    pub transform: Option<(String, usize)>,
    /// `PIVOT`'s text after the keyword (expression and optional IN list)
    /// and its offset in `text`.
    pub pivot: Option<(String, usize)>,
    /// The target list of `DELETE <targets> FROM …` (`Orders.*`,
    /// `Table1.col1, Table1.col2`): its top-level items as typed.
    pub delete_targets: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Word,
    Semicolon,
    Other,
}

/// Top-level tokens: (kind, start, end). Strings, bracketed and quoted
/// names and comments (`-- ` to the end of the line) are single `Other`
/// tokens; `/` and `*` are tokens of their own.
fn tokens(s: &str) -> Vec<(Tok, usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let until = |from: usize, close: u8| -> usize {
        let mut j = from;
        while j < b.len() {
            if b[j] == close {
                // doubled quote = escaped quote
                if (close == b'\'' || close == b'"') && b.get(j + 1) == Some(&close) {
                    j += 2;
                    continue;
                }
                return j + 1;
            }
            j += 1;
        }
        b.len()
    };
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match c {
            b'\'' | b'"' | b'`' => {
                i = until(i + 1, c);
                Tok::Other
            }
            b'[' => {
                i = until(i + 1, b']');
                Tok::Other
            }
            // `--` comments only before whitespace, as the Access dialect
            // tokenizes (`30--7` is 30 - (-7))
            b'-' if b.get(i + 1) == Some(&b'-')
                && s[i + 2..].chars().next().is_some_and(char::is_whitespace) =>
            {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                Tok::Other
            }
            b';' => {
                i += 1;
                Tok::Semicolon
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric()
                        || b[i] == b'_'
                        || b[i] == b'$'
                        || b[i] >= 0x80)
                {
                    i += 1;
                }
                Tok::Word
            }
            _ => {
                i += 1;
                Tok::Other
            }
        };
        if !c.is_ascii_whitespace() {
            out.push((kind, start, i));
        }
    }
    out
}

/// The byte offset of the first `/*` in `text` outside strings, names
/// and `-- ` comments, if any. Access SQL has no `/* */` comments: there
/// the pair is a division sign followed by `*`, which no statement can
/// hold, and the front end says so rather than reading it as a comment.
pub fn slash_star(text: &str) -> Option<usize> {
    tokens(text)
        .windows(2)
        .find(|w| w[0].2 == w[1].1 && &text[w[0].1..w[0].2] == "/" && &text[w[1].1..w[1].2] == "*")
        .map(|w| w[0].1)
}

fn word_is(s: &str, t: &(Tok, usize, usize), w: &str) -> bool {
    t.0 == Tok::Word && s[t.1..t.2].eq_ignore_ascii_case(w)
}

fn blank(text: &mut String, from: usize, to: usize) {
    let replaced: String = text[from..to]
        .chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect();
    // same byte length: every blanked character becomes as many spaces as
    // it had bytes
    let mut spaced = String::with_capacity(to - from);
    for (c, orig) in replaced.chars().zip(text[from..to].chars()) {
        for _ in 0..orig.len_utf8() {
            spaced.push(c);
        }
    }
    text.replace_range(from..to, &spaced);
}

/// Splits `script` into statements and lifts the Access-only clauses.
pub fn split(script: &str) -> Vec<Piece> {
    let toks = tokens(script);
    let mut pieces = Vec::new();
    let mut start_tok = 0;
    let mut start = 0;
    let mut i = 0;
    while i <= toks.len() {
        let end_here = i == toks.len() || toks[i].0 == Tok::Semicolon;
        // a PARAMETERS declaration ends at its own ';'
        let is_params = i == start_tok && i < toks.len() && word_is(script, &toks[i], "PARAMETERS");
        if is_params {
            let mut j = i + 1;
            while j < toks.len() && toks[j].0 != Tok::Semicolon {
                j += 1;
            }
            let decl_end = toks.get(j).map_or(script.len(), |t| t.2);
            pieces.push(Piece {
                offset: start,
                text: String::new(),
                parameters: declarations(script, &toks[i + 1..j.min(toks.len())]),
                ..Piece::default()
            });
            // the declaration belongs to the statement that follows it
            start_tok = j + 1;
            start = decl_end;
            i = j + 1;
            let _ = decl_end;
            continue;
        }
        if end_here {
            let end = toks.get(i).map_or(script.len(), |t| t.1);
            let stmt_toks = &toks[start_tok..i];
            if !stmt_toks.is_empty() {
                let mut piece = lift(script, start, end, stmt_toks);
                // attach a preceding PARAMETERS declaration
                if let Some(prev) = pieces.last()
                    && prev.text.is_empty()
                    && !prev.parameters.is_empty()
                    && let Some(prev) = pieces.pop()
                {
                    piece.parameters = prev.parameters;
                }
                pieces.push(piece);
            }
            start = toks.get(i).map_or(script.len(), |t| t.2);
            start_tok = i + 1;
        }
        i += 1;
    }
    // a declaration with no statement after it
    pieces.retain(|p| !p.text.trim().is_empty() || !p.parameters.is_empty());
    pieces
}

fn declarations(s: &str, toks: &[(Tok, usize, usize)]) -> Vec<(String, String)> {
    // name type[(n)], name type, …
    let mut out = Vec::new();
    let mut group: Vec<&(Tok, usize, usize)> = Vec::new();
    let flush = |group: &mut Vec<&(Tok, usize, usize)>, out: &mut Vec<(String, String)>| {
        if let Some((first, rest)) = group.split_first() {
            let raw = &s[first.1..first.2];
            let name = raw
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim_matches('"')
                .to_string();
            let ty = match (rest.first(), rest.last()) {
                (Some(a), Some(b)) => s[a.1..b.2].to_string(),
                _ => String::new(),
            };
            out.push((name, ty));
        }
        group.clear();
    };
    let mut depth = 0i32;
    for t in toks {
        let text = &s[t.1..t.2];
        if text == "(" {
            depth += 1;
        } else if text == ")" {
            depth -= 1;
        }
        if text == "," && depth == 0 {
            flush(&mut group, &mut out);
        } else {
            group.push(t);
        }
    }
    flush(&mut group, &mut out);
    out
}

fn lift(script: &str, start: usize, end: usize, toks: &[(Tok, usize, usize)]) -> Piece {
    let mut text = script[start..end].to_string();
    let mut piece = Piece {
        offset: start,
        ..Piece::default()
    };
    let rel = |t: &(Tok, usize, usize)| (t.1 - start, t.2 - start);
    for t in toks {
        if word_is(script, t, "DISTINCTROW") {
            piece.distinctrow = true;
            let (a, b) = rel(t);
            blank(&mut text, a, b);
        }
    }
    if let Some(first) = toks.first()
        && word_is(script, first, "DELETE")
        && let Some(second) = toks.get(1)
        && !word_is(script, second, "FROM")
        && let Some(from) = top_level_word(script, &toks[1..], "FROM")
    {
        let (a, _) = rel(second);
        let (b, _) = rel(from);
        piece.delete_targets = split_items(&text[a..b]);
        blank(&mut text, a, b);
    }
    if let Some(first) = toks.first()
        && word_is(script, first, "TRANSFORM")
        && let Some(sel) = toks.iter().position(|t| word_is(script, t, "SELECT"))
    {
        let (a, _) = rel(first);
        let (s, _) = rel(&toks[sel]);
        let expr_from = rel(first).1;
        piece.transform = Some((text[expr_from..s].trim().to_string(), expr_from));
        blank(&mut text, a, s);
        // PIVOT at depth 0 after the SELECT
        let mut depth = 0i32;
        for t in &toks[sel..] {
            let tt = &script[t.1..t.2];
            match tt {
                "(" => depth += 1,
                ")" => depth -= 1,
                _ => {}
            }
            if depth == 0 && word_is(script, t, "PIVOT") {
                let (p, after) = rel(t);
                piece.pivot = Some((text[after..].trim().to_string(), after));
                let end = text.len();
                blank(&mut text, p, end);
                break;
            }
        }
    }
    piece.text = text;
    piece
}

/// The first token of `toks` that is the word `w` outside parentheses.
fn top_level_word<'a>(
    script: &str,
    toks: &'a [(Tok, usize, usize)],
    w: &str,
) -> Option<&'a (Tok, usize, usize)> {
    let mut depth = 0i32;
    for t in toks {
        match &script[t.1..t.2] {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ if depth == 0 && word_is(script, t, w) => return Some(t),
            _ => {}
        }
    }
    None
}

/// The comma-separated items of `text` (commas inside brackets, quotes
/// and parentheses do not separate), trimmed.
fn split_items(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '[') => quote = Some(']'),
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(current.trim().to_string());
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_split_at_top_level_semicolons() {
        let p = split("SELECT ';' FROM [a;b]; SELECT 2;;  ");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].text, "SELECT ';' FROM [a;b]");
        assert_eq!(p[1].text.trim(), "SELECT 2");
        assert_eq!(p[1].offset, 22);
    }

    #[test]
    fn double_minus_before_a_semicolon_is_no_comment() {
        // `--7` is two minus signs: the `;` after it ends the statement
        let p = split("SELECT 30--7; SELECT 2 -- a note; not a statement\n");
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].text, "SELECT 30--7");
        assert_eq!(p[1].text.trim(), "SELECT 2 -- a note; not a statement");
    }

    #[test]
    fn slash_star_is_no_comment() {
        // a `;` inside `/* */` ends the statement: Access SQL has no comments
        let p = split("SELECT 1 /* ; */ AS a; SELECT 2");
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].text, "SELECT 1 /* ");
        assert_eq!(slash_star(&p[0].text), Some(9));
        assert_eq!(slash_star("SELECT 6/*2"), Some(8));
        // in strings, names and `-- ` comments it is text
        assert_eq!(slash_star("SELECT '/*', [a/*b] -- x /* y\n FROM t"), None);
        assert_eq!(slash_star("SELECT t.* / 2, 6 / *"), None);
        assert_eq!(slash_star("SELECT Orders.*/2"), None);
    }

    #[test]
    fn distinctrow_is_blanked_in_place() {
        let p = split("SELECT DISTINCTROW Name FROM t");
        assert!(p[0].distinctrow);
        assert_eq!(p[0].text, "SELECT             Name FROM t");
    }

    #[test]
    fn parameters_attach_to_the_next_statement() {
        let p = split(
            "PARAMETERS [Start Date] DateTime, Beginning Text(10); SELECT * FROM t WHERE d > [Start Date]",
        );
        assert_eq!(p.len(), 1);
        assert_eq!(
            p[0].parameters,
            vec![
                ("Start Date".to_string(), "DateTime".to_string()),
                ("Beginning".to_string(), "Text(10)".to_string())
            ]
        );
        assert!(p[0].text.contains("SELECT * FROM t"));
    }

    #[test]
    fn delete_targets_are_lifted_in_place() {
        let sql = "DELETE [Order Details].*, t.[a,b] FROM [Order Details] WHERE x = 1";
        let p = &split(sql)[0];
        assert_eq!(p.delete_targets, vec!["[Order Details].*", "t.[a,b]"]);
        assert_eq!(p.text.len(), sql.len());
        assert!(p.text.starts_with("DELETE "));
        assert_eq!(p.text.split_whitespace().nth(1), Some("FROM"));
        // a plain DELETE FROM has no target list
        assert!(split("DELETE FROM t")[0].delete_targets.is_empty());
        assert!(split("DELETE * FROM t")[0].delete_targets == vec!["*"]);
    }

    #[test]
    fn crosstab_parts_are_lifted() {
        let p = split(
            "TRANSFORM Sum(Amount) AS S SELECT Product FROM Sales GROUP BY Product PIVOT Format(d, \"q\") IN (1, 2)",
        );
        assert_eq!(
            p[0].transform.as_ref().map(|t| t.0.as_str()),
            Some("Sum(Amount) AS S")
        );
        assert_eq!(
            p[0].pivot.as_ref().map(|t| t.0.as_str()),
            Some("Format(d, \"q\") IN (1, 2)")
        );
        assert_eq!(
            p[0].text.trim(),
            "SELECT Product FROM Sales GROUP BY Product"
        );
        assert_eq!(p[0].text.len(), p[0].text.len());
    }
}
