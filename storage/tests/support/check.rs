//! Helpers shared by the index-building and compaction tests: the
//! index/scan consistency check (the storage-side counterpart of the
//! `jet-tests` crate's `agree::table_consistency`), index walks, corpus
//! paths and scratch files.
#![allow(dead_code)]

use jet_kernels::index_entry::compare_entries;
use jet_storage::format::OwnedField;
use jet_storage::index::key::encode_key;
use jet_storage::index::{Bookmark, Direction};
use jet_storage::write::tdef::INDEX_IGNORE_NULLS;
use jet_storage::{Database, ScanOptions};
use std::path::{Path, PathBuf};

/// Checks one table: it scans as many rows as it has live bookmarks,
/// every live bookmark reads as a row, and every real index walks forward
/// over exactly the live rows' keys re-encoded from the rows, in index
/// order (key, then bookmark) — an "ignore nulls" index without the rows
/// whose key is the all-NULL key. Panics naming `ctx`, the table and the
/// index; returns the number of rows.
pub fn table_consistency(db: &Database, name: &str, ctx: &str) -> usize {
    let fail = |what: &dyn std::fmt::Display| -> ! { panic!("{ctx}: {name}: {what}") };
    let t = db.table(name).unwrap_or_else(|e| fail(&e));
    let mut scanned = 0;
    for b in t.scan(ScanOptions::default()).unwrap_or_else(|e| fail(&e)) {
        scanned += b.unwrap_or_else(|e| fail(&e)).num_rows();
    }
    let live = t.bookmarks().unwrap_or_else(|e| fail(&e));
    assert_eq!(scanned, live.len(), "{ctx}: {name}: rows scanned vs live");
    let cols = &t.def().columns;
    let rows: Vec<(Bookmark, Vec<OwnedField>)> = live
        .iter()
        .map(|&bm| {
            let r = t.raw_row(bm).unwrap_or_else(|e| fail(&e));
            (bm, r.unwrap_or_else(|| fail(&format!("{bm:?} has no row"))))
        })
        .collect();
    for (n, real) in t.def().real_indexes.iter().enumerate() {
        let fail = |what: &dyn std::fmt::Display| -> ! {
            panic!(
                "{ctx}: {name}: real index {n} (root {}): {what}",
                real.root_page
            )
        };
        let nulls = vec![OwnedField::Null; cols.len()];
        let null_key =
            encode_key(cols, &real.key, &nulls, db.version()).unwrap_or_else(|e| fail(&e));
        let mut want = Vec::with_capacity(rows.len());
        for (bm, row) in &rows {
            let key = encode_key(cols, &real.key, row, db.version())
                .unwrap_or_else(|e| fail(&format!("{bm:?}: {e}")));
            if real.flags & INDEX_IGNORE_NULLS != 0 && key == null_key {
                continue;
            }
            want.push((key, *bm));
        }
        want.sort_by(|a, b| compare_entries(&a.0, a.1.page, a.1.row, &b.0, b.1.page, b.1.row));
        let got = walk(db, name, n);
        if got.len() != want.len() {
            fail(&format!("{} entries for {} rows", got.len(), want.len()));
        }
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            fail(&format!(
                "entry {i}: {:02X?} vs rows {:02X?}",
                got[i], want[i]
            ));
        }
    }
    scanned
}

/// [`table_consistency`] of every table, user and system. Returns rows.
pub fn consistency(db: &Database, ctx: &str) -> usize {
    let mut names = db.table_names();
    names.extend(db.system_table_names());
    names.iter().map(|n| table_consistency(db, n, ctx)).sum()
}

/// The entries (key, bookmark) of real index `n` of `table`, walked forward.
pub fn walk(db: &Database, table: &str, n: usize) -> Vec<(Vec<u8>, Bookmark)> {
    let t = db.table(table).unwrap();
    t.index(n)
        .unwrap()
        .walk(Direction::Forward)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.key, e.bookmark)
        })
        .collect()
}

/// The corpus directory: `$JET_CORPUS`, else `../../shared/corpus` from
/// the crate. Missing: a failure under `CI=true`, else a skip (`None`).
pub fn corpus_root() -> Option<PathBuf> {
    let root = std::env::var_os("JET_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if root.is_dir() {
        return Some(root);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("corpus {} is missing under CI", root.display());
    }
    eprintln!("skipping: corpus {} not found", root.display());
    None
}

/// A fresh scratch directory for one test (removed when dropped).
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// A new empty directory under the system temp dir, named for `tag`.
    pub fn new(tag: &str) -> Scratch {
        // unique in the process: every test module shares one process
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("jet-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    /// A path in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    /// Copies `src` into the directory, writable.
    pub fn copy(&self, src: &Path) -> PathBuf {
        let dst = self.0.join(src.file_name().unwrap());
        std::fs::write(&dst, std::fs::read(src).unwrap()).unwrap();
        dst
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Crashes a journaled commit after each of its `steps` steps: `run(Some(k))`
/// runs it on simulated storage that crashes after step `k` and returns
/// whether the commit reported success and the file. A crashed commit
/// must not report `Ok`; three simulated disk states of each crash
/// (seeded by `seed`) are recovered, and each must be exactly `old` or
/// `new`. Both outcomes must occur. Panics naming `ctx` and the step.
pub fn crash_every_step(
    run: impl Fn(
        Option<u64>,
    ) -> (
        bool,
        jet_storage::journal::JournaledFile<jet_storage::journal::sim::SimStorage>,
    ),
    steps: u64,
    old: &[u8],
    new: &[u8],
    seed: u64,
    ctx: &str,
) {
    use jet_storage::journal::recover_storage;
    use jet_storage::journal::sim::{SimRng, SimStorage};
    let mut rng = SimRng::new(seed);
    let (mut saw_old, mut saw_new) = (0, 0);
    for k in 0..steps {
        let (ok, f) = run(Some(k));
        assert!(
            !ok || !f.storage().crashed(),
            "{ctx} step {k}: crashed commit returned Ok"
        );
        for _ in 0..3 {
            let mut s = SimStorage::from_disk(&f.storage().crash_disk(&mut rng));
            recover_storage(&mut s).unwrap_or_else(|e| panic!("{ctx} step {k}: recovery: {e}"));
            let out = s.live_disk().db;
            if out == old {
                saw_old += 1;
            } else if out == new {
                saw_new += 1;
            } else {
                panic!("{ctx} step {k}: recovered to neither the old nor the new image");
            }
        }
    }
    assert!(
        saw_old > 0 && saw_new > 0,
        "{ctx}: old {saw_old}, new {saw_new}"
    );
}
