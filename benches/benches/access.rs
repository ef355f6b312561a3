//! The Access SQL front end's cost: planning and running a point lookup
//! written in Access SQL against the same lookup in DataFusion SQL, both
//! through `JetSession` on `mdbtools/nwind.mdb` (acceptance: at most 1.2×).

use criterion::Criterion;
use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};

fn session(dialect: SqlDialect) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(
        SessionConfig::new()
            .with_target_partitions(2)
            .with_default_catalog_and_schema("datafusion", "public"),
    ));
    let path = jet_benches::shared_dir().join("corpus/mdbtools/nwind.mdb");
    s.register("nw", path, JetOptions::default(), true).unwrap();
    s.set_dialect(dialect);
    s
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let run = |s: &JetSession, sql: &str| {
        rt.block_on(async {
            let rows: usize = s.sql(sql).await.unwrap().iter().map(|b| b.num_rows()).sum();
            assert_eq!(rows, 1);
            rows
        })
    };
    let access = session(SqlDialect::Access);
    let df = session(SqlDialect::DataFusion);
    let a = "SELECT OrderID, CustomerID FROM Orders WHERE OrderID = 10250";
    let q = r#"SELECT "OrderID", "CustomerID" FROM "Orders" WHERE "OrderID" = 10250"#;
    let mut g = c.benchmark_group("sql/dialect");
    g.bench_function("point_lookup/access", |b| b.iter(|| run(&access, a)));
    g.bench_function("point_lookup/datafusion", |b| b.iter(|| run(&df, q)));
    g.finish();
}

#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion::criterion_main!(group::benches);
