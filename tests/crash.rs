//! Crash-test support shared by `tests/tests/crash_*.rs` and the
//! `crash_child` helper binary: deterministic synthetic transactions over
//! real database images, and the fault-injection harness that takes any
//! (O, [`ImageChanges`]) pair.

use jet_storage::CommitTarget;
use jet_storage::ImageChanges;
use jet_storage::journal::sim::{SimDisk, SimRng, SimStorage};
use jet_storage::journal::{JournaledFile, recover_storage};
use std::collections::BTreeMap;

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
pub fn crash_check(
    name: &str,
    o: &[u8],
    changes: &ImageChanges,
    subsets: u64,
    seed: u64,
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
                rep.new += 1;
            } else if out == o && !returned_ok {
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
