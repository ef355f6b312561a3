//! `jetsql encrypt` and `jetsql decrypt`: a database file given a password
//! or freed of it, as one whole-file rewrite (the original or the
//! converted file survives any interruption; see
//! `jet_storage::write::rewrite_file`).

use crate::session::{OpenRequest, open_with_password};
use jet_storage::write::{Destination, decrypt_file, encrypt_file};
use jet_storage::{Database, OpenOptions, Password, ProtectionScheme};
use std::path::Path;

fn destination(output: Option<&Path>) -> Destination<'_> {
    output.map_or(Destination::InPlace, Destination::NewFile)
}

/// Encrypts `file` with Agile encryption under the request's password (or
/// one typed twice at the terminal); returns the line to print, naming
/// the protection the result has.
pub fn encrypt(file: &Path, output: Option<&Path>, req: &OpenRequest) -> Result<String, String> {
    let password = match (&req.password, req.ask) {
        (Some(p), _) => p.clone(),
        (None, true) => crate::password::ask_new(&file.display().to_string())?,
        (None, false) => {
            return Err(format!(
                "{}: give the new password with --password or JETSQL_PASSWORD",
                file.display()
            ));
        }
    };
    let password = Password::from(password.as_str());
    encrypt_file(file, &password, destination(output))
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let target = output.unwrap_or(file);
    let db = Database::open(
        target,
        OpenOptions {
            password: Some(password),
            ..OpenOptions::default()
        },
    )
    .map_err(|e| format!("{}: {e}", target.display()))?;
    Ok(format!(
        "{}: encrypted: {}",
        target.display(),
        db.protection()
    ))
}

/// Removes the protection of `file` with the request's password (or one
/// typed at the terminal when it needs one); returns the line to print,
/// naming the protection removed.
pub fn decrypt(file: &Path, output: Option<&Path>, req: &OpenRequest) -> Result<String, String> {
    // opening checks the password (asking for it when allowed) before
    // anything is written
    let (db, password) = open_with_password(file, req)?;
    let was = db.protection().clone();
    drop(db);
    let target = output.unwrap_or(file);
    if was.scheme == ProtectionScheme::Plain && !was.password && output.is_none() {
        return Ok(format!(
            "{}: has no password and is not encrypted; nothing was changed",
            file.display()
        ));
    }
    // a Jet database password does not lock the pages, so the file opened
    // without it; removing it takes it all the same
    let password = match password {
        Some(p) => Some(p),
        None if was.password && req.ask => Some(crate::password::ask(&format!(
            "Password for {}: ",
            file.display()
        ))?),
        None if was.password => {
            return Err(format!(
                "{}: give its database password with --password or JETSQL_PASSWORD to remove it",
                file.display()
            ));
        }
        None => None,
    };
    let password = password.as_deref().map(Password::from);
    decrypt_file(file, password.as_ref(), destination(output))
        .map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(format!(
        "{}: decrypted: no password now (was {was})",
        target.display()
    ))
}
