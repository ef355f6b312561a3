//! Writer throughput (acceptance 5 of the writer issue), printed as figures:
//!
//! 1. insert: the benchmark generator (`jet_fixtures::bench`, the same code
//!    as `cargo run --release -p jet-fixtures -- --bench PATH [ROWS]`)
//!    writing ROWS rows (default 1,000,000) with a primary key on `ID` and
//!    an index on `Amount`, in memory, 100,000 rows per transaction;
//! 2. the database is written to PATH and reopened through the journaled
//!    file (`Database::open_writable`);
//! 3. update by key: 10,000 rows found by `ID` through the primary-key
//!    index, their `Amount` (indexed) and `Label` changed, one transaction;
//! 4. delete by key: 10,000 other rows found the same way, one transaction.
//!
//! Each write phase is followed by a check (row count, the updated values
//! read back) so a fast wrong answer cannot pass for a figure.
//!
//! `cargo run --release -p jet-benches --features examples --example writer_bench -- [PATH] [ROWS]`

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::format::OwnedField;
use jet_storage::index::key::encode_column;
use jet_storage::index::{Bookmark, KeyMatch};
use jet_storage::schema::tdef::Direction;
use jet_storage::{Database, JetVersion, OpenOptions};
use std::ops::Bound;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

const KEYED: usize = 10_000;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Entries of the index on `column` whose Long key lies in `lo..=hi`.
fn in_range(path: &PathBuf, column: &str, lo: i32, hi: i32) -> Res<usize> {
    let db = Database::open(path, OpenOptions::default())?;
    let t = db.table("Bench")?;
    let def = t.def();
    let col = def
        .columns
        .iter()
        .find(|c| c.name == column)
        .ok_or("no such column")?;
    let n = def
        .real_indexes
        .iter()
        .position(|ri| ri.key.len() == 1 && ri.key[0].0 == col.col_num)
        .ok_or("no index")?;
    let key = |v: i32| -> Res<Vec<u8>> {
        let mut k = Vec::new();
        encode_column(
            &mut k,
            col,
            Direction::Ascending,
            &OwnedField::Bytes(v.to_le_bytes().to_vec()),
            db.version(),
        )?;
        Ok(k)
    };
    let (lo, hi) = (key(lo)?, key(hi)?);
    Ok(t.index(n)?
        .seek(Bound::Included(&lo), Bound::Included(&hi), KeyMatch::Full)?
        .len())
}

/// Bookmarks of the rows whose `ID` is in `ids`, through the primary key.
fn by_key(path: &PathBuf, ids: &[i32]) -> Res<Vec<Bookmark>> {
    let db = Database::open(path, OpenOptions::default())?;
    let t = db.table("Bench")?;
    let def = t.def();
    let id_col = def
        .columns
        .iter()
        .find(|c| c.name == "ID")
        .ok_or("no ID column")?;
    let n = def
        .real_indexes
        .iter()
        .position(|ri| ri.key.len() == 1 && ri.key[0].0 == id_col.col_num)
        .ok_or("no index on ID")?;
    let idx = t.index(n)?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let mut key = Vec::new();
        encode_column(
            &mut key,
            id_col,
            Direction::Ascending,
            &OwnedField::Bytes(id.to_le_bytes().to_vec()),
            db.version(),
        )?;
        let hits = idx.seek(Bound::Included(&key), Bound::Included(&key), KeyMatch::Full)?;
        let [hit] = hits.as_slice() else {
            return Err(format!("ID {id}: {} entries", hits.len()).into());
        };
        out.push(hit.bookmark);
    }
    Ok(out)
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = PathBuf::from(args.first().cloned().unwrap_or_else(|| {
        std::env::temp_dir()
            .join("jet-writer-bench.accdb")
            .display()
            .to_string()
    }));
    let rows: usize = match args.get(1) {
        Some(n) => n.parse()?,
        None => 1_000_000,
    };
    if rows < 3 * KEYED {
        return Err(format!("need at least {} rows", 3 * KEYED).into());
    }

    let t = Instant::now();
    let bytes = jet_fixtures::bench(JetVersion::Ace12, rows, true)?;
    let insert = t.elapsed().as_secs_f64();
    println!(
        "insert (generator, in memory, 2 indexes): {rows} rows in {insert:.2} s = {:.0} rows/s; {:.1} MB",
        rows as f64 / insert,
        bytes.len() as f64 / 1e6
    );
    let t = Instant::now();
    std::fs::write(&path, &bytes)?;
    println!(
        "written to {} in {:.2} s",
        path.display(),
        t.elapsed().as_secs_f64()
    );
    drop(bytes);

    // keys spread over the whole table; the deleted ones differ from the
    // updated ones
    let stride = (rows / KEYED) as i32;
    let upd_ids: Vec<i32> = (0..KEYED as i32).map(|i| 1 + i * stride).collect();
    let del_ids: Vec<i32> = (0..KEYED as i32).map(|i| 2 + i * stride).collect();

    let t = Instant::now();
    let upd = by_key(&path, &upd_ids)?;
    let lookup = t.elapsed().as_secs_f64();
    println!(
        "lookup by key: {KEYED} primary-key seeks in {lookup:.3} s = {:.0} seeks/s",
        KEYED as f64 / lookup
    );

    let changes = RecordBatch::try_from_iter(vec![
        (
            "Amount",
            Arc::new(Int32Array::from(
                (0..KEYED as i32)
                    .map(|i| 1_500_000_000 + i)
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "Label",
            Arc::new(StringArray::from(
                (0..KEYED)
                    .map(|i| format!("updated label number {i}"))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])?;
    let mut w = Database::open_writable(&path)?;
    let t = Instant::now();
    let n = w.transaction(|tx| tx.update("Bench", &upd, &changes))?;
    let update = t.elapsed().as_secs_f64();
    println!(
        "update by key (Amount indexed + Label, one journaled transaction): {n} rows in {update:.3} s = {:.0} rows/s",
        n as f64 / update
    );
    drop(w);

    let del = by_key(&path, &del_ids)?;
    let mut w = Database::open_writable(&path)?;
    let t = Instant::now();
    let n = w.transaction(|tx| tx.delete("Bench", &del))?;
    let delete = t.elapsed().as_secs_f64();
    println!(
        "delete by key (one journaled transaction): {n} rows in {delete:.3} s = {:.0} rows/s",
        n as f64 / delete
    );
    drop(w);

    // checks: the row count, and the updated rows found by their new Amount
    let db = Database::open(&path, OpenOptions::default())?;
    let live = db.table("Bench")?.bookmarks()?.len();
    if live != rows - KEYED {
        return Err(format!("{live} rows after the delete, expected {}", rows - KEYED).into());
    }
    let again = by_key(&path, &upd_ids)?;
    if again != upd {
        return Err("updated rows moved".into());
    }
    let moved = in_range(
        &path,
        "Amount",
        1_500_000_000,
        1_500_000_000 + KEYED as i32 - 1,
    )?;
    if moved != KEYED {
        return Err(format!("{moved} rows carry the updated Amounts, expected {KEYED}").into());
    }
    println!(
        "checked: {live} rows remain; the {KEYED} updated rows keep their bookmarks and are found by their new Amount"
    );
    Ok(())
}
