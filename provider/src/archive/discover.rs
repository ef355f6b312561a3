//! Reading the columns of one table in every file of an archive: each
//! file opened once (a bounded number at a time, on several threads),
//! its table's schema kept, the file closed again. A cache remembers a
//! file's columns while its size and modification time are unchanged, so
//! a table function called for every query does not open the archive
//! again.

use super::options::JetFilesOptions;
use super::stats::ArchiveStats;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::DataFusionError;
use jet_storage::{Database, OpenOptions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

/// One file of a multi-file table, as discovered.
#[derive(Debug, Clone)]
pub struct Member {
    /// The file.
    pub path: PathBuf,
    /// The path as `_file` shows it.
    pub shown: String,
    /// Its size in bytes when discovered.
    pub size: u64,
    /// Its table's columns (empty in a scan rebuilt by
    /// [`super::JetFilesExec::from_plan`]: a scan reads a file's columns
    /// when it opens the file).
    pub schema: SchemaRef,
}

/// A file and a table name (lower-cased).
type CacheKey = (PathBuf, String);
/// The file's size and modification time when read, and the columns.
type CacheEntry = (u64, Option<SystemTime>, SchemaRef);

/// The columns of files already read, by path, valid while the file's
/// size and modification time are the same.
#[derive(Debug, Default)]
pub struct SchemaCache {
    entries: Mutex<HashMap<CacheKey, CacheEntry>>,
}

impl SchemaCache {
    fn get(
        &self,
        path: &Path,
        table: &str,
        size: u64,
        mtime: Option<SystemTime>,
    ) -> Option<SchemaRef> {
        let map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&(path.to_path_buf(), table.to_lowercase()))
            .filter(|(s, m, _)| *s == size && *m == mtime && mtime.is_some())
            .map(|(_, _, schema)| schema.clone())
    }

    fn put(
        &self,
        path: &Path,
        table: &str,
        size: u64,
        mtime: Option<SystemTime>,
        schema: SchemaRef,
    ) {
        let mut map = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(
            (path.to_path_buf(), table.to_lowercase()),
            (size, mtime, schema),
        );
    }
}

/// A one-line message for a DataFusion error (its innermost cause,
/// without the category prefix).
pub(crate) fn plain(e: &DataFusionError) -> String {
    match e.find_root() {
        DataFusionError::External(inner) => inner.to_string(),
        root => root.message().into_owned(),
    }
}

/// Opens `path` for reading with the options' password.
pub(crate) fn open(path: &Path, options: &JetFilesOptions) -> Result<Database, String> {
    let opts = OpenOptions {
        password: options.password.clone(),
        ..OpenOptions::default()
    };
    Database::open(path, opts).map_err(|e| e.to_string())
}

/// The columns of `table` in the file at `path`, as the single-file
/// provider types them.
fn read_schema(path: &Path, table: &str, options: &JetFilesOptions) -> Result<SchemaRef, String> {
    let db = open(path, options)?;
    let t = db
        .table(table)
        .map_err(|_| format!("the file has no table {table:?}"))?;
    let provider = crate::JetTable::new(t, db, options.jet_options());
    Ok(datafusion::catalog::TableProvider::schema(&provider))
}

/// The members of a multi-file table over `files`: every file's columns
/// of `table`, read on up to `max_open` threads (at most the cores). A
/// file that cannot be read is an error naming it, or with `skip_errors`
/// a warning in `stats` and the file left out.
pub fn discover(
    files: &[PathBuf],
    table: &str,
    options: &JetFilesOptions,
    stats: &ArchiveStats,
    cache: &SchemaCache,
) -> datafusion::error::Result<Vec<Member>> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = cores.min(options.max_open.max(1)).min(files.len()).max(1);
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<Result<Member, String>>> = vec![None; files.len()];
    let slots: Vec<Mutex<&mut Option<Result<Member, String>>>> =
        results.iter_mut().map(Mutex::new).collect();
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(path) = files.get(i) else { break };
                    let r = member(path, table, options, stats, cache);
                    **slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                }
            });
        }
    });
    drop(slots);
    let mut out = Vec::with_capacity(files.len());
    for (path, r) in files.iter().zip(results) {
        match r.unwrap_or_else(|| Err("not read".into())) {
            Ok(m) => out.push(m),
            Err(e) if options.skip_errors => {
                stats.warn(format!("{}: {e} (skipped)", super::files::shown(path)));
            }
            Err(e) => {
                return Err(DataFusionError::Plan(format!(
                    "{}: {e}",
                    super::files::shown(path)
                )));
            }
        }
    }
    if out.is_empty() {
        return Err(DataFusionError::Plan(format!(
            "no file of the archive could be read as table {table:?}"
        )));
    }
    Ok(out)
}

fn member(
    path: &Path,
    table: &str,
    options: &JetFilesOptions,
    stats: &ArchiveStats,
    cache: &SchemaCache,
) -> Result<Member, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    let (size, mtime) = (meta.len(), meta.modified().ok());
    let schema = match cache.get(path, table, size, mtime) {
        Some(s) => s,
        None => {
            stats.schema_opened();
            let s = read_schema(path, table, options)?;
            cache.put(path, table, size, mtime, s.clone());
            s
        }
    };
    Ok(Member {
        path: path.to_path_buf(),
        shown: super::files::shown(path),
        size,
        schema,
    })
}
