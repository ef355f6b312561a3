//! Recovery: what an open does with a journal left beside the database.
//!
//! A file named `<db>.jetjournal` only ever got that name whole and
//! flushed (see the protocol in the parent module), so it is evidence that
//! the database may hold a half-written transaction. It is applied only
//! when every check passes; otherwise the database is not opened and both
//! files stay byte for byte as they were, until the user chooses
//! ([`discard_journal`], `jetsql recover --discard-journal FILE`). The
//! partial journal (`<db>.jetjournal-partial`) is never evidence: the
//! database is not written while only it exists, so it is deleted.

use super::lock::{self, FileLock, LockMode};
use super::vfs::{FileKind, FsStorage, Storage, journal_path, partial_journal_path};
use super::{RecoveryOutcome, checksum, commitment, io_at, name_digest, read_all, sha, to_usize};
use crate::error::JournalError;
use jet_kernels::journal::{Header, Replay, Shape, classify, page_span, select_replay};
use std::path::Path;
use std::time::Duration;

/// Recovers the database of `s` if a journal exists (see the module
/// documentation). The caller must hold the writer lock.
///
/// Errors ([`JournalError::Corrupt`], [`JournalError::Foreign`],
/// [`JournalError::CommitmentMismatch`], [`JournalError::MissingDatabase`])
/// leave the database and the journal untouched; an I/O error may leave a
/// partly restored database, which the next recovery completes.
pub fn recover_storage<S: Storage>(s: &mut S) -> Result<RecoveryOutcome, JournalError> {
    let (j, d, p) = (
        FileKind::Journal,
        FileKind::Database,
        FileKind::PartialJournal,
    );
    let partial = s.exists(p).map_err(io_at(s, p, "stat"))?;
    if !s.exists(j).map_err(io_at(s, j, "stat"))? {
        if !partial {
            return Ok(RecoveryOutcome::NoJournal);
        }
        remove_and_flush(s, p)?;
        return Ok(RecoveryOutcome::Discarded);
    }
    if !s.exists(d).map_err(io_at(s, d, "stat"))? {
        return Err(JournalError::MissingDatabase { path: s.path_of(j) });
    }
    let journal = read_all(s, j)?;
    let mut records: Vec<(u32, usize, usize)> = Vec::new();
    let shape = classify(&journal, &mut checksum, &mut |pg, o, l| {
        records.push((pg, o, l));
    });
    let header = match shape {
        Shape::Corrupt { offset, refusal } => {
            return Err(JournalError::Corrupt {
                path: s.path_of(j),
                database: s.path_of(d),
                offset: u64::try_from(offset).unwrap_or(u64::MAX),
                refusal,
            });
        }
        Shape::Sealed { header, .. } => header,
    };
    let foreign = |s: &S, what| JournalError::Foreign {
        path: s.path_of(j),
        database: s.path_of(d),
        what,
    };
    if header.name != name_digest(s.db_name()) {
        return Err(foreign(s, "the file name differs"));
    }
    let outcome = match select_replay(&shape) {
        Replay::RollBack { orig_len } => {
            let saved = saved_pages(&journal, &records);
            if !rebuilds_original(s, &header, &saved)? {
                return Err(foreign(
                    s,
                    "the database's pages do not rebuild the image the journal was written for",
                ));
            }
            s.set_len(d, orig_len)
                .map_err(io_at(s, d, "restore length"))?;
            for &(pg, bytes) in &saved {
                let off = u64::from(pg) * u64::from(header.page_size);
                s.write_at(d, off, bytes)
                    .map_err(io_at(s, d, "restore page"))?;
            }
            s.sync(d).map_err(io_at(s, d, "flush"))?;
            RecoveryOutcome::RolledBack {
                pages: saved.len(),
                len: orig_len,
            }
        }
        Replay::KeepIfCommitted(c) => {
            let len = s.len(d).map_err(io_at(s, d, "stat"))?;
            let matches = len == c.new_len
                && commitment(len, c.page_size, &super::page_digests(s, c.page_size, len)?)
                    == c.commitment;
            if !matches {
                return Err(JournalError::CommitmentMismatch {
                    path: s.path_of(d),
                    journal: s.path_of(j),
                });
            }
            RecoveryOutcome::KeptCommitted { len }
        }
        Replay::Refuse => {
            return Err(JournalError::Corrupt {
                path: s.path_of(j),
                database: s.path_of(d),
                offset: 0,
                refusal: jet_kernels::Refusal::BadRecord,
            });
        }
    };
    s.remove(j).map_err(io_at(s, j, "remove"))?;
    if partial {
        s.remove(p).map_err(io_at(s, p, "remove"))?;
    }
    s.sync_dir().map_err(io_at(s, j, "flush directory"))?;
    Ok(outcome)
}

fn remove_and_flush<S: Storage>(s: &mut S, file: FileKind) -> Result<(), JournalError> {
    s.remove(file).map_err(io_at(s, file, "remove"))?;
    s.sync_dir().map_err(io_at(s, file, "flush directory"))
}

/// The saved originals as (page, bytes); `classify` guaranteed the spans.
fn saved_pages<'a>(journal: &'a [u8], records: &[(u32, usize, usize)]) -> Vec<(u32, &'a [u8])> {
    records
        .iter()
        .filter_map(|&(pg, o, l)| journal.get(o..o.checked_add(l)?).map(|b| (pg, b)))
        .collect()
}

