//! The DataFusion session and the databases registered on it.
//!
//! The session itself is the provider's ([`new_session`]), shared with the
//! Python module; catalog registration, passwords asked on the terminal and
//! the default schema are layered on the context it returns.

use async_trait::async_trait;
use datafusion::catalog::{MemorySchemaProvider, SchemaProvider, TableProvider};
use datafusion::error::{DataFusionError, Result};
use jet_provider::{JetHandle, JetOptions, JetSession};
use jet_storage::{Database, Error as JetError, FormatError, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Builds the session every statement runs in: the one the Python module
/// uses too ([`jet_provider::session::new_session`]), under a memory pool
/// of `memory_limit` bytes (`--memory-limit`).
pub fn new_session(memory_limit: u64) -> Result<JetSession> {
    jet_provider::session::new_session(memory_limit)
}

/// A session whose queries run on the cluster whose scheduler is at
/// `address` (`--cluster`), under a memory pool of `memory_limit` bytes
/// for what runs here (catalog queries, the last merge of results).
pub fn cluster_session(
    address: &str,
    memory_limit: u64,
) -> std::result::Result<JetSession, String> {
    let node = Arc::new(jet_distributed::Node {
        memory_limit,
        ..jet_distributed::Node::default()
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(jet_distributed::remote_session(address, node))
        .map_err(|e| jet_provider::messages::plain(&e.to_string()))
}

/// Installs the table function `jet_files(files, table [, options])` on
/// the session with `password` (`--password`) for every file of an
/// archive; the shell reads the files it skipped (`skip_errors`) from the
/// function's stats after each statement.
pub fn install_archive_function(
    session: &JetSession,
    password: Option<String>,
) -> Arc<jet_provider::archive::JetFilesFunction> {
    let f = Arc::new(jet_provider::archive::JetFilesFunction::new(
        jet_provider::JetFilesOptions {
            password: password.as_deref().map(jet_storage::Password::from),
            ..jet_provider::JetFilesOptions::default()
        },
    ));
    jet_provider::archive::register_jet_files_function(session.context(), f.clone());
    f
}

/// How databases are opened: the password given (`--password` or
/// `$JETSQL_PASSWORD`, used for every file), and whether a file that needs
/// one may ask for it on the terminal. Passwords asked for are kept per
/// file for the rest of the run (a command that opens a file twice asks
/// once); none of them is ever printed (`Debug` shows only whether there
/// is one).
#[derive(Clone)]
pub struct OpenRequest {
    /// The password given on the command line or in the environment.
    pub password: Option<String>,
    /// Ask on the terminal (without echo) when a file needs a password
    /// and none was given, or the one given is wrong.
    pub ask: bool,
    /// Passwords asked for, by file.
    asked: Arc<std::sync::Mutex<Vec<(PathBuf, String)>>>,
    /// Hold the file's shared lock while the database is open (see
    /// `OpenOptions::hold_lock`); a read-only shell holds it per statement.
    hold_lock: bool,
}

impl Default for OpenRequest {
    fn default() -> Self {
        OpenRequest::new(None, false)
    }
}

impl std::fmt::Debug for OpenRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenRequest")
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("ask", &self.ask)
            .finish()
    }
}

impl OpenRequest {
    /// A request with `password` given, asking on the terminal when `ask`.
    pub fn new(password: Option<String>, ask: bool) -> OpenRequest {
        OpenRequest {
            password,
            ask,
            asked: Arc::default(),
            hold_lock: true,
        }
    }

    /// The password to try first for `path`: one asked for earlier, else
    /// the one given.
    pub fn password_for(&self, path: &Path) -> Option<String> {
        let asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        asked
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, pw)| pw.clone())
            .or_else(|| self.password.clone())
    }

    fn remember(&self, path: &Path, password: &str) {
        let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        asked.retain(|(p, _)| p != path);
        asked.push((path.to_path_buf(), password.to_string()));
    }
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
/// messages that name the file (never the password). With
/// [`OpenRequest::ask`], a file that needs a password none was given for,
/// or whose password was wrong, asks for it on the terminal (three tries).
pub fn open_database(path: &Path, req: &OpenRequest) -> std::result::Result<Database, String> {
    open_with_password(path, req).map(|(db, _)| db)
}

/// [`open_database`], also returning the password the file opened with.
pub fn open_with_password(
    path: &Path,
    req: &OpenRequest,
) -> std::result::Result<(Database, Option<String>), String> {
    let mut password = req.password_for(path);
    let mut tries = 0;
    loop {
        let options = OpenOptions {
            password: password.as_deref().map(jet_storage::Password::from),
            hold_lock: req.hold_lock,
            ..OpenOptions::default()
        };
        let e = match Database::open(path, options) {
            Ok(db) => return Ok((db, password)),
            Err(e) => e,
        };
        let needs = matches!(
            e,
            JetError::Crypt(
                jet_storage::CryptError::PasswordRequired { .. }
                    | jet_storage::CryptError::WrongPassword { .. }
            )
        );
        if needs && req.ask && tries < 3 {
            tries += 1;
            if password.is_some() {
                eprintln!("{}: {e}", path.display());
            }
            let typed = crate::password::ask(&format!("Password for {}: ", path.display()))?;
            req.remember(path, &typed);
            password = Some(typed);
            continue;
        }
        return Err(match e {
            JetError::Crypt(jet_storage::CryptError::PasswordRequired { protection }) => format!(
                "{}: the file is protected ({protection}); give its password with --password or JETSQL_PASSWORD",
                path.display()
            ),
            // the message names the path already
            e @ JetError::Format(FormatError::NotAFile { .. }) => e.to_string(),
            e => format!("{}: {e}", path.display()),
        });
    }
}

/// The storage options of a request for `path`: its password.
pub fn open_options(req: &OpenRequest, path: &Path) -> OpenOptions {
    OpenOptions {
        password: req
            .password_for(path)
            .as_deref()
            .map(jet_storage::Password::from),
        ..OpenOptions::default()
    }
}

/// The catalog name for `path` ([`jet_provider::session::catalog_name`]),
/// made unique with a `_2`, `_3`, … suffix among the names `taken` says
/// are in use.
pub fn unique_catalog_name(path: &Path, taken: impl Fn(&str) -> bool) -> String {
    let base = jet_provider::session::catalog_name(path);
    let mut name = base.clone();
    let mut n = 2;
    while taken(&name) {
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
    // read-only databases hold their lock per statement, so writers in
    // other processes get in between the shell's statements
    let req = OpenRequest {
        hold_lock: writable,
        ..req.clone()
    };
    for path in files {
        let (db, password) = open_with_password(path, &req)?;
        let options = JetOptions {
            writable,
            password: password.as_deref().map(jet_storage::Password::from),
            lock_per_statement: !writable,
            ..JetOptions::default()
        };
        let name = unique_catalog_name(path, |n| dbs.iter().any(|d| d.name == n));
        let handle = session
            .register_database(&name, db, options, false)
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
        assert_eq!(
            unique_catalog_name(Path::new("/x/NWind.mdb"), |_| false),
            "nwind"
        );
        assert_eq!(
            unique_catalog_name(Path::new("my db-1.accdb"), |_| false),
            "my_db_1"
        );
        assert_eq!(
            unique_catalog_name(Path::new("2019.accdb"), |_| false),
            "_2019"
        );
        assert_eq!(
            unique_catalog_name(Path::new("datafusion.mdb"), |_| false),
            "datafusion_"
        );
        assert_eq!(
            unique_catalog_name(Path::new("b/nwind.mdb"), |n| n == "nwind" || n == "nwind_2"),
            "nwind_3"
        );
    }
}
