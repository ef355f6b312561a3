//! The undo journal: the only path by which bytes reach a database file.
//!
//! Exports: modules [`lock`], [`sim`] and [`vfs`]; [`JournaledFile`],
//! [`commit`], [`recover`], [`recover_storage`], [`open_for_read`],
//! [`discard_journal`], [`Discarded`], [`RecoveryOutcome`], and from `vfs`
//! [`Storage`], [`FsStorage`], [`FileKind`], [`journal_path`] and
//! [`partial_journal_path`].
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
//! 2. Write the whole journal under its partial name
//!    `<db>.jetjournal-partial`: the header record (identity: file-name
//!    digest, original length, a commitment over the whole of O, a fresh
//!    transaction id), one checksummed page record per saved page, and a
//!    commit slot of zeros; flush it.
//! 3. Rename it to `<db>.jetjournal` and flush the directory. The journal
//!    is now *sealed*; nothing touched the database before this point, so
//!    a file of that name is always evidence (see `recover`).
//! 4. Grow the database first (if it grows), write the new pages, shrink
//!    last (if it shrinks), flush the database.
//! 5. Write the commit record over the slot's zeros (a SHA-256 commitment
//!    over C: length, page size, SHA-256 of every page), flush the
//!    journal. This is the commit point: an I/O error here is reported as
//!    [`JournalError::Uncertain`] and the journal is kept.
//! 6. Remove the journal, flush the directory.
//!
//! # Recovery ([`recover`], [`recover_storage`])
//!
//! A partial journal is deleted (the database was never written). The
//! kernel classifies a journal ([`classify`](jet_kernels::journal::classify)): without a commit it is
//! rolled back only when the saved pages and the database's other pages
//! rebuild exactly the header's original image (so no journal — another
//! file's, another copy's, another transaction's — can produce anything
//! but that exact image); with a valid commit it is deleted when the
//! database matches the commitment. Anything else is refused with a typed
//! [`JournalError`] naming both files, which stay byte for byte as they
//! were; [`discard_journal`] is the explicit way out. Recovery never
//! writes the journal, so a crash during recovery simply recovers again.

pub mod lock;
mod recover;
pub mod sim;
pub mod vfs;

use crate::error::{Error, JournalError};
use crate::page::image::{CommitTarget, ImageChanges};
use jet_kernels::journal::{
    CHECKSUM_LEN, COMMIT_PAYLOAD_LEN, COMMIT_RECORD_LEN, Commit, FRAME_LEN, Frame,
    HEADER_PAYLOAD_LEN, HEADER_RECORD_LEN, Header, Kind, LengthOrder, TRAILER, encode_commit,
    encode_frame, encode_header, length_order, must_save, page_size_ok, page_span, shrink_pages,
};
use lock::{AccessLockFile, FileLock, LockMode};
pub use recover::{Discarded, discard_journal, open_for_read, recover, recover_storage};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
pub use vfs::{FileKind, FsStorage, Storage, journal_path, partial_journal_path};

/// What recovery found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryOutcome {
    /// No journal: nothing to do.
    NoJournal,
    /// Only a partial journal existed (the crash came before the journal
    /// was sealed, so the database was never touched); it was deleted.
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
/// Errors tell the outcome: before the commit point
/// [`JournalError::NotCommitted`] (the function rolls back at once; if
/// that fails too, the journal stays and the next open rolls back); at or
/// after it [`JournalError::Uncertain`] (the journal stays, whatever the
/// disk holds; the next open decides between O and C). The journal is
/// never deleted after an I/O error at or after the commit point.
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
    let leftover = s
        .exists(FileKind::Journal)
        .map_err(io_at(s, FileKind::Journal, "stat"))?
        || s.exists(FileKind::PartialJournal).map_err(io_at(
            s,
            FileKind::PartialJournal,
            "stat",
        ))?;
    if leftover {
        // a journal left by an earlier failure of this writer
        recover_storage(s)?;
        digests.clear();
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
    let plan = Plan {
        ps,
        orig_len,
        new_len,
        saved: &saved,
        writes: &writes,
        original: commitment(orig_len, ps, digests),
        committed: commitment(new_len, ps, &new_digests),
    };
    match write_transaction(s, changes, &plan) {
        Ok(()) => {
            *digests = new_digests;
            Ok(())
        }
        Err(f) => {
            digests.clear();
            if f.uncertain {
                return Err(JournalError::Uncertain {
                    path: f.path,
                    op: f.op,
                    source: f.source,
                }
                .into());
            }
            // roll back now if the storage still works; otherwise the next
            // open does (no commit record was written)
            let rollback = match recover_storage(s) {
                Ok(RecoveryOutcome::RolledBack { .. }) => {
                    "; the database was rolled back".to_string()
                }
                Ok(_) => String::new(),
                Err(e) => format!(
                    "; rolling it back failed too ({e}), so its journal stays and the next open rolls it back"
                ),
            };
            Err(JournalError::NotCommitted {
                path: f.path,
                op: f.op,
                source: f.source,
                rollback,
            }
            .into())
        }
    }
}

