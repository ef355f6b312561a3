//! The DataFusion session and the databases registered on it.
//!
//! [`new_session`] is the one place the session is built; everything else
//! (catalog registration, the default schema) is layered on the context it
//! returns, so a provider-built session with extra optimizer rules can be
//! swapped in there alone.

use async_trait::async_trait;
use datafusion::catalog::{MemorySchemaProvider, SchemaProvider, TableProvider};
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionConfig;
use jet_provider::{JetHandle, JetOptions, JetSession};
use jet_storage::{Database, Error as JetError, FormatError, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Builds the session every statement runs in: information_schema on (for
/// `SHOW TABLES`, `SHOW COLUMNS`), default catalog `datafusion`, schema
/// `public`; statements go through [`JetSession`] (writes, `BEGIN` /
/// `COMMIT` / `ROLLBACK`, `CREATE TABLE` in a database). Queries run
/// under a memory pool of `memory_limit` bytes (`--memory-limit`): an
/// operator that needs more fails with "resources exhausted", and the
/// text functions that build their whole result check it against the
/// limit first.
pub fn new_session(memory_limit: u64) -> Result<JetSession> {
    let config = SessionConfig::new()
        .with_information_schema(true)
        .with_default_catalog_and_schema("datafusion", "public");
    let runtime = datafusion::execution::runtime_env::RuntimeEnvBuilder::new()
        .with_memory_limit(usize::try_from(memory_limit).unwrap_or(usize::MAX), 1.0)
        .build_arc()?;
    // The Jet planner rules: ORDER BY … LIMIT walks an index, MIN/MAX read
    // index ends. Files name tables too: SELECT * FROM 'out.parquet'.
    let state = jet_provider::jet_session_state_builder(config)
        .with_runtime_env(runtime)
        .build();
    Ok(JetSession::new(
        datafusion::prelude::SessionContext::new_with_state(state).enable_url_table(),
    ))
}

/// How databases are opened.
#[derive(Debug, Clone, Default)]
pub struct OpenRequest {
    /// The database password given with `--password`. Jet3/Jet4 database
    /// passwords only mask the header, which the reader opens regardless;
    /// an encrypted ACCDB or Money file is refused whether or not one is
    /// given (the storage library takes it, `OpenOptions::password`; the
    /// CLI does not pass it yet), and the error says so.
    pub password: Option<String>,
}

/// A database registered on the session.
#[derive(Debug, Clone)]
pub struct OpenDb {
    /// Catalog name: the file stem, lower-cased (SQL folds unquoted names).
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// The handle its tables read and write through.
    pub handle: Arc<JetHandle>,
}

impl OpenDb {
    /// The database as it is now (after the session's last write).
    pub fn db(&self) -> std::result::Result<Database, String> {
        self.handle
            .database()
            .map_err(|e| format!("{}: {e}", self.name))
    }
}

/// Opens `path` with the request's password, turning storage errors into
/// messages that name the file (never the password).
pub fn open_database(path: &Path, req: &OpenRequest) -> std::result::Result<Database, String> {
    match Database::open(path, open_options(req)) {
        Ok(db) => Ok(db),
        Err(JetError::Crypt(jet_storage::CryptError::PasswordRequired { protection })) => {
            Err(format!(
                "{}: the file is protected ({protection}); give its password with --password or JETSQL_PASSWORD",
                path.display()
            ))
        }
        // the message names the path already
        Err(e @ JetError::Format(FormatError::NotAFile { .. })) => Err(e.to_string()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// The storage options of a request: its password.
pub fn open_options(req: &OpenRequest) -> OpenOptions {
    OpenOptions {
        password: req.password.as_deref().map(jet_storage::Password::from),
        ..OpenOptions::default()
    }
}

/// The catalog name for `path`: its stem lower-cased, non-identifier
/// characters replaced by `_`, made unique among `taken`.
fn catalog_name(path: &Path, taken: &[OpenDb]) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut base: String = stem
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if base.is_empty() || base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, '_');
    }
    if base == "datafusion" {
        base.push('_');
    }
    let mut name = base.clone();
    let mut n = 2;
    while taken.iter().any(|d| d.name == name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// Opens every file and registers it on `session` as catalog `<stem>`
/// (tables `stem.public."Table"`); the first database's tables also answer
/// to bare names in the default schema, which still accepts session
/// tables (`CREATE TABLE t AS …` while the database is read-only). With
/// `writable` every database accepts writes (`--write`); otherwise a
/// write is refused with a message naming `--write`.
pub fn register_files(
    session: &JetSession,
    files: &[PathBuf],
    req: &OpenRequest,
    writable: bool,
) -> std::result::Result<Vec<OpenDb>, String> {
    let mut dbs: Vec<OpenDb> = Vec::new();
    let options = JetOptions {
        writable,
        password: req.password.as_deref().map(jet_storage::Password::from),
        ..JetOptions::default()
    };
    for path in files {
        let db = open_database(path, req)?;
        let name = catalog_name(path, &dbs);
        let handle = session
            .register_database(&name, db, options.clone(), false)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        dbs.push(OpenDb {
            name,
            path: path.clone(),
            handle,
        });
    }
    if let Some(first) = dbs.first() {
        let catalog = session
            .context()
            .catalog("datafusion")
            .ok_or_else(|| "the session has no default catalog".to_string())?;
        // the first database's own schema (its saved queries answer as
        // views there), under the session's in-memory tables
        let jet = session
            .context()
            .catalog(&first.name)
            .and_then(|c| c.schema("public"))
            .ok_or_else(|| format!("{}: no public schema", first.path.display()))?;
        let schema = DefaultSchema {
            jet,
            mem: MemorySchemaProvider::new(),
        };
        catalog
            .register_schema("public", Arc::new(schema))
            .map_err(|e| e.to_string())?;
        session
            .set_default_database(&first.name)
            .map_err(|e| e.to_string())?;
    }
    Ok(dbs)
}

/// The default schema: the first database's tables (case-insensitive, as
/// in Access) with an in-memory schema over them for tables the session
/// creates.
#[derive(Debug)]
struct DefaultSchema {
    jet: Arc<dyn SchemaProvider>,
    mem: MemorySchemaProvider,
}

#[async_trait]
impl SchemaProvider for DefaultSchema {
    fn table_names(&self) -> Vec<String> {
        let mut names = self.mem.table_names();
        names.extend(self.jet.table_names());
        names
    }

    async fn table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        if let Some(t) = self.mem.table(name).await? {
            return Ok(Some(t));
        }
        self.jet.table(name).await
    }

    fn register_table(
        &self,
        name: String,
        table: Arc<dyn TableProvider>,
    ) -> Result<Option<Arc<dyn TableProvider>>> {
        if self.jet.table_exist(&name) {
            return Err(DataFusionError::Plan(format!(
                "table {name} already exists in the database"
            )));
        }
        self.mem.register_table(name, table)
    }

    fn deregister_table(&self, name: &str) -> Result<Option<Arc<dyn TableProvider>>> {
        self.mem.deregister_table(name)
    }

    async fn table_type(&self, name: &str) -> Result<Option<datafusion::logical_expr::TableType>> {
        if self.mem.table_exist(name) {
            return self.mem.table_type(name).await;
        }
        self.jet.table_type(name).await
    }

    fn table_exist(&self, name: &str) -> bool {
        self.mem.table_exist(name) || self.jet.table_exist(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_names_are_unique_identifiers() {
        assert_eq!(catalog_name(Path::new("/x/NWind.mdb"), &[]), "nwind");
        assert_eq!(catalog_name(Path::new("my db-1.accdb"), &[]), "my_db_1");
        assert_eq!(catalog_name(Path::new("2019.accdb"), &[]), "_2019");
        assert_eq!(
            catalog_name(Path::new("datafusion.mdb"), &[]),
            "datafusion_"
        );
    }
}
