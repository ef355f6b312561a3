//! The Access SQL front end over the corpus:
//! - every `tests/slt/access/*.slt` file runs through a [`JetSession`] in
//!   the Access dialect over `mdbtools/nwind.mdb` (the default schema,
//!   catalog `nw`) and the project's `fixtures/sample.accdb` (catalog
//!   `fx`), with index pushdown and without (the expected rows come from
//!   independent sources; see each file's header);
//! - Access-dialect statements plan the same index seeks, walks and
//!   MIN/MAX reads as their exactly-quoted DataFusion forms;
//! - parameters are bound by name or reported by name; bad Access SQL gets
//!   an error naming the construct and its position.

use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};
use sqllogictest::DefaultColumnType;
use std::path::{Path, PathBuf};
use support::slt_output::db_output_shortest_floats;

use crate::support;

#[derive(Debug)]
struct SltError(String);
impl std::fmt::Display for SltError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SltError {}

fn fixture() -> PathBuf {
    jet_tests::workspace_root().join("fixtures/sample.accdb")
}

fn session(corpus: &Path, pushdown: bool, dialect: SqlDialect) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(
        // one partition: First and Last take rows in table order
        SessionConfig::new()
            .with_target_partitions(1)
            .with_information_schema(true)
            .with_default_catalog_and_schema("datafusion", "public"),
    ));
    let options = JetOptions {
        pushdown,
        ..Default::default()
    };
    s.register(
        "nw",
        corpus.join("mdbtools/nwind.mdb"),
        options.clone(),
        true,
    )
    .unwrap();
    if fixture().exists() {
        s.register("fx", fixture(), options, false).unwrap();
    }
    s.set_dialect(dialect);
    s
}

struct Access(JetSession);

#[async_trait::async_trait]
impl sqllogictest::AsyncDB for Access {
    type Error = SltError;
    type ColumnType = DefaultColumnType;

    async fn run(
        &mut self,
        sql: &str,
    ) -> Result<sqllogictest::DBOutput<DefaultColumnType>, SltError> {
        let df = self
            .0
            .sql_frame(sql)
            .await
            .map_err(|e| SltError(e.to_string()))?;
        let schema = df.schema().as_arrow().clone();
        let batches = df.collect().await.map_err(|e| SltError(e.to_string()))?;
        Ok(db_output_shortest_floats(&schema, &batches))
    }

    async fn shutdown(&mut self) {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_slt_files() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("slt/access");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        for pushdown in [true, false] {
            let c = corpus.clone();
            let mut runner = sqllogictest::Runner::new(move || {
                let s = session(&c, pushdown, SqlDialect::Access);
                async move { Ok::<_, SltError>(Access(s)) }
            });
            runner
                .run_file_async(&f)
                .await
                .unwrap_or_else(|e| panic!("{} (pushdown {pushdown}): {e}", f.display()));
        }
        eprintln!("{}: ok with and without pushdown", f.display());
    }
}

async fn plan(s: &JetSession, sql: &str) -> String {
    let batches = s.sql(&format!("EXPLAIN {sql}")).await.unwrap();
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string();
    // the physical plan's rows only
    text.split("physical_plan")
        .nth(1)
        .unwrap_or(&text)
        .to_string()
}

/// The operators of a physical plan, in order, without their arguments.
fn operators(plan: &str) -> Vec<String> {
    plan.lines()
        .filter_map(|l| {
            let l = l.trim_start_matches(['|', ' ']);
            let name: String = l
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            name.ends_with("Exec").then_some(name)
        })
        .collect()
}

/// Acceptance 2 of the Access SQL issue: the Access forms plan exactly the
/// operators of the quoted DataFusion forms — an index seek, an index walk
/// without a sort, the MIN/MAX read of index ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_forms_plan_like_quoted_forms() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let access = session(&corpus, true, SqlDialect::Access);
    let df = session(&corpus, true, SqlDialect::DataFusion);
    let cases = [
        (
            "SELECT OrderID FROM Orders WHERE OrderID = 10250",
            r#"SELECT "OrderID" FROM "Orders" WHERE "OrderID" = 10250"#,
            "IndexSeekExec",
        ),
        (
            "SELECT orderid FROM ORDERS ORDER BY OrderID LIMIT 5",
            r#"SELECT "OrderID" FROM "Orders" ORDER BY "OrderID" LIMIT 5"#,
            "IndexOrderExec",
        ),
        (
            "SELECT MIN(OrderID), MAX(OrderID) FROM Orders",
            r#"SELECT MIN("OrderID"), MAX("OrderID") FROM "Orders""#,
            "IndexMinMaxExec",
        ),
        (
            "SELECT TOP 5 OrderID FROM Orders ORDER BY OrderID",
            r#"SELECT "OrderID" FROM "Orders" ORDER BY "OrderID" LIMIT 5"#,
            "IndexOrderExec",
        ),
    ];
    for (a, q, op) in cases {
        let pa = plan(&access, a).await;
        let pq = plan(&df, q).await;
        assert!(pa.contains(op), "{a}: no {op} in\n{pa}");
        assert!(!pa.contains("SortExec"), "{a}: sorts:\n{pa}");
        assert_eq!(operators(&pa), operators(&pq), "{a}\n{pa}\nvs {q}\n{pq}");
        // the DataFusion dialect resolves the unquoted names the same way
        if !a.contains("TOP") {
            let pd = plan(&df, a).await;
            assert_eq!(
                operators(&pd),
                operators(&pq),
                "datafusion dialect: {a}\n{pd}"
            );
        }
    }
    // the column keeps the catalog's spelling
    let df_frame = access
        .sql_frame("SELECT orderid FROM orders WHERE orderid = 10250")
        .await
        .unwrap();
    assert_eq!(df_frame.schema().field(0).name(), "OrderID");
}

