//! The interactive shell: rustyline with a history file, multi-line
//! statements ended by `;`, completion of table and column names, SQL
//! keywords and meta-commands.

use crate::script::is_complete;
use crate::shell::{Flow, Shell};
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Editor, Helper, history::DefaultHistory};
use std::path::PathBuf;

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
const META: &[&str] = &["\\d", "\\dv", "\\i", "\\timing", "\\format", "\\q", "\\?"];

/// The rustyline helper: completion and multi-line validation.
pub struct SqlHelper {
    /// Table names, quoted where SQL needs it.
    tables: Vec<String>,
    /// Column names, quoted where SQL needs it.
    columns: Vec<String>,
}

/// `name` as a SQL identifier: bare when it is lower-case and simple
/// (unquoted names fold to lower case), else double-quoted.
fn ident(name: &str) -> String {
    let simple = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if simple {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

impl SqlHelper {
    /// Collects the names of every open database.
    pub fn new(shell: &Shell) -> Self {
        let mut tables = Vec::new();
        let mut columns = Vec::new();
        for d in &shell.dbs {
            tables.push(d.name.clone());
            let Ok(db) = d.db() else { continue };
            for name in db.table_names() {
                tables.push(ident(&name));
                if let Ok(t) = db.table(&name) {
                    columns.extend(t.def().columns.iter().map(|c| ident(&c.name)));
                }
            }
        }
        tables.sort();
        tables.dedup();
        columns.sort();
        columns.dedup();
        SqlHelper { tables, columns }
    }

    /// Candidates for the word `word` (may start with `"` or `\`).
    fn candidates(&self, line_start: bool, word: &str) -> Vec<String> {
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
        if word.is_empty() {
            return Vec::new();
        }
        let lw = word.to_lowercase();
        let starts = |c: &String| c.to_lowercase().starts_with(&lw);
        let mut out: Vec<String> = self.tables.iter().filter(|c| starts(c)).cloned().collect();
        out.extend(self.columns.iter().filter(|c| starts(c)).cloned());
        if !word.starts_with('"') {
            let lower = word.chars().next().is_some_and(char::is_lowercase);
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
        out.sort();
        out.dedup();
        out
    }
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
        // A word: from an unclosed double quote, or from the last
        // character that cannot be part of a name.
        let quotes = before.matches('"').count();
        let start = if quotes % 2 == 1 {
            before.rfind('"').unwrap_or(0)
        } else {
            before
                .char_indices()
                .rev()
                .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '\\' || c == '?'))
                .map_or(0, |(i, c)| i + c.len_utf8())
        };
        let word = &before[start..];
        let line_start = before[..start].trim().is_empty();
        let pairs = self
            .candidates(line_start, word)
            .into_iter()
            .map(|c| Pair {
                display: c.clone(),
                replacement: c,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for SqlHelper {
    type Hint = String;
}

impl Highlighter for SqlHelper {}

impl Validator for SqlHelper {
    fn validate(&self, ctx: &mut ValidationContext<'_>) -> rustyline::Result<ValidationResult> {
        Ok(if is_complete(ctx.input()) {
            ValidationResult::Valid(None)
        } else {
            ValidationResult::Incomplete
        })
    }
}

impl Helper for SqlHelper {}

/// The history file: `$JETSQL_HISTORY`, else `~/.jetsql_history`.
fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("JETSQL_HISTORY") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".jetsql_history"))
}

/// Runs the REPL until `\q` or end of input.
pub fn run(shell: &mut Shell) -> Result<(), String> {
    let config = rustyline::Config::builder()
        .auto_add_history(false)
        .max_history_size(10_000)
        .map_err(|e| e.to_string())?
        .build();
    let mut editor: Editor<SqlHelper, DefaultHistory> =
        Editor::with_config(config).map_err(|e| e.to_string())?;
    editor.set_helper(Some(SqlHelper::new(shell)));
    let history = history_path();
    if let Some(h) = &history {
        // A missing history file is the normal first run.
        let _ = editor.load_history(h);
    }
    let prompt = format!(
        "{}> ",
        shell.dbs.first().map_or("jetsql", |d| d.name.as_str())
    );
    println!(
        "jetsql {} — {} open. \\? for help, \\q to quit.",
        env!("CARGO_PKG_VERSION"),
        shell
            .dbs
            .iter()
            .map(|d| format!("{} ({})", d.name, d.path.display()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    loop {
        match editor.readline(&prompt) {
            Ok(line) => {
                if line.trim().is_empty() {
                    continue;
                }
                // History write failures must not end the session.
                let _ = editor.add_history_entry(line.as_str());
                if let Some(h) = &history {
                    let _ = editor.save_history(h);
                }
                match shell.run_text(&line) {
                    Ok(Flow::Quit) => break,
                    Ok(Flow::Continue) => {}
                    Err(e) => eprintln!("Error: {e}"),
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(())
}
