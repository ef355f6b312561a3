//! Giving a database a password and removing it: whole-file rewrites
//! through [`rewrite_file`], so an interruption leaves the file exactly as
//! it was or exactly converted.
//!
//! - [`encrypt_file`]: a plain ACCDB file becomes an Agile-encrypted one
//!   (AES-256-CBC, SHA-512, 100,000 spins, as Office 2013 and later write
//!   it), readable by Access and by every reader of that scheme.
//! - [`decrypt_file`]: an encrypted ACCDB (Agile, Standard, RC4 CryptoAPI)
//!   or an RC4-encoded Jet file becomes a plain one, and a Jet3/Jet4
//!   database password is removed.

use super::replace::{Destination, rewrite_file};
use crate::page::crypt::Password;
use crate::write::convert::{decrypt, encrypt_agile};
use std::path::Path;

/// Encrypts the plain ACCDB file at `path` under `password` with Agile
/// encryption (written to `to`). The password is checked to be non-empty
/// and the file to be a plain ACCDB before anything is written; the
/// writer's lock is held throughout and a crash journal recovered first.
pub fn encrypt_file(path: &Path, password: &Password, to: Destination<'_>) -> crate::Result<()> {
    rewrite_file(path, to, |image| Ok((encrypt_agile(image, password)?, ())))
}

/// Removes the protection of the file at `path` (written to `to`): pages
/// decrypted with `password`, which is verified before anything is
/// written (a wrong one is `CryptError::WrongPassword`), the encryption
/// header cleared, and a Jet3/Jet4 database password removed (it must be
/// given). A file with no protection is rewritten unchanged.
pub fn decrypt_file(
    path: &Path,
    password: Option<&Password>,
    to: Destination<'_>,
) -> crate::Result<()> {
    rewrite_file(path, to, |image| Ok((decrypt(image, password)?, ())))
}
