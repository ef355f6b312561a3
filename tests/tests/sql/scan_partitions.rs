//! Partitioned scans: split over page ranges they return exactly the rows of
//! one storage scan, and the `pages_read` metric counts each page once
//! however many partitions read at the same time.

use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, JetTable};
use jet_storage::{Database, OpenOptions, ScanOptions};
use std::sync::Arc;

fn pages_read(plan: &Arc<dyn ExecutionPlan>) -> usize {
    plan.metrics()
        .and_then(|m| m.sum_by_name("pages_read"))
        .map(|v| v.as_usize())
        .unwrap_or(0)
        + plan.children().iter().map(|c| pages_read(c)).sum::<usize>()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitions_cover_the_table_once_and_count_pages_once() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    for (file, table) in [
        ("mdbtools/nwind.mdb", "Order Details"),
        ("mdbtools/nwind.mdb", "Orders"),
        ("jackcess/V2000/compIndexTestV2000.mdb", "Table1"),
    ] {
        let path = corpus.join(file);
        let db = Database::open(&path, OpenOptions::default()).unwrap();
        let t = db.table(table).unwrap();
        let mut scan = t.scan(ScanOptions::default()).unwrap();
        let mut rows = 0;
        for b in scan.by_ref() {
            rows += b.unwrap().num_rows();
        }
        let storage_pages = scan.pages_read() as usize;
        assert!(storage_pages > 0, "{file} {table}: a scan reads pages");
        for partitions in [1, 2, 3] {
            let ctx = SessionContext::new_with_config(
                SessionConfig::new().with_target_partitions(partitions),
            );
            ctx.register_table(
                "t",
                Arc::new(JetTable::new(t.clone(), db.clone(), JetOptions::default())),
            )
            .unwrap();
            let plan = ctx
                .sql("SELECT * FROM t")
                .await
                .unwrap()
                .create_physical_plan()
                .await
                .unwrap();
            let batches = collect(plan.clone(), ctx.task_ctx()).await.unwrap();
            let got: usize = batches.iter().map(|b| b.num_rows()).sum();
            assert_eq!(got, rows, "{file} {table}: {partitions} partitions");
            assert_eq!(
                pages_read(&plan),
                storage_pages,
                "{file} {table}: pages_read with {partitions} partitions"
            );
        }
    }
}

#[test]
fn scan_page_counts_are_per_scan() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let db = Database::open(corpus.join("mdbtools/nwind.mdb"), OpenOptions::default()).unwrap();
    let t = db.table("Order Details").unwrap();
    let pages = t.data_pages().unwrap();
    let mid = pages[pages.len() / 2];
    let mut a = t
        .scan(ScanOptions {
            page_range: Some(0..mid),
            ..Default::default()
        })
        .unwrap();
    let mut b = t
        .scan(ScanOptions {
            page_range: Some(mid..u32::MAX),
            ..Default::default()
        })
        .unwrap();
    // interleave the two scans: each counts only its own pages
    let (mut ra, mut rb) = (0, 0);
    loop {
        let x = a.next().map(|r| r.unwrap().num_rows());
        let y = b.next().map(|r| r.unwrap().num_rows());
        ra += x.unwrap_or(0);
        rb += y.unwrap_or(0);
        if x.is_none() && y.is_none() {
            break;
        }
    }
    let whole = {
        let mut s = t.scan(ScanOptions::default()).unwrap();
        let n: usize = s.by_ref().map(|r| r.unwrap().num_rows()).sum();
        (n, s.pages_read())
    };
    assert_eq!(ra + rb, whole.0);
    assert!(a.pages_read() > 0 && b.pages_read() > 0);
    assert_eq!(a.pages_read() + b.pages_read(), whole.1);
}

/// The consumer's refusal in [`ordered_parallel_scan_equals_one_scan`] (a
/// storage error there fails the test at once).
#[derive(Debug)]
enum Stop {
    Enough,
}

impl From<jet_storage::Error> for Stop {
    fn from(e: jet_storage::Error) -> Self {
        panic!("the scan failed: {e}")
    }
}

/// The ordered parallel scan hands its consumer exactly the rows of one
/// storage scan, in the same order, whatever the threads and run size, and
/// its page counts sum to the table's data pages.
#[test]
fn ordered_parallel_scan_equals_one_scan() {
    use jet_storage::read::parallel::{Parallel, scan_ordered};
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    for (file, table) in [
        ("mdbtools/nwind.mdb", "Order Details"),
        ("mdbtools/nwind.mdb", "Orders"),
        ("jackcess/V2000/compIndexTestV2000.mdb", "Table1"),
    ] {
        let db = Database::open(corpus.join(file), OpenOptions::default()).unwrap();
        let t = db.table(table).unwrap();
        let whole: Vec<_> = t
            .scan(ScanOptions::default())
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        let whole = arrow_select::concat::concat_batches(&t.schema(), &whole).unwrap();
        let data_pages = t.data_pages().unwrap().len();
        for threads in [1, 2, 3] {
            for pages_per_run in [1, 2, 5, 0] {
                let par = Parallel {
                    threads,
                    pages_per_run,
                };
                let mut got = Vec::new();
                let mut pages = 0;
                scan_ordered(
                    &t,
                    &ScanOptions {
                        batch_size: 7,
                        ..Default::default()
                    },
                    par,
                    Ok::<_, jet_storage::Error>,
                    |bs, n| {
                        got.extend(bs);
                        pages += n;
                        Ok(())
                    },
                )
                .unwrap();
                let got = arrow_select::concat::concat_batches(&t.schema(), &got).unwrap();
                assert_eq!(got, whole, "{file} {table}: {par:?}");
                assert_eq!(pages, data_pages, "{file} {table}: {par:?}");
            }
        }
        // a refusal from the consumer stops the scan and is returned
        let mut calls = 0;
        let r = scan_ordered(
            &t,
            &ScanOptions::default(),
            Parallel {
                threads: 2,
                pages_per_run: 1,
            },
            Ok::<_, Stop>,
            |_, _| {
                calls += 1;
                Err(Stop::Enough)
            },
        );
        assert!(matches!(r, Err(Stop::Enough)), "{r:?}");
        assert_eq!(calls, 1);
        // a limit keeps page order: the first rows of the table
        let mut got = Vec::new();
        scan_ordered(
            &t,
            &ScanOptions {
                limit: Some(5),
                ..Default::default()
            },
            Parallel {
                threads: 2,
                pages_per_run: 1,
            },
            Ok::<_, jet_storage::Error>,
            |bs, _| {
                got.extend(bs);
                Ok(())
            },
        )
        .unwrap();
        let got = arrow_select::concat::concat_batches(&t.schema(), &got).unwrap();
        assert_eq!(got, whole.slice(0, 5.min(whole.num_rows())));
    }
}
