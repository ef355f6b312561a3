//! Whole-file rewrites: a new image of a database built in memory, written
//! beside the original, flushed and renamed over it. A crash at any moment
//! leaves the original or the new file, never a mixture; this is the
//! crash-exact path of compaction and of giving a database a password or
//! removing it (the undo journal is for page-level transactions).

use crate::error::JournalError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the rewritten image goes.
#[derive(Clone, Copy, Debug)]
pub enum Destination<'a> {
    /// Replace the file itself (keeping its permissions).
    InPlace,
    /// Write a new file at this path, which must not exist; the original is
    /// only read.
    NewFile(&'a Path),
}

/// Rewrites the database file at `path` with `transform` applied to its
/// image. In place, the file is opened for writing first (the exclusive
/// lock and the Access lock file are held throughout, and a journal left
/// by a crash is recovered before the image is read); to a new file, it is
/// read under the reader's lock. The new image is written to
/// [`temp_path`] beside the destination, flushed, renamed over it, and the
/// directory flushed. Any error before the rename — from `transform` too —
/// leaves the original (and the destination) as they were and removes the
/// temporary file. Returns what `transform` returned beside the image.
pub fn rewrite_file<R>(
    path: &Path,
    to: Destination<'_>,
    transform: impl FnOnce(&[u8]) -> crate::Result<(Vec<u8>, R)>,
) -> crate::Result<R> {
    rewrite_file_with(path, to, transform, &mut || Ok(()))
}

/// [`rewrite_file`] with a hook run just before the rename (tests inject
/// failures there).
pub(crate) fn rewrite_file_with<R>(
    path: &Path,
    to: Destination<'_>,
    transform: impl FnOnce(&[u8]) -> crate::Result<(Vec<u8>, R)>,
    before_rename: &mut dyn FnMut() -> std::io::Result<()>,
) -> crate::Result<R> {
    match to {
        Destination::InPlace => {
            let mut jf = crate::journal::JournaledFile::open(path)?;
            let image = jf.read_image()?;
            let (bytes, r) = transform(&image)?;
            let perms = std::fs::metadata(path)
                .map_err(io(path, "stat"))?
                .permissions();
            write_beside(path, &bytes, Some(perms), before_rename)?;
            drop(jf);
            Ok(r)
        }
        Destination::NewFile(out) => {
            if out.exists() {
                return Err(JournalError::Io {
                    path: out.to_path_buf(),
                    op: "write a new database file",
                    source: std::io::Error::new(
                        std::io::ErrorKind::AlreadyExists,
                        "the output file exists",
                    ),
                }
                .into());
            }
            let _shared =
                crate::journal::open_for_read(path, crate::journal::lock::DEFAULT_LOCK_WAIT)?;
            let image = std::fs::read(path).map_err(io(path, "read"))?;
            let (bytes, r) = transform(&image)?;
            write_beside(out, &bytes, None, before_rename)?;
            Ok(r)
        }
    }
}

fn io<'a>(path: &'a Path, op: &'static str) -> impl Fn(std::io::Error) -> JournalError + 'a {
    move |source| JournalError::Io {
        path: path.to_path_buf(),
        op,
        source,
    }
}

/// The temporary file a rewrite of `target` writes first:
/// `.<name>.jetrewrite-<pid>` in the same directory.
pub fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.jetrewrite-{}", std::process::id()))
}

/// Writes `bytes` to [`temp_path`]`(target)`, flushes it, runs the hook,
/// renames it to `target` and flushes the directory; removes the
/// temporary file on any error before the rename.
fn write_beside(
    target: &Path,
    bytes: &[u8],
    perms: Option<std::fs::Permissions>,
    before_rename: &mut dyn FnMut() -> std::io::Result<()>,
) -> Result<(), JournalError> {
    let tmp = temp_path(target);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp, "create the new copy"))?;
        f.write_all(bytes).map_err(io(&tmp, "write the new copy"))?;
        f.sync_all().map_err(io(&tmp, "flush the new copy"))?;
        drop(f);
        if let Some(p) = perms {
            std::fs::set_permissions(&tmp, p).map_err(io(&tmp, "set permissions"))?;
        }
        before_rename().map_err(io(&tmp, "before rename"))?;
        std::fs::rename(&tmp, target).map_err(io(target, "rename the new copy"))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return result;
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io(dir, "flush directory"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::JetVersion;

    fn identity(image: &[u8]) -> crate::Result<(Vec<u8>, usize)> {
        let mut v = image.to_vec();
        // a visible change: one byte past the header page's used area
        let at = v.len() - 1;
        v[at] ^= 0xFF;
        Ok((v, image.len()))
    }

    #[test]
    fn a_failure_before_the_rename_leaves_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.accdb");
        let bytes = crate::write::new_database(JetVersion::Ace12, 0).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let mut fail = || Err(std::io::Error::other("injected"));
        let e = rewrite_file_with(&path, Destination::InPlace, identity, &mut fail).unwrap_err();
        assert!(e.to_string().contains("injected"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert!(!temp_path(&path).exists());
        let out = dir.path().join("y.accdb");
        let e =
            rewrite_file_with(&path, Destination::NewFile(&out), identity, &mut fail).unwrap_err();
        assert!(e.to_string().contains("injected"), "{e}");
        assert!(!out.exists() && !temp_path(&out).exists());
        // a failing transform changes nothing either
        let e = rewrite_file(&path, Destination::InPlace, |_| {
            Err::<(Vec<u8>, ()), _>(crate::error::FormatError::NotJet("refused".into()).into())
        })
        .unwrap_err();
        assert!(e.to_string().contains("refused"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        // without the failure both forms go through
        assert_eq!(
            rewrite_file(&path, Destination::NewFile(&out), identity).unwrap(),
            bytes.len()
        );
        rewrite_file(&path, Destination::InPlace, identity).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&out).unwrap());
        assert_ne!(std::fs::read(&path).unwrap(), bytes);
        // an existing output is refused
        let e = rewrite_file(&path, Destination::NewFile(&out), identity).unwrap_err();
        assert!(e.to_string().contains("exists"), "{e}");
    }
}
