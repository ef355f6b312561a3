//! The provider's pushdowns are real and safe: plans show the index seeks,
//! ordered index walks and MIN/MAX from index ends, and 400+ generated
//! queries return the same rows with every pushdown enabled and with every
//! pushdown disabled.

use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::physical_plan::{ExecutionPlan, collect, displayable};
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, register_jet};
use std::sync::Arc;

fn session(pushdown: bool) -> Option<SessionContext> {
    let corpus = jet_tests::corpus()?;
    let ctx = jet_provider::session_context(SessionConfig::new().with_target_partitions(2));
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
        opts.clone(),
    )
    .unwrap();
    // one asc and one desc index per key type (Byte, Integer, Single,
    // Double, Currency, Date/Time with pre-1899 days, Yes/No, GUID)
    register_jet(
        &ctx,
        "codes",
        corpus.join("jackcess/V1997/testIndexCodesV1997.mdb"),
        opts.clone(),
    )
    .unwrap();
    // its TDEF row count (3) is wrong: the table holds 4 rows
    register_jet(
        &ctx,
        "calc",
        corpus.join("jackcess/V2010/calcFieldTestV2010.accdb"),
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
    // the seek re-checks its predicate and projects itself: a point lookup
    // is one plan node, with no filter, projection or round-robin
    // repartition (a thread hop per query) above it
    for node in ["FilterExec", "ProjectionExec", "RepartitionExec"] {
        assert!(!p.contains(node), "{node} in {p}");
    }
    assert!(
        p.contains("filter=OrderID@0 = 10248") && p.contains(r#"projection=["CustomerID"]"#),
        "{p}"
    );
    assert_eq!(
        rows(
            &ctx,
            r#"SELECT "CustomerID" FROM nw.public."Orders" WHERE "OrderID" = 10248"#
        )
        .await,
        ["VINET"]
    );
    let p = plan(&ctx, r#"SELECT count(*) FROM nw.public."Orders" WHERE "OrderDate" BETWEEN TIMESTAMP '1995-01-01 00:00:00' AND TIMESTAMP '1995-01-31 00:00:00'"#).await;
    assert!(
        p.contains("IndexSeekExec") && p.contains("OrderDate"),
        "{p}"
    );
    // text equality seeks (a case-insensitive superset the plan re-checks)
    let p = plan(
        &ctx,
        r#"SELECT count(*) FROM nw.public."Orders" WHERE "CustomerID" = 'VINET'"#,
    )
    .await;
    assert!(
        p.contains("IndexSeekExec") && p.contains("CustomerID") && p.contains("filter=CustomerID"),
        "{p}"
    );
    // a text range is no key range, and a character the collation tables
    // do not know is not sought: both scan
    for sql in [
        r#"SELECT count(*) FROM nw.public."Orders" WHERE "CustomerID" > 'VINET'"#,
        r#"SELECT count(*) FROM nw.public."Orders" WHERE "CustomerID" = 'VIΩET'"#,
    ] {
        let p = plan(&ctx, sql).await;
        assert!(
            p.contains("JetScanExec") && !p.contains("IndexSeekExec"),
            "{sql}: {p}"
        );
    }
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
/// Text equality seeks give the same rows as scans: case, trailing spaces,
/// IN lists, values absent, NULL, and characters outside the collation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_equality_seeks_agree_with_scans() {
    let (Some(on), Some(off)) = (session(true), session(false)) else {
        return;
    };
    let mut queries = Vec::new();
    for v in [
        "VINET", "vinet", "Vinet", "VINET ", " VINET", "ZZZZZ", "", "VIΩET",
    ] {
        queries.push(format!(
            r#"SELECT "OrderID", "CustomerID" FROM nw.public."Orders" WHERE "CustomerID" = '{v}' ORDER BY 1"#
        ));
    }
    for v in [
        "Alfreds Futterkiste",
        "alfreds futterkiste",
        "Ana Trujillo Emparedados y helados",
        "Königlich Essen",
        "königlich essen",
    ] {
        queries.push(format!(
            r#"SELECT "CustomerID" FROM nw.public."Customers" WHERE "CompanyName" = '{v}' ORDER BY 1"#
        ));
    }
    queries.push(r#"SELECT "OrderID" FROM nw.public."Orders" WHERE "CustomerID" IN ('VINET', 'hanar', 'nobody') ORDER BY 1"#.into());
    queries.push(r#"SELECT count(*) FROM nw.public."Orders" WHERE "CustomerID" = 'VINET' AND "OrderID" > 10300"#.into());
    queries
        .push(r#"SELECT count(*) FROM nw.public."Orders" WHERE "ShipPostalCode" IS NULL"#.into());
    queries.push(r#"SELECT "ProductID" FROM nw.public."Products" WHERE "ProductName" = 'chai' OR "ProductName" = 'Chai' ORDER BY 1"#.into());
    let mut seeks = 0;
    for q in &queries {
        if plan(&on, q).await.contains("IndexSeekExec") {
            seeks += 1;
        }
        assert_eq!(rows(&on, q).await, rows(&off, q).await, "{q}");
    }
    assert!(
        seeks >= 12,
        "only {seeks} of {} queries sought",
        queries.len()
    );
}

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

/// `ORDER BY … LIMIT n` walks an index whose order is Arrow's; the sort
/// stays where no index fits (text, pre-1899 dates, no limit, pushdown off).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_walk_indexes_for_order_by_limit() {
    let (Some(ctx), Some(off)) = (session(true), session(false)) else {
        return;
    };
    let walks = [
        (
            r#"SELECT * FROM nw.public."Orders" ORDER BY "OrderID" LIMIT 10"#,
            "PrimaryKey",
            "forward",
        ),
        (
            r#"SELECT "OrderID" FROM nw.public."Orders" ORDER BY "OrderID" DESC LIMIT 10"#,
            "PrimaryKey",
            "backward",
        ),
        (
            r#"SELECT "OrderID", "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" LIMIT 5"#,
            "ShippedDate",
            "NULL keys last",
        ),
        (
            r#"SELECT "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" ASC NULLS FIRST LIMIT 5"#,
            "ShippedDate",
            "walk=forward,",
        ),
        (
            r#"SELECT "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" DESC NULLS LAST LIMIT 5"#,
            "ShippedDate",
            "walk=backward,",
        ),
        (
            r#"SELECT "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" DESC LIMIT 5"#,
            "ShippedDate",
            "NULL keys first",
        ),
        // a filter on an unindexed column stays above the walk
        (
            r#"SELECT "OrderID", "Freight" FROM nw.public."Orders" WHERE "ShipCountry" = 'France' ORDER BY "OrderID" DESC LIMIT 3"#,
            "PrimaryKey",
            "backward",
        ),
        // a seek on the same index keeps its range
        (
            r#"SELECT "OrderID" FROM nw.public."Orders" WHERE "OrderID" > 10500 ORDER BY "OrderID" LIMIT 3"#,
            "range=OrderID in (10500, +∞)",
            "forward",
        ),
        // two key columns of a Required (primary key) index
        (
            r#"SELECT * FROM nw.public."Order Details" ORDER BY "OrderID", "ProductID" LIMIT 7"#,
            "PrimaryKey",
            "forward",
        ),
        // a descending index walked backward gives ascending order
        (
            r#"SELECT "CD_AGENTE" FROM cmp.public."Table1" ORDER BY "CD_AGENTE" LIMIT 4"#,
            "CD_AGENTE",
            "backward",
        ),
        // Yes/No keys store true first: ascending Arrow order walks backward
        (
            r#"SELECT "data" FROM codes.public."Table10" ORDER BY "data" LIMIT 2"#,
            "Table10",
            "backward",
        ),
        (
            r#"SELECT "data" FROM codes.public."Table4_desc" ORDER BY "data" DESC NULLS LAST LIMIT 6"#,
            "IndexOrderExec",
            "forward",
        ),
    ];
    for (sql, index, walk) in walks {
        let p = plan(&ctx, sql).await;
        assert!(
            p.contains("IndexOrderExec") && p.contains(index) && p.contains(walk),
            "{sql}\n{p}"
        );
        assert!(
            !p.contains("SortExec") && !p.contains("JetScanExec"),
            "{sql}\n{p}"
        );
        let p = plan(&off, sql).await;
        assert!(
            !p.contains("IndexOrderExec") && p.contains("SortExec"),
            "{sql}\n{p}"
        );
    }
    let sorts = [
        // text keys follow Access collation, not Arrow's order
        r#"SELECT "CustomerID" FROM nw.public."Orders" ORDER BY "CustomerID" LIMIT 5"#,
        // no limit: sorting the scan is cheaper than fetching every row
        r#"SELECT "OrderID" FROM nw.public."Orders" ORDER BY "OrderID""#,
        // an unindexed column
        r#"SELECT "Freight" FROM nw.public."Orders" ORDER BY "Freight" LIMIT 5"#,
        // Date/Time with days before 1899-12-30: key order is not chronological
        r#"SELECT "data" FROM codes.public."Table6" ORDER BY "data" LIMIT 5"#,
        // more sort keys than the index has key columns
        r#"SELECT "OrderID" FROM nw.public."Orders" ORDER BY "OrderID", "CustomerID" LIMIT 5"#,
        // GUID keys
        r#"SELECT "data" FROM codes.public."Table13" ORDER BY "data" LIMIT 5"#,
    ];
    for sql in sorts {
        let p = plan(&ctx, sql).await;
        assert!(
            p.contains("SortExec") && !p.contains("IndexOrderExec"),
            "{sql}\n{p}"
        );
    }
    // EXPLAIN ANALYZE names the index and the pages the walk read
    let a = rows(
        &ctx,
        r#"EXPLAIN ANALYZE SELECT "OrderID" FROM nw.public."Orders" ORDER BY "OrderID" DESC LIMIT 10"#,
    )
    .await
    .join("\n");
    assert!(
        a.contains("IndexOrderExec") && a.contains("PrimaryKey") && a.contains("index_pages_read="),
        "{a}"
    );
}

fn find<'a>(p: &'a Arc<dyn ExecutionPlan>, name: &str) -> Option<&'a Arc<dyn ExecutionPlan>> {
    if p.name() == name {
        return Some(p);
    }
    p.children().into_iter().find_map(|c| find(c, name))
}

/// Runs `sql`, returning its rows and the named metric of the node `node`.
async fn run_metric(
    ctx: &SessionContext,
    sql: &str,
    node: &str,
    metric: &str,
) -> (Vec<String>, usize) {
    let p = ctx
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let batches = collect(p.clone(), ctx.task_ctx()).await.unwrap();
    let n = find(&p, node)
        .unwrap_or_else(|| {
            panic!(
                "{sql}: no {node} in\n{}",
                displayable(p.as_ref()).indent(true)
            )
        })
        .metrics()
        .and_then(|m| m.sum_by_name(metric))
        .map(|v| v.as_usize())
        .unwrap_or_else(|| panic!("{sql}: no {metric}"));
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
    (out, n)
}

/// MIN/MAX of indexed columns read the index ends: no table scan; per
/// aggregate one descent (tree-height index pages) plus the data page of
/// the row holding the value; COUNT(*) stays an exact scan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_max_read_index_ends() {
    let (Some(ctx), Some(off)) = (session(true), session(false)) else {
        return;
    };
    let p = plan(&ctx, r#"SELECT min("OrderID"), max("OrderID"), min("ShippedDate"), max("OrderDate") FROM nw.public."Orders""#).await;
    assert!(
        p.contains("IndexMinMaxExec") && !p.contains("JetScanExec"),
        "{p}"
    );
    let p = plan(
        &ctx,
        r#"SELECT count(*), min("OrderID") FROM nw.public."Orders""#,
    )
    .await;
    assert!(
        p.contains("JetScanExec") && !p.contains("IndexMinMaxExec"),
        "{p}"
    );
    let p = plan(&ctx, r#"SELECT min("Freight") FROM nw.public."Orders""#).await;
    assert!(
        p.contains("JetScanExec") && !p.contains("IndexMinMaxExec"),
        "{p}"
    );
    let p = plan(
        &ctx,
        r#"SELECT max("OrderID") FROM nw.public."Orders" WHERE "EmployeeID" = 3"#,
    )
    .await;
    assert!(!p.contains("IndexMinMaxExec"), "{p}");
    let p = plan(&off, r#"SELECT min("OrderID") FROM nw.public."Orders""#).await;
    assert!(
        p.contains("JetScanExec") && !p.contains("IndexMinMaxExec"),
        "{p}"
    );

    let corpus = jet_tests::corpus().unwrap();
    let db =
        jet_storage::Database::open(corpus.join("mdbtools/nwind.mdb"), Default::default()).unwrap();
    let cases = [
        ("Orders", "OrderID", 3),
        ("Orders", "ShippedDate", 4),
        ("Orders", "OrderDate", 2),
        ("Order Details", "ProductID", 2),
    ];
    for (table, column, index) in cases {
        let height = db
            .table(table)
            .unwrap()
            .index(index)
            .unwrap()
            .height()
            .unwrap();
        for agg in ["min", "max"] {
            let sql = format!(r#"SELECT {agg}("{column}") FROM nw.public."{table}""#);
            let (got, pages) = run_metric(&ctx, &sql, "IndexMinMaxExec", "pages_read").await;
            let (_, index_pages) =
                run_metric(&ctx, &sql, "IndexMinMaxExec", "index_pages_read").await;
            let (want, scanned) = run_metric(&off, &sql, "JetScanExec", "pages_read").await;
            assert_eq!(got, want, "{sql}");
            assert!(
                index_pages == height && pages == height + 1,
                "{sql}: {index_pages} index pages, {pages} in all, tree height {height}"
            );
            eprintln!(
                "{sql}: {got:?} from {pages} pages (height {height}); the scan read {scanned}"
            );
        }
    }
    // the TDEF of calcFieldTestV2010's Table1 says 3 rows; there are 4
    let calc = jet_storage::Database::open(
        corpus.join("jackcess/V2010/calcFieldTestV2010.accdb"),
        Default::default(),
    )
    .unwrap();
    assert_eq!(calc.table("Table1").unwrap().def().stated_rows, 3);
    for c in [&ctx, &off] {
        assert_eq!(
            rows(c, r#"SELECT count(*) FROM calc.public."Table1""#).await,
            vec!["4"]
        );
        assert_eq!(
            rows(
                c,
                r#"SELECT count(*), min("ID"), max("ID") FROM calc.public."Table1""#
            )
            .await,
            rows(
                &off,
                r#"SELECT count(*), min("ID"), max("ID") FROM calc.public."Table1""#
            )
            .await
        );
    }
    let p = plan(&ctx, r#"SELECT count(*) FROM calc.public."Table1""#).await;
    assert!(p.contains("JetScanExec"), "{p}");
}

/// MIN and MAX on a generated table whose indexes have several levels
/// read exactly one root-to-leaf descent per aggregate (no sibling leaf,
/// no TDEF or usage map through the page counter) plus the data page of
/// the row they answer from: `2 × height` index pages for `MIN` and `MAX`
/// together, and the same values as a full scan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn min_max_page_reads_on_a_multi_level_index() {
    let rows = 3000;
    let bytes = jet_fixtures::bench(jet_storage::JetVersion::Jet4, rows, true).unwrap();
    let dir = std::env::temp_dir().join(format!("jetsql-minmax-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("minmax.mdb");
    std::fs::write(&path, &bytes).unwrap();
    let db = jet_storage::Database::open(&path, Default::default()).unwrap();
    let table = db.table("Bench").unwrap();
    let session = |pushdown| {
        let ctx = jet_provider::session_context(SessionConfig::new().with_target_partitions(2));
        let opts = JetOptions {
            pushdown,
            ..Default::default()
        };
        register_jet(&ctx, "g", &path, opts).unwrap();
        ctx
    };
    let (on, off) = (session(true), session(false));
    // real index 0: the primary key on ID; 1: Amount (random values)
    for (column, index) in [("ID", 0), ("Amount", 1)] {
        let height = table.index(index).unwrap().height().unwrap();
        assert!(height >= 2, "{column}: a multi-level index ({height})");
        let cases = [
            (
                format!(r#"SELECT min("{column}") FROM g.public."Bench""#),
                1,
            ),
            (
                format!(r#"SELECT max("{column}") FROM g.public."Bench""#),
                1,
            ),
            (
                format!(r#"SELECT min("{column}"), max("{column}") FROM g.public."Bench""#),
                2,
            ),
        ];
        for (sql, aggregates) in cases {
            let (got, pages) = run_metric(&on, &sql, "IndexMinMaxExec", "pages_read").await;
            let (_, index_pages) =
                run_metric(&on, &sql, "IndexMinMaxExec", "index_pages_read").await;
            let (want, scanned) = run_metric(&off, &sql, "JetScanExec", "pages_read").await;
            assert_eq!(got, want, "{sql}");
            assert_eq!(index_pages, aggregates * height, "{sql}: height {height}");
            assert!(index_pages <= 2 * height, "{sql}");
            // one data page per aggregate: the row the value is read from
            assert_eq!(pages, aggregates * (height + 1), "{sql}: height {height}");
            assert!(
                pages * 4 < scanned,
                "{sql}: {pages} against a scan of {scanned}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Ordered walks and MIN/MAX over many key types and both index
/// directions: ≥ 170 generated queries, identical with and without
/// pushdown, most of them planned as index walks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn differential_order_and_min_max() {
    let (Some(on), Some(off)) = (session(true), session(false)) else {
        return;
    };
    // (table, column): indexed ones of every admitted key type, and others
    let columns: &[(&str, &str)] = &[
        (r#"nw.public."Orders""#, "OrderID"),
        (r#"nw.public."Orders""#, "EmployeeID"),
        (r#"nw.public."Orders""#, "OrderDate"),
        (r#"nw.public."Orders""#, "ShippedDate"),
        (r#"nw.public."Orders""#, "ShipVia"),
        (r#"nw.public."Orders""#, "Freight"),
        (r#"nw.public."Orders""#, "RequiredDate"),
        (r#"nw.public."Order Details""#, "ProductID"),
        (r#"nw.public."Order Details""#, "Quantity"),
        (r#"nw.public."Order Details""#, "Discount"),
        (r#"cmp.public."Table1""#, "CD_AGENTE"),
        (r#"ix.public."Table1""#, "otherfk1"),
        (r#"codes.public."Table3""#, "data"),
        (r#"codes.public."Table3_desc""#, "data"),
        (r#"codes.public."Table4""#, "data"),
        (r#"codes.public."Table4_desc""#, "data"),
        (r#"codes.public."Table5""#, "data"),
        (r#"codes.public."Table5_desc""#, "data"),
        (r#"codes.public."Table6""#, "data"),
        (r#"codes.public."Table6_desc""#, "data"),
        (r#"codes.public."Table8""#, "data"),
        (r#"codes.public."Table8_desc""#, "data"),
        (r#"codes.public."Table9""#, "data"),
        (r#"codes.public."Table9_desc""#, "data"),
        (r#"codes.public."Table10""#, "data"),
        (r#"codes.public."Table10_desc""#, "data"),
    ];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut queries = Vec::new();
    for _ in 0..180 {
        let (t, c) = *rng.pick(columns);
        let q = match rng.next() % 5 {
            // the sorted column alone: ties cannot reorder what is compared
            0 | 1 => {
                let dir = rng.pick(&["", " ASC", " DESC"]);
                let nulls = rng.pick(&["", " NULLS FIRST", " NULLS LAST"]);
                let not_null = format!(r#" WHERE "{c}" IS NOT NULL"#);
                let filter = *rng.pick(&["", "", not_null.as_str()]);
                let offset = rng.pick(&["", "", " OFFSET 2"]);
                format!(
                    r#"SELECT "{c}" FROM {t}{filter} ORDER BY "{c}"{dir}{nulls} LIMIT {}{offset}"#,
                    rng.range(1, 30)
                )
            }
            2 => format!(r#"SELECT min("{c}"), max("{c}") FROM {t}"#),
            3 => format!(r#"SELECT {}("{c}") FROM {t}"#, rng.pick(&["min", "max"])),
            // unique keys: whole rows, filtered above the walk or by a seek
            _ => match rng.next() % 3 {
                0 => {
                    let dir = rng.pick(&["", " DESC"]);
                    let (a, b, c2) = (
                        rng.range(10240, 11090),
                        rng.range(10240, 10700),
                        rng.range(10700, 11090),
                    );
                    let filters = [
                        String::new(),
                        r#" WHERE "ShipCountry" = 'Germany'"#.to_string(),
                        format!(r#" WHERE "OrderID" > {a}"#),
                        format!(r#" WHERE "OrderID" BETWEEN {b} AND {c2}"#),
                        r#" WHERE "Freight" > 100"#.to_string(),
                    ];
                    let filter = rng.pick(&filters).clone();
                    format!(
                        r#"SELECT "OrderID", "CustomerID", "ShippedDate", "Freight" FROM nw.public."Orders"{filter} ORDER BY "OrderID"{dir} LIMIT {}"#,
                        rng.range(1, 25)
                    )
                }
                1 => {
                    let d1 = rng.pick(&["", " DESC"]);
                    let d2 = rng.pick(&["", " DESC"]);
                    format!(
                        r#"SELECT "OrderID", "ProductID", "Quantity" FROM nw.public."Order Details" ORDER BY "OrderID"{d1}, "ProductID"{d2} LIMIT {}"#,
                        rng.range(1, 40)
                    )
                }
                _ => format!(
                    r#"SELECT "name", "data" FROM {} ORDER BY "data"{}, "name" LIMIT {}"#,
                    rng.pick(&[
                        r#"codes.public."Table3""#,
                        r#"codes.public."Table4""#,
                        r#"codes.public."Table8_desc""#
                    ]),
                    rng.pick(&["", " DESC"]),
                    rng.range(1, 20)
                ),
            },
        };
        queries.push(q);
    }
    let (mut walked, mut min_max) = (0, 0);
    for q in &queries {
        let a = rows(&on, q).await;
        let b = rows(&off, q).await;
        assert_eq!(a, b, "{q}\n{}", plan(&on, q).await);
        let p = plan(&on, q).await;
        walked += usize::from(p.contains("IndexOrderExec"));
        min_max += usize::from(p.contains("IndexMinMaxExec"));
    }
    eprintln!(
        "{} ordering and MIN/MAX queries identical with and without pushdown ({walked} index walks, {min_max} from index ends)",
        queries.len()
    );
    assert!(
        queries.len() >= 170 && walked >= 40 && min_max >= 30,
        "{walked} {min_max}"
    );
}

/// `ORDER BY "OrderID" LIMIT 10` reads a few index and data pages, not the
/// table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_by_pk_limit_reads_few_pages() {
    let (Some(on), Some(off)) = (session(true), session(false)) else {
        return;
    };
    for dir in ["", " DESC"] {
        let sql = format!(r#"SELECT * FROM nw.public."Orders" ORDER BY "OrderID"{dir} LIMIT 10"#);
        let (got, pages) = run_metric(&on, &sql, "IndexOrderExec", "pages_read").await;
        let (want, scanned) = run_metric(&off, &sql, "JetScanExec", "pages_read").await;
        assert_eq!(got, want, "{sql}");
        assert_eq!(got.len(), 10);
        assert!(
            pages <= 6,
            "{sql}: {pages} pages against {scanned} for the scan"
        );
        eprintln!("{sql}: {pages} pages; the scan read {scanned}");
    }
}

/// A leaf chain that loops (a leaf naming itself as its successor) makes
/// ordered walks fail with a typed error naming the page, never hang or
/// panic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn looping_leaf_chain_is_an_error() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let src = corpus.join("mdbtools/nwind.mdb");
    let db = jet_storage::Database::open(&src, jet_storage::OpenOptions::default()).unwrap();
    let t = db.table("Orders").unwrap();
    let real = &t.def().real_indexes[3];
    let layout = db.version().layout();
    let root = jet_storage::index::read_index_page(
        &**db.page_source(),
        layout,
        real.root_page,
        t.def().page,
    )
    .unwrap();
    assert!(
        !root.leaf && root.entries.len() > 1,
        "the primary key has several leaves"
    );
    let first_leaf = root.entries[0].child.unwrap();
    let ps = layout.page_size;
    let mut bytes = std::fs::read(&src).unwrap();
    let at = first_leaf as usize * ps + layout.index_next;
    bytes[at..at + 4].copy_from_slice(&first_leaf.to_le_bytes());
    let dir = std::env::temp_dir().join(format!("jetsql-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("loop.mdb");
    std::fs::write(&path, &bytes).unwrap();
    let ctx = jet_provider::session_context(SessionConfig::new().with_target_partitions(2));
    register_jet(&ctx, "b", &path, JetOptions::default()).unwrap();
    let sql = r#"SELECT "OrderID" FROM b.public."Orders" ORDER BY "OrderID" LIMIT 800"#;
    assert!(plan(&ctx, sql).await.contains("IndexOrderExec"));
    let err = ctx
        .sql(sql)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Orders")
            && err.contains("loops")
            && err.contains(&format!("page {first_leaf}")),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The claim behind ordered walks over Single and Double indexes: the key
/// bytes the encoder writes (Jackcess's rule, checked byte for byte against
/// the corpus by the index tests) sort exactly as Arrow sorts the values,
/// signed zeros, infinities and NaNs of both signs included, in both key
/// directions.
#[test]
fn float_keys_sort_as_arrow_sorts() {
    use datafusion::arrow::array::{Float32Array, Float64Array};
    use datafusion::arrow::compute::{SortOptions, sort_to_indices};
    use jet_storage::format::OwnedField;
    use jet_storage::index::key::encode_column;
    use jet_storage::schema::tdef::Direction;
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let db = jet_storage::Database::open(
        corpus.join("jackcess/V1997/testIndexCodesV1997.mdb"),
        Default::default(),
    )
    .unwrap();
    let doubles = [
        0.0,
        -0.0,
        1.5,
        -1.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        f64::MAX,
        f64::MIN,
        3245.0,
        -0.00035134,
        f64::from_bits(0x7FF0_0000_0000_0001),
        f64::from_bits(0xFFF8_0000_0000_0001),
    ];
    for (table, single) in [("Table4", false), ("Table5", true)] {
        let t = db.table(table).unwrap();
        let col = t
            .def()
            .columns
            .iter()
            .find(|c| c.name == "data")
            .unwrap()
            .clone();
        let (array, raw): (Arc<dyn datafusion::arrow::array::Array>, Vec<Vec<u8>>) = if single {
            let v: Vec<f32> = doubles.iter().map(|&d| d as f32).collect();
            (
                Arc::new(Float32Array::from(v.clone())),
                v.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
            )
        } else {
            (
                Arc::new(Float64Array::from(doubles.to_vec())),
                doubles.iter().map(|x| x.to_le_bytes().to_vec()).collect(),
            )
        };
        for (dir, descending) in [(Direction::Ascending, false), (Direction::Descending, true)] {
            let keys: Vec<Vec<u8>> = raw
                .iter()
                .map(|r| {
                    let mut k = Vec::new();
                    encode_column(
                        &mut k,
                        &col,
                        dir,
                        &OwnedField::Bytes(r.clone()),
                        db.version(),
                    )
                    .unwrap();
                    k
                })
                .collect();
            let mut by_key: Vec<usize> = (0..keys.len()).collect();
            by_key.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
            let by_arrow = sort_to_indices(
                array.as_ref(),
                Some(SortOptions {
                    descending,
                    nulls_first: false,
                }),
                None,
            )
            .unwrap();
            let by_arrow: Vec<usize> = by_arrow.values().iter().map(|&i| i as usize).collect();
            let bits = |order: &[usize]| -> Vec<u64> {
                order
                    .iter()
                    .map(|&i| {
                        if single {
                            u64::from((doubles[i] as f32).to_bits())
                        } else {
                            doubles[i].to_bits()
                        }
                    })
                    .collect()
            };
            assert_eq!(bits(&by_key), bits(&by_arrow), "{table} {dir:?}");
        }
    }
}
