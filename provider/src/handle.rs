//! The handle of one registered database: [`JetOptions`] (how it is
//! exposed), the read-side [`Database`] its tables scan, and its
//! transaction state (the writer and its lock held for one statement, or an
//! explicit `BEGIN` … `COMMIT` collecting changes in memory).
//!
//! Every statement is one journaled transaction of the storage writer:
//! either all its rows change or none do. After each commit the handle
//! reopens its read-side [`Database`], so the next statement sees the new
//! rows.
//!
//! Serializable writers: a statement that writes takes the file's writer
//! lock *before* it is planned ([`JetHandle::lock_for_statement`], called
//! by [`crate::JetSession`]) and refreshes the read-side [`Database`] under
//! it, so everything the statement reads (an `INSERT … SELECT` from the
//! same table, the rows a DELETE chooses) is the committed image no other
//! process can change until the statement's own commit. A writer that
//! cannot get the lock within the wait fails with the busy error
//! (`JournalError::Locked`).

use crate::error::{refuse, to_df};
use datafusion::error::{DataFusionError, Result};
use jet_storage::error::WResult;
use jet_storage::journal::JournaledFile;
use jet_storage::journal::lock::{DEFAULT_LOCK_WAIT, FileLock};
use jet_storage::page::image::{CommitTarget, ImageChanges, MemImage};
use jet_storage::{Database, FileStamp, OpenOptions, Transaction, Writer};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// How a database is exposed to DataFusion.
#[derive(Debug, Clone)]
pub struct JetOptions {
    /// List system tables (MSysObjects, …) too.
    pub system_tables: bool,
    /// Use indexes: filters become index seeks, and (with the rules of
    /// [`crate::physical_optimizer_rules`]) `ORDER BY … LIMIT` walks an
    /// index and `MIN`/`MAX` read index ends. Off: every query is answered
    /// from full scans (the reference for differential tests).
    pub pushdown: bool,
    /// Rows per batch.
    pub batch_size: usize,
    /// Allow INSERT / UPDATE / DELETE / CREATE TABLE / DROP TABLE. Off (the
    /// default): the database is read-only and every write is refused.
    pub writable: bool,
    /// The database's password: it opens an encrypted file (and every
    /// re-open after a write), and pages written to it are encrypted
    /// again. Never shown (its `Debug` hides it).
    pub password: Option<jet_storage::Password>,
    /// For a read-only database opened with `OpenOptions::hold_lock`
    /// off: no lock is held between statements, so writers in other
    /// processes get in; [`crate::JetHandle::read_snapshot`] takes the
    /// shared lock for each statement and reads the file again when it
    /// changed. Off (the default): the database's lock is held for as long
    /// as it is registered.
    pub lock_per_statement: bool,
}

impl Default for JetOptions {
    fn default() -> Self {
        JetOptions {
            system_tables: false,
            pushdown: true,
            batch_size: 8192,
            writable: false,
            password: None,
            lock_per_statement: false,
        }
    }
}

/// An explicit transaction in progress: the writer holding the file's
/// exclusive lock, the committed image at `BEGIN`, and an in-memory writer
/// that collects the statements' changes until `COMMIT`.
struct Explicit {
    file: Writer<JournaledFile>,
    base: Vec<u8>,
    mem: Writer<MemImage>,
}

struct State {
    db: Database,
    /// The file's stamp when `db` was read (per-statement locking).
    stamp: Option<FileStamp>,
    explicit: Option<Explicit>,
    /// The writer (and its exclusive lock) held for one statement.
    statement: Option<Writer<JournaledFile>>,
    /// How many times `db` was replaced (see [`JetHandle::generation`]).
    generation: u64,
}

/// One registered database: the read-side [`Database`] the tables scan
/// (swapped after every commit) and, when writable, the file writes go to.
/// Writes are serialised by the handle's lock; the writer (and its
/// exclusive lock) is held only while a statement or an explicit
/// transaction runs.
pub struct JetHandle {
    path: Option<PathBuf>,
    options: JetOptions,
    /// Shared with the handle's read-only views ([`JetHandle::read_only`]).
    state: Arc<Mutex<State>>,
}

impl fmt::Debug for JetHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JetHandle")
            .field("path", &self.path)
            .field("writable", &self.options.writable)
            .finish()
    }
}

impl JetHandle {
    /// A handle over an already open database; writable only when
    /// `options.writable` is set and `db` was opened from a file.
    pub fn new(db: Database, options: JetOptions) -> Self {
        let stamp = db.path().and_then(|p| FileStamp::of(p).ok());
        JetHandle {
            path: db.path().map(|p| p.to_path_buf()),
            options,
            state: Arc::new(Mutex::new(State {
                db,
                stamp,
                explicit: None,
                statement: None,
                generation: 0,
            })),
        }
    }

