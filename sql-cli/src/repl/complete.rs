//! Tab completion in the interactive shell: table and column names in
//! any case (the catalog's spelling inserted, quoted as the dialect
//! needs), only tables after FROM/JOIN/INTO/UPDATE/TABLE and `\d`, SQL
//! keywords, meta-commands at a line's start, and file names inside
//! single quotes.

use crate::shell::Shell;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

/// SQL keywords offered by completion.
const KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "BY",
    "ORDER",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "JOIN",
    "LEFT",
    "RIGHT",
    "FULL",
    "INNER",
    "OUTER",
    "CROSS",
    "ON",
    "USING",
    "AS",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "LIKE",
    "ILIKE",
    "BETWEEN",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "DISTINCT",
    "UNION",
    "ALL",
    "EXCEPT",
    "INTERSECT",
    "WITH",
    "ASC",
    "DESC",
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "CAST",
    "COPY",
    "TO",
    "EXPLAIN",
    "ANALYZE",
    "SHOW",
    "TABLES",
    "COLUMNS",
    "CREATE",
    "TABLE",
    "VIEW",
    "DROP",
    "INSERT",
    "INTO",
    "VALUES",
    "DESCRIBE",
    "TRUE",
    "FALSE",
    "EXISTS",
    "NULLS",
    "FIRST",
    "LAST",
    "OVER",
    "PARTITION",
];

/// Meta-commands offered by completion.
const META: &[&str] = &[
    "\\d",
    "\\dv",
    "\\dv+",
    "\\i",
    "\\timing",
    "\\format",
    "\\dialect",
    "\\param",
    "\\x",
    "\\null",
    "\\pset",
    "\\q",
    "\\?",
];

/// Words after which a table name comes.
const TABLE_CONTEXT: &[&str] = &["from", "join", "into", "update", "table", "\\d", "\\dv"];

/// One name completion can insert.
#[derive(Debug, Clone)]
struct Name {
    /// The catalog's spelling.
    name: String,
    /// Whether it is a table or saved query (else a column).
    table: bool,
}

/// The rustyline helper: completion of table and column names (any case,
/// inserting the catalog's spelling), SQL keywords, meta-commands and file
/// names inside quotes.
pub struct SqlHelper {
    names: Vec<Name>,
    /// Access dialect: names that need quoting take brackets, not `"`.
    access: bool,
}

