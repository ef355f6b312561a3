//! The interactive shell: rustyline with a history file and completion
//! ([`complete`]). A statement may span lines: until its `;` arrives the
//! prompt changes to `db-> `; inside `BEGIN … COMMIT` it shows `db*> `.
//! Alone on a line, `exit` and `quit` leave (an unfinished statement is
//! dropped, and the shell says so), `help` prints the help, and the
//! sqlite3 spellings `.tables`, `.schema [NAME]`, `.help` and `.quit`
//! work. Ctrl-C clears the line and any unfinished statement; Ctrl-D on
//! an empty line drops an unfinished statement, or leaves when there is
//! none. Each statement goes into the history whole.

mod complete;

use crate::script::is_complete;
use crate::shell::{Flow, Shell};
use complete::SqlHelper;
use jet_provider::SqlDialect;
use rustyline::error::ReadlineError;
use rustyline::{Editor, history::DefaultHistory};
use std::path::PathBuf;

/// The history file: `$JETSQL_HISTORY`, else `~/.jetsql_history`.
fn history_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("JETSQL_HISTORY") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".jetsql_history"))
}

/// What a line typed alone means before it joins a statement.
#[derive(Debug, PartialEq, Eq)]
enum Word {
    /// `exit`, `quit`, `.quit`, `.exit`.
    Leave,
    /// A meta-command to run instead (`help` → `\?`, `.tables` → `\d`).
    Meta(String),
    /// Part of SQL.
    Sql,
}

/// Reads the shell words psql and sqlite3 users type: `exit`/`quit`
/// anywhere (they leave), the others only when no statement is pending.
fn shell_word(line: &str, pending: bool) -> Word {
    let t = line.trim().trim_end_matches(';').trim();
    let lower = t.to_ascii_lowercase();
    match lower.as_str() {
        "exit" | "quit" | ".exit" | ".quit" => return Word::Leave,
        _ if pending => return Word::Sql,
        "help" | ".help" => return Word::Meta("?".into()),
        ".tables" => return Word::Meta("d".into()),
        ".schema" => return Word::Meta("d".into()),
        _ => {}
    }
    match lower.strip_prefix(".schema ") {
        Some(_) => Word::Meta(format!("d {}", t[".schema ".len()..].trim())),
        None => Word::Sql,
    }
}

/// Whether `line`, typed while `pending` is unfinished, is a meta-command
/// to run now rather than more of the statement: it starts with a
/// backslash and the statement is not inside a quote or comment of
/// `dialect` (psql's rule; `\\g` then runs the statement, `\\r` drops
/// it, `\\p` prints it).
fn meta_while_pending(pending: &str, line: &str, dialect: SqlDialect) -> bool {
    !pending.is_empty()
        && line.trim_start().starts_with('\\')
        && is_complete(&format!("{pending}\n;"), dialect)
}

/// The prompt: the first database's name, `*` inside an explicit
/// transaction, `->` while a statement is unfinished.
fn prompt(shell: &Shell, pending: bool) -> String {
    let name = shell.dbs.first().map_or("jetsql", |d| d.name.as_str());
    let txn = if shell.dbs.iter().any(|d| d.handle.in_transaction()) {
        "*"
    } else {
        ""
    };
    format!("{name}{txn}{} ", if pending { "->" } else { ">" })
}

/// Runs the REPL until `\q`, `exit` or end of input.
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
    let mut pending = String::new();
    loop {
        let line = match editor.readline(&prompt(shell, !pending.is_empty())) {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                pending.clear();
                continue;
            }
            Err(ReadlineError::Eof) if !pending.is_empty() => {
                pending.clear();
                eprintln!("(the unfinished statement was dropped)");
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.to_string()),
        };
        let text = match shell_word(&line, !pending.is_empty()) {
            Word::Leave => {
                if !pending.is_empty() {
                    eprintln!("(the unfinished statement was dropped)");
                }
                break;
            }
            Word::Meta(cmd) => format!("\\{cmd}"),
            Word::Sql if line.trim().is_empty() && pending.is_empty() => continue,
            Word::Sql if meta_while_pending(&pending, &line, shell.session.dialect()) => {
                let cmd = line.trim();
                let _ = editor.add_history_entry(cmd);
                match cmd.split_whitespace().next().unwrap_or("") {
                    "\\r" | "\\reset" => {
                        pending.clear();
                        eprintln!("(the unfinished statement was dropped)");
                        continue;
                    }
                    "\\p" | "\\print" => {
                        println!("{pending}");
                        continue;
                    }
                    "\\g" | "\\go" => std::mem::take(&mut pending),
                    // any other meta-command runs now; the statement waits
                    _ => cmd.to_string(),
                }
            }
            Word::Sql => {
                if !pending.is_empty() {
                    pending.push('\n');
                }
                pending.push_str(&line);
                if !is_complete(&pending, shell.session.dialect()) {
                    continue;
                }
                std::mem::take(&mut pending)
            }
        };
        // History write failures must not end the session.
        let _ = editor.add_history_entry(text.trim());
        if let Some(h) = &history {
            let _ = editor.save_history(h);
        }
        match shell.run_text(&text) {
            Ok(Flow::Quit) => break,
            Ok(Flow::Continue) => {}
            Err(e) => eprintln!("Error: {e}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        assert_eq!(shell_word("exit", false), Word::Leave);
        assert_eq!(shell_word("  QUIT; ", true), Word::Leave);
        assert_eq!(shell_word("help", false), Word::Meta("?".into()));
        assert_eq!(shell_word("help", true), Word::Sql);
        assert_eq!(shell_word(".tables", false), Word::Meta("d".into()));
        assert_eq!(
            shell_word(".schema Orders", false),
            Word::Meta("d Orders".into())
        );
        assert_eq!(shell_word("select 1;", false), Word::Sql);
        assert_eq!(shell_word("exited", false), Word::Sql);
    }

    #[test]
    fn meta_commands_interrupt_a_pending_statement_outside_quotes() {
        let (access, datafusion) = (SqlDialect::Access, SqlDialect::DataFusion);
        assert!(meta_while_pending("select *", "\\d", access));
        assert!(meta_while_pending("select *\nfrom t", "  \\g", access));
        assert!(!meta_while_pending("", "\\d", access));
        assert!(!meta_while_pending("select 'abc", "\\d", access));
        assert!(!meta_while_pending("select *", "from t", access));
        // `/*` opens a comment in DataFusion's SQL only
        assert!(!meta_while_pending("select 1 /* note", "\\d", datafusion));
        assert!(meta_while_pending("select 1 /* note", "\\d", access));
        // `--7` is no comment in Access SQL; in DataFusion's it is one,
        // ending with its line, so the next line's `\d` is outside it
        assert!(meta_while_pending("select 30--7", "\\d", access));
        assert!(meta_while_pending("select 30--7", "\\d", datafusion));
        assert!(!meta_while_pending("select 30 /* --7", "\\d", datafusion));
    }
}
