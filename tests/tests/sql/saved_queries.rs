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
    // all 22 of nwind's queries are select, union or crosstab queries; the
    // 7 Access hides from its navigation pane are listed too
    assert_eq!(n, 22, "nwind's select, union and crosstab queries");
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
    // Invoices Filter reads the order shown on the Orders form: one
    // invoice line per line of that order (mdb-export counts them)
    s.bind(
        "Forms!Orders!OrderID",
        jet_provider::access::parse_param_value("10248"),
    );
    let n = count(&s, "SELECT count(*) FROM [Invoices Filter]").await;
    assert_eq!(n, order_lines(&db, 10248));
    assert_eq!(n, 3);
}

/// The lines of order `id` in `Order Details`, counted from `mdb-export`.
fn order_lines(db: &Path, id: i64) -> i64 {
    let out = Command::new("mdb-export")
        .arg(db)
        .arg("Order Details")
        .output()
        .expect("mdb-export runs (apt package mdbtools)");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let prefix = format!("{id},");
    text.lines().filter(|l| l.starts_with(&prefix)).count() as i64
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

/// The top-level comma-separated items of a select list (commas inside
/// parentheses, brackets and quotes do not separate).
fn list_items(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut depth, mut quote) = (0i32, None::<char>);
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '[') => quote = Some(']'),
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out
}

/// `text` with runs of white space as one space, trimmed.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The clause of `sql` between `start` and the first of `ends` after it.
fn clause<'a>(sql: &'a str, start: &str, ends: &[&str]) -> Option<&'a str> {
    let from = sql.find(start)? + start.len();
    let rest = &sql[from..];
    let end = ends
        .iter()
        .filter_map(|e| rest.find(e))
        .min()
        .unwrap_or(rest.len());
    Some(rest[..end].trim().trim_end_matches(';'))
}

/// Acceptance 1 for nwind: no reference gives Access's own text of
/// Northwind's queries, so the rebuilt text is held against what
/// `mdb-queries` (mdbtools) prints where mdbtools is complete: the
/// predicate, every output expression (mdbtools drops the `AS` names), the
/// WHERE clause, and the first ORDER BY key (mdbtools prints one, and
/// `DESCENDING` for `DESC`). mdbtools prints `SELECT  FROM` for queries
/// with joins it cannot follow; those, and the union and crosstab, are
/// checked by running them (tests/slt/access/nwind_access.slt).
#[test]
fn nwind_texts_agree_with_mdb_queries_where_it_is_complete() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let path = corpus.join("mdbtools/nwind.mdb");
    let db = jet_storage::Database::open(&path, jet_storage::OpenOptions::default()).unwrap();
    let queries = db.queries().unwrap();
    assert_eq!(queries.len(), 22, "Northwind's 22 saved queries");
    let mut compared = 0;
    for q in &queries {
        let out = Command::new("mdb-queries")
            .arg(&path)
            .arg(&q.name)
            .output()
            .expect("mdb-queries runs (apt package mdbtools)");
        assert!(out.status.success(), "mdb-queries {}", q.name);
        let theirs = squeeze(&String::from_utf8_lossy(&out.stdout));
        if theirs.starts_with("SELECT FROM") || q.kind != jet_storage::QueryKind::Select {
            continue;
        }
        compared += 1;
        let ours = squeeze(q.checked_sql().unwrap());
        let ours = ours
            .split_once("; ")
            .filter(|_| ours.starts_with("PARAMETERS"))
            .map_or(ours.as_str(), |(_, rest)| rest);
        // the predicate (mdbtools prints TOP without the DISTINCTROW that
        // goes with it)
        let top = ours.contains(" TOP 10 ");
        assert_eq!(theirs.starts_with("SELECT TOP 10 "), top, "{}", q.name);
        if !top {
            for p in ["SELECT DISTINCTROW ", "SELECT DISTINCT "] {
                assert_eq!(
                    theirs.starts_with(p),
                    ours.starts_with(p),
                    "{}: {p}",
                    q.name
                );
            }
        }
        // every output expression, in order, ours possibly named with AS
        let list = |s: &str| {
            let body = clause(s, "SELECT ", &[" FROM "]).unwrap().to_string();
            let body = body
                .trim_start_matches("DISTINCTROW ")
                .trim_start_matches("DISTINCT ")
                .trim_start_matches("TOP 10 ")
                .to_string();
            list_items(&body)
        };
        let (their_list, our_list) = (list(&theirs), list(ours));
        assert_eq!(their_list.len(), our_list.len(), "{}", q.name);
        for (t, o) in their_list.iter().zip(&our_list) {
            assert!(
                o == t || o.starts_with(&format!("{t} AS ")),
                "{}: {t} vs {o}",
                q.name
            );
        }
        // the WHERE clause
        let their_where = clause(&theirs, " WHERE ", &[" ORDER BY ", " GROUP BY "]);
        let our_where = clause(ours, " WHERE ", &[" ORDER BY ", " GROUP BY "]);
        assert_eq!(their_where, our_where, "{}", q.name);
        // the first ORDER BY key
        if let Some(order) = clause(&theirs, " ORDER BY ", &[]) {
            let first = order.replace(" DESCENDING", " DESC");
            let ours_order = clause(ours, " ORDER BY ", &[]).unwrap_or_default();
            assert!(
                ours_order.starts_with(&first),
                "{}: {first} vs {ours_order}",
                q.name
            );
        }
    }
    assert_eq!(compared, 14, "select queries mdbtools prints");
}
