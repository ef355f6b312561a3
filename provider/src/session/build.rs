//! Building sessions: the session state with the Jet planner rules, the
//! session the `jetsql` shell and the Python module run SQL in, and the
//! catalog name a database file gets there. Both front ends build their
//! sessions here, so a statement answers the same in either.

use super::statement::JetSession;
use crate::scan::literals::analyzer_rules;
use crate::scan::rules::physical_optimizer_rules;
use datafusion::error::Result;
use datafusion::execution::SessionStateBuilder;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use std::path::Path;
use std::sync::Arc;

/// A session state builder with DataFusion's defaults and the Jet rules
/// ([`physical_optimizer_rules`]) for `config`, which is changed in one
/// way: SQL decimal literals (`2171.2942`) parse as DECIMAL, not as
/// a binary float, so they compare exactly with Currency and Numeric
/// columns (`sql_parser.parse_float_as_decimal`); a float compared with a
/// decimal compares as Double ([`crate::scan::literals`]).
///
/// The table function `jet_files(files, table [, options])`
/// ([`crate::archive`]) is installed beside DataFusion's own.
pub fn jet_session_state_builder(mut config: SessionConfig) -> SessionStateBuilder {
    config.options_mut().sql_parser.parse_float_as_decimal = true;
    let mut builder = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .with_analyzer_rules(analyzer_rules())
        .with_physical_optimizer_rules(physical_optimizer_rules());
    builder.table_functions().get_or_insert_default().insert(
        crate::archive::FUNCTION_NAME.to_string(),
        Arc::new(datafusion::catalog::TableFunction::new(
            crate::archive::FUNCTION_NAME.to_string(),
            Arc::new(crate::archive::JetFilesFunction::default()),
        )),
    );
    builder
}

/// A `SessionContext` for `config` whose planner uses the Jet rules; use it
/// instead of `SessionContext::new_with_config` before [`crate::register_jet`].
pub fn session_context(config: SessionConfig) -> SessionContext {
    SessionContext::new_with_state(jet_session_state_builder(config).build())
}

/// Builds a session: information_schema on (for `SHOW TABLES`,
/// `SHOW COLUMNS`), default catalog `datafusion`, schema `public`, the
/// Jet planner rules ([`jet_session_state_builder`]: `ORDER BY …
/// LIMIT` walks an index, `MIN`/`MAX` read index ends), file names usable
/// as tables (`SELECT * FROM 'out.parquet'`), CSV values that hold line
/// breaks read back whole (Access text holds CR/LF; `COPY` and export
/// quote such values), and a memory pool of `memory_limit` bytes: an
/// operator that needs more fails with "resources exhausted". Statements
/// go through [`JetSession`] (writes, `BEGIN` / `COMMIT` / `ROLLBACK`,
/// `CREATE TABLE` in a database), in the Jet SQL dialect until
/// [`JetSession::set_dialect`] says otherwise.
pub fn new_session(memory_limit: u64) -> Result<JetSession> {
    Ok(JetSession::new(
        base_context(memory_limit)?.enable_url_table(),
    ))
}

/// [`new_session`] for a server whose clients must not reach the server's
/// files: no file names as tables and no `jet_files` table function.
/// (`COPY … TO` and `CREATE EXTERNAL TABLE` are the server's to refuse:
/// they are statements, not functions.)
pub fn server_session(memory_limit: u64) -> Result<JetSession> {
    let ctx = base_context(memory_limit)?;
    ctx.deregister_udtf(crate::archive::FUNCTION_NAME);
    Ok(JetSession::new(ctx))
}

fn base_context(memory_limit: u64) -> Result<SessionContext> {
    let mut config = SessionConfig::new()
        .with_information_schema(true)
        .with_default_catalog_and_schema("datafusion", "public");
    config.options_mut().catalog.newlines_in_values = true;
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_limit(usize::try_from(memory_limit).unwrap_or(usize::MAX), 1.0)
        .build_arc()?;
    let state = jet_session_state_builder(config)
        .with_runtime_env(runtime)
        .build();
    Ok(SessionContext::new_with_state(state))
}

/// The catalog name of the database file `path`: its stem lower-cased
/// (SQL folds unquoted names), every character other than a letter, a
/// digit or `_` replaced by `_`, prefixed with `_` when it would be empty
/// or start with a digit, and `datafusion_` for `datafusion` (the default
/// catalog's name). The result is always a plain SQL identifier.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_names_are_plain_identifiers() {
        assert_eq!(catalog_name(Path::new("/x/NWind.mdb")), "nwind");
        assert_eq!(catalog_name(Path::new("my db-1.accdb")), "my_db_1");
        assert_eq!(catalog_name(Path::new("2019.accdb")), "_2019");
        assert_eq!(catalog_name(Path::new("")), "_");
        assert_eq!(catalog_name(Path::new("datafusion.mdb")), "datafusion_");
    }
}
