//! Truncated, zeroed and garbled pages give typed errors or readable data,
//! never a panic, a hang or an unbounded allocation. Mutations are drawn
//! from a fixed-seed generator so every run checks the same cases.

use jet_storage::{Database, ScanOptions};
use std::path::PathBuf;

fn corpus_file(rel: &str) -> Option<Vec<u8>> {
    let root = std::env::var_os("JET_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    match std::fs::read(root.join(rel)) {
        Ok(b) => Some(b),
        Err(_) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("corpus file {rel} missing under CI")
        }
        Err(_) => None,
    }
}

/// xorshift64*: a small deterministic generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Reads everything readable; returns how many tables failed with an error.
fn read_all(bytes: Vec<u8>) -> usize {
    let db = match Database::from_bytes(bytes) {
        Ok(db) => db,
        Err(_) => return 1,
    };
    let mut failed = 0;
    for name in db.table_names() {
        let Ok(t) = db.table(&name) else {
            failed += 1;
            continue;
        };
        match t.scan(ScanOptions::default()) {
            Ok(scan) => {
                for b in scan {
                    if b.is_err() {
                        failed += 1;
                        break;
                    }
                }
            }
            Err(_) => failed += 1,
        }
    }
    failed
}

fn mutate(seed: u64, original: &[u8], page_size: usize) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut b = original.to_vec();
    let pages = b.len() / page_size;
    match rng.below(4) {
        // garble random bytes of one page (not page 0: the header is checked separately)
        0 => {
            let p = 1 + rng.below(pages - 1);
            for _ in 0..1 + rng.below(16) {
                let o = p * page_size + rng.below(page_size);
                b[o] = rng.next() as u8;
            }
        }
        // zero a whole page
        1 => {
            let p = 1 + rng.below(pages - 1);
            b[p * page_size..(p + 1) * page_size].fill(0);
        }
        // truncate the file, possibly mid-page
        2 => {
            let cut = page_size + rng.below(b.len() - page_size);
            b.truncate(cut);
        }
        // overwrite 2-byte fields (counts, offsets, slots) with extreme values
        _ => {
            let p = 1 + rng.below(pages - 1);
            for _ in 0..1 + rng.below(8) {
                let o = p * page_size + rng.below(page_size - 1);
                let v: u16 = [0, 1, 0x7FFF, 0x8000, 0xFFFF, 0x1FFF][rng.below(6)];
                b[o..o + 2].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
    b
}

#[test]
fn mutated_files_never_panic() {
    let files = [
        ("mdbtools/nwind.mdb", 2048),
        ("jackcess/V1997/testV1997.mdb", 2048),
        ("jackcess/V2000/testV2000.mdb", 4096),
        ("jackcess/V2007/test2V2007.accdb", 4096),
        ("jackcess/V2010/calcFieldTestV2010.accdb", 4096),
        ("jackcess/V2000/overflowTestV2000.mdb", 4096),
    ];
    let mut cases = 0;
    let mut errors = 0;
    for (rel, ps) in files {
        let Some(orig) = corpus_file(rel) else { return };
        for seed in 0..150u64 {
            let m = mutate(
                seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ orig.len() as u64,
                &orig,
                ps,
            );
            let r = std::panic::catch_unwind(move || read_all(m));
            match r {
                Ok(n) => errors += n,
                Err(_) => panic!("{rel}: mutation seed {seed} panicked"),
            }
            cases += 1;
        }
    }
    eprintln!("{cases} mutated files read, {errors} typed errors");
    assert!(errors > 0, "the mutations must reach the error paths");
}

#[test]
fn garbage_and_tiny_inputs_are_typed_errors() {
    for len in [0usize, 1, 100, 2047, 2048, 4096] {
        let r = std::panic::catch_unwind(|| {
            Database::from_bytes(vec![0u8; len])
                .err()
                .map(|e| e.to_string())
        });
        assert!(matches!(r, Ok(Some(_))), "len {len}");
    }
    let mut fake = vec![0u8; 4096 * 4];
    fake[4..20].copy_from_slice(b"Standard Jet DB\0");
    fake[0x14] = 1;
    assert!(Database::from_bytes(fake).is_err());
}
