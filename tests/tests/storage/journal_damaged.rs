//! Acceptance 3: journals that no crash of the writer can produce —
//! truncated inside the records the header covers, bit-flipped (header,
//! page record, commit record), belonging to another database, or holding
//! a commit whose commitment (digest) the database does not match — are
//! refused with typed errors by every way of opening the database
//! (`Database::open`, `Database::open_writable`, `journal::recover`, which
//! `jetsql recover` calls), and both the database and the journal are left
//! byte for byte as they were. Putting the good journal back then recovers.
//!
//! The journals are real: a writer transaction (deletes, inserts with index
//! splits, updates) committed on the simulated disk and stopped halfway
//! through the database writes (a torn database), before the commit record
//! (a journal to roll back) or before the journal's removal (a committed
//! journal), written to real files.
//!
//! Issue 17: a journal truncated below its header, emptied, with a bit
//! flipped in the header's checksum, or replaced by another transaction's
//! journal (of a copy of the same file) next to a torn database is refused
//! — never "discarded" — and a bit flip or truncation inside a complete
//! commit record is refused — never rolled back. `discard_journal` (the
//! documented way out, `jetsql recover --discard-journal`) then removes
//! the journal and keeps the database exactly as it was.

use jet_kernels::journal::{COMMIT_RECORD_LEN, HEADER_RECORD_LEN};
use jet_storage::journal::sim::{SimDisk, SimStorage};
use jet_storage::journal::{
    JournaledFile, RecoveryOutcome, discard_journal, journal_path, recover,
};
use jet_storage::{CommitTarget, Database, Error, JetVersion, JournalError, MemImage, OpenOptions};
use jet_tests::crash::{RecordingImage, batch_database, batch_transaction, consistency};
use std::path::Path;

/// A database after one batch transaction, and the disk states of the next
/// transaction stopped `before_end` steps before its last I/O step.
fn interrupted(name: &str, before_end: u64) -> (Vec<u8>, SimDisk) {
    interrupted_at(name, &|_| before_end)
}

/// Like [`interrupted`], with the steps before the end chosen from the
/// number of pages the transaction writes.
fn interrupted_at(name: &str, before_end: &dyn Fn(u64) -> u64) -> (Vec<u8>, SimDisk) {
    let mut w = jet_storage::Writer::new(RecordingImage {
        image: MemImage {
            bytes: batch_database(JetVersion::Jet4).unwrap(),
        },
        commits: Vec::new(),
    })
    .unwrap();
    for i in 0..2 {
        w.transaction(|tx| batch_transaction(tx, i)).unwrap();
    }
    let t = w.into_target();
    let ch = t.commits.last().unwrap();
    let o = {
        let mut img = batch_database(JetVersion::Jet4).unwrap();
        t.commits[0].apply_to(&mut img).unwrap();
        img
    };
    let mut dry = JournaledFile::with_storage(SimStorage::new(name, o.clone())).unwrap();
    dry.commit(ch).unwrap();
    let steps = dry.storage().steps();
    let before_end = before_end(ch.pages.len() as u64);
    let mut s = SimStorage::new(name, o.clone());
    s.crash_after(Some(steps - before_end));
    let mut f = JournaledFile::with_storage(s).unwrap();
    // stopped anywhere, the commit reports an error (past the commit point
    // an "uncertain" one: the journal is kept and the next open decides)
    assert!(f.commit(ch).is_err());
    let disk = f.storage().live_disk();
    assert!(disk.journal.is_some());
    (o, disk)
}

/// A sealed journal of another transaction on image `o` (one page
/// rewritten: the last), stopped before its commit record.
fn other_transaction(name: &str, o: &[u8]) -> (Vec<u8>, SimDisk) {
    let ps = 4096;
    let pages = (o.len() / ps) as u32;
    let mut page = o[o.len() - ps..].to_vec();
    page[ps - 1] ^= 0x5A;
    let mut changed = std::collections::BTreeMap::new();
    changed.insert(pages - 1, page.into_boxed_slice());
    let ch = jet_storage::ImageChanges {
        page_size: ps,
        old_pages: pages,
        new_pages: pages,
        pages: changed,
    };
    let mut s = SimStorage::new(name, o.to_vec());
    // create, write, flush, rename, flush directory, one page write, flush
    s.crash_after(Some(7));
    let mut f = JournaledFile::with_storage(s).unwrap();
    assert!(f.commit(&ch).is_err());
    let disk = f.storage().live_disk();
    assert!(disk.journal.is_some());
    (o.to_vec(), disk)
}

