//! Crash-test support shared by `tests/tests/storage/crash_*.rs` and the
//! `crash_child` helper binary: deterministic synthetic transactions over
//! real database images, the batch workload of real writer transactions,
//! the reader's consistency checks, and the fault-injection harness that
//! takes any (O, [`ImageChanges`]) pair.

use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::error::WResult;
use jet_storage::index::Bookmark;
use jet_storage::journal::sim::{SimDisk, SimRng, SimStorage};
use jet_storage::journal::{JournaledFile, recover_storage};
use jet_storage::page::{MemPageSource, PageSource};
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{
    CommitTarget, Database, ImageChanges, JetType, JetVersion, MemImage, ScanOptions, Transaction,
    WriteTarget,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Page size of a database image from its version byte (0x14): 2048 for
/// Jet3, 4096 otherwise.
pub fn page_size_of(image: &[u8]) -> usize {
    if image.get(0x14) == Some(&0) {
        2048
    } else {
        4096
    }
}

/// The free space of a data page (type 0x01): the bytes between the end of
/// the row offset table and the lowest row, which no reader interprets.
/// `None` for other pages or when the page's geometry is odd.
pub fn data_page_free_space(page: &[u8], jet3: bool) -> Option<std::ops::Range<usize>> {
    if page.first() != Some(&0x01) {
        return None;
    }
    let (count_at, table_at) = if jet3 { (8, 10) } else { (12, 14) };
    let rows = usize::from(u16::from_le_bytes([
        *page.get(count_at)?,
        *page.get(count_at + 1)?,
    ]));
    let table_end = table_at + 2 * rows;
    let mut lowest = page.len();
    for r in 0..rows {
        let at = table_at + 2 * r;
        let off = usize::from(u16::from_le_bytes([*page.get(at)?, *page.get(at + 1)?]) & 0x1FFF);
        if off > 0 {
            lowest = lowest.min(off);
        }
    }
    (table_end + 8 < lowest).then_some(table_end + 4..lowest - 4)
}

/// Transaction `i` of the deterministic sequence seeded by `seed` over the
/// current image `cur`, for a database whose committed original is `base`
/// (pages of `base` are never cut off, so every image of the sequence
/// stays a readable database):
///
/// - rewrites the free space of one to four data pages of `base`;
/// - every third transaction appends one to three unreferenced pages,
///   every third one after it cuts the file back to `base`'s length
///   (pages saved before the cut), the rest keep the length;
/// - now and then rewrites the last bytes of page 0's header area that no
///   reader uses (`page0` = true).
pub fn synthetic_transaction(
    base: &[u8],
    cur: &[u8],
    seed: u64,
    i: u64,
    page0: bool,
) -> ImageChanges {
    let ps = page_size_of(base);
    let jet3 = ps == 2048;
    let mut rng = SimRng::new(seed ^ i.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let base_pages = (base.len() / ps) as u32;
    let old_pages = (cur.len() / ps) as u32;
    let data_pages: Vec<u32> = (1..base_pages)
        .filter(|&p| {
            let pg = &base[p as usize * ps..(p as usize + 1) * ps];
            data_page_free_space(pg, jet3).is_some()
        })
        .collect();
    let mut pages: BTreeMap<u32, Box<[u8]>> = BTreeMap::new();
    let fill = (i as u8).wrapping_mul(37).wrapping_add(1);
    for _ in 0..1 + rng.below(4) {
        if data_pages.is_empty() {
            break;
        }
        let p = data_pages[rng.below(data_pages.len() as u64) as usize];
        let mut pg = cur[p as usize * ps..(p as usize + 1) * ps].to_vec();
        if let Some(free) = data_page_free_space(&pg, jet3) {
            for (k, b) in pg[free].iter_mut().enumerate() {
                *b = fill ^ (k as u8);
            }
        }
        pages.insert(p, pg.into_boxed_slice());
    }
    if page0 && i % 4 == 3 {
        let mut pg = cur[..ps].to_vec();
        // the tail of page 0 past the header fields is unused
        for b in &mut pg[ps - 64..] {
            *b = fill;
        }
        pages.insert(0, pg.into_boxed_slice());
    }
    let new_pages = match i % 3 {
        0 => old_pages + 1 + rng.below(3) as u32,
        1 => base_pages,
        _ => old_pages,
    };
    for p in old_pages..new_pages {
        let mut pg = vec![0u8; ps];
        pg[ps - 16..].fill(fill);
        pages.insert(p, pg.into_boxed_slice());
    }
    pages.retain(|&p, _| p < new_pages);
    ImageChanges {
        page_size: ps,
        old_pages,
        new_pages,
        pages,
    }
}

/// What [`crash_check`] checked.
#[derive(Debug, Default, Clone, Copy)]
pub struct CrashReport {
    /// I/O steps of the commit (every one a crash point).
    pub steps: u64,
    /// Crash states recovered and compared (commit crashes × subsets, plus
    /// every state left by a crash during recovery).
    pub states: u64,
    /// Crashes injected during recovery.
    pub recovery_crashes: u64,
    /// Outcomes equal to O.
    pub old: u64,
    /// Outcomes equal to C.
    pub new: u64,
}

/// Recovers `disk` as an open would, crashing during recovery at random
/// points up to four times, and returns the recovered database image.
/// Panics (naming `ctx`) when recovery refuses a state a crash produced.
fn recover_with_crashes(
    mut disk: SimDisk,
    rng: &mut SimRng,
    rep: &mut CrashReport,
    ctx: &str,
) -> Vec<u8> {
    for attempt in 0..5 {
        let mut s = SimStorage::from_disk(&disk);
        let crash = attempt < 4 && rng.below(2) == 0;
        if crash {
            s.crash_after(Some(rng.below(24)));
        }
        match recover_storage(&mut s) {
            Ok(_) => {
                let live = s.live_disk();
                assert_eq!(live.journal, None, "{ctx}: recovery left a journal");
                assert_eq!(live.partial, None, "{ctx}: recovery left a partial journal");
                // recovery ends with everything durable
                let again = s.crash_disk(rng);
                assert_eq!(
                    again, live,
                    "{ctx}: recovery returned before its work was durable"
                );
                return live.db;
            }
            Err(_) if s.crashed() => {
                rep.recovery_crashes += 1;
                rep.states += 1;
                disk = s.crash_disk(rng);
            }
            Err(e) => panic!("{ctx}: recovery refused a crash state: {e}"),
        }
    }
    unreachable!("the fifth recovery attempt never crashes")
}

/// The fault-injection check for one transaction: commits `changes` over
/// image `o` on a simulated disk, crashing before every I/O step of the
/// commit in turn; for each crash point, `subsets` random persistence
/// choices (subset, order, tears, interrupted length changes); each state
/// is recovered (itself crashing at random points) and must be exactly O
/// or exactly C — C whenever the commit returned `Ok`. Panics on the first
/// violation, naming the step and the subset.
///
/// `check_outcome` is called on the recovered image the first time an
/// outcome equal to O, and the first time one equal to C, is produced
/// (every later outcome is byte-for-byte one of those two, so the checks,
/// which depend only on the bytes, hold for it too); pass the reader's
/// [`consistency`] checks through [`consistency_of_image`], or a no-op for
/// images no reader interprets.
pub fn crash_check(
    name: &str,
    o: &[u8],
    changes: &ImageChanges,
    subsets: u64,
    seed: u64,
    check_outcome: &mut dyn FnMut(&[u8], &str),
) -> CrashReport {
    let mut c = o.to_vec();
    changes.apply_to(&mut c).expect("valid changes");
    let mut rep = CrashReport::default();
    // dry run: the number of steps
    let mut f = JournaledFile::with_storage(SimStorage::new(name, o.to_vec())).expect("open");
    f.commit(changes).expect("commit without crash");
    rep.steps = f.storage().steps();
    assert_eq!(f.storage().live_disk().db, c);
    let mut rng = SimRng::new(seed);
    for k in 0..=rep.steps {
        let mut s = SimStorage::new(name, o.to_vec());
        s.crash_after(Some(k));
        let mut f = JournaledFile::with_storage(s).expect("open");
        let returned_ok = f.commit(changes).is_ok();
        assert!(
            returned_ok || k < rep.steps,
            "{name}: commit failed without a crash"
        );
        for n in 0..subsets {
            let ctx = format!(
                "{name}: crash at step {k}/{}, subset {n} (seed {seed})",
                rep.steps
            );
            let disk = f.storage().crash_disk(&mut rng);
            let out = recover_with_crashes(disk, &mut rng, &mut rep, &ctx);
            rep.states += 1;
            if out == c {
                if rep.new == 0 {
                    check_outcome(&out, &ctx);
                }
                rep.new += 1;
            } else if out == o && !returned_ok {
                if rep.old == 0 {
                    check_outcome(&out, &ctx);
                }
                rep.old += 1;
            } else if out == o {
                panic!("{ctx}: commit returned Ok but recovery gave O");
            } else {
                let first = out
                    .iter()
                    .zip(if out.len() == c.len() { &c } else { o })
                    .position(|(a, b)| a != b);
                panic!(
                    "{ctx}: outcome is neither O ({} bytes) nor C ({} bytes): {} bytes, first difference at {first:?}",
                    o.len(),
                    c.len(),
                    out.len()
                );
            }
        }
    }
    rep
}

/// A writer target holding the image in memory that also records the
/// [`ImageChanges`] of every commit, so that real writer transactions can
/// be fed to [`crash_check`].
#[derive(Debug, Clone, Default)]
pub struct RecordingImage {
    /// The committed image.
    pub image: MemImage,
    /// The changes of every commit so far, in order.
    pub commits: Vec<ImageChanges>,
}

impl CommitTarget for RecordingImage {
    fn commit(&mut self, changes: &ImageChanges) -> jet_storage::Result<()> {
        self.image.commit(changes)?;
        self.commits.push(changes.clone());
        Ok(())
    }
}

impl WriteTarget for RecordingImage {
    fn source(&self) -> jet_storage::Result<Arc<dyn PageSource>> {
        self.image.source()
    }
}

/// A read-only database over an in-memory image.
pub fn image_database(image: &[u8]) -> jet_storage::Result<Database> {
    Database::from_page_source(Arc::new(MemPageSource::new(
        image.to_vec(),
        page_size_of(image),
    )))
}

pub use crate::agree::consistency;

/// [`consistency`] of an in-memory image (a `check_outcome` for
/// [`crash_check`]).
pub fn consistency_of_image(image: &[u8], ctx: &str) {
    let db = image_database(image).unwrap_or_else(|e| panic!("{ctx}: open: {e}"));
    consistency(&db, ctx);
}

/// Table of the batch workload.
pub const BATCH_TABLE: &str = "Batches";
/// Rows of one batch: enough that the `name` index splits its leaves in
/// every transaction.
pub const BATCH_ROWS: i32 = 400;

/// The batch workload's table: an auto-number primary key, the batch id
/// (indexed), a unique code, a text name (indexed, keys scattered) and a
/// memo note.
pub fn batch_spec() -> TableSpec {
    TableSpec::new(
        BATCH_TABLE,
        vec![
            ColumnSpec::new("id", JetType::Long).auto_number(),
            ColumnSpec::new("batch", JetType::Long),
            ColumnSpec::new("code", JetType::Long),
            ColumnSpec::text("name", 80),
            ColumnSpec::new("note", JetType::Memo),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["id"]))
    .index(IndexSpec::new("batch", &["batch"]))
    .index(IndexSpec::new("code", &["code"]).unique())
    .index(IndexSpec::new("name", &["name"]))
}

/// A new database of `version` holding the empty batch table (built by the
/// writer in memory; deterministic).
pub fn batch_database(version: JetVersion) -> jet_storage::Result<Vec<u8>> {
    let mut w = jet_storage::Writer::new(MemImage {
        bytes: new_database(version, jet_storage::write::txn::DEFAULT_CLOCK)
            .map_err(|e| jet_storage::Error::Write(Box::new(e)))?,
    })?;
    w.transaction(|tx| tx.create_table(&batch_spec()).map(|_| ()))?;
    Ok(w.into_target().bytes)
}

/// Transaction `i` of the batch workload, a pure function of `i` and the
/// image: deletes every row (the previous batch), inserts [`BATCH_ROWS`]
/// rows of batch `i` (codes `i * BATCH_ROWS ..`, names scattered over the
/// `name` index so its leaves split), then lengthens the name and note of
/// every seventh new row (updates that move index keys and may relocate
/// rows). Invariant after every commit, broken by any partial transaction:
/// [`batch_invariant`].
pub fn batch_transaction(tx: &mut Transaction<'_>, i: u64) -> WResult<()> {
    let old = tx.bookmarks(BATCH_TABLE)?;
    tx.delete(BATCH_TABLE, &old)?;
    let b = i32::try_from(i % 1_000_000).unwrap_or(0);
    let n = BATCH_ROWS;
    let name = |j: i32| format!("n{:04} b{b} r{j}", (j * 7919 + b * 31) % 9973);
    let batch = RecordBatch::try_from_iter(vec![
        (
            "batch",
            Arc::new(Int32Array::from(vec![b; n as usize])) as ArrayRef,
        ),
        (
            "code",
            Arc::new(Int32Array::from(
                (0..n).map(|j| b * n + j).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from((0..n).map(name).collect::<Vec<_>>())) as ArrayRef,
        ),
        (
            "note",
            Arc::new(StringArray::from(
                (0..n)
                    .map(|j| (j % 3 == 0).then(|| format!("note {b} {j}")))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .map_err(|e| jet_storage::WriteError::Unsupported(e.to_string()))?;
    let bms = tx.insert(BATCH_TABLE, &batch)?;
    let upd: Vec<Bookmark> = bms.iter().copied().step_by(7).collect();
    let m = upd.len();
    let changes = RecordBatch::try_from_iter(vec![
        (
            "name",
            Arc::new(StringArray::from(
                (0..m)
                    .map(|k| format!("{} {}", name(k as i32 * 7), "long ".repeat(10)))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "note",
            Arc::new(StringArray::from(
                (0..m)
                    .map(|k| format!("updated {b} {k} {}", "memo ".repeat(40)))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .map_err(|e| jet_storage::WriteError::Unsupported(e.to_string()))?;
    tx.update(BATCH_TABLE, &upd, &changes)?;
    Ok(())
}

/// The batch workload's invariant: the table holds no rows (before the
/// first transaction) or exactly [`BATCH_ROWS`] rows, all of one batch `b`,
/// whose codes are exactly `b * BATCH_ROWS ..` `(b + 1) * BATCH_ROWS`.
/// Returns the batch (`None` when empty), or what is broken.
pub fn batch_invariant(db: &Database) -> Result<Option<i32>, String> {
    let t = db.table(BATCH_TABLE).map_err(|e| e.to_string())?;
    let mut batches = Vec::new();
    let mut codes = Vec::new();
    let opts = ScanOptions {
        projection: Some(vec![1, 2]),
        ..ScanOptions::default()
    };
    for b in t.scan(opts).map_err(|e| e.to_string())? {
        let b = b.map_err(|e| e.to_string())?;
        let col = |k: usize| -> Result<Vec<i32>, String> {
            let a = b
                .column(k)
                .as_any()
                .downcast_ref::<Int32Array>()
                .ok_or("batch/code are not Int32")?;
            if a.null_count() > 0 {
                return Err("a NULL batch or code".into());
            }
            Ok(a.values().to_vec())
        };
        batches.extend(col(0)?);
        codes.extend(col(1)?);
    }
    let Some(&first) = batches.first() else {
        return Ok(None);
    };
    if batches.len() != BATCH_ROWS as usize {
        return Err(format!(
            "{} rows, expected {BATCH_ROWS} (batch {first})",
            batches.len()
        ));
    }
    if let Some(other) = batches.iter().find(|&&b| b != first) {
        return Err(format!("rows of batches {first} and {other} together"));
    }
    codes.sort_unstable();
    let want: Vec<i32> = (0..BATCH_ROWS).map(|j| first * BATCH_ROWS + j).collect();
    if codes != want {
        return Err(format!("codes of batch {first} are not exactly its own"));
    }
    Ok(Some(first))
}

/// What [`io_error_check`] checked.
#[derive(Debug, Default, Clone, Copy)]
pub struct IoErrorReport {
    /// I/O steps of the commit (each one failed in turn).
    pub steps: u64,
    /// Commits run with one injected error (steps × error kinds × whether
    /// the failing operation took effect).
    pub runs: u64,
    /// Errors reported as "not committed" (the outcome was O every time).
    pub not_committed: u64,
    /// Errors reported as "uncertain" (the outcome was O or C).
    pub uncertain: u64,
    /// Of those, outcomes equal to C.
    pub uncertain_new: u64,
    /// Crash states after the error, recovered and compared.
    pub states: u64,
}

/// The I/O-error check for one transaction: commits `changes` over image
/// `o` on a simulated disk whose step `k` fails (EIO, then ENOSPC; the
/// failing operation doing nothing, then taking effect before the error),
/// for every step `k` of the commit. Every run must return an error; an
/// error that is not [`JournalError::Uncertain`] must leave O, and an
/// uncertain one O or C — as the process sees the files, after a reopen,
/// and after `subsets` random crashes right after the error (each
/// recovered with crashes during recovery). Panics on the first violation.
pub fn io_error_check(
    name: &str,
    o: &[u8],
    changes: &ImageChanges,
    subsets: u64,
    seed: u64,
) -> IoErrorReport {
    use jet_storage::journal::sim::Fault;
    use jet_storage::{Error, JournalError};
    let mut c = o.to_vec();
    changes.apply_to(&mut c).expect("valid changes");
    let mut f = JournaledFile::with_storage(SimStorage::new(name, o.to_vec())).expect("open");
    f.commit(changes).expect("commit without faults");
    let mut rep = IoErrorReport {
        steps: f.storage().steps(),
        ..IoErrorReport::default()
    };
    let mut rng = SimRng::new(seed);
    let mut scratch = CrashReport::default();
    for step in 0..rep.steps {
        for kind in [std::io::ErrorKind::Other, std::io::ErrorKind::StorageFull] {
            for took_effect in [false, true] {
                let ctx = format!(
                    "{name}: {kind:?} at step {step}/{} (took effect: {took_effect})",
                    rep.steps
                );
                let mut s = SimStorage::new(name, o.to_vec());
                s.fail_at(Some(Fault {
                    step,
                    kind,
                    took_effect,
                }));
                let mut f = JournaledFile::with_storage(s).expect("open");
                let result = f.commit(changes);
                rep.runs += 1;
                assert_eq!(f.storage().faults(), 1, "{ctx}: the fault was not reached");
                let uncertain = match &result {
                    Ok(()) => panic!("{ctx}: the commit returned Ok after an injected error"),
                    Err(Error::Journal(JournalError::Uncertain { .. })) => true,
                    Err(Error::Journal(JournalError::NotCommitted { .. })) => false,
                    Err(e) => panic!("{ctx}: unexpected error kind: {e}"),
                };
                let allowed = |out: &[u8], how: &str| {
                    if out == o {
                        return false;
                    }
                    assert!(
                        uncertain && out == c,
                        "{ctx}: {how}: the outcome is {} (the error said: {})",
                        if out == c.as_slice() {
                            "C, but the error did not say uncertain"
                        } else {
                            "neither O nor C"
                        },
                        result
                            .as_ref()
                            .err()
                            .map(|e| e.to_string())
                            .unwrap_or_default()
                    );
                    true
                };
                let live = f.storage().live_disk();
                if live.journal.is_none() && live.partial.is_none() {
                    allowed(&live.db, "as the process sees the file");
                }
                let reopened = recover_with_crashes(live.clone(), &mut rng, &mut scratch, &ctx);
                if allowed(&reopened, "after a reopen") {
                    rep.uncertain_new += 1;
                }
                for n in 0..subsets {
                    let disk = f.storage().crash_disk(&mut rng);
                    let out = recover_with_crashes(
                        disk,
                        &mut rng,
                        &mut scratch,
                        &format!("{ctx}, crash subset {n}"),
                    );
                    allowed(&out, &format!("after a crash (subset {n})"));
                    rep.states += 1;
                }
                if uncertain {
                    rep.uncertain += 1;
                } else {
                    rep.not_committed += 1;
                }
            }
        }
    }
    rep
}
