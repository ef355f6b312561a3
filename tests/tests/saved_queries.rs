//! Saved queries as views (issue 20): the SELECT-type queries of a database
//! answer to their names, parameters are bound by name or named in the
//! error, and a query that cannot be translated neither stops the database
//! from opening nor hides the others. Query results themselves are checked
//! against SQLite over `mdb-export` in `tests/slt/access/nwind_access.slt`.

use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::Int64Type;
use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};
use std::path::Path;
use std::process::Command;

fn session(db: &Path) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(
        SessionConfig::new()
            .with_information_schema(true)
            .with_default_catalog_and_schema("datafusion", "public"),
    ));
    s.register("db", db, JetOptions::default(), true).unwrap();
    s.set_dialect(SqlDialect::Access);
    s
}

async fn count(s: &JetSession, sql: &str) -> i64 {
    let b = s.sql(sql).await.unwrap();
    b[0].column(0).as_primitive::<Int64Type>().value(0)
}

/// Orders whose ShippedDate falls in 1995, counted from `mdb-export`.
fn orders_shipped_in_1995(db: &Path) -> i64 {
    let out = Command::new("mdb-export")
        .args(["-D", "%Y-%m-%d", "-T", "%Y-%m-%d"])
        .arg(db)
        .arg("Orders")
        .output()
        .expect("mdb-export runs (apt package mdbtools)");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "ShippedDate").unwrap();
    // no field before ShippedDate holds a comma in nwind's Orders
    lines
        .filter(|l| {
            l.split(',')
                .nth(col)
                .is_some_and(|v| v.trim_matches('"').starts_with("1995-"))
        })
        .count() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_queries_are_views_listed_with_their_text() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus.join("mdbtools/nwind.mdb"));
    // the issue's own figures
    assert_eq!(
        count(&s, "SELECT count(*) FROM [Order Subtotals]").await,
        830
    );
    let b = s
        .sql("SELECT CStr(Subtotal) FROM [order subtotals] WHERE OrderID = 10248")
        .await
        .unwrap();
    assert_eq!(b[0].column(0).as_string::<i32>().value(0), "440");
    // views are listed as views, with their SQL
    let n = count(
        &s,
        "SELECT count(*) FROM information_schema.tables WHERE table_catalog = 'db' \
         AND table_type = 'VIEW' AND table_name IN ('Order Subtotals', 'Invoices', \
         'Quarterly Orders by Product', 'Customers and Suppliers by City')",
    )
    .await;
    assert_eq!(n, 4);
    let b = s
        .sql(
            "SELECT definition FROM information_schema.views WHERE table_catalog = 'db' \
             AND table_name = 'Order Subtotals'",
        )
        .await
        .unwrap();
    let def = b[0].column(0).as_string::<i32>().value(0).to_string();
    assert!(def.contains("GROUP BY [Order Details].OrderID"), "{def}");
    // action queries are not views
    let n = count(
        &s,
        "SELECT count(*) FROM information_schema.tables WHERE table_catalog = 'db' \
         AND table_schema = 'public' AND table_type = 'VIEW'",
    )
    .await;
    assert_eq!(n, 15, "nwind's select, union and crosstab queries");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_are_named_or_bound() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let db = corpus.join("mdbtools/nwind.mdb");
    let s = session(&db);
    let e = s
        .sql("SELECT count(*) FROM [Employee Sales by Country]")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Employee Sales by Country")
            && e.contains("[Beginning Date]")
            && e.contains("[Ending Date]")
            && !e.contains("no table or column"),
        "{e}"
    );
    s.bind(
        "Beginning Date",
        jet_provider::access::parse_param_value("#1/1/1995#"),
    );
    s.bind(
        "Ending Date",
        jet_provider::access::parse_param_value("#12/31/1995#"),
    );
    let n = count(&s, "SELECT count(*) FROM [Employee Sales by Country]").await;
    assert_eq!(n, orders_shipped_in_1995(&db));
    // a form reference is a parameter of that name
    let e = s
        .sql("SELECT count(*) FROM [Sales by Year]")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Forms![Sales by Year Dialog]!BeginningDate"),
        "{e}"
    );
    s.bind(
        "Forms![Sales by Year Dialog]!BeginningDate",
        jet_provider::access::parse_param_value("#1/1/1995#"),
    );
    s.bind(
        "Forms![Sales by Year Dialog]!EndingDate",
        jet_provider::access::parse_param_value("#12/31/1995#"),
    );
    let n = count(&s, "SELECT count(*) FROM [Sales by Year]").await;
    assert_eq!(n, orders_shipped_in_1995(&db));
}

/// Jackcess's query test file holds a crosstab whose criteria jetsql cannot
/// plan: the file opens, its other queries run, and using that one is an
/// error naming the query and the construct.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untranslatable_query_names_itself_and_hides_nothing() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus.join("jackcess/V2000/queryTestV2000.mdb"));
    let e = s
        .sql("SELECT * FROM CrosstabQuery")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("saved query \"CrosstabQuery\" cannot be run") && e.contains("WHERE"),
        "{e}"
    );
    // the others still answer, listings still work
    s.sql("SELECT * FROM SelectQuery").await.unwrap();
    let n = count(
        &s,
        "SELECT count(*) FROM information_schema.views WHERE table_catalog = 'db' \
         AND definition IS NOT NULL",
    )
    .await;
    assert!(n >= 3, "{n}");
    s.sql("SELECT * FROM information_schema.columns")
        .await
        .unwrap();
}

/// Views over views resolve (Category Sales for 1995 reads Product Sales
/// for 1995), also when one statement names both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_views_resolve() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus.join("mdbtools/nwind.mdb"));
    let n = count(
        &s,
        "SELECT count(*) FROM [Category Sales for 1995] c INNER JOIN [Product Sales for 1995] p \
         ON c.CategoryName = p.CategoryName",
    )
    .await;
    // every product row joins its one category row
    let products = count(&s, "SELECT count(*) FROM [Product Sales for 1995]").await;
    assert_eq!(n, products);
}