fn install(path: &Path, db: &[u8], journal: &[u8]) {
    std::fs::write(path, db).unwrap();
    std::fs::write(journal_path(path), journal).unwrap();
}

/// Every opener refuses with an error `want` accepts; both files stay.
fn refused(path: &Path, db: &[u8], journal: &[u8], what: &str, want: fn(&JournalError) -> bool) {
    install(path, db, journal);
    let unchanged = |via: &str| {
        assert_eq!(
            std::fs::read(path).unwrap(),
            db,
            "{what} ({via}): database changed"
        );
        assert_eq!(
            std::fs::read(journal_path(path)).unwrap(),
            journal,
            "{what} ({via}): journal changed"
        );
    };
    match Database::open(path, OpenOptions::default()) {
        Err(Error::Journal(e)) if want(&e) => println!("{what}: Database::open: {e}"),
        Err(e) => panic!("{what}: Database::open: unexpected error {e}"),
        Ok(_) => panic!("{what}: Database::open accepted it"),
    }
    unchanged("Database::open");
    match Database::open_writable(path) {
        Err(Error::Journal(e)) if want(&e) => {}
        Err(e) => panic!("{what}: open_writable: unexpected error {e}"),
        Ok(_) => panic!("{what}: open_writable accepted it"),
    }
    unchanged("open_writable");
    match recover(path) {
        Err(e) if want(&e) => {}
        Err(e) => panic!("{what}: recover: unexpected error {e}"),
        Ok(r) => panic!("{what}: recover accepted it: {r:?}"),
    }
    unchanged("recover");
}

fn corrupt(e: &JournalError) -> bool {
    matches!(e, JournalError::Corrupt { .. })
}

fn foreign(e: &JournalError) -> bool {
    matches!(e, JournalError::Foreign { .. })
}

fn mismatch(e: &JournalError) -> bool {
    matches!(e, JournalError::CommitmentMismatch { .. })
}

