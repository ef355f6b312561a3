//! The write path as criterion groups, so a change to storage's writer or
//! to the provider's DML is judged against the plain path with confidence
//! intervals (the `writer_bench` and `dml_bench` examples print one figure
//! per phase for large files; these are the repeatable, smaller cousins).
//!
//! Data: the benchmark generator (`jet_fixtures::bench`: ACE12, table
//! `Bench` with 8 columns, a primary key on `ID` and an index on `Amount`),
//! 50,000 rows, written once to a temporary file. Every timed write works
//! on a fresh copy of it made outside the timing.
//!
//! - `writer/insert`: the generator itself, 20,000 rows with both indexes,
//!   in memory (`Transaction::insert` and the B-tree maintainer);
//! - `writer/seek`: 2,000 primary-key seeks through one open index;
//! - `writer/update`, `writer/delete`: 2,000 rows found by key, changed or
//!   deleted in one journaled transaction (`Database::open_writable`);
//! - `dml/insert_select`, `dml/update`, `dml/delete`: the same kinds of
//!   write as SQL through `JetSession` (pushdown on: the `ID` range is an
//!   index seek).
//!
//! `cargo bench -p jet-benches --bench writer`

use criterion::{BatchSize, Criterion, Throughput, criterion_main};
use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession};
use jet_storage::index::key::{KeyValue, first_column_bounds};
use jet_storage::index::{Bookmark, KeyMatch};
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec};
use jet_storage::{Database, JetType, JetVersion, OpenOptions, Table};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows of the file every timed write copies.
const ROWS: usize = 50_000;
/// Rows the generator writes in `writer/insert`.
const INSERTED: usize = 20_000;
/// Rows found by key and updated or deleted, seeks in `writer/seek`.
const KEYED: i32 = 2_000;

/// The generated file, written once per run.
fn source() -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("jet-writer-criterion-{}.accdb", std::process::id()));
    let bytes = jet_fixtures::bench(JetVersion::Ace12, ROWS, true).expect("generate");
    std::fs::write(&path, bytes).expect("write the bench file");
    path
}

/// A fresh copy of `src` to write to.
fn copy(src: &Path) -> PathBuf {
    let to = src.with_extension("work.accdb");
    std::fs::copy(src, &to).expect("copy the bench file");
    to
}

/// The keys written: spread over the table, one in 25.
fn keys() -> impl Iterator<Item = i64> {
    (0..KEYED).map(|i| 1 + i64::from(i) * (ROWS as i64 / i64::from(KEYED)))
}

/// The primary key of `t` (its position among the real indexes), and the
/// index key of `ID = v`.
fn pk_key(db: &Database, t: &Table, v: i64) -> (usize, Vec<u8>) {
    let def = t.def();
    let pk = def
        .real_indexes
        .iter()
        .position(|r| r.key.len() == 1 && r.flags & 0x01 != 0)
        .expect("a primary key");
    let col = def
        .columns
        .iter()
        .find(|c| c.col_num == def.real_indexes[pk].key[0].0)
        .expect("the key column");
    let v = KeyValue::Int(v);
    let (lo, _) = first_column_bounds(
        col,
        def.real_indexes[pk].key[0].1,
        Bound::Included(&v),
        Bound::Included(&v),
        db.version(),
    )
    .expect("key bounds")
    .expect("a key range");
    match lo {
        Bound::Included(k) => (pk, k),
        _ => panic!("an inclusive bound"),
    }
}

/// The bookmarks of the keyed rows, found through the primary key.
fn bookmarks(path: &Path) -> Vec<Bookmark> {
    let db = Database::open(path, OpenOptions::default()).expect("open");
    let t = db.table("Bench").expect("Bench");
    let mut out = Vec::new();
    for v in keys() {
        let (pk, k) = pk_key(&db, &t, v);
        let hits = t
            .index(pk)
            .expect("index")
            .seek(Bound::Included(&k), Bound::Included(&k), KeyMatch::Full)
            .expect("seek");
        assert_eq!(hits.len(), 1, "ID {v}");
        out.push(hits[0].bookmark);
    }
    out
}

