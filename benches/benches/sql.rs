//! SQL through DataFusion on `mdbtools/nwind.mdb` (the largest indexed
//! tables the project has until the benchmark database generator lands):
//! point lookup by primary key with index pushdown vs with every pushdown
//! disabled, a range seek, and a full-table aggregate.

use criterion::Criterion;
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, register_jet};

fn ctx(pushdown: bool) -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
    let path = jet_benches::shared_dir().join("corpus/mdbtools/nwind.mdb");
    register_jet(
        &ctx,
        "nw",
        path,
        JetOptions {
            pushdown,
            ..Default::default()
        },
    )
    .unwrap();
    ctx
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let run = |ctx: &SessionContext, sql: &str| {
        rt.block_on(async {
            ctx.sql(sql)
                .await
                .unwrap()
                .collect()
                .await
                .unwrap()
                .iter()
                .map(|b| b.num_rows())
                .sum::<usize>()
        })
    };
    let on = ctx(true);
    let off = ctx(false);
    let point =
        r#"SELECT "ProductID", "Quantity" FROM nw.public."Order Details" WHERE "OrderID" = 10500"#;
    let range =
        r#"SELECT count(*) FROM nw.public."Orders" WHERE "OrderID" BETWEEN 10500 AND 10520"#;
    let agg = r#"SELECT "ProductID", count(*), sum("Quantity") FROM nw.public."Order Details" GROUP BY "ProductID""#;
    let mut g = c.benchmark_group("sql/nwind");
    g.bench_function("point_lookup/pushdown", |b| b.iter(|| run(&on, point)));
    g.bench_function("point_lookup/no_pushdown", |b| b.iter(|| run(&off, point)));
    g.bench_function("range/pushdown", |b| b.iter(|| run(&on, range)));
    g.bench_function("range/no_pushdown", |b| b.iter(|| run(&off, range)));
    g.bench_function("aggregate", |b| b.iter(|| run(&on, agg)));
    g.finish();
}

#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}
criterion::criterion_main!(group::benches);
