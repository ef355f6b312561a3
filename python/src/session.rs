//! The session a Python `Database` runs SQL in: the one the `jetsql`
//! shell builds (Jet planner rules, information_schema, the memory limit,
//! files as tables), with the database registered as a catalog named
//! after the file whose tables also answer to bare names.

use datafusion::error::Result;
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetHandle, JetOptions, JetSession, SqlDialect};
use jet_storage::Database;
use std::path::Path;
use std::sync::Arc;

/// A session like the shell's (`sql-cli/src/session.rs`, `new_session`):
/// information_schema on, default catalog `datafusion`, schema `public`,
/// the Jet optimizer rules, a memory pool of `memory_limit` bytes, and
/// file names usable as tables (`SELECT * FROM 'x.parquet'`).
pub fn new_session(memory_limit: u64, dialect: SqlDialect) -> Result<JetSession> {
    let config = SessionConfig::new()
        .with_information_schema(true)
        .with_default_catalog_and_schema("datafusion", "public");
    let runtime = datafusion::execution::runtime_env::RuntimeEnvBuilder::new()
        .with_memory_limit(usize::try_from(memory_limit).unwrap_or(usize::MAX), 1.0)
        .build_arc()?;
    let state = jet_provider::jet_session_state_builder(config)
        .with_runtime_env(runtime)
        .build();
    let session = JetSession::new(SessionContext::new_with_state(state).enable_url_table());
    session.set_dialect(dialect);
    Ok(session)
}

/// Registers `db` on `session` as catalog [`catalog_name`] of `path`, its
/// tables also the default schema's (bare names).
pub fn register(
    session: &JetSession,
    path: &Path,
    db: Database,
    options: JetOptions,
) -> Result<(String, Arc<JetHandle>)> {
    let name = catalog_name(path);
    let handle = session.register_database(&name, db, options, true)?;
    Ok((name, handle))
}

/// The catalog name of `path`, as the shell names it: the file stem
/// lower-cased, characters other than letters, digits and `_` replaced by
/// `_`, prefixed with `_` when it would start with a digit or be empty,
/// and `datafusion_` for `datafusion` (the default catalog).
pub fn catalog_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if name == "datafusion" {
        name.push('_');
    }
    name
}
