//! Checks on `COPY … TO` before DataFusion plans it: the format must be
//! one DataFusion writes, the target must not be an open database (or its
//! journal), an existing file is replaced only with `OPTIONS ('overwrite'
//! 'true')`, and a target that cannot be written (a directory where a file
//! is meant, a FIFO, a device, a directory in which no file can be
//! created, such as `/proc`) is an error before anything runs (DataFusion's
//! local object store would otherwise retry such a target forever).

use crate::error::refuse;
use datafusion::error::Result;
use datafusion::sql::parser::CopyToStatement;
use datafusion::sql::sqlparser::ast::Value;
use std::path::{Component, Path, PathBuf};

/// The formats `COPY … TO` writes (`STORED AS` or the target's extension).
pub const COPY_FORMATS: [&str; 4] = ["csv", "parquet", "json", "arrow"];

/// The `COPY` option that allows replacing an existing file (removed
/// before DataFusion sees the options).
pub const OVERWRITE_OPTION: &str = "overwrite";

/// The files a statement must never write: every open database and the
/// journal files beside it, canonical.
pub fn protected_files(databases: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for db in databases {
        let db = std::fs::canonicalize(db).unwrap_or_else(|_| absolute(db));
        out.push(jet_storage::journal::journal_path(&db));
        out.push(jet_storage::journal::partial_journal_path(&db));
        out.push(db);
    }
    out
}

/// `path` made absolute against the working directory, `.` and `..`
/// removed (without touching the file system).
fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// The canonical form of a path that may not exist yet: its nearest
/// existing ancestor canonicalized (symlinks resolved), the rest appended.
pub fn canonical(path: &Path) -> PathBuf {
    let abs = absolute(path);
    let mut existing = abs.clone();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&existing) {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return abs,
        }
    }
}

/// A local target path (`file://` URLs included); `None` for other URLs.
fn local_path(target: &str) -> Option<PathBuf> {
    if let Some(rest) = target.strip_prefix("file://") {
        return Some(PathBuf::from(rest));
    }
    if target.contains("://") {
        return None;
    }
    Some(PathBuf::from(target))
}