#[test]
fn damaged_journals_are_refused_and_left_untouched() {
    let dir = std::env::temp_dir().join(format!("jet-journal-damaged-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("d.mdb");
    // sealed, database written, no commit record (steps left: commit
    // write, journal flush, removal, directory flush)
    let (o, rollback) = interrupted("d.mdb", 4);
    let rj = rollback.journal.clone().unwrap();
    // committed, the journal not yet removed
    let (_, committed) = interrupted("d.mdb", 2);
    let cj = committed.journal.clone().unwrap();
    // the commit record is written over the journal's zero-filled slot
    assert_eq!(cj.len(), rj.len());
    let commit_at = rj.len() - COMMIT_RECORD_LEN;
    assert!(rj[commit_at..].iter().all(|&b| b == 0));
    assert!(
        cj[commit_at..].starts_with(b"JjRn"),
        "commit record in the slot"
    );
    assert!(rj.len() > HEADER_RECORD_LEN + 4096, "page records present");
    // stopped halfway through the database writes: a torn database
    let (_, torn) = interrupted_at("d.mdb", &|writes| 4 + 1 + writes / 2);
    let tj = torn.journal.clone().unwrap();
    assert_ne!(torn.db, o, "the database was partly written");
    assert_ne!(torn.db, committed.db, "the database was partly written");

    // truncated below the header (down to empty), next to a torn database
    for cut in [
        0,
        1,
        4,
        31,
        32,
        100,
        HEADER_RECORD_LEN - 1,
        HEADER_RECORD_LEN,
    ] {
        refused(
            &path,
            &torn.db,
            &tj[..cut],
            &format!("torn database, journal truncated to {cut} bytes"),
            corrupt,
        );
    }
    // one bit flipped in the header's checksum and elsewhere in the header
    for at in [0, 4, 12, 16, 20, 31, 40, 80, 120, HEADER_RECORD_LEN - 1] {
        let mut bad = tj.clone();
        bad[at] ^= 0x01;
        refused(
            &path,
            &torn.db,
            &bad,
            &format!("torn database, header bit flipped at {at}"),
            corrupt,
        );
    }
    // truncated inside a complete commit record, or a bit flipped in it:
    // refused, never rolled back
    for cut in [commit_at + 1, commit_at + 40, cj.len() - 1] {
        refused(
            &path,
            &committed.db,
            &cj[..cut],
            &format!("committed journal truncated in its commit record at {cut}"),
            corrupt,
        );
    }
    for at in [commit_at, commit_at + 20, commit_at + 50, cj.len() - 1] {
        let mut bad = cj.clone();
        bad[at] ^= 0x01;
        refused(
            &path,
            &committed.db,
            &bad,
            &format!("bit flipped in a complete commit record at {at}"),
            corrupt,
        );
    }

    // truncated inside the page records the header covers
    for cut in [HEADER_RECORD_LEN + 1, HEADER_RECORD_LEN + 100, rj.len() - 5] {
        refused(
            &path,
            &rollback.db,
            &rj[..cut],
            &format!("truncated at {cut}"),
            corrupt,
        );
        refused(
            &path,
            &committed.db,
            &cj[..cut],
            &format!("committed, truncated at {cut}"),
            corrupt,
        );
    }
    // bit flips: header, a page record's frame and payload, the commit record
    for (at, what) in [
        (20, "header"),
        (HEADER_RECORD_LEN + 8, "page record frame"),
        (HEADER_RECORD_LEN + 900, "page record payload"),
        (commit_at - 1, "last page record's trailer"),
        (commit_at + 7, "zero commit slot"),
    ] {
        let mut bad = rj.clone();
        bad[at] ^= 0x04;
        refused(
            &path,
            &rollback.db,
            &bad,
            &format!("bit flipped in the {what}"),
            corrupt,
        );
    }
    for at in [commit_at + 3, commit_at + 40, cj.len() - 6] {
        let mut bad = cj.clone();
        bad[at] ^= 0x80;
        refused(
            &path,
            &committed.db,
            &bad,
            &format!("bit flipped in the commit record at {at}"),
            corrupt,
        );
    }
    // another database's journal: under another file name, and beside
    // another database of the same name
    let other = dir.join("other.mdb");
    refused(
        &other,
        &rollback.db,
        &rj,
        "journal of d.mdb beside other.mdb",
        foreign,
    );
    refused(
        &other,
        &committed.db,
        &cj,
        "committed journal of d.mdb beside other.mdb",
        foreign,
    );
    // another transaction's journal, written for a copy of the same file
    // (same name, same original image), beside the torn database
    let (_, other_txn) = other_transaction("d.mdb", &o);
    let oj = other_txn.journal.clone().unwrap();
    refused(
        &path,
        &torn.db,
        &oj,
        "another transaction's journal beside a torn database",
        foreign,
    );
    let ace = batch_database(JetVersion::Ace12).unwrap();
    refused(
        &path,
        &ace,
        &rj,
        "journal beside another database named d.mdb",
        foreign,
    );
    // a commit whose commitment the database does not match: one byte of
    // C changed, and the database rolled back to O meanwhile
    let mut changed = committed.db.clone();
    let mid = changed.len() / 2;
    changed[mid] ^= 1;
    refused(
        &path,
        &changed,
        &cj,
        "commit digest vs a changed database",
        mismatch,
    );
    refused(
        &path,
        &o,
        &cj,
        "commit digest vs the original database",
        mismatch,
    );

    // the way out: the journal removed, the database kept as it is
    install(&path, &torn.db, &tj[..HEADER_RECORD_LEN - 1]);
    assert!(recover(&path).is_err());
    let d = discard_journal(&path).unwrap();
    assert!(d.journal);
    assert!(!journal_path(&path).exists());
    assert_eq!(std::fs::read(&path).unwrap(), torn.db);
    assert_eq!(recover(&path).unwrap(), RecoveryOutcome::NoJournal);
    // the good journal of the torn database rolls it back
    install(&path, &torn.db, &tj);
    assert!(matches!(
        recover(&path).unwrap(),
        RecoveryOutcome::RolledBack { .. }
    ));
    assert_eq!(std::fs::read(&path).unwrap(), o);

    // the good journals recover: rolled back to O, or C kept
    install(&path, &rollback.db, &rj);
    assert!(matches!(
        recover(&path).unwrap(),
        RecoveryOutcome::RolledBack { .. }
    ));
    assert_eq!(std::fs::read(&path).unwrap(), o);
    install(&path, &committed.db, &cj);
    let db = Database::open(&path, OpenOptions::default()).unwrap();
    consistency(&db, "committed journal kept");
    assert!(!journal_path(&path).exists());
    drop(db);
    assert_eq!(std::fs::read(&path).unwrap(), committed.db);
    std::fs::remove_dir_all(&dir).unwrap();
}
