//! The storage the journal protocol runs on: a database file, its journal
//! file and the directory holding both.
//!
//! The journaled commit and recovery are written once, generic over
//! [`Storage`]; [`FsStorage`] is the real file system and
//! [`SimStorage`](super::sim::SimStorage) a simulated disk that can crash.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Which of the two files an operation addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// The database file.
    Database,
    /// Its undo journal, `<db>.jetjournal`: only ever a whole, sealed
    /// journal (it gets this name by [`Storage::seal_journal`]).
    Journal,
    /// The journal being built, `<db>.jetjournal-partial`; the database
    /// is never written while only this file exists.
    PartialJournal,
}

/// Operations on a database file, its journal and their directory.
///
/// A write, length change, creation or removal is durable only after the
/// matching [`Storage::sync`] (file contents and length) or
/// [`Storage::sync_dir`] (creation and removal of the journal). Until then
/// a crash may keep any subset of them.
pub trait Storage {
    /// The database's file name (identifies the database in its journal).
    fn db_name(&self) -> &str;
    /// A path naming `file` in error messages.
    fn path_of(&self, file: FileKind) -> PathBuf;
    /// Whether `file` exists.
    fn exists(&mut self, file: FileKind) -> io::Result<bool>;
    /// Length of `file` in bytes.
    fn len(&mut self, file: FileKind) -> io::Result<u64>;
    /// Fills `buf` from `offset`; an error if any byte lies past the end.
    fn read_at(&mut self, file: FileKind, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Writes `data` at `offset`, extending the file (zero-filled) if needed.
    fn write_at(&mut self, file: FileKind, offset: u64, data: &[u8]) -> io::Result<()>;
    /// Sets the length of `file` (an extension reads as zeros).
    fn set_len(&mut self, file: FileKind, len: u64) -> io::Result<()>;
    /// Makes the contents and length of `file` durable.
    fn sync(&mut self, file: FileKind) -> io::Result<()>;
    /// Creates `file` empty; an error if it exists.
    fn create(&mut self, file: FileKind) -> io::Result<()>;
    /// Removes `file`.
    fn remove(&mut self, file: FileKind) -> io::Result<()>;
    /// Makes creations and removals in the directory durable.
    fn sync_dir(&mut self) -> io::Result<()>;
    /// Renames the partial journal to the journal's name (an atomic
    /// replace of the directory entry; durable after [`Storage::sync_dir`]).
    fn seal_journal(&mut self) -> io::Result<()>;
}

/// The journal path of a database: its path with `.jetjournal` appended to
/// the file name (`nwind.mdb` → `nwind.mdb.jetjournal`).
pub fn journal_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_os_string();
    s.push(".jetjournal");
    PathBuf::from(s)
}

/// The path of the journal while it is being built:
/// `<db>.jetjournal-partial`.
pub fn partial_journal_path(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_os_string();
    s.push(".jetjournal-partial");
    PathBuf::from(s)
}

/// What `path` is when it exists but is not a regular file (symlinks are
/// followed): "a directory", "a FIFO", "a device" or "a socket"; `None`
/// for a regular file, a path that does not exist, or one that cannot be
/// examined (opening it then reports why). Checked before anything opens
/// the path, so a FIFO never blocks an open and a device is never read.
pub fn not_a_regular_file(path: &Path) -> Option<&'static str> {
    file_kind(&std::fs::metadata(path).ok()?)
}

/// What a file's metadata says it is when it is not a regular file: "a
/// directory", "a FIFO", "a device", "a socket" or "not a regular file";
/// `None` for a regular file. Shared by the open checks and by the checks
/// of files SQL statements write.
pub fn file_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a FIFO");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

/// The real file system: `std::fs`, `File::sync_all` for contents and an
/// fsync of the directory for creations and removals.
#[derive(Debug)]
pub struct FsStorage {
    db_path: PathBuf,
    journal_path: PathBuf,
    partial_path: PathBuf,
    dir: PathBuf,
    name: String,
    db: Option<File>,
    journal: Option<File>,
    partial: Option<File>,
}

impl FsStorage {
    /// Storage for the database at `path` (nothing is opened yet).
    pub fn new(path: impl AsRef<Path>) -> FsStorage {
        let db_path = path.as_ref().to_path_buf();
        let dir = match db_path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = db_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        FsStorage {
            journal_path: journal_path(&db_path),
            partial_path: partial_journal_path(&db_path),
            db_path,
            dir,
            name,
            db: None,
            journal: None,
            partial: None,
        }
    }

    fn file(&mut self, file: FileKind) -> io::Result<&File> {
        let (slot, path) = match file {
            FileKind::Database => (&mut self.db, &self.db_path),
            FileKind::Journal => (&mut self.journal, &self.journal_path),
            FileKind::PartialJournal => (&mut self.partial, &self.partial_path),
        };
        if slot.is_none() {
            *slot = Some(OpenOptions::new().read(true).write(true).open(path)?);
        }
        slot.as_ref()
            .ok_or_else(|| io::Error::other("file handle vanished"))
    }
}

impl Storage for FsStorage {
    fn db_name(&self) -> &str {
        &self.name
    }

    fn path_of(&self, file: FileKind) -> PathBuf {
        match file {
            FileKind::Database => self.db_path.clone(),
            FileKind::Journal => self.journal_path.clone(),
            FileKind::PartialJournal => self.partial_path.clone(),
        }
    }

    fn exists(&mut self, file: FileKind) -> io::Result<bool> {
        self.path_of(file).try_exists()
    }

    fn len(&mut self, file: FileKind) -> io::Result<u64> {
        Ok(self.file(file)?.metadata()?.len())
    }

    fn read_at(&mut self, file: FileKind, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.file(file)?.read_exact_at(buf, offset)
    }

    fn write_at(&mut self, file: FileKind, offset: u64, data: &[u8]) -> io::Result<()> {
        self.file(file)?.write_all_at(data, offset)
    }

    fn set_len(&mut self, file: FileKind, len: u64) -> io::Result<()> {
        self.file(file)?.set_len(len)
    }

    fn sync(&mut self, file: FileKind) -> io::Result<()> {
        self.file(file)?.sync_all()
    }

    fn create(&mut self, file: FileKind) -> io::Result<()> {
        let path = self.path_of(file);
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)?;
        match file {
            FileKind::Database => self.db = Some(f),
            FileKind::Journal => self.journal = Some(f),
            FileKind::PartialJournal => self.partial = Some(f),
        }
        Ok(())
    }

    fn remove(&mut self, file: FileKind) -> io::Result<()> {
        match file {
            FileKind::Database => self.db = None,
            FileKind::Journal => self.journal = None,
            FileKind::PartialJournal => self.partial = None,
        }
        std::fs::remove_file(self.path_of(file))
    }

    fn sync_dir(&mut self) -> io::Result<()> {
        File::open(&self.dir)?.sync_all()
    }

    fn seal_journal(&mut self) -> io::Result<()> {
        std::fs::rename(&self.partial_path, &self.journal_path)?;
        // the open handle now names the journal
        self.journal = self.partial.take();
        Ok(())
    }
}
