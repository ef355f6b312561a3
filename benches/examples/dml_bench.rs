//! SQL writes against the same work through the storage API directly.
//!
//! ```text
//! cargo run --release -p jet-fixtures -- --bench target/bench-data/bench1m.mdb 1000000
//! cargo run --release -p jet-benches --features examples --example dml_bench -- target/bench-data/bench1m.mdb [REPS]
//! ```
//!
//! From the benchmark database (table `Bench`, indexed: primary key `ID`,
//! index `Amount`) it writes `Bench` to a Parquet file once, then times,
//! each on a fresh copy (median of REPS runs, default 3):
//!
//! 1. `INSERT INTO t SELECT * FROM 'bench.parquet'` through `JetSession`
//!    into an empty indexed table `t` of a new database, against reading
//!    the same Parquet file into Arrow (DataFusion) and inserting the
//!    batches with `Transaction::insert` in one journaled transaction;
//! 2. `UPDATE "Bench" SET "Score" = "Score" + 1 WHERE "ID" BETWEEN a AND b`
//!    (10,000 rows from the middle of the table) through `JetSession`, with index seeks and without,
//!    against seeking the primary key, fetching the rows and calling
//!    `Transaction::update` directly.
//!
//! Prints one Markdown table.

use datafusion::arrow::array::{Array, ArrayRef, Float64Array, RecordBatch};
use datafusion::arrow::compute::concat_batches;
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use jet_provider::{JetOptions, JetSession};
use jet_storage::index::KeyMatch;
use jet_storage::index::key::{KeyValue, first_column_bounds};
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{Database, JetType, JetVersion, OpenOptions, ScanOptions};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

