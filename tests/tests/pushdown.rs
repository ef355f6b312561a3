//! The provider's pushdowns are real and safe: plans show the index seeks,
//! and 200+ generated queries return the same rows with every pushdown
//! enabled and with every pushdown disabled.

use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, register_jet};

fn session(pushdown: bool) -> Option<SessionContext> {
    let corpus = jet_tests::corpus()?;
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
    let opts = JetOptions {
        pushdown,
        ..Default::default()
    };
    register_jet(&ctx, "nw", corpus.join("mdbtools/nwind.mdb"), opts.clone()).unwrap();
    register_jet(
        &ctx,
        "cmp",
        corpus.join("jackcess/V2000/compIndexTestV2000.mdb"),
        opts.clone(),
    )
    .unwrap();
    register_jet(
        &ctx,
        "ix",
        corpus.join("jackcess/V2010/indexTestV2010.accdb"),
        opts,
    )
    .unwrap();
    Some(ctx)
}

async fn rows(ctx: &SessionContext, sql: &str) -> Vec<String> {
    let batches = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let opts = FormatOptions::default().with_null("NULL");
    let mut out = Vec::new();
    for b in &batches {
        let f: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            out.push(
                f.iter()
                    .map(|x| x.value(r).to_string())
                    .collect::<Vec<_>>()
                    .join("|"),
            );
        }
    }
    out
}

async fn plan(ctx: &SessionContext, sql: &str) -> String {
    let df = ctx.sql(sql).await.unwrap();
    let p = df.create_physical_plan().await.unwrap();
    displayable(p.as_ref()).indent(true).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_show_index_seeks() {
    let Some(ctx) = session(true) else { return };
    let p = plan(
        &ctx,
        r#"SELECT "CustomerID" FROM nw.public."Orders" WHERE "OrderID" = 10248"#,
    )
    .await;
    assert!(
        p.contains("IndexSeekExec") && p.contains("PrimaryKey"),
        "{p}"
    );
    assert!(!p.contains("JetScanExec"), "{p}");
    let p = plan(&ctx, r#"SELECT count(*) FROM nw.public."Orders" WHERE "OrderDate" BETWEEN TIMESTAMP '1995-01-01 00:00:00' AND TIMESTAMP '1995-01-31 00:00:00'"#).await;
    assert!(
        p.contains("IndexSeekExec") && p.contains("OrderDate"),
        "{p}"
    );
    // text columns never seek
    let p = plan(
        &ctx,
        r#"SELECT count(*) FROM nw.public."Orders" WHERE "CustomerID" = 'VINET'"#,
    )
    .await;
    assert!(
        p.contains("JetScanExec") && !p.contains("IndexSeekExec"),
        "{p}"
    );
    // pushdown disabled: a plain partitioned scan
    let Some(off) = session(false) else { return };
    let p = plan(
        &off,
        r#"SELECT "CustomerID" FROM nw.public."Orders" WHERE "OrderID" = 10248"#,
    )
    .await;
    assert!(
        p.contains("JetScanExec") && !p.contains("IndexSeekExec"),
        "{p}"
    );
    // EXPLAIN ANALYZE reports the pages a seek read
    let a = rows(
        &ctx,
        r#"EXPLAIN ANALYZE SELECT "CustomerID" FROM nw.public."Orders" WHERE "OrderID" = 10248"#,
    )
    .await
    .join("\n");
    assert!(a.contains("pages_read="), "{a}");
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next() % v.len() as u64) as usize]
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn differential_pushdown_on_off() {
    let (Some(on), Some(off)) = (session(true), session(false)) else {
        return;
    };
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut queries = Vec::new();
    for _ in 0..230 {
        let q = match rng.next() % 6 {
            0 => {
                let op = rng.pick(&["=", "<", "<=", ">", ">=", "<>"]);
                let v = rng.range(10240, 11090);
                format!(
                    r#"SELECT "OrderID", "CustomerID", "Freight" FROM nw.public."Orders" WHERE "OrderID" {op} {v} ORDER BY "OrderID" LIMIT {}"#,
                    rng.range(1, 40)
                )
            }
            1 => {
                let a = rng.range(10240, 11090);
                let b = a + rng.range(0, 100);
                let extra = rng.pick(&[
                    "",
                    r#" AND "ShipCountry" = 'Germany'"#,
                    r#" AND "Freight" > 20"#,
                    r#" AND "EmployeeID" = 3"#,
                ]);
                format!(
                    r#"SELECT count(*), sum("Freight") FROM nw.public."Orders" WHERE "OrderID" BETWEEN {a} AND {b}{extra}"#
                )
            }
            2 => {
                let e = rng.range(0, 10);
                let op = rng.pick(&["=", "<", ">="]);
                format!(
                    r#"SELECT "OrderID", "EmployeeID", "OrderDate" FROM nw.public."Orders" WHERE "EmployeeID" {op} {e} ORDER BY "OrderID""#
                )
            }
            3 => {
                let y = rng.range(1993, 1996);
                let m = rng.range(1, 12);
                format!(
                    r#"SELECT count(*), min("OrderID"), max("OrderID") FROM nw.public."Orders" WHERE "OrderDate" >= TIMESTAMP '{y}-{m:02}-01 00:00:00' AND "ShippedDate" IS NOT NULL"#
                )
            }
            4 => {
                let ids: Vec<String> = (0..rng.range(1, 6))
                    .map(|_| rng.range(10240, 11090).to_string())
                    .collect();
                format!(
                    r#"SELECT d."OrderID", d."ProductID", d."Quantity" FROM nw.public."Order Details" d WHERE d."OrderID" IN ({}) ORDER BY 1, 2"#,
                    ids.join(", ")
                )
            }
            _ => {
                let v = rng.range(0, 600);
                let op = rng.pick(&["=", "<", ">", "<="]);
                format!(
                    r#"SELECT count(*), sum("CD_AGENTE") FROM cmp.public."Table1" WHERE "CD_AGENTE" {op} {v}"#
                )
            }
        };
        queries.push(q);
    }
    let mut nonempty = 0;
    for q in &queries {
        let a = rows(&on, q).await;
        let b = rows(&off, q).await;
        assert_eq!(a, b, "{q}");
        if !a.is_empty() && a[0] != "0|NULL" {
            nonempty += 1;
        }
    }
    eprintln!(
        "{} queries identical with and without pushdown ({nonempty} non-empty)",
        queries.len()
    );
    assert!(queries.len() >= 200 && nonempty > 100);
}

/// Storage errors reach SQL users as DataFusion errors naming the table and
/// the page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_errors_name_table_and_page() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let src = corpus.join("mdbtools/nwind.mdb");
    let db = jet_storage::Database::open(&src, jet_storage::OpenOptions::default()).unwrap();
    let page = db.table("Orders").unwrap().data_pages().unwrap()[0] as usize;
    let mut bytes = std::fs::read(&src).unwrap();
    // garble the row-slot table of the first data page: every slot points into the header
    let ps = 2048;
    for b in &mut bytes[page * ps + 10..page * ps + 40] {
        *b = 0x01;
    }
    let dir = std::env::temp_dir().join(format!("jetsql-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("broken.mdb");
    std::fs::write(&path, &bytes).unwrap();
    let ctx = SessionContext::new();
    register_jet(&ctx, "b", &path, JetOptions::default()).unwrap();
    let err = ctx
        .sql(r#"SELECT * FROM b.public."Orders""#)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Orders") && err.contains(&format!("page {page}")),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
