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
//! splits, updates) committed on the simulated disk and stopped before the
//! commit record (a journal to roll back) or before the journal's removal
//! (a committed journal), written to real files.

use jet_kernels::journal::{COMMIT_RECORD_LEN, HEADER_RECORD_LEN};
use jet_storage::journal::sim::{SimDisk, SimStorage};
use jet_storage::journal::{JournaledFile, RecoveryOutcome, journal_path, recover};
use jet_storage::{CommitTarget, Database, Error, JetVersion, JournalError, MemImage, OpenOptions};
use jet_tests::crash::{RecordingImage, batch_database, batch_transaction, consistency};
use std::path::Path;

/// A database after one batch transaction, and the disk states of the next
/// transaction stopped `before_end` steps before its last I/O step.
fn interrupted(name: &str, before_end: u64) -> (Vec<u8>, SimDisk) {
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
    let mut s = SimStorage::new(name, o.clone());
    s.crash_after(Some(steps - before_end));
    let mut f = JournaledFile::with_storage(s).unwrap();
    // stopped before the removal, the commit is past its commit point and
    // returns Ok; stopped earlier, it fails
    assert_eq!(f.commit(ch).is_ok(), before_end <= 2);
    let disk = f.storage().live_disk();
    assert!(disk.journal.is_some());
    (o, disk)
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
    assert_eq!(cj.len(), rj.len() + COMMIT_RECORD_LEN);
    assert!(rj.len() > HEADER_RECORD_LEN + 4096, "page records present");

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
        (rj.len() - 1, "last page record's trailer"),
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
    for at in [rj.len() + 3, rj.len() + 40, cj.len() - 6] {
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