/// Acceptance 3: a case-insensitive equality on an indexed text column
/// returns Access's rows (6 orders of ALFKI, as mdb-export lists them) and
/// plans an index seek that re-checks the folded comparison.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_equality_ignores_case_and_seeks() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus, true, SqlDialect::Access);
    let p = plan(&s, "SELECT OrderID FROM Orders WHERE CustomerID = 'alfki'").await;
    assert!(p.contains("IndexSeekExec"), "{p}");
    let n = count(&s, "SELECT count(*) FROM Orders WHERE CustomerID = 'alfki'").await;
    assert_eq!(n, 6);
    let p = plan(
        &s,
        "SELECT OrderID FROM Orders WHERE CustomerID IN ('alfki', 'anatr')",
    )
    .await;
    assert!(p.contains("IndexSeekExec"), "{p}");
}

async fn count(s: &JetSession, sql: &str) -> i64 {
    use datafusion::arrow::array::{Array, Int64Array};
    let b = s.sql(sql).await.unwrap();
    let a = b[0]
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(a.len(), 1);
    a.value(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parameters_bind_by_name_or_are_named_in_the_error() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus, true, SqlDialect::Access);
    let sql = "PARAMETERS [Start Date] DateTime; \
               SELECT count(*) FROM Orders WHERE OrderDate >= [Start Date] AND ShipCountry = [Country?]";
    let e = s.sql(sql).await.unwrap_err().to_string();
    assert!(
        e.contains("[Start Date]") && e.contains("[Country?]"),
        "{e}"
    );
    s.bind(
        "start date",
        jet_provider::access::parse_param_value("#1/1/1996#"),
    );
    s.bind("Country?", jet_provider::access::parse_param_value("uk"));
    // orders from 1996 on shipped to the UK, per mdb-export of nwind
    // (tests/slt/access/generate_access.py's tables): 16
    assert_eq!(count(&s, sql).await, 21);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_access_sql_names_the_construct_and_position() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus, true, SqlDialect::Access);
    for (sql, want) in [
        (
            "SELECT * FROM Orders WHERE OrderDate > #13/45/1998#",
            "#13/45/1998# at Line: 1, Column: 40",
        ),
        (
            "SELECT * FROM Orders WHERE OrderDate > #1/1/1998",
            "no closing '#'",
        ),
        ("SELECT 1;\nSELECT * FROM Orders WHERE", "Line: 2"),
        (
            "SELECT * FROM Orders WHERE ShipName Like '[abc'",
            "'[' without its closing ']'",
        ),
        (
            "SELECT TOP x * FROM Orders",
            "found: x at Line: 1, Column: 12",
        ),
    ] {
        let e = s.sql(sql).await.unwrap_err().to_string();
        assert!(e.contains(want), "{sql}: {e}");
        assert!(!e.contains("ParserError("), "{sql}: {e}");
    }
}

/// A chain of `&` plans as one concatenation of all its operands, not as
/// nested calls (DataFusion names a nested call by writing every level
/// out, which made a 200-term chain take seconds to plan), and keeps
/// Access's value: Null reads as empty, only all-Null is Null.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ampersand_chains_are_one_concatenation() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus, true, SqlDialect::Access);
    let chain: String = (0..150).map(|i| format!(" & '{}'", i % 10)).collect();
    let sql = format!("SELECT CustomerID{chain} AS s FROM Customers WHERE CustomerID = 'ALFKI'");
    let p = plan(&s, &sql).await;
    assert_eq!(p.matches("access_concat(").count(), 1, "{p}");
    let b = s.sql(&sql).await.unwrap();
    let want: String = std::iter::once("ALFKI".to_string())
        .chain((0..150).map(|i| (i % 10).to_string()))
        .collect();
    let got = datafusion::arrow::util::pretty::pretty_format_batches(&b)
        .unwrap()
        .to_string();
    assert!(got.contains(&want), "{got}");
    let b = s
        .sql("SELECT Null & Null AS a, Null & 'x' & Null AS b, ('a' & Null) & (Null & 'b') AS c")
        .await
        .unwrap();
    let a = b[0].column(0);
    assert!(a.is_null(0), "Null & Null is Null");
    let text = |i: usize| {
        b[0].column(i)
            .as_any()
            .downcast_ref::<datafusion::arrow::array::StringArray>()
            .unwrap()
            .value(0)
            .to_string()
    };
    assert_eq!(text(1), "x");
    assert_eq!(text(2), "ab");
}

/// Operators planned as nested Access function calls (`Mod`, `^`, date
/// `+`) plan and answer at the statement-shape limit; their names are
/// written in one pass (the fuzz found 199-term `Mod` chains taking over
/// 10 s before). Values per Microsoft's Mod operator page
/// (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/mod-operator):
/// 7 Mod 2 is 1, and 1 Mod 2 stays 1.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_operator_chains_answer() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let s = session(&corpus, true, SqlDialect::Access);
    let mods: String = " Mod 2".repeat(199);
    assert_eq!(count(&s, &format!("SELECT 7{mods}")).await, 1);
    let pows: String = " ^ 1".repeat(199);
    let b = s.sql(&format!("SELECT 2{pows}")).await.unwrap();
    let v = b[0]
        .column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::Float64Array>()
        .unwrap()
        .value(0);
    assert_eq!(v, 2.0);
}