    /// A read-only view of this handle: it reads what this handle reads
    /// (each commit through this handle is seen by the view's next
    /// statement), and every write through it is refused as through a
    /// handle opened read-only. For a server's clients that may only
    /// read a database others write.
    pub fn read_only(&self) -> JetHandle {
        JetHandle {
            path: self.path.clone(),
            options: JetOptions {
                writable: false,
                lock_per_statement: false,
                ..self.options.clone()
            },
            state: self.state.clone(),
        }
    }

    /// Options of the registration.
    pub fn options(&self) -> &JetOptions {
        &self.options
    }

    fn lock(&self) -> Result<MutexGuard<'_, State>> {
        self.state
            .lock()
            .map_err(|_| DataFusionError::Internal("jet handle lock poisoned".into()))
    }

    /// The current read-side database (the committed image, or inside an
    /// explicit transaction the image with its changes so far).
    pub fn database(&self) -> Result<Database> {
        Ok(self.lock()?.db.clone())
    }

    /// A number that changes whenever the read-side database is replaced
    /// (a commit, a statement's reopen, a change inside a transaction):
    /// a plan made while it had one value reads what the database holds
    /// only while it keeps that value. Shared with the read-only views.
    pub fn generation(&self) -> u64 {
        self.lock().map_or(u64::MAX, |s| s.generation)
    }

    /// True while an explicit transaction (`BEGIN` … `COMMIT`) is open.
    pub fn in_transaction(&self) -> bool {
        self.lock().map(|s| s.explicit.is_some()).unwrap_or(false)
    }

    fn writable_path(&self) -> Result<&PathBuf> {
        if !self.options.writable {
            return Err(refuse(
                "the database is open read-only; open it for writing (jetsql --write) to change it",
            ));
        }
        self.path
            .as_ref()
            .ok_or_else(|| refuse("the database was not opened from a file; it cannot be written"))
    }

    /// Whether the handle holds no lock between statements.
    fn per_statement(&self) -> bool {
        self.options.lock_per_statement && !self.options.writable
    }

    fn reopen(&self, path: &PathBuf) -> Result<Database> {
        let options = OpenOptions {
            password: self.options.password.clone(),
            hold_lock: !self.per_statement(),
            ..OpenOptions::default()
        };
        Database::open(path, options).map_err(to_df)
    }

    /// For a read-only handle registered with
    /// [`JetOptions::lock_per_statement`]: takes the file's shared lock for
    /// one statement (waiting, as any reader, for another process's writer
    /// to commit) and, when the file changed since it was last read
    /// ([`FileStamp`]), opens it again first, so the statement reads one
    /// committed state. Keep the returned lock until the statement's
    /// results are read. `None` for other handles, whose database holds
    /// its lock for as long as it is open.
    pub fn read_snapshot(&self) -> Result<Option<FileLock>> {
        if !self.per_statement() {
            return Ok(None);
        }
        let Some(path) = self.path.clone() else {
            return Ok(None);
        };
        let guard = jet_storage::journal::open_for_read(&path, DEFAULT_LOCK_WAIT)
            .map_err(|e| to_df(e.into()))?;
        let stamp = FileStamp::of(&path).ok();
        let mut st = self.lock()?;
        if stamp.is_none() || st.stamp != stamp {
            st.db = self.reopen(&path)?;
            st.generation += 1;
            st.stamp = stamp;
        }
        Ok(guard)
    }

    /// The file's writer (its lock taken), unlocked with the password.
    fn open_writer(&self, path: &Path) -> Result<Writer<JournaledFile>> {
        Database::open_writable_with_password(path, self.options.password.as_ref()).map_err(to_df)
    }

    /// Takes the file's writer lock for one statement that writes (waiting
    /// up to the lock wait for other processes, then failing with the busy
    /// error) and reopens the read side under it, so the statement plans
    /// and reads the image its commit will change. Does nothing for a
    /// read-only handle, inside an explicit transaction (which holds the
    /// lock since `BEGIN`) or when the lock is already held; release with
    /// [`JetHandle::unlock_statement`].
    pub fn lock_for_statement(&self) -> Result<()> {
        if !self.options.writable {
            return Ok(());
        }
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        let mut st = self.lock()?;
        if st.explicit.is_some() || st.statement.is_some() {
            return Ok(());
        }
        let writer = self.open_writer(&path)?;
        st.db = self.reopen(&path)?;
        st.generation += 1;
        st.statement = Some(writer);
        Ok(())
    }

    /// Releases the lock [`JetHandle::lock_for_statement`] took.
    pub fn unlock_statement(&self) {
        if let Ok(mut st) = self.lock() {
            st.statement = None;
        }
    }

    /// Runs one statement's write: `prepare` reads the committed image (to
    /// choose rows), then `apply` changes it in one transaction. Outside an
    /// explicit transaction the change is committed through the journal
    /// and the read side reopened; inside one it joins the transaction.
    /// Under [`JetHandle::lock_for_statement`] the held writer is used;
    /// otherwise the writer lock is taken here (then only `prepare` is
    /// guaranteed to read under it).
    pub fn write<P, R>(
        &self,
        prepare: impl FnOnce(&Database) -> Result<P>,
        apply: impl FnOnce(&mut Transaction<'_>, P) -> WResult<R>,
    ) -> Result<R> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        if let Some(ex) = st.explicit.as_mut() {
            let db = ex.mem.database().map_err(to_df)?;
            let p = prepare(&db)?;
            let out = ex.mem.transaction(|tx| apply(tx, p)).map_err(to_df)?;
            st.db = ex_db(st.explicit.as_ref())?;
            st.generation += 1;
            return Ok(out);
        }
        if let Some(writer) = st.statement.as_mut() {
            let db = writer.database().map_err(to_df)?;
            let p = prepare(&db)?;
            drop(db);
            // on an error the file is not read again here: a journal left
            // by an uncertain commit is decided by the next statement's
            // lock (recovery), and the error itself must reach the user
            let out = writer.transaction(|tx| apply(tx, p)).map_err(to_df)?;
            st.db = self.reopen(&path)?;
            st.generation += 1;
            return Ok(out);
        }
        let mut writer = self.open_writer(&path)?;
        let db = writer.database().map_err(to_df)?;
        let p = prepare(&db)?;
        drop(db);
        let out = writer.transaction(|tx| apply(tx, p)).map_err(to_df)?;
        drop(writer);
        st.db = self.reopen(&path)?;
        st.generation += 1;
        Ok(out)
    }

    /// `BEGIN`: later statements collect their changes in memory until
    /// [`JetHandle::commit`]; the file's writer lock is held meanwhile.
    pub fn begin(&self) -> Result<()> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        if st.explicit.is_some() {
            return Err(refuse("a transaction is already open (BEGIN inside BEGIN)"));
        }
        let file = self.open_writer(&path)?;
        let base = std::fs::read(&path).map_err(DataFusionError::IoError)?;
        let mem = Writer::with_password(
            MemImage {
                bytes: base.clone(),
            },
            self.options.password.as_ref(),
        )
        .map_err(to_df)?;
        st.explicit = Some(Explicit { file, base, mem });
        st.db = ex_db(st.explicit.as_ref())?;
        st.generation += 1;
        Ok(())
    }

    /// `COMMIT`: every change since `BEGIN` reaches the file in one
    /// journaled commit.
    pub fn commit(&self) -> Result<()> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        let Some(ex) = st.explicit.take() else {
            return Err(refuse("COMMIT without BEGIN"));
        };
        let version = ex.mem.version();
        let new = ex.mem.into_target().bytes;
        let changes = diff(&ex.base, &new, version.layout().page_size)?;
        let mut target = ex.file.into_target();
        if !changes.is_empty() {
            target.commit(&changes).map_err(to_df)?;
        }
        drop(target);
        st.db = self.reopen(&path)?;
        st.generation += 1;
        Ok(())
    }

    /// `ROLLBACK`: forgets every change since `BEGIN`; the file was never
    /// touched.
    pub fn rollback(&self) -> Result<()> {
        let path = self.writable_path()?.clone();
        let mut st = self.lock()?;
        if st.explicit.take().is_none() {
            return Err(refuse("ROLLBACK without BEGIN"));
        }
        st.db = self.reopen(&path)?;
        st.generation += 1;
        Ok(())
    }
}

fn ex_db(ex: Option<&Explicit>) -> Result<Database> {
    let ex = ex.ok_or_else(|| DataFusionError::Internal("no explicit transaction".into()))?;
    ex.mem.database().map_err(to_df)
}

/// The pages of `new` that differ from `old` (both whole images).
fn diff(old: &[u8], new: &[u8], page_size: usize) -> Result<ImageChanges> {
    let pages = |b: &[u8]| {
        u32::try_from(b.len() / page_size)
            .map_err(|_| DataFusionError::Internal("image too large".into()))
    };
    let (old_pages, new_pages) = (pages(old)?, pages(new)?);
    let mut changed = BTreeMap::new();
    for (n, page) in new.chunks(page_size).enumerate() {
        let o = old.get(n * page_size..(n + 1) * page_size);
        if o != Some(page) {
            let n = u32::try_from(n).map_err(|_| DataFusionError::Internal("page".into()))?;
            changed.insert(n, page.to_vec().into_boxed_slice());
        }
    }
    Ok(ImageChanges {
        page_size,
        old_pages,
        new_pages,
        pages: changed,
    })
}