type Res<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The 10,000 keys updated: the middle of the table.
fn key_range(rows: u32) -> (i64, i64) {
    let lo = i64::from(rows / 2) + 1;
    (lo, lo + 9_999)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// The target table: Bench's columns and indexes.
fn target_spec() -> TableSpec {
    TableSpec::new(
        "t",
        vec![
            ColumnSpec::new("ID", JetType::Long).auto_number(),
            ColumnSpec::new("Category", JetType::Integer),
            ColumnSpec::new("Amount", JetType::Long),
            ColumnSpec::new("Score", JetType::Double),
            ColumnSpec::new("Created", JetType::DateTime),
            ColumnSpec::new("Price", JetType::Currency),
            ColumnSpec::text("Label", 40),
            ColumnSpec::text("City", 30),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["ID"]))
    .index(IndexSpec::new("Amount", &["Amount"]))
}

/// A new Jet4 database at `path` with the empty table `t`.
fn empty_target(path: &Path) -> Res<()> {
    let bytes = new_database(JetVersion::Jet4, 946_684_800_000_000)?;
    std::fs::write(path, bytes)?;
    let mut w = Database::open_writable(path)?;
    w.transaction(|tx| tx.create_table(&target_spec()).map(|_| ()))?;
    Ok(())
}

fn session(path: &Path, pushdown: bool) -> Res<JetSession> {
    let s = JetSession::new(jet_provider::session_context(SessionConfig::new()).enable_url_table());
    s.register(
        "db",
        path,
        JetOptions {
            writable: true,
            pushdown,
            ..JetOptions::default()
        },
        true,
    )?;
    Ok(s)
}

async fn insert_sql(db: &Path, parquet: &Path) -> Res<(Duration, u64)> {
    let s = session(db, true)?;
    let t = Instant::now();
    let out = s
        .sql(&format!(
            "INSERT INTO t SELECT * FROM '{}'",
            parquet.display()
        ))
        .await?;
    let d = t.elapsed();
    let n = out[0]
        .column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::UInt64Array>()
        .ok_or("count")?
        .value(0);
    Ok((d, n))
}

async fn insert_direct(db: &Path, parquet: &Path) -> Res<(Duration, u64)> {
    let t = Instant::now();
    let ctx = SessionContext::new();
    let batches = ctx
        .read_parquet(
            parquet.to_string_lossy().as_ref(),
            ParquetReadOptions::default(),
        )
        .await?
        .collect()
        .await?;
    let mut w = Database::open_writable(db)?;
    let n = w.transaction(|tx| {
        let mut n = 0u64;
        for b in &batches {
            n += tx.insert("t", b)?.len() as u64;
        }
        Ok(n)
    })?;
    Ok((t.elapsed(), n))
}

async fn update_sql(db: &Path, pushdown: bool, (lo, hi): (i64, i64)) -> Res<(Duration, u64)> {
    let s = session(db, pushdown)?;
    let t = Instant::now();
    let out = s
        .sql(&format!(
            "UPDATE \"Bench\" SET \"Score\" = \"Score\" + 1 WHERE \"ID\" BETWEEN {lo} AND {hi}"
        ))
        .await?;
    let d = t.elapsed();
    let n = out[0]
        .column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::UInt64Array>()
        .ok_or("count")?
        .value(0);
    Ok((d, n))
}

fn update_direct(db: &Path, (lo, hi): (i64, i64)) -> Res<(Duration, u64)> {
    let t = Instant::now();
    let mut w = Database::open_writable(db)?;
    let read = w.database()?;
    let table = read.table("Bench")?;
    let pk = table
        .def()
        .real_indexes
        .iter()
        .position(|r| r.key.len() == 1 && r.flags & 0x01 != 0)
        .ok_or("no primary key")?;
    let col = &table.def().columns[0];
    let dir = table.def().real_indexes[pk].key[0].1;
    let (lo, hi) = first_column_bounds(
        col,
        dir,
        Bound::Included(&KeyValue::Int(lo)),
        Bound::Included(&KeyValue::Int(hi)),
        read.version(),
    )?
    .ok_or("no key range")?;
    let b = |x: &Bound<Vec<u8>>| match x {
        Bound::Included(v) => Bound::Included(v.clone()),
        Bound::Excluded(v) => Bound::Excluded(v.clone()),
        Bound::Unbounded => Bound::Unbounded,
    };
    let (lo, hi) = (b(&lo), b(&hi));
    let idx = table.index(pk)?;
    let marks: Vec<_> = idx
        .seek(
            lo.as_ref().map(|v| v.as_slice()),
            hi.as_ref().map(|v| v.as_slice()),
            KeyMatch::Prefix,
        )?
        .into_iter()
        .map(|e| e.bookmark)
        .collect();
    let parts = table
        .fetch(
            marks.clone(),
            ScanOptions {
                projection: Some(vec![3]),
                ..ScanOptions::default()
            },
        )?
        .collect::<jet_storage::Result<Vec<_>>>()?;
    let rows = concat_batches(&parts[0].schema(), &parts)?;
    let score = rows
        .column(0)
        .as_any()
        .downcast_ref::<Float64Array>()
        .ok_or("Score")?;
    let new: Float64Array = score.iter().map(|v| v.map(|x| x + 1.0)).collect();
    let change = RecordBatch::try_from_iter(vec![("Score", Arc::new(new) as ArrayRef)])?;
    drop(table);
    drop(read);
    let n = w.transaction(|tx| tx.update("Bench", &marks, &change))?;
    Ok((t.elapsed(), n as u64))
}

fn fresh(from: &Path, to: &Path) -> Res<()> {
    std::fs::copy(from, to)?;
    Ok(())
}

#[tokio::main]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let src = PathBuf::from(args.get(1).ok_or(
        "usage: dml_bench BENCH.mdb [REPS] (make it: cargo run --release -p jet-fixtures -- --bench PATH 1000000)",
    )?);
    let reps: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3).max(1);
    let dir = std::env::temp_dir().join(format!("jet-dml-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let parquet = dir.join("bench.parquet");
    let rows = Database::open(&src, OpenOptions::default())?
        .table("Bench")?
        .def()
        .stated_rows;
    {
        let s = session(&src, true)?;
        s.context()
            .sql("SELECT * FROM \"Bench\"")
            .await?
            .write_parquet(
                parquet.to_string_lossy().as_ref(),
                DataFrameWriteOptions::new(),
                None,
            )
            .await?;
    }
    let range = key_range(rows);
    let (lo, hi) = range;
    let empty = dir.join("empty.mdb");
    empty_target(&empty)?;
    let work = dir.join("work.mdb");
    let (mut ins_sql, mut ins_direct) = (Vec::new(), Vec::new());
    let (mut upd_seek, mut upd_scan, mut upd_direct) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps {
        fresh(&empty, &work)?;
        let (d, n) = insert_sql(&work, &parquet).await?;
        assert_eq!(n, u64::from(rows));
        ins_sql.push(d);
        fresh(&empty, &work)?;
        let (d, n) = insert_direct(&work, &parquet).await?;
        assert_eq!(n, u64::from(rows));
        ins_direct.push(d);
        fresh(&src, &work)?;
        let (d, n) = update_sql(&work, true, range).await?;
        assert_eq!(n, (range.1 - range.0 + 1) as u64);
        upd_seek.push(d);
        fresh(&src, &work)?;
        let (d, n) = update_sql(&work, false, range).await?;
        assert_eq!(n, (range.1 - range.0 + 1) as u64);
        upd_scan.push(d);
        fresh(&src, &work)?;
        let (d, n) = update_direct(&work, range)?;
        assert_eq!(n, (range.1 - range.0 + 1) as u64);
        upd_direct.push(d);
    }
    let (a, b) = (median(ins_sql), median(ins_direct));
    let (u1, u2, u3) = (median(upd_seek), median(upd_scan), median(upd_direct));
    let rate = |d: Duration, n: f64| n / d.as_secs_f64();
    println!(
        "| work ({rows} rows in Bench; median of {reps}) | SQL (s) | storage API (s) | SQL / API |"
    );
    println!("| --- | ---: | ---: | ---: |");
    println!(
        "| INSERT INTO t SELECT * FROM parquet ({rows} rows; SQL {:.0} rows/s, API {:.0} rows/s) | {:.3} | {:.3} | {:.2} |",
        rate(a, f64::from(rows)),
        rate(b, f64::from(rows)),
        a.as_secs_f64(),
        b.as_secs_f64(),
        a.as_secs_f64() / b.as_secs_f64()
    );
    println!(
        "| UPDATE … WHERE \"ID\" BETWEEN {lo} AND {hi} ({} rows), index seek | {:.3} | {:.3} | {:.2} |",
        hi - lo + 1,
        u1.as_secs_f64(),
        u3.as_secs_f64(),
        u1.as_secs_f64() / u3.as_secs_f64()
    );
    println!(
        "| the same UPDATE with pushdown off (full scan) | {:.3} | {:.3} | {:.2} |",
        u2.as_secs_f64(),
        u3.as_secs_f64(),
        u2.as_secs_f64() / u3.as_secs_f64()
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