fn writer(c: &mut Criterion) {
    let src = source();
    let mut g = c.benchmark_group("writer");
    g.sample_size(20);

    g.throughput(Throughput::Elements(INSERTED as u64));
    g.bench_function("insert", |b| {
        b.iter(|| {
            let bytes = jet_fixtures::bench(JetVersion::Ace12, INSERTED, true).unwrap();
            assert!(bytes.len() > 4096 * 100);
            bytes
        })
    });

    g.throughput(Throughput::Elements(KEYED as u64));
    {
        let db = Database::open(&src, OpenOptions::default()).unwrap();
        let t = db.table("Bench").unwrap();
        let keyed: Vec<(usize, Vec<u8>)> = keys().map(|v| pk_key(&db, &t, v)).collect();
        let pk = keyed[0].0;
        let idx = t.index(pk).unwrap();
        g.bench_function("seek", |b| {
            b.iter(|| {
                let mut found = 0;
                for (_, k) in &keyed {
                    found += idx
                        .seek(Bound::Included(k), Bound::Included(k), KeyMatch::Full)
                        .unwrap()
                        .len();
                }
                assert_eq!(found, KEYED as usize);
                found
            })
        });
    }

    let marks = bookmarks(&src);
    let changes = datafusion::arrow::array::RecordBatch::try_from_iter(vec![
        (
            "Amount",
            Arc::new(datafusion::arrow::array::Int32Array::from(
                (0..KEYED).map(|i| 1_500_000_000 + i).collect::<Vec<_>>(),
            )) as datafusion::arrow::array::ArrayRef,
        ),
        (
            "Label",
            Arc::new(datafusion::arrow::array::StringArray::from(
                (0..KEYED)
                    .map(|i| format!("updated label number {i}"))
                    .collect::<Vec<_>>(),
            )) as datafusion::arrow::array::ArrayRef,
        ),
    ])
    .unwrap();
    g.bench_function("update", |b| {
        b.iter_batched(
            || copy(&src),
            |work| {
                let mut w = Database::open_writable(&work).unwrap();
                let n = w
                    .transaction(|tx| tx.update("Bench", &marks, &changes))
                    .unwrap();
                assert_eq!(n, KEYED as usize);
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("delete", |b| {
        b.iter_batched(
            || copy(&src),
            |work| {
                let mut w = Database::open_writable(&work).unwrap();
                let n = w.transaction(|tx| tx.delete("Bench", &marks)).unwrap();
                assert_eq!(n, KEYED as usize);
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
    let _ = std::fs::remove_file(src.with_extension("work.accdb"));
    let _ = std::fs::remove_file(&src);
}

/// `Bench`'s columns and indexes, as the empty table `t`.
fn target_spec() -> TableSpec {
    TableSpec::new(
        "t",
        vec![
            ColumnSpec::new("ID", JetType::Long),
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

/// Runs `sql` on `path` (writable, pushdown on) and returns its row count.
fn run(rt: &tokio::runtime::Runtime, path: &Path, sql: &str) -> u64 {
    let s = JetSession::new(jet_provider::session_context(SessionConfig::new()));
    s.register(
        "db",
        path,
        JetOptions {
            writable: true,
            ..JetOptions::default()
        },
        true,
    )
    .unwrap();
    let out = rt.block_on(s.sql(sql)).unwrap();
    out[0]
        .column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::UInt64Array>()
        .expect("a row count")
        .value(0)
}

fn dml(c: &mut Criterion) {
    let src = source();
    {
        // the empty target of INSERT … SELECT, in the source itself
        let mut w = Database::open_writable(&src).unwrap();
        w.transaction(|tx| tx.create_table(&target_spec()).map(|_| ()))
            .unwrap();
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut g = c.benchmark_group("dml");
    g.sample_size(20);
    let (lo, hi) = (
        i64::from(ROWS as i32 / 2),
        i64::from(ROWS as i32 / 2 + KEYED - 1),
    );

    g.throughput(Throughput::Elements(INSERTED as u64));
    g.bench_function("insert_select", |b| {
        b.iter_batched(
            || copy(&src),
            |work| {
                let n = run(
                    &rt,
                    &work,
                    &format!("INSERT INTO t SELECT * FROM \"Bench\" WHERE \"ID\" <= {INSERTED}"),
                );
                assert_eq!(n, INSERTED as u64);
            },
            BatchSize::PerIteration,
        )
    });
    g.throughput(Throughput::Elements(KEYED as u64));
    g.bench_function("update", |b| {
        b.iter_batched(
            || copy(&src),
            |work| {
                let n = run(
                    &rt,
                    &work,
                    &format!(
                        "UPDATE \"Bench\" SET \"Score\" = \"Score\" + 1, \"Amount\" = \"Amount\" + 7 \
                         WHERE \"ID\" BETWEEN {lo} AND {hi}"
                    ),
                );
                assert_eq!(n, KEYED as u64);
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("delete", |b| {
        b.iter_batched(
            || copy(&src),
            |work| {
                let n = run(
                    &rt,
                    &work,
                    &format!("DELETE FROM \"Bench\" WHERE \"ID\" BETWEEN {lo} AND {hi}"),
                );
                assert_eq!(n, KEYED as u64);
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
    let _ = std::fs::remove_file(src.with_extension("work.accdb"));
    let _ = std::fs::remove_file(&src);
}

#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::writer, super::dml);
}
criterion_main!(group::benches);
