//! Writing a database file: the journaled file target of the writer.
//!
//! [`Database::open_writable`](crate::Database::open_writable) opens a file
//! through [`JournaledFile`] (exclusive lock, Access lock file, recovery of
//! a journal left by a crash) and reads the committed image back page by
//! page with positional reads, so a transaction never loads the whole file.

use super::txn::{WriteTarget, Writer};
use crate::journal::JournaledFile;
use crate::page::{FilePageSource, PageSource};
use crate::read::database::read_header;
use std::path::Path;
use std::sync::Arc;

/// Pages cached by the reader a transaction sees the committed image through.
const WRITER_CACHE_PAGES: usize = 1024;

impl WriteTarget for JournaledFile {
    fn source(&self) -> crate::Result<Arc<dyn PageSource>> {
        let path = self.path();
        let probe = FilePageSource::open(&path, 2048, 0)?;
        let header = read_header(&probe.read_page(0)?)?;
        let ps = header.version.layout().page_size;
        Ok(Arc::new(FilePageSource::open(
            &path,
            ps,
            WRITER_CACHE_PAGES,
        )?))
    }
}

/// The simulated disk as a write target (fault-injection tests: crashes
/// and a full disk during writer transactions); the committed image is
/// the database file as the process sees it.
impl WriteTarget for JournaledFile<crate::journal::sim::SimStorage> {
    fn source(&self) -> crate::Result<Arc<dyn PageSource>> {
        let db = self.storage().live_disk().db;
        let header = read_header(db.get(..2048).unwrap_or(&db))?;
        let ps = header.version.layout().page_size;
        Ok(Arc::new(crate::page::MemPageSource::new(db, ps)))
    }
}

impl crate::Database {
    /// Opens the database file at `path` for writing. Every transaction of
    /// the returned writer commits through the undo journal: after a crash
    /// at any point the file holds exactly the image before or after it.
    /// Holds the exclusive writer lock (and the Access lock file) until the
    /// writer is dropped; refuses Jet3 and Money files and files that need
    /// a password (see [`crate::Database::open_writable_with_password`]).
    pub fn open_writable(path: impl AsRef<Path>) -> crate::Result<Writer<JournaledFile>> {
        Writer::new(JournaledFile::open(path.as_ref())?)
    }

    /// [`Database::open_writable`](crate::Database::open_writable) for a
    /// file that needs a password (an encrypted ACCDB; Jet4 RC4-encoded
    /// files need none): the password is checked before any page is decoded, and the
    /// pages each transaction changes are encrypted again before they are
    /// journaled and written (see [`Writer::with_password`]).
    pub fn open_writable_with_password(
        path: impl AsRef<Path>,
        password: Option<&crate::page::crypt::Password>,
    ) -> crate::Result<Writer<JournaledFile>> {
        Writer::with_password(JournaledFile::open(path.as_ref())?, password)
    }
}
