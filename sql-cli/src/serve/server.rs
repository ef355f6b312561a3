//! What every connection of one `jetsql serve` shares: the databases
//! served (each opened once; every connection reads the same handle), the
//! memory limit of a session, and the limit on connections.

use super::auth::{Right, Users};
use super::writes::Gate;
use crate::session::{OpenRequest, open_with_password, unique_catalog_name};
use datafusion::error::Result as DfResult;
use jet_provider::{JetHandle, JetOptions, JetSession, SqlDialect};
use std::path::PathBuf;
use std::sync::Arc;

/// One database file served, under the name clients give as the database
/// (`psql -d NAME`): the file's stem as `jetsql` names its catalog.
pub struct Served {
    /// The database name.
    pub name: String,
    /// The open database, shared by every connection.
    pub handle: Arc<JetHandle>,
}

/// The state of one server.
pub struct Server {
    /// The databases, in command-line order; the first is the one a client
    /// that names none gets.
    pub served: Vec<Served>,
    /// The memory pool of each connection's session, in bytes.
    pub memory_limit: u64,
    /// The dialect a connection starts in.
    pub dialect: SqlDialect,
    /// Connections served at once; more are refused (53300).
    pub max_connections: usize,
    /// The users who may connect (`None`: anyone on the loopback address,
    /// no password).
    pub users: Option<Users>,
    /// Whether the files are open for writing (`--write`).
    pub writable: bool,
    /// The lock that orders reads and writes (a `--write` server's).
    pub gate: Option<Arc<Gate>>,
    /// Where cancel requests find their connection.
    pub cancels: Arc<pgwire::api::ConnectionManager>,
    /// The longest any statement runs (`--statement-timeout`).
    pub statement_timeout: Option<std::time::Duration>,
}

impl Server {
    /// Opens every file, for writing when `write` (`--write`: the
    /// server's clients with the right write through the journal, one at a
    /// time, waiting at most `lock_wait` for each other), else read-only.
    /// A file that needs a password takes the one given with
    /// `--password`; none is asked for at a terminal: a server has none.
    /// The server holds each file's lock while it runs.
    pub fn open(
        files: &[PathBuf],
        req: &OpenRequest,
        memory_limit: u64,
        max_connections: usize,
        write: Option<std::time::Duration>,
    ) -> Result<Server, String> {
        let mut req = req.clone();
        req.ask = false;
        let mut served: Vec<Served> = Vec::new();
        for path in files {
            let (db, password) = open_with_password(path, &req)?;
            let options = JetOptions {
                writable: write.is_some(),
                password: password.as_deref().map(jet_storage::Password::from),
                // the server holds the file's lock while it runs (the
                // shell's per-statement lock is not used)
                lock_per_statement: false,
                ..JetOptions::default()
            };
            let name = unique_catalog_name(path, |n| served.iter().any(|s| s.name == n));
            served.push(Served {
                name,
                handle: Arc::new(JetHandle::new(db, options)),
            });
        }
        let gate = write.map(|wait| {
            Arc::new(Gate::new(
                served.iter().map(|s| s.handle.clone()).collect(),
                wait,
            ))
        });
        Ok(Server {
            served,
            memory_limit,
            dialect: SqlDialect::Access,
            max_connections,
            users: None,
            writable: write.is_some(),
            gate,
            cancels: Arc::new(pgwire::api::ConnectionManager::new()),
            statement_timeout: None,
        })
    }

    /// What a connection may do, given its user's right in the users file
    /// (`None`: a server without users): never more than the server's
    /// files allow.
    pub fn right(&self, user: Option<Right>) -> Right {
        if self.writable {
            user.unwrap_or(Right::Write)
        } else {
            Right::Read
        }
    }

    /// The database a client asked for (`None` or empty: the first); names
    /// match ignoring case, as the catalog names are lower case.
    pub fn database(&self, asked: Option<&str>) -> Option<&Served> {
        match asked.filter(|a| !a.is_empty()) {
            None => self.served.first(),
            Some(a) => self.served.iter().find(|s| s.name.eq_ignore_ascii_case(a)),
        }
    }

    /// A new session for one connection to database `db`: its tables answer
    /// to bare names; every other database served is a catalog of its own
    /// (`other.public."Table"`). Reads no file by name and has no
    /// `jet_files` (`jet_provider::session::server_session`). A connection
    /// with [`Right::Read`] gets read-only views of the databases, so no
    /// statement of its can write.
    pub fn session(&self, db: &Served, right: Right) -> DfResult<JetSession> {
        let session = jet_provider::session::server_session(self.memory_limit)?;
        let handle = |s: &Served| match right {
            Right::Write => s.handle.clone(),
            Right::Read => Arc::new(s.handle.read_only()),
        };
        session.register_handle(&db.name, handle(db), true)?;
        for other in self.served.iter().filter(|s| s.name != db.name) {
            session.register_handle(&other.name, handle(other), false)?;
        }
        session.set_dialect(self.dialect);
        Ok(session)
    }
}