/// What one transaction writes, decided before any write.
struct Plan<'a> {
    ps: u32,
    orig_len: u64,
    new_len: u64,
    saved: &'a [(u32, Vec<u8>)],
    writes: &'a [u32],
    /// Commitment over O.
    original: [u8; 32],
    /// Commitment over C.
    committed: [u8; 32],
}

/// An I/O error of [`write_transaction`], and whether it came at or after
/// the commit point.
struct Failure {
    uncertain: bool,
    path: PathBuf,
    op: &'static str,
    source: io::Error,
}

fn fail<S: Storage>(
    s: &S,
    file: FileKind,
    op: &'static str,
    uncertain: bool,
) -> impl FnOnce(io::Error) -> Failure {
    let path = s.path_of(file);
    move |source| Failure {
        uncertain,
        path,
        op,
        source,
    }
}

fn write_transaction<S: Storage>(
    s: &mut S,
    changes: &ImageChanges,
    plan: &Plan<'_>,
) -> Result<(), Failure> {
    let txn = transaction_id();
    let (p, j, d) = (
        FileKind::PartialJournal,
        FileKind::Journal,
        FileKind::Database,
    );
    // 2. the whole journal under its partial name: header, page records,
    //    a commit slot of zeros
    let mut body = Vec::new();
    for (page, orig) in plan.saved {
        body.extend_from_slice(&record(Kind::Page, *page, orig, &txn));
    }
    let records_end = u64::try_from(HEADER_RECORD_LEN + body.len()).unwrap_or(u64::MAX);
    let header = Header {
        page_size: plan.ps,
        orig_len: plan.orig_len,
        new_len: plan.new_len,
        records: u32::try_from(plan.saved.len()).unwrap_or(u32::MAX),
        records_end,
        original: plan.original,
        name: name_digest(s.db_name()),
        txn,
    };
    debug_assert_eq!(encode_header(&header).len(), HEADER_PAYLOAD_LEN as usize);
    let mut journal = record(Kind::Header, 0, &encode_header(&header), &[]);
    debug_assert_eq!(journal.len(), HEADER_RECORD_LEN);
    journal.extend_from_slice(&body);
    drop(body);
    journal.resize(journal.len() + COMMIT_RECORD_LEN, 0);
    s.create(p).map_err(fail(s, p, "create journal", false))?;
    s.write_at(p, 0, &journal)
        .map_err(fail(s, p, "write journal", false))?;
    s.sync(p).map_err(fail(s, p, "flush journal", false))?;
    // 3. seal: the journal gets its name; nothing touched the database yet
    s.seal_journal()
        .map_err(fail(s, j, "rename journal", false))?;
    s.sync_dir().map_err(fail(s, j, "flush directory", false))?;
    // 4. the database
    let order = length_order(plan.orig_len, plan.new_len);
    if let LengthOrder::GrowFirst(len) = order {
        s.set_len(d, len).map_err(fail(s, d, "grow", false))?;
    }
    for &page in plan.writes {
        if let Some(bytes) = changes.pages.get(&page) {
            let off = u64::from(page) * u64::from(plan.ps);
            s.write_at(d, off, bytes)
                .map_err(fail(s, d, "write", false))?;
        }
    }
    if let LengthOrder::ShrinkLast(len) = order {
        s.set_len(d, len).map_err(fail(s, d, "shrink", false))?;
    }
    s.sync(d).map_err(fail(s, d, "flush", false))?;
    // 5. the commit point: the commit record over the slot's zeros
    let c = Commit {
        new_len: plan.new_len,
        page_size: plan.ps,
        commitment: plan.committed,
    };
    let cr = record(Kind::Commit, 0, &encode_commit(&c), &txn);
    debug_assert_eq!(encode_commit(&c).len(), COMMIT_PAYLOAD_LEN as usize);
    s.write_at(j, records_end, &cr)
        .map_err(fail(s, j, "write commit record", true))?;
    s.sync(j).map_err(fail(s, j, "flush commit record", true))?;
    // 6. clean up; an error here still leaves a committed journal, which
    //    the next open keeps
    s.remove(j).map_err(fail(s, j, "remove journal", true))?;
    s.sync_dir().map_err(fail(s, j, "flush directory", true))?;
    Ok(())
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
    use std::time::Duration;

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
        // create, write, flush, rename, flush directory, 2 page writes
        s.crash_after(Some(7));
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
        // crash before the journal removal: create, write, flush, rename,
        // flush directory, page write, flush, commit write, flush → 9 steps
        s.crash_after(Some(9));
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
        // create, write, flush, rename, flush directory, page write, shrink
        s.crash_after(Some(7));
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
