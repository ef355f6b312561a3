//! The undo journal: the only path by which bytes reach a database file.
//!
//! # Promise
//!
//! For a transaction taking a database image O to C, after a crash at any
//! point — and after any number of crashes during recovery itself —
//! opening the database yields exactly O or exactly C, byte for byte. A
//! commit that returned `Ok` yields C.
//!
//! # Protocol ([`commit`])
//!
//! 1. Read the original bytes of every page the transaction rewrites or a
//!    shrink cuts off (each page once; the schedule is the kernel's
//!    [`must_save`]). Appended pages need no original: the header records
//!    the original length and the new length (the length intent).
//! 2. Create `<db>.jetjournal`, append one checksummed page record per
//!    saved page after a reserved header slot, flush the journal.
//! 3. Write the header record (database identity: file-name digest,
//!    original length, digest of O's page 0, a fresh transaction id) into
//!    the slot, flush the journal and the directory. The journal is now
//!    *sealed*; nothing touched the database before this point.
//! 4. Grow the database first (if it grows), write the new pages, shrink
//!    last (if it shrinks), flush the database.
//! 5. Append the commit record: a SHA-256 commitment over C (length, page
//!    size, SHA-256 of every page), flush the journal. This is the commit
//!    point.
//! 6. Remove the journal, flush the directory.
//!
//! # Recovery ([`recover`], [`recover_storage`])
//!
//! The kernel classifies the journal ([`classify`]): an unsealed journal is
//! deleted (the database was never written); a sealed one without a valid
//! commit is rolled back (every saved original and the original length
//! restored, then the journal deleted) after checking it belongs to this
//! database; one with a valid commit is deleted when the database matches
//! its commitment. Anything else — a damaged record, a commitment the
//! database does not match, a journal of another file — is refused with a
//! typed [`JournalError`] and both files are left untouched. Recovery never
//! writes the journal, so a crash during recovery simply recovers again.

pub mod lock;
pub mod sim;
pub mod vfs;

use crate::error::{Error, JournalError};
use crate::image::{CommitTarget, ImageChanges};
use jet_kernels::journal::{
    CHECKSUM_LEN, COMMIT_PAYLOAD_LEN, Commit, FRAME_LEN, Frame, HEADER_PAYLOAD_LEN,
    HEADER_RECORD_LEN, Header, Kind, LengthOrder, Replay, Shape, TRAILER, classify, encode_commit,
    encode_frame, encode_header, length_order, must_save, page_size_ok, page_span, select_replay,
    shrink_pages,
};
use lock::{AccessLockFile, FileLock, LockMode};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;
pub use vfs::{FileKind, FsStorage, Storage, journal_path};

/// What recovery found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryOutcome {
    /// No journal: nothing to do.
    NoJournal,
    /// An unsealed journal (the crash came before the database was
    /// touched) was deleted.
    Discarded,
    /// The transaction was rolled back: the database is O again.
    RolledBack {
        /// Saved pages restored.
        pages: usize,
        /// Length restored.
        len: u64,
    },
    /// The transaction had committed: the database is C; the journal was
    /// deleted.
    KeptCommitted {
        /// Length of C.
        len: u64,
    },
}

/// The 16-byte record checksum: SHA-256 over (salt, covered frame bytes,
/// payload), truncated.
fn checksum(salt: &[u8], covered: &[u8], payload: &[u8]) -> [u8; CHECKSUM_LEN] {
    let mut h = Sha256::new();
    h.update(salt);
    h.update(covered);
    h.update(payload);
    let d = h.finalize();
    let mut out = [0u8; CHECKSUM_LEN];
    out.copy_from_slice(&d[..CHECKSUM_LEN]);
    out
}