fn option_is_true(v: &Value) -> Option<bool> {
    let text = match v {
        Value::Boolean(b) => return Some(*b),
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
        other => other.to_string(),
    };
    match text.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// Tries to create (and removes) a file in `dir`, as the object store's
/// staging file would be created: a directory where nothing can be
/// created (`/proc`, `/sys`, read-only) is an error now, not a retry loop.
fn probe_dir(dir: &Path, target: &str) -> Result<()> {
    let meta = std::fs::metadata(dir).map_err(|e| {
        refuse(format!(
            "COPY … TO {target:?}: directory {} does not exist or cannot be read ({e})",
            dir.display()
        ))
    })?;
    if !meta.is_dir() {
        return Err(refuse(format!(
            "COPY … TO {target:?}: {} is not a directory",
            dir.display()
        )));
    }
    let probe = dir.join(format!(".jetsql-copy-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(f) => {
            drop(f);
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(refuse(format!(
            "COPY … TO {target:?}: cannot create files in {} ({e}); nothing was written",
            dir.display()
        ))),
    }
}

/// Checks a `COPY … TO` statement (see the module docs) and removes the
/// `overwrite` option from it.
pub fn check_copy(stmt: &mut CopyToStatement, protected: &[PathBuf]) -> Result<()> {
    let target = stmt.target.clone();
    let mut overwrite = false;
    let mut kept = Vec::new();
    for (k, v) in std::mem::take(&mut stmt.options) {
        if k.eq_ignore_ascii_case(OVERWRITE_OPTION) {
            overwrite = option_is_true(&v).ok_or_else(|| {
                refuse(format!(
                    "COPY option 'overwrite' takes 'true' or 'false', not {v}"
                ))
            })?;
        } else {
            kept.push((k, v));
        }
    }
    stmt.options = kept;
    let formats = COPY_FORMATS.join(", ");
    match &stmt.stored_as {
        Some(f) if !COPY_FORMATS.iter().any(|k| k.eq_ignore_ascii_case(f)) => {
            return Err(refuse(format!(
                "COPY … STORED AS {f}: unknown format; COPY writes {formats}"
            )));
        }
        Some(_) => {}
        None => {
            let ext = Path::new(&target)
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            if !ext.as_deref().is_some_and(|e| COPY_FORMATS.contains(&e)) {
                return Err(refuse(format!(
                    "COPY … TO {target:?}: the format is not known from the file name; \
                     name a .csv, .parquet, .json or .arrow file, or say STORED AS {}",
                    formats.replace(", ", "|")
                )));
            }
        }
    }
    let Some(path) = local_path(&target) else {
        return Ok(());
    };
    let canon = canonical(&path);
    if let Some(p) = protected.iter().find(|p| **p == canon) {
        return Err(refuse(format!(
            "COPY … TO {target:?} refused: {} is an open database or its journal; nothing was written",
            p.display()
        )));
    }
    // DataFusion writes a directory of files when the target ends with a
    // slash, has no extension, or is partitioned
    let as_dir = target.ends_with('/')
        || Path::new(&target).extension().is_none()
        || !stmt.partitioned_by.is_empty();
    match std::fs::metadata(&canon) {
        Ok(meta) => {
            if let Some(kind) =
                jet_storage::journal::vfs::file_kind(&meta).filter(|_| !meta.is_dir())
            {
                return Err(refuse(format!(
                    "COPY … TO {target:?}: it is {kind}, not a regular file; nothing was written"
                )));
            }
            if meta.is_dir() {
                if !as_dir {
                    return Err(refuse(format!(
                        "COPY … TO {target:?}: it is a directory, not a file; nothing was written"
                    )));
                }
                return probe_dir(&canon, &target);
            }
            if as_dir {
                return Err(refuse(format!(
                    "COPY … TO {target:?}: it is a file, and this COPY writes a directory; nothing was written"
                )));
            }
            if !overwrite {
                return Err(refuse(format!(
                    "COPY … TO {target:?}: the file exists; add OPTIONS ('overwrite' 'true') to replace it"
                )));
            }
            if meta.permissions().readonly() {
                return Err(refuse(format!(
                    "COPY … TO {target:?}: the file is read-only; nothing was written"
                )));
            }
        }
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(refuse(format!(
                "COPY … TO {target:?}: cannot examine it ({e}); nothing was written"
            )));
        }
        Err(_) => {}
    }
    let parent = canon.parent().map(Path::to_path_buf).unwrap_or_default();
    if as_dir && !canon.exists() {
        // the directory itself is created: its parent must take it
        return probe_dir(&nearest_existing(&parent), &target);
    }
    probe_dir(&parent, &target)
}

/// The nearest ancestor of `p` (or `p`) that exists.
fn nearest_existing(p: &Path) -> PathBuf {
    let mut cur = p.to_path_buf();
    while !cur.exists() {
        if !cur.pop() {
            break;
        }
    }
    cur
}

/// Refuses `CREATE EXTERNAL TABLE … LOCATION` over an open database or its
/// journal (an `INSERT` into it would write that file).
pub fn check_location(locations: &[String], protected: &[PathBuf]) -> Result<()> {
    for l in locations {
        let Some(path) = local_path(l) else { continue };
        let canon = canonical(&path);
        if protected.contains(&canon) {
            return Err(refuse(format!(
                "CREATE EXTERNAL TABLE … LOCATION {l:?} refused: it is an open database or its journal"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_paths_ignore_dots_and_symlinks() {
        let dir = std::env::temp_dir().join(format!("jetsql-canon-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("a/db.mdb"), b"x").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.join("a"), dir.join("link")).unwrap();
        let want = std::fs::canonicalize(dir.join("a/db.mdb")).unwrap();
        assert_eq!(canonical(&dir.join("a/./../a/db.mdb")), want);
        #[cfg(unix)]
        assert_eq!(canonical(&dir.join("link/db.mdb")), want);
        assert_eq!(
            canonical(&dir.join("link/new.csv")),
            want.with_file_name("new.csv")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
