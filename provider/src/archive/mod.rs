//! Archives: one table over many Access files.
//!
//! Exports: [`register_jet_files`], [`register_jet_files_function`],
//! [`JetFilesTable`], [`JetFilesOptions`], [`JetFilesFunction`],
//! [`JetFilesExec`], [`JetFilesPlan`], [`ArchiveStats`], [`FileSource`],
//! [`Member`] and the helpers [`expand`], [`is_glob`], [`shown`],
//! [`union_schema`], [`widen`].
//!
//! [`register_jet_files`] (or the table function `jet_files`, which
//! [`crate::jet_session_state_builder`] installs) makes one table of the
//! same-named table in every file of a glob or a list:
//!
//! - schema: the union of the files' columns by name, ignoring case (the
//!   first file's spelling kept), types widened ([`widen`]), plus `_file`,
//!   the path of each row's file;
//! - `_file` filters (`=`, `IN`, `LIKE`, `starts_with`, …) are evaluated on
//!   the list of files when the query is planned: only the files they
//!   keep are opened;
//! - partitions are groups of files balanced by size (a file larger than
//!   [`JetFilesOptions::split_bytes`] is split into page ranges); each file
//!   is read by the single-file plan, so filters become index seeks in
//!   every file that has the index;
//! - files are opened lazily, when their turn comes, at most
//!   [`JetFilesOptions::max_open`] at once, and closed when read;
//! - a file that cannot be read fails the query with an error naming it,
//!   or, with [`JetFilesOptions::skip_errors`], is skipped and reported
//!   ([`ArchiveStats::take_warnings`]).
//!
//! ```no_run
//! # async fn demo() -> datafusion::error::Result<()> {
//! use datafusion::prelude::SessionConfig;
//! use jet_provider::archive::{JetFilesOptions, register_jet_files};
//! let ctx = jet_provider::session_context(SessionConfig::new());
//! let t = register_jet_files(&ctx, "orders", "archive/**/*.mdb", "Orders", JetFilesOptions::default())?;
//! ctx.sql("SELECT _file, count(*) FROM orders GROUP BY _file").await?.show().await?;
//! println!("{} files opened", t.stats().scan_opens());
//! # Ok(()) }
//! ```

mod discover;
mod exec;
mod files;
mod function;
mod options;
mod prune;
mod schema;
mod stats;
mod table;

pub use discover::Member;
pub use exec::{JetFilesExec, JetFilesPlan, PasswordFn, PlanFile, Unit};
pub use files::{FileSource, expand, is_glob, shown};
pub use function::JetFilesFunction;
pub use options::JetFilesOptions;
pub use schema::{FILE_COLUMN, union_schema, widen};
pub use stats::ArchiveStats;
pub use table::JetFilesTable;

use datafusion::error::Result;
use datafusion::prelude::SessionContext;
use std::sync::Arc;

/// Registers table `name` in the session's default schema: table `table`
/// of every file of `files` (a glob, `&str`, or a list of paths) as one
/// table (see the module docs). Returns the table, whose
/// [`JetFilesTable::stats`] count opens and list the files skipped.
pub fn register_jet_files(
    ctx: &SessionContext,
    name: &str,
    files: impl Into<FileSource>,
    table: &str,
    options: JetFilesOptions,
) -> Result<Arc<JetFilesTable>> {
    let t = Arc::new(JetFilesTable::try_new(&files.into(), table, options)?);
    ctx.register_table(name, t.clone())?;
    Ok(t)
}

/// The name the table function is registered under.
pub const FUNCTION_NAME: &str = "jet_files";

/// Registers `jet_files` on `ctx` with `function` (its defaults, e.g. a
/// password, and the stats the caller reads warnings from), replacing the
/// one the Jet session builder installed.
pub fn register_jet_files_function(ctx: &SessionContext, function: Arc<JetFilesFunction>) {
    ctx.register_udtf(FUNCTION_NAME, function);
}