fn sha(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn name_digest(name: &str) -> [u8; 16] {
    let d = sha(name.as_bytes());
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    out
}

/// The commitment to an image: SHA-256 over a domain tag, the length, the
/// page size and the SHA-256 of every page span in order.
fn commitment(len: u64, page_size: u32, page_digests: &[[u8; 32]]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"jetsql commit v1");
    h.update(len.to_le_bytes());
    h.update(page_size.to_le_bytes());
    for d in page_digests {
        h.update(d);
    }
    h.finalize().into()
}

/// Encodes a whole record: frame, payload, trailer.
fn record(kind: Kind, page: u32, payload: &[u8], salt: &[u8]) -> Vec<u8> {
    let mut frame = Frame {
        kind,
        page,
        payload_len: u32::try_from(payload.len()).unwrap_or(u32::MAX),
        checksum: [0; CHECKSUM_LEN],
    };
    let covered = encode_frame(&frame);
    frame.checksum = checksum(salt, &covered[..16], payload);
    let mut out = Vec::with_capacity(FRAME_LEN + payload.len() + TRAILER.len());
    out.extend_from_slice(&encode_frame(&frame));
    out.extend_from_slice(payload);
    out.extend_from_slice(&TRAILER);
    out
}

/// A transaction id unique enough to tell this journal's records from any
/// other's: SHA-256 of the time, the process id, a counter and an address.
fn transaction_id() -> [u8; 16] {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = Sha256::new();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.update(now.to_le_bytes());
    h.update(std::process::id().to_le_bytes());
    h.update(COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    let local = 0u8;
    h.update((std::ptr::addr_of!(local) as usize).to_le_bytes());
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    out
}

fn io_at<S: Storage>(
    s: &S,
    file: FileKind,
    op: &'static str,
) -> impl FnOnce(io::Error) -> JournalError {
    let path = s.path_of(file);
    move |source| JournalError::Io { path, op, source }
}

fn to_usize(v: u64, what: &str, path: &Path) -> Result<usize, JournalError> {
    usize::try_from(v).map_err(|_| JournalError::ImageMismatch {
        path: path.to_path_buf(),
        what: format!("{what} {v} does not fit in memory"),
    })
}

/// Reads a whole file of the storage.
fn read_all<S: Storage>(s: &mut S, file: FileKind) -> Result<Vec<u8>, JournalError> {
    let len = s.len(file).map_err(io_at(s, file, "stat"))?;
    let n = to_usize(len, "file length", &s.path_of(file))?;
    let mut buf = vec![0u8; n];
    s.read_at(file, 0, &mut buf)
        .map_err(io_at(s, file, "read"))?;
    Ok(buf)
}

/// SHA-256 of every page span of the database as it is now.
fn page_digests<S: Storage>(
    s: &mut S,
    page_size: u32,
    len: u64,
) -> Result<Vec<[u8; 32]>, JournalError> {
    let mut out = Vec::new();
    let mut buf = vec![
        0u8;
        to_usize(
            u64::from(page_size),
            "page size",
            &s.path_of(FileKind::Database)
        )?
    ];
    let mut page = 0u32;
    while let Some((start, n)) = page_span(page, page_size, len) {
        let chunk = &mut buf[..to_usize(n, "page", &s.path_of(FileKind::Database))?];
        s.read_at(FileKind::Database, start, chunk).map_err(io_at(
            s,
            FileKind::Database,
            "read",
        ))?;
        out.push(sha(chunk));
        page = match page.checked_add(1) {
            Some(p) => p,
            None => break,
        };
    }
    Ok(out)
}

/// Makes `changes` durable on `s` through the journal (the protocol in the
/// module documentation), or leaves O.
///
/// `digests`, when given, caches the SHA-256 of every page of the current
/// image (computed from the file when empty or of another length) and is
/// updated to C on success; callers that hold the writer lock keep it
/// between commits so a commit reads only the pages it saves.
///
/// On an error before the commit point the function tries to roll back at
/// once; if that fails too (the process is dying), the journal stays and
/// the next open recovers O. A failure after the commit point (deleting
/// the journal) is not an error: C is durable and the next recovery keeps
/// it.
pub fn commit<S: Storage>(
    s: &mut S,
    changes: &ImageChanges,
    digests: &mut Vec<[u8; 32]>,
) -> Result<(), Error> {
    changes.validate()?;
    let db_path = s.path_of(FileKind::Database);
    let mismatch = |what: String| JournalError::ImageMismatch {
        path: db_path.clone(),
        what,
    };
    let ps = u32::try_from(changes.page_size)
        .ok()
        .filter(|&p| page_size_ok(p))
        .ok_or_else(|| mismatch(format!("page size {} is not admitted", changes.page_size)))?;
    if s.exists(FileKind::Journal)
        .map_err(io_at(s, FileKind::Journal, "stat"))?
    {
        // a journal left by an earlier failure of this writer
        recover_storage(s)?;
    }
    let orig_len = s
        .len(FileKind::Database)
        .map_err(io_at(s, FileKind::Database, "stat"))?;
    let want = u64::from(changes.old_pages) * u64::from(ps);
    if orig_len != want {
        return Err(mismatch(format!(
            "changes expect {} pages ({want} bytes) but the file has {orig_len} bytes",
            changes.old_pages
        ))
        .into());
    }
    let new_len = u64::from(changes.new_pages) * u64::from(ps);
    if digests.len() != usize::try_from(changes.old_pages).unwrap_or(usize::MAX) {
        *digests = page_digests(s, ps, orig_len)?;
    }

    // 1. originals, each page once, in ascending order
    let mut candidates: BTreeSet<u32> = changes.pages.keys().copied().collect();
    candidates.extend(shrink_pages(ps, orig_len, new_len));
    let mut saved: Vec<(u32, Vec<u8>)> = Vec::new();
    let mut writes: Vec<u32> = Vec::new();
    for p in candidates {
        let rewritten = changes.pages.contains_key(&p);
        if must_save(p, ps, orig_len, new_len, rewritten) {
            let (start, n) = page_span(p, ps, orig_len)
                .ok_or_else(|| mismatch(format!("page {p} has no span")))?;
            let mut orig = vec![0u8; to_usize(n, "page", &db_path)?];
            s.read_at(FileKind::Database, start, &mut orig)
                .map_err(io_at(s, FileKind::Database, "read"))?;
            let unchanged =
                p < changes.new_pages && changes.pages.get(&p).is_some_and(|new| **new == *orig);
            if unchanged {
                // a rewrite equal to O's bytes needs neither a save nor a write
                continue;
            }
            saved.push((p, orig));
        }
        if rewritten {
            writes.push(p);
        }
    }
    if saved.is_empty() && writes.is_empty() && orig_len == new_len {
        return Ok(());
    }

    // C's page digests and commitment
    let mut new_digests = digests.clone();
    new_digests.resize(usize::try_from(changes.new_pages).unwrap_or(0), [0; 32]);
    for (&p, bytes) in &changes.pages {
        if let Some(d) = new_digests.get_mut(usize::try_from(p).unwrap_or(usize::MAX)) {
            *d = sha(bytes);
        }
    }
    let page0 = match saved.first() {
        Some((0, bytes)) => sha(bytes),
        _ => {
            let (_, n) = page_span(0, ps, orig_len).unwrap_or((0, 0));
            let mut b = vec![0u8; to_usize(n, "page", &db_path)?];
            s.read_at(FileKind::Database, 0, &mut b).map_err(io_at(
                s,
                FileKind::Database,
                "read",
            ))?;
            sha(&b)
        }
    };

    let result = write_transaction(
        s,
        changes,
        ps,
        orig_len,
        new_len,
        &saved,
        &writes,
        page0,
        &new_digests,
    );
    match result {
        Ok(()) => {
            *digests = new_digests;
            Ok(())
        }
        Err(e) => {
            digests.clear();
            // roll back now if the storage still works; otherwise the next
            // open does
            let _ = recover_storage(s);
            Err(e.into())
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn write_transaction<S: Storage>(
    s: &mut S,
    changes: &ImageChanges,
    ps: u32,
    orig_len: u64,
    new_len: u64,
    saved: &[(u32, Vec<u8>)],
    writes: &[u32],
    page0: [u8; 32],
    new_digests: &[[u8; 32]],
) -> Result<(), JournalError> {
    let txn = transaction_id();
    let j = FileKind::Journal;
    let d = FileKind::Database;
    // 2. page records after the reserved header slot
    s.create(j).map_err(io_at(s, j, "create"))?;
    let mut at = u64::try_from(HEADER_RECORD_LEN).unwrap_or(0);
    for (p, orig) in saved {
        let r = record(Kind::Page, *p, orig, &txn);
        s.write_at(j, at, &r).map_err(io_at(s, j, "write"))?;
        at += u64::try_from(r.len()).unwrap_or(0);
    }
    s.sync(j).map_err(io_at(s, j, "flush"))?;
    // 3. seal
    let header = Header {
        page_size: ps,
        orig_len,
        new_len,
        records: u32::try_from(saved.len()).unwrap_or(u32::MAX),
        records_end: at,
        page0,
        name: name_digest(s.db_name()),
        txn,
    };
    let h = record(Kind::Header, 0, &encode_header(&header), &[]);
    debug_assert_eq!(h.len(), HEADER_RECORD_LEN);
    debug_assert_eq!(encode_header(&header).len(), HEADER_PAYLOAD_LEN as usize);
    s.write_at(j, 0, &h).map_err(io_at(s, j, "write"))?;
    s.sync(j).map_err(io_at(s, j, "flush"))?;
    s.sync_dir().map_err(io_at(s, j, "flush directory"))?;
    // 4. the database
    let order = length_order(orig_len, new_len);
    if let LengthOrder::GrowFirst(len) = order {
        s.set_len(d, len).map_err(io_at(s, d, "grow"))?;
    }
    for &p in writes {
        if let Some(bytes) = changes.pages.get(&p) {
            let off = u64::from(p) * u64::from(ps);
            s.write_at(d, off, bytes).map_err(io_at(s, d, "write"))?;
        }
    }
    if let LengthOrder::ShrinkLast(len) = order {
        s.set_len(d, len).map_err(io_at(s, d, "shrink"))?;
    }
    s.sync(d).map_err(io_at(s, d, "flush"))?;
    // 5. commit point
    let c = Commit {
        new_len,
        page_size: ps,
        commitment: commitment(new_len, ps, new_digests),
    };
    let cr = record(Kind::Commit, 0, &encode_commit(&c), &txn);
    debug_assert_eq!(encode_commit(&c).len(), COMMIT_PAYLOAD_LEN as usize);
    s.write_at(j, at, &cr).map_err(io_at(s, j, "write"))?;
    s.sync(j).map_err(io_at(s, j, "flush"))?;
    // 6. clean up; C is durable whatever happens now
    if s.remove(j).is_ok() {
        let _ = s.sync_dir();
    }
    Ok(())
}

/// Recovers the database of `s` if a journal exists (see the module
/// documentation). The caller must hold the writer lock.
///
/// Errors ([`JournalError::Corrupt`], [`JournalError::Foreign`],
/// [`JournalError::CommitmentMismatch`], [`JournalError::MissingDatabase`])
/// leave both files untouched; an I/O error may leave a partly restored
/// database, which the next recovery completes.
pub fn recover_storage<S: Storage>(s: &mut S) -> Result<RecoveryOutcome, JournalError> {
    let j = FileKind::Journal;
    let d = FileKind::Database;
    if !s.exists(j).map_err(io_at(s, j, "stat"))? {
        return Ok(RecoveryOutcome::NoJournal);
    }
    if !s.exists(d).map_err(io_at(s, d, "stat"))? {
        return Err(JournalError::MissingDatabase { path: s.path_of(j) });
    }
    let journal = read_all(s, j)?;
    let mut records: Vec<(u32, usize, usize)> = Vec::new();
    let shape = classify(&journal, &mut checksum, &mut |p, o, l| {
        records.push((p, o, l))
    });
    let (header, replay) = match shape {
        Shape::Corrupt { offset, refusal } => {
            return Err(JournalError::Corrupt {
                path: s.path_of(j),
                offset: u64::try_from(offset).unwrap_or(u64::MAX),
                refusal,
            });
        }
        Shape::Unsealed => (None, select_replay(&shape)),
        Shape::Sealed { header, .. } => (Some(header), select_replay(&shape)),
    };
    let journal_file = s.path_of(j);
    let foreign = |what| JournalError::Foreign {
        path: journal_file.clone(),
        what,
    };
    if let Some(h) = &header
        && h.name != name_digest(s.db_name())
    {
        return Err(foreign("the file name differs"));
    }
    let remove_journal = |s: &mut S| -> Result<(), JournalError> {
        s.remove(j).map_err(io_at(s, j, "remove"))?;
        s.sync_dir().map_err(io_at(s, j, "flush directory"))
    };
    match (replay, header) {
        (Replay::Discard, _) => {
            remove_journal(s)?;
            Ok(RecoveryOutcome::Discarded)
        }
        (Replay::RollBack { orig_len }, Some(h)) => {
            // identity: O's page 0, from the journal if saved, else the file
            let page0 = match records.first() {
                Some(&(0, o, l)) => journal.get(o..o + l).map(sha),
                _ => {
                    let (_, n) = page_span(0, h.page_size, orig_len).unwrap_or((0, 0));
                    let mut b = vec![0u8; to_usize(n, "page", &s.path_of(d))?];
                    s.read_at(d, 0, &mut b).ok().map(|()| sha(&b))
                }
            };
            if page0 != Some(h.page0) {
                return Err(foreign("page 0 differs from the journal's database"));
            }
            s.set_len(d, orig_len)
                .map_err(io_at(s, d, "restore length"))?;
            for &(p, o, l) in &records {
                let bytes = journal.get(o..o + l).ok_or_else(|| JournalError::Corrupt {
                    path: s.path_of(j),
                    offset: u64::try_from(o).unwrap_or(u64::MAX),
                    refusal: jet_kernels::Refusal::OutOfBounds,
                })?;
                let off = u64::from(p) * u64::from(h.page_size);
                s.write_at(d, off, bytes)
                    .map_err(io_at(s, d, "restore page"))?;
            }
            s.sync(d).map_err(io_at(s, d, "flush"))?;
            remove_journal(s)?;
            Ok(RecoveryOutcome::RolledBack {
                pages: records.len(),
                len: orig_len,
            })
        }
        (Replay::KeepIfCommitted(c), Some(_)) => {
            let len = s.len(d).map_err(io_at(s, d, "stat"))?;
            let matches = len == c.new_len
                && commitment(len, c.page_size, &page_digests(s, c.page_size, len)?)
                    == c.commitment;
            if !matches {
                return Err(JournalError::CommitmentMismatch { path: s.path_of(d) });
            }
            remove_journal(s)?;
            Ok(RecoveryOutcome::KeptCommitted { len })
        }
        // a sealed shape always carries its header; refuse rather than guess
        (_, _) => Err(JournalError::Corrupt {
            path: s.path_of(j),
            offset: 0,
            refusal: jet_kernels::Refusal::BadRecord,
        }),
    }
}

/// Recovers the database at `path` (as `jetsql recover FILE` does): takes
/// the writer lock (waiting up to [`lock::DEFAULT_LOCK_WAIT`]) and runs
/// [`recover_storage`] on the real file system.
pub fn recover(path: impl AsRef<Path>) -> Result<RecoveryOutcome, JournalError> {
    let path = path.as_ref();
    if !path.exists() && journal_path(path).exists() {
        return Err(JournalError::MissingDatabase {
            path: journal_path(path),
        });
    }
    let _lock = lock::lock(path, LockMode::Exclusive, lock::DEFAULT_LOCK_WAIT)?;
    recover_storage(&mut FsStorage::new(path))
}

/// The lock a reader holds for the life of a [`Database`](crate::Database)
/// opened from `path`; recovers first when a journal is present (taking
/// the writer lock for that, so a journal being written by a live writer
/// in another process is never touched: the opener waits, then refuses
/// with [`JournalError::Locked`]). `None` when the database does not exist
/// (and no journal does): the opener reports that itself.
pub fn open_for_read(path: &Path, wait: Duration) -> Result<Option<FileLock>, JournalError> {
    let jpath = journal_path(path);
    if !path.exists() {
        if jpath.exists() {
            return Err(JournalError::MissingDatabase { path: jpath });
        }
        return Ok(None);
    }
    let shared = lock::lock(path, LockMode::Shared, wait)?;
    if jpath.exists() {
        let _writer = lock::lock(path, LockMode::Exclusive, wait)?;
        recover_storage(&mut FsStorage::new(path))?;
    }
    Ok(Some(shared))
}

/// A database file written only through the journal: a [`CommitTarget`]
/// that holds the writer lock (and the Access lock file) for its life.
#[derive(Debug)]
pub struct JournaledFile<S: Storage = FsStorage> {
    storage: S,
    digests: Vec<[u8; 32]>,
    recovered: RecoveryOutcome,
    _lock: Option<FileLock>,
    _access: Option<AccessLockFile>,
}

impl JournaledFile<FsStorage> {
    /// Opens the database at `path` for writing: refuses a file marked
    /// read-only ([`JournalError::ReadOnly`]), takes the exclusive lock
    /// (waiting up to [`lock::DEFAULT_LOCK_WAIT`] for readers and writers
    /// in other processes), creates the Access lock file, and recovers a
    /// journal left by a crash.
    pub fn open(path: impl AsRef<Path>) -> Result<JournaledFile<FsStorage>, JournalError> {
        let path = path.as_ref();
        let meta = std::fs::metadata(path).map_err(|source| JournalError::Io {
            path: path.to_path_buf(),
            op: "stat",
            source,
        })?;
        if meta.permissions().readonly() {
            return Err(JournalError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        let l = lock::lock(path, LockMode::Exclusive, lock::DEFAULT_LOCK_WAIT)?;
        let access = AccessLockFile::create(path)?;
        let mut f = JournaledFile::with_storage(FsStorage::new(path))?;
        f._lock = Some(l);
        f._access = Some(access);
        Ok(f)
    }

    /// The database's path.
    pub fn path(&self) -> PathBuf {
        self.storage.path_of(FileKind::Database)
    }
}

impl<S: Storage> JournaledFile<S> {
    /// A journaled target over any storage (the caller provides the
    /// locking); recovers a journal left by a crash first.
    pub fn with_storage(mut storage: S) -> Result<JournaledFile<S>, JournalError> {
        let recovered = recover_storage(&mut storage)?;
        Ok(JournaledFile {
            storage,
            digests: Vec::new(),
            recovered,
            _lock: None,
            _access: None,
        })
    }

    /// What the recovery at open found.
    pub fn recovered(&self) -> RecoveryOutcome {
        self.recovered
    }

    /// The storage.
    pub fn storage(&self) -> &S {
        &self.storage
    }

    /// The storage, mutably (tests arm crashes through it).
    pub fn storage_mut(&mut self) -> &mut S {
        &mut self.storage
    }

    /// Gives the storage back.
    pub fn into_storage(self) -> S {
        self.storage
    }

    /// The whole current database image.
    pub fn read_image(&mut self) -> Result<Vec<u8>, JournalError> {
        read_all(&mut self.storage, FileKind::Database)
    }
}

impl<S: Storage> CommitTarget for JournaledFile<S> {
    fn commit(&mut self, changes: &ImageChanges) -> crate::Result<()> {
        commit(&mut self.storage, changes, &mut self.digests)
    }
}

#[cfg(test)]
mod tests {
    use super::sim::{SimDisk, SimRng, SimStorage};
    use super::*;
    use std::collections::BTreeMap;

    fn image(pages: u32, ps: usize) -> Vec<u8> {
        (0..pages as usize * ps)
            .map(|i| (i / ps) as u8 ^ (i % 251) as u8)
            .collect()
    }

    fn changes(ps: usize, old: u32, new: u32, rewrite: &[u32]) -> ImageChanges {
        let mut pages = BTreeMap::new();
        for &p in rewrite.iter().chain(&(old..new).collect::<Vec<_>>()) {
            pages.insert(p, vec![0xA0 ^ p as u8; ps].into_boxed_slice());
        }
        ImageChanges {
            page_size: ps,
            old_pages: old,
            new_pages: new,
            pages,
        }
    }

    #[test]
    fn commit_and_no_journal_left() {
        let o = image(6, 512);
        let mut f = JournaledFile::with_storage(SimStorage::new("a.mdb", o.clone())).unwrap();
        let ch = changes(512, 6, 8, &[0, 3]);
        f.commit(&ch).unwrap();
        let mut c = o.clone();
        ch.apply_to(&mut c).unwrap();
        let disk = f.storage().live_disk();
        assert_eq!(disk.db, c);
        assert_eq!(disk.journal, None);
        // durable too: a crash now keeps C
        let after = f.storage().crash_disk(&mut SimRng::new(1));
        assert_eq!(after.db, c);
        assert_eq!(after.journal, None);
        // shrink next, digests cached
        let ch2 = changes(512, 8, 2, &[1]);
        f.commit(&ch2).unwrap();
        ch2.apply_to(&mut c).unwrap();
        assert_eq!(f.read_image().unwrap(), c);
    }

    #[test]
    fn foreign_and_damaged_journals_are_refused_untouched() {
        let o = image(4, 512);
        let ch = changes(512, 4, 4, &[1, 2]);
        // stop right after the database is written: journal sealed, no commit
        let mut s = SimStorage::new("a.mdb", o.clone());
        s.crash_after(Some(9));
        let mut f = JournaledFile::with_storage(s).unwrap();
        assert!(f.commit(&ch).is_err());
        let live = f.storage().live_disk();
        let journal = live.journal.clone().expect("journal left");
        // under another name: refused, untouched
        let other = SimDisk {
            name: "b.mdb".into(),
            ..live.clone()
        };
        let mut s = SimStorage::from_disk(&other);
        assert!(matches!(
            recover_storage(&mut s),
            Err(JournalError::Foreign { .. })
        ));
        assert_eq!(s.live_disk(), other);
        // beside another database of the same name: refused
        let mut foreign = live.clone();
        foreign.db = image(4, 512).iter().map(|b| b ^ 1).collect();
        let mut s = SimStorage::from_disk(&foreign);
        assert!(matches!(
            recover_storage(&mut s),
            Err(JournalError::Foreign { .. })
        ));
        assert_eq!(s.live_disk(), foreign);
        // a flipped byte inside a page record: refused
        let mut damaged = live.clone();
        let mut j = journal.clone();
        j[HEADER_RECORD_LEN + 40] ^= 1;
        damaged.journal = Some(j);
        let mut s = SimStorage::from_disk(&damaged);
        assert!(matches!(
            recover_storage(&mut s),
            Err(JournalError::Corrupt { .. })
        ));
        assert_eq!(s.live_disk(), damaged);
        // the real thing rolls back
        let mut s = SimStorage::from_disk(&live);
        assert!(matches!(
            recover_storage(&mut s),
            Ok(RecoveryOutcome::RolledBack { pages: 2, .. })
        ));
        assert_eq!(s.live_disk().db, o);
        assert_eq!(s.live_disk().journal, None);
    }

    #[test]
    fn committed_journal_with_changed_database_is_refused() {
        let o = image(3, 512);
        let ch = changes(512, 3, 3, &[2]);
        let mut s = SimStorage::new("a.mdb", o.clone());
        // crash before the journal removal: create, 1 record, sync, header,
        // sync, dir, write, sync, commit, sync → 10 steps
        s.crash_after(Some(10));
        let mut f = JournaledFile::with_storage(s).unwrap();
        let _ = f.commit(&ch);
        let mut live = f.storage().live_disk();
        assert!(live.journal.is_some());
        let mut kept = SimStorage::from_disk(&live);
        assert!(matches!(
            recover_storage(&mut kept),
            Ok(RecoveryOutcome::KeptCommitted { .. })
        ));
        live.db[5] ^= 0xFF;
        let mut s = SimStorage::from_disk(&live);
        assert!(matches!(
            recover_storage(&mut s),
            Err(JournalError::CommitmentMismatch { .. })
        ));
        assert_eq!(s.live_disk(), live);
    }

    #[test]
    fn mismatched_changes_are_refused_before_any_write() {
        let o = image(3, 512);
        let mut f = JournaledFile::with_storage(SimStorage::new("a.mdb", o.clone())).unwrap();
        let ch = changes(512, 4, 4, &[1]);
        assert!(f.commit(&ch).is_err());
        assert_eq!(f.storage().steps(), 0);
        assert_eq!(f.storage().live_disk().db, o);
    }

    #[test]
    fn real_files_commit_and_recover() {
        let dir = std::env::temp_dir().join(format!("jet-journal-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.mdb");
        let o = image(5, 2048);
        std::fs::write(&path, &o).unwrap();
        let ch = changes(2048, 5, 7, &[0, 4]);
        {
            let mut f = JournaledFile::open(&path).unwrap();
            assert!(AccessLockFile::path_for(&path).exists());
            f.commit(&ch).unwrap();
        }
        assert!(!AccessLockFile::path_for(&path).exists());
        {
            // readers and the writer of one process share the lock; a
            // second writer of the same process is refused
            let _w = JournaledFile::open(&path).unwrap();
            let _r = lock::lock(&path, LockMode::Shared, Duration::ZERO).unwrap();
            assert!(matches!(
                JournaledFile::open(&path),
                Err(JournalError::Locked { .. })
            ));
        }
        let mut c = o.clone();
        ch.apply_to(&mut c).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), c);
        assert!(!journal_path(&path).exists());
        assert_eq!(recover(&path).unwrap(), RecoveryOutcome::NoJournal);
        // a sealed journal left by a simulated crash, then recovered for real
        let mut s = SimStorage::new("t.mdb", c.clone());
        s.crash_after(Some(12));
        let mut f = JournaledFile::with_storage(s).unwrap();
        let _ = f.commit(&changes(2048, 7, 3, &[1]));
        let live = f.storage().live_disk();
        std::fs::write(&path, &live.db).unwrap();
        let good = live.journal.clone().unwrap();
        // damaged: Database::open refuses and leaves both files as they are
        let mut bad = good.clone();
        bad[HEADER_RECORD_LEN + 50] ^= 0x10;
        std::fs::write(journal_path(&path), &bad).unwrap();
        let err = crate::Database::open(&path, crate::OpenOptions::default()).unwrap_err();
        assert!(
            matches!(err, Error::Journal(JournalError::Corrupt { .. })),
            "{err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), live.db);
        assert_eq!(std::fs::read(journal_path(&path)).unwrap(), bad);
        std::fs::write(journal_path(&path), good).unwrap();
        assert!(matches!(
            recover(&path).unwrap(),
            RecoveryOutcome::RolledBack { .. }
        ));
        assert_eq!(std::fs::read(&path).unwrap(), c);
        assert!(!journal_path(&path).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