/// Whether the saved pages, with the database's other pages, rebuild
/// exactly the image the header's `original` commitment names: then a
/// rollback yields that image and nothing else, whatever journal this is.
fn rebuilds_original<S: Storage>(
    s: &mut S,
    header: &Header,
    saved: &[(u32, &[u8])],
) -> Result<bool, JournalError> {
    let d = FileKind::Database;
    let db_len = s.len(d).map_err(io_at(s, d, "stat"))?;
    let path = s.path_of(d);
    let mut digests = Vec::new();
    let mut buf = vec![0u8; to_usize(u64::from(header.page_size), "page size", &path)?];
    let mut next = saved.iter().peekable();
    let mut pg = 0u32;
    while let Some((start, n)) = page_span(pg, header.page_size, header.orig_len) {
        if let Some(&&(sp, bytes)) = next.peek()
            && sp == pg
        {
            digests.push(sha(bytes));
            next.next();
        } else {
            if start.saturating_add(n) > db_len {
                return Ok(false);
            }
            let chunk = buf
                .get_mut(..to_usize(n, "page", &path)?)
                .unwrap_or_default();
            s.read_at(d, start, chunk).map_err(io_at(s, d, "read"))?;
            digests.push(sha(chunk));
        }
        pg = match pg.checked_add(1) {
            Some(x) => x,
            None => break,
        };
    }
    Ok(commitment(header.orig_len, header.page_size, &digests) == header.original)
}

/// Recovers the database at `path` (as `jetsql recover FILE` does): takes
/// the writer lock (waiting up to [`lock::DEFAULT_LOCK_WAIT`]) and runs
/// [`recover_storage`] on the real file system.
pub fn recover(path: impl AsRef<Path>) -> Result<RecoveryOutcome, JournalError> {
    let path = path.as_ref();
    refuse_non_regular(path)?;
    if !path.exists() && journal_path(path).exists() {
        return Err(JournalError::MissingDatabase {
            path: journal_path(path),
        });
    }
    let _lock = lock::lock(path, LockMode::Exclusive, lock::DEFAULT_LOCK_WAIT)?;
    recover_storage(&mut FsStorage::new(path))
}

/// What [`discard_journal`] removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discarded {
    /// Whether a journal (`<db>.jetjournal`) was removed.
    pub journal: bool,
    /// Whether a partial journal was removed.
    pub partial: bool,
}

/// The way out when recovery refuses a journal: removes `<db>.jetjournal`
/// (and a partial journal) *without applying it*, so the database stays
/// exactly as it is on disk — possibly holding a half-written transaction.
/// The user chooses this after keeping a copy of both files
/// (`jetsql recover --discard-journal FILE`). Takes the writer lock when
/// the database exists.
pub fn discard_journal(path: impl AsRef<Path>) -> Result<Discarded, JournalError> {
    let path = path.as_ref();
    refuse_non_regular(path)?;
    let _lock = if path.exists() {
        Some(lock::lock(
            path,
            LockMode::Exclusive,
            lock::DEFAULT_LOCK_WAIT,
        )?)
    } else {
        None
    };
    let mut s = FsStorage::new(path);
    let mut out = Discarded {
        journal: false,
        partial: false,
    };
    for (file, flag) in [
        (FileKind::Journal, &mut out.journal),
        (FileKind::PartialJournal, &mut out.partial),
    ] {
        if s.exists(file).map_err(io_at(&s, file, "stat"))? {
            s.remove(file).map_err(io_at(&s, file, "remove"))?;
            *flag = true;
        }
    }
    if out.journal || out.partial {
        s.sync_dir()
            .map_err(io_at(&s, FileKind::Journal, "flush directory"))?;
    }
    Ok(out)
}

/// The lock a reader holds for the life of a [`Database`](crate::Database)
/// opened from `path`; recovers first when a journal is present (taking
/// the writer lock for that, so a journal being written by a live writer
/// in another process is never touched: the opener waits, then refuses
/// with [`JournalError::Locked`]). `None` when the database does not exist
/// (and no journal does): the opener reports that itself.
pub fn open_for_read(path: &Path, wait: Duration) -> Result<Option<FileLock>, JournalError> {
    refuse_non_regular(path)?;
    let jpath = journal_path(path);
    if !path.exists() {
        if jpath.exists() {
            return Err(JournalError::MissingDatabase { path: jpath });
        }
        return Ok(None);
    }
    let shared = lock::lock(path, LockMode::Shared, wait)?;
    if jpath.exists() || partial_journal_path(path).exists() {
        let _writer = lock::lock(path, LockMode::Exclusive, wait)?;
        recover_storage(&mut FsStorage::new(path))?;
    }
    Ok(Some(shared))
}

/// Refuses a database path that names a directory, FIFO, device or socket
/// (before anything opens or locks it: opening a FIFO would block).
fn refuse_non_regular(path: &Path) -> Result<(), JournalError> {
    match super::vfs::not_a_regular_file(path) {
        Some(kind) => Err(JournalError::NotAFile {
            path: path.to_path_buf(),
            kind,
        }),
        None => Ok(()),
    }
}