/// Whether `name` can stand unquoted.
fn simple(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

impl SqlHelper {
    /// Collects the names of every open database.
    pub fn new(shell: &Shell) -> Self {
        let mut names = Vec::new();
        for d in &shell.dbs {
            names.push(Name {
                name: d.name.clone(),
                table: true,
            });
            let Ok(db) = d.db() else { continue };
            for name in db.table_names() {
                if let Ok(t) = db.table(&name) {
                    names.extend(t.def().columns.iter().map(|c| Name {
                        name: c.name.clone(),
                        table: false,
                    }));
                }
                names.push(Name { name, table: true });
            }
            if let Ok(queries) = db.queries() {
                names.extend(queries.into_iter().map(|q| Name {
                    name: q.name,
                    table: true,
                }));
            }
        }
        names.sort_by(|a, b| (a.name.len(), &a.name).cmp(&(b.name.len(), &b.name)));
        names.dedup_by(|a, b| a.name == b.name && a.table == b.table);
        let access = shell.session.dialect() == jet_provider::SqlDialect::Access;
        SqlHelper { names, access }
    }

    /// `name` as typed after `opener` (`"`, `[` or nothing).
    fn quoted(&self, name: &str, opener: Option<char>) -> String {
        let dq = || format!("\"{}\"", name.replace('"', "\"\""));
        match opener {
            Some('"') => dq(),
            Some('[') => format!("[{name}]"),
            _ if simple(name) => name.to_string(),
            _ if self.access => format!("[{name}]"),
            _ => dq(),
        }
    }

    /// Candidates for the word `word` (may start with `"`, `[` or `\`);
    /// `tables_only` after FROM, JOIN and the like. Tables come first,
    /// then columns, then keywords; shorter names first.
    fn candidates(&self, line_start: bool, tables_only: bool, word: &str) -> Vec<String> {
        if word.starts_with('\\') {
            return if line_start {
                META.iter()
                    .filter(|m| m.starts_with(word))
                    .map(|m| m.to_string())
                    .collect()
            } else {
                Vec::new()
            };
        }
        let opener = word.chars().next().filter(|c| *c == '"' || *c == '[');
        let bare = if opener.is_some() { &word[1..] } else { word };
        if bare.is_empty() && opener.is_none() {
            return Vec::new();
        }
        let lw = bare.to_lowercase();
        let mut out: Vec<String> = Vec::new();
        for pass_tables in [true, false] {
            if !pass_tables && tables_only {
                break;
            }
            out.extend(
                self.names
                    .iter()
                    .filter(|n| n.table == pass_tables && n.name.to_lowercase().starts_with(&lw))
                    .map(|n| self.quoted(&n.name, opener)),
            );
        }
        if opener.is_none() && !tables_only {
            let lower = bare.chars().next().is_some_and(char::is_lowercase);
            out.extend(
                KEYWORDS
                    .iter()
                    .filter(|k| k.to_lowercase().starts_with(&lw))
                    .map(|k| {
                        if lower {
                            k.to_lowercase()
                        } else {
                            k.to_string()
                        }
                    }),
            );
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|c| seen.insert(c.clone()));
        out
    }
}

/// File names completing `partial` (a path typed inside single quotes).
fn file_candidates(partial: &str) -> Vec<String> {
    let (dir, stem) = match partial.rfind('/') {
        Some(i) => (&partial[..=i], &partial[i + 1..]),
        None => ("", partial),
    };
    let Ok(entries) = std::fs::read_dir(if dir.is_empty() { "." } else { dir }) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with(stem) || (stem.is_empty() && name.starts_with('.')) {
                return None;
            }
            let slash = if e.path().is_dir() { "/" } else { "" };
            Some(format!("{dir}{name}{slash}"))
        })
        .collect();
    out.sort();
    out
}

fn pairs(v: Vec<String>) -> Vec<Pair> {
    v.into_iter()
        .map(|c| Pair {
            display: c.clone(),
            replacement: c,
        })
        .collect()
}

impl Completer for SqlHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let before = &line[..pos];
        // inside single quotes: a file name
        if before.matches('\'').count() % 2 == 1 {
            let start = before.rfind('\'').map_or(0, |i| i + 1);
            return Ok((start, pairs(file_candidates(&before[start..]))));
        }
        // A word: from an unclosed double quote or bracket, or from the
        // last character that cannot be part of a name.
        let quotes = before.matches('"').count();
        let open_bracket = before.rfind('[').filter(|&i| !before[i..].contains(']'));
        let start = if quotes % 2 == 1 {
            before.rfind('"').unwrap_or(0)
        } else if let Some(i) = open_bracket {
            i
        } else {
            before
                .char_indices()
                .rev()
                .find(|&(_, c)| {
                    !(c.is_alphanumeric() || c == '_' || c == '\\' || c == '?' || c == '+')
                })
                .map_or(0, |(i, c)| i + c.len_utf8())
        };
        let word = &before[start..];
        let head = before[..start].trim_end();
        let previous = head
            .rsplit(|c: char| c.is_whitespace() || c == ',' || c == '(')
            .next()
            .unwrap_or("")
            .to_lowercase();
        let tables_only = TABLE_CONTEXT.contains(&previous.as_str());
        let found = self.candidates(head.is_empty(), tables_only, word);
        Ok((start, pairs(found)))
    }
}

impl Hinter for SqlHelper {
    type Hint = String;
}

impl Highlighter for SqlHelper {}

impl Validator for SqlHelper {}

impl Helper for SqlHelper {}
