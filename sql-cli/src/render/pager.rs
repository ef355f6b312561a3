//! Long results through a pager: when standard output is a terminal and
//! the text is taller than the screen, it goes to `$PAGER` (run by the
//! shell), else `less -S -F -X` (cut long lines, leave at once when it
//! fits, keep the text on the screen after). A pager that cannot start
//! falls back to printing.

use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

/// The pager command: `$PAGER` when set and not empty, else `less`.
fn pager_command() -> Command {
    match std::env::var("PAGER") {
        Ok(p) if !p.trim().is_empty() => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(p);
            c
        }
        _ => {
            let mut c = Command::new("less");
            c.args(["-S", "-F", "-X"]);
            c
        }
    }
}

/// Whether `text` should go through the pager: paging on, standard output
/// a terminal, more lines than the screen holds (less the prompt's).
pub fn wanted(text: &str, on: bool) -> bool {
    if !on || !std::io::stdout().is_terminal() {
        return false;
    }
    let Some(rows) = super::terminal_size().1 else {
        return false;
    };
    text.lines().count() + 1 > rows
}

/// Writes `text` through the pager; returns `false` (writing nothing)
/// when the pager cannot start, so the caller prints it instead.
pub fn page(text: &str) -> bool {
    let Ok(mut child) = pager_command().stdin(Stdio::piped()).spawn() else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        // a pager that quits early closes the pipe: not an error
        let _ = stdin.write_all(text.as_bytes());
    }
    let _ = child.wait();
    true
}
