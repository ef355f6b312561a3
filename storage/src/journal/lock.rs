//! Advisory locks between processes, and the Access lock file.
//!
//! A writer holds an exclusive `flock` on the database file for as long as
//! it may commit; a reader holds a shared one for as long as its
//! [`Database`](crate::Database) lives. So a reader in another process
//! never sees a half-written transaction: it waits (up to a bound) for the
//! writer, then refuses with [`JournalError::Locked`].
//!
//! Within one process, all holders of a file share one open file
//! description (flock locks belong to it), registered by device and inode:
//! readers of a file this process writes do not lock themselves out, and a
//! writer in a process that also reads the file converts the shared lock
//! into an exclusive one. The isolation guarantee is between processes.
//!
//! File systems without `flock` support (the call fails with `ENOLCK`,
//! `EOPNOTSUPP` or `ENOSYS`) are used without a lock.

use crate::error::JournalError;
use rustix::fs::{FlockOperation, flock};
use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long an opener waits for a conflicting lock by default.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(2);

/// The mode of a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// Readers: compatible with each other, not with a writer.
    Shared,
    /// One writer, no readers in other processes.
    Exclusive,
}

struct Entry {
    file: File,
    readers: usize,
    writer: bool,
}

type Key = (u64, u64);

fn registry() -> &'static Mutex<HashMap<Key, Entry>> {
    static REG: OnceLock<Mutex<HashMap<Key, Entry>>> = OnceLock::new();
    REG.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A held advisory lock on a database file; released (or downgraded to
/// the remaining in-process holders' mode) when dropped.
#[derive(Debug)]
pub struct FileLock {
    key: Key,
    mode: LockMode,
}

impl FileLock {
    /// The mode held.
    pub fn mode(&self) -> LockMode {
        self.mode
    }
}

enum Try {
    Held,
    Busy,
}

fn try_flock(file: &File, op: FlockOperation) -> io::Result<Try> {
    match flock(file, op) {
        Ok(()) => Ok(Try::Held),
        Err(e) if e == rustix::io::Errno::WOULDBLOCK || e == rustix::io::Errno::INTR => {
            Ok(Try::Busy)
        }
        Err(e)
            if e == rustix::io::Errno::NOLCK
                || e == rustix::io::Errno::OPNOTSUPP
                || e == rustix::io::Errno::NOSYS =>
        {
            Ok(Try::Held)
        }
        Err(e) => Err(io::Error::from(e)),
    }
}

fn flock_until(file: &File, op: FlockOperation, wait: Duration) -> io::Result<bool> {
    let deadline = Instant::now() + wait;
    loop {
        if let Try::Held = try_flock(file, op)? {
            return Ok(true);
        }
        if Instant::now() >= deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn io_err(path: &Path, op: &'static str, source: io::Error) -> JournalError {
    JournalError::Io {
        path: path.to_path_buf(),
        op,
        source,
    }
}

/// Takes a lock of `mode` on the database at `path`, waiting up to `wait`
/// for holders in other processes.
///
/// Errors: [`JournalError::Locked`] when another process holds a
/// conflicting lock after `wait`, or another writer of this process holds
/// the file; [`JournalError::Io`] when the file cannot be opened.
///
/// The lock is always on the file `path` names when this returns: a file
/// replaced by a rename while the opener waited (compaction renames its
/// new image over the database) is let go and the new one locked instead.
pub fn lock(path: &Path, mode: LockMode, wait: Duration) -> Result<FileLock, JournalError> {
    let deadline = Instant::now() + wait;
    let mut attempts = 0;
    loop {
        let held = lock_opened(
            path,
            mode,
            deadline.saturating_duration_since(Instant::now()),
        )?;
        let now = std::fs::metadata(path).map_err(|e| io_err(path, "stat after locking", e))?;
        if (now.dev(), now.ino()) == held.key {
            return Ok(held);
        }
        drop(held);
        attempts += 1;
        if attempts >= 16 {
            return Err(JournalError::Locked {
                path: path.to_path_buf(),
                holder: "a process that keeps replacing the file",
            });
        }
    }
}

/// [`lock`] on the file `path` names when it is opened.
fn lock_opened(path: &Path, mode: LockMode, wait: Duration) -> Result<FileLock, JournalError> {
    let file = File::open(path).map_err(|e| io_err(path, "open for locking", e))?;
    let meta = file
        .metadata()
        .map_err(|e| io_err(path, "stat for locking", e))?;
    let key = (meta.dev(), meta.ino());
    let locked = |holder: &'static str| JournalError::Locked {
        path: path.to_path_buf(),
        holder,
    };
    let mut reg = registry().lock().unwrap_or_else(|p| p.into_inner());
    match (reg.get_mut(&key), mode) {
        (Some(e), LockMode::Shared) => {
            e.readers = e.readers.saturating_add(1);
        }
        (Some(e), LockMode::Exclusive) => {
            if e.writer {
                return Err(locked("another writer in this process"));
            }
            if !flock_until(&e.file, FlockOperation::NonBlockingLockExclusive, wait)
                .map_err(|e| io_err(path, "lock", e))?
            {
                // flock converts by dropping the shared lock first: take it
                // back for this process's readers before refusing
                if e.readers > 0 {
                    let _ = flock_until(&e.file, FlockOperation::NonBlockingLockShared, wait);
                }
                return Err(locked("a reader in another process"));
            }
            e.writer = true;
        }
        (None, mode) => {
            let (op, holder) = match mode {
                LockMode::Shared => (
                    FlockOperation::NonBlockingLockShared,
                    "a writer in another process",
                ),
                LockMode::Exclusive => (
                    FlockOperation::NonBlockingLockExclusive,
                    "a reader or writer in another process",
                ),
            };
            if !flock_until(&file, op, wait).map_err(|e| io_err(path, "lock", e))? {
                return Err(locked(holder));
            }
            reg.insert(
                key,
                Entry {
                    file,
                    readers: usize::from(mode == LockMode::Shared),
                    writer: mode == LockMode::Exclusive,
                },
            );
        }
    }
    Ok(FileLock { key, mode })
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let mut reg = registry().lock().unwrap_or_else(|p| p.into_inner());
        let Some(e) = reg.get_mut(&self.key) else {
            return;
        };
        match self.mode {
            LockMode::Shared => e.readers = e.readers.saturating_sub(1),
            LockMode::Exclusive => {
                e.writer = false;
                if e.readers > 0 {
                    // Downgrade for the remaining readers; flock converts
                    // in place (not atomically). If another process takes
                    // the file in between, the readers go unlocked rather
                    // than blocking here.
                    let _ = flock_until(
                        &e.file,
                        FlockOperation::NonBlockingLockShared,
                        Duration::from_millis(200),
                    );
                }
            }
        }
        if e.readers == 0 && !e.writer {
            // closing the file releases the lock
            reg.remove(&self.key);
        }
    }
}

/// The Access lock file beside a database (`x.ldb` for `x.mdb`,
/// `x.laccdb` for `x.accdb`), created while a writer holds the database so
/// that Access sees it in use. Holds one 64-byte entry: the computer name
/// and the security name (`Admin`), each in 32 bytes, NUL-terminated and
/// space-padded. Removed on drop when this writer created it.
#[derive(Debug)]
pub struct AccessLockFile {
    path: PathBuf,
    created: bool,
}

impl AccessLockFile {
    /// The lock-file path Access uses for the database at `db`.
    pub fn path_for(db: &Path) -> PathBuf {
        let ext = db
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        db.with_extension(if ext == "accdb" { "laccdb" } else { "ldb" })
    }

    /// Creates the lock file unless it exists (then it is left alone: Access
    /// or another tool owns it).
    pub fn create(db: &Path) -> Result<AccessLockFile, JournalError> {
        use std::io::Write;
        let path = AccessLockFile::path_for(db);
        let mut f = match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Ok(AccessLockFile {
                    path,
                    created: false,
                });
            }
            Err(e) => return Err(io_err(&path, "create Access lock file", e)),
        };
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .or_else(|_| std::fs::read_to_string("/etc/hostname"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        let host = if host.is_empty() {
            "jetsql".to_string()
        } else {
            host
        };
        let mut entry = [b' '; 64];
        for (field, text) in [(0usize, host.as_str()), (32, "Admin")] {
            let bytes = text.as_bytes();
            let n = bytes.len().min(31);
            entry[field..field + n].copy_from_slice(&bytes[..n]);
            entry[field + n] = 0;
        }
        f.write_all(&entry)
            .map_err(|e| io_err(&path, "write Access lock file", e))?;
        Ok(AccessLockFile {
            path,
            created: true,
        })
    }

    /// Where the lock file is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for AccessLockFile {
    fn drop(&mut self) {
        if self.created {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An opener waiting for the lock while the file is replaced by a
    /// rename ends up holding the new file, not the unlinked one.
    #[test]
    fn a_file_replaced_while_waiting_is_locked_anew() {
        let dir = std::env::temp_dir().join(format!("jet-lock-replace-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("db.mdb");
        std::fs::write(&path, b"old").unwrap();
        // another "process": an open file description holding the lock
        let other = File::open(&path).unwrap();
        flock(&other, FlockOperation::LockExclusive).unwrap();
        let p2 = path.clone();
        let waiter =
            std::thread::spawn(move || lock(&p2, LockMode::Exclusive, Duration::from_secs(10)));
        std::thread::sleep(Duration::from_millis(100));
        let fresh = dir.join("new.tmp");
        std::fs::write(&fresh, b"new").unwrap();
        std::fs::rename(&fresh, &path).unwrap();
        drop(other);
        let held = waiter.join().unwrap().unwrap();
        let m = std::fs::metadata(&path).unwrap();
        assert_eq!(held.key, (m.dev(), m.ino()));
        drop(held);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
