//! Passwords typed at the terminal. They are read from the controlling
//! terminal with echo off, so they reach neither the screen, standard
//! input (a script piped in stays intact), the shell's history nor any
//! log; jetsql never prints a password.

/// Asks for a password with `prompt`, without echo.
pub fn ask(prompt: &str) -> Result<String, String> {
    rpassword::prompt_password(prompt)
        .map_err(|e| format!("cannot read a password from the terminal: {e}"))
}

/// Asks for a new password twice, without echo; refuses an empty one and
/// two that differ.
pub fn ask_new(what: &str) -> Result<String, String> {
    let first = ask(&format!("New password for {what}: "))?;
    if first.is_empty() {
        return Err("an empty password protects nothing; nothing was changed".into());
    }
    let again = ask("Type it again: ")?;
    if again != first {
        return Err("the two passwords differ; nothing was changed".into());
    }
    Ok(first)
}
