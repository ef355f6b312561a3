//! Overhead of the undo journal (issue 7, acceptance 5): the same writer
//! transactions inserting 100,000 rows into an indexed table, committed
//!
//! - `journaled`: through the journal (`Database::open_writable`: original
//!   pages saved and flushed, database written and flushed, commit record
//!   flushed, journal removed);
//! - `direct+fsync`: pages written straight into the file, one `fsync` per
//!   commit, no journal (durable but not crash-safe);
//! - `direct`: pages written straight into the file, no journal and no
//!   flush (neither durable nor crash-safe).
//!
//! The direct targets exist only in this bench ([`UnjournaledFile`]): they
//! are not part of any library API. Two shapes: one transaction of 100k
//! rows, and 100 transactions of 1k rows. Each case runs `JET_BENCH_REPS`
//! times (default 3) on a fresh file; the median is printed with the
//! ratio to `direct`.
//!
//! Run: `cargo bench -p jet-benches --bench journal`.

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::page::{FilePageSource, PageSource};
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{
    CommitTarget, Database, FormatError, ImageChanges, JetType, JetVersion, WriteTarget, Writer,
};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// UNSAFE FOR DATA — bench only. Writes a transaction's pages straight
/// into the database file: no journal, and a flush only when `fsync` is
/// set. A crash during a commit leaves a mix of old and new pages. Exists
/// to measure what the journal costs and nothing else.
struct UnjournaledFile {
    path: PathBuf,
    file: File,
    page_size: usize,
    fsync: bool,
}

impl UnjournaledFile {
    fn open(path: &Path, page_size: usize, fsync: bool) -> UnjournaledFile {
        let file = File::options().read(true).write(true).open(path).unwrap();
        UnjournaledFile {
            path: path.to_path_buf(),
            file,
            page_size,
            fsync,
        }
    }
}

impl CommitTarget for UnjournaledFile {
    fn commit(&mut self, changes: &ImageChanges) -> jet_storage::Result<()> {
        changes.validate()?;
        let io = |e: std::io::Error| FormatError::NotJet(format!("bench write: {e}"));
        let new_len = changes.new_pages as u64 * self.page_size as u64;
        if changes.new_pages > changes.old_pages {
            self.file.set_len(new_len).map_err(io)?;
        }
        for (&n, bytes) in &changes.pages {
            self.file
                .write_all_at(bytes, n as u64 * self.page_size as u64)
                .map_err(io)?;
        }
        if changes.new_pages < changes.old_pages {
            self.file.set_len(new_len).map_err(io)?;
        }
        if self.fsync {
            self.file.sync_data().map_err(io)?;
        }
        Ok(())
    }
}

impl WriteTarget for UnjournaledFile {
    fn source(&self) -> jet_storage::Result<Arc<dyn PageSource>> {
        Ok(Arc::new(FilePageSource::open(
            &self.path,
            self.page_size,
            1024,
        )?))
    }
}

fn spec() -> TableSpec {
    TableSpec::new(
        "Items",
        vec![
            ColumnSpec::new("id", JetType::Long).auto_number(),
            ColumnSpec::new("code", JetType::Long),
            ColumnSpec::text("name", 40),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["id"]))
    .index(IndexSpec::new("code", &["code"]).unique())
    .index(IndexSpec::new("name", &["name"]))
}

fn rows(from: i32, n: i32) -> RecordBatch {
    RecordBatch::try_from_iter(vec![
        (
            "code",
            Arc::new(Int32Array::from(
                (from..from + n)
                    .map(|i| i.wrapping_mul(7919) % 1_000_003)
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(
                (from..from + n)
                    .map(|i| format!("item {:06} {}", (i * 37) % 100_000, i % 7))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap()
}

const ROWS: i32 = 100_000;

/// Inserts [`ROWS`] rows in `txns` transactions and returns the time taken
/// (the table's creation, committed before, is not timed).
fn run<T: WriteTarget>(mut w: Writer<T>, txns: i32) -> Duration {
    w.transaction(|tx| tx.create_table(&spec()).map(|_| ()))
        .unwrap();
    let per = ROWS / txns;
    let t = Instant::now();
    for k in 0..txns {
        w.transaction(|tx| tx.insert("Items", &rows(k * per, per)).map(|_| ()))
            .unwrap();
    }
    t.elapsed()
}

fn main() {
    let reps: usize = std::env::var("JET_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let dir = std::env::temp_dir().join(format!("jet-bench-journal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bench.mdb");
    let empty = new_database(JetVersion::Jet4, 0).unwrap();
    let ps = 4096;
    println!("insert {ROWS} rows (3 indexes), median of {reps}:");
    for txns in [1, 100] {
        let mut medians = Vec::new();
        for variant in ["direct", "direct+fsync", "journaled"] {
            let mut times: Vec<Duration> = (0..reps)
                .map(|_| {
                    std::fs::write(&path, &empty).unwrap();
                    let d = match variant {
                        "journaled" => run(Database::open_writable(&path).unwrap(), txns),
                        v => run(
                            Writer::new(UnjournaledFile::open(&path, ps, v == "direct+fsync"))
                                .unwrap(),
                            txns,
                        ),
                    };
                    // the result is the same database whichever the target
                    let db = Database::open(&path, Default::default()).unwrap();
                    assert_eq!(
                        db.table("Items").unwrap().bookmarks().unwrap().len(),
                        ROWS as usize
                    );
                    d
                })
                .collect();
            times.sort();
            let m = times[reps / 2];
            medians.push(m);
            println!(
                "  {txns:>3} transaction(s) of {:>6} rows, {variant:<13} {:>8.3} s  ({:.2}× direct)  file {} bytes",
                ROWS / txns,
                m.as_secs_f64(),
                m.as_secs_f64() / medians[0].as_secs_f64(),
                std::fs::metadata(&path).unwrap().len()
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
