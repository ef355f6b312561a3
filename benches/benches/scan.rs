//! Full scans of near-million-row tables to Arrow (all columns decoded), on
//! both page backends, plus a projected scan. Throughput is in rows.

use criterion::{Criterion, Throughput, criterion_main};
use jet_benches::{DATASETS, ensure};
use jet_storage::{Backend, Database, OpenOptions, ScanOptions};

fn scan_all(db: &Database, table: &str, projection: Option<Vec<usize>>) -> usize {
    let t = db.table(table).unwrap();
    t.scan(ScanOptions {
        projection,
        ..Default::default()
    })
    .unwrap()
    .map(|b| b.unwrap().num_rows())
    .sum()
}

fn bench(c: &mut Criterion) {
    for d in DATASETS {
        let path = ensure(d).expect("bench data");
        let mut g = c.benchmark_group(format!("scan/{}", d.name));
        g.sample_size(10);
        for (label, backend) in [("file", Backend::File), ("mmap", Backend::Mmap)] {
            let db = Database::open(
                &path,
                OpenOptions {
                    backend,
                    ..Default::default()
                },
            )
            .unwrap();
            let rows = scan_all(&db, d.table, None);
            g.throughput(Throughput::Elements(rows as u64));
            g.bench_function(format!("all_columns/{label}"), |b| {
                b.iter(|| scan_all(&db, d.table, None))
            });
            if backend == Backend::Mmap {
                g.bench_function("first_column/mmap", |b| {
                    b.iter(|| scan_all(&db, d.table, Some(vec![0])))
                });
            }
        }
        g.finish();
    }
}

#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
use group::benches;
criterion_main!(benches);
