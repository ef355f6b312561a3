//! The front door of [`JetSession`] (issue 17, items 4–7) through the
//! library: `COPY … TO` checks, the statement-shape limits in both
//! dialects, size-checked text functions under a memory pool, panics
//! turned into errors, and non-regular files refused by storage.

use datafusion::arrow::datatypes::DataType;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, JetSession, SqlDialect};
use jet_storage::{Database, Error, FormatError, OpenOptions};
use std::path::Path;
use std::time::{Duration, Instant};

fn session_with_limit(limit: Option<usize>) -> JetSession {
    let config = SessionConfig::new()
        .with_information_schema(true)
        .with_default_catalog_and_schema("datafusion", "public");
    let mut builder = jet_provider::jet_session_state_builder(config);
    if let Some(l) = limit {
        builder = builder.with_runtime_env(
            RuntimeEnvBuilder::new()
                .with_memory_limit(l, 1.0)
                .build_arc()
                .unwrap(),
        );
    }
    JetSession::new(SessionContext::new_with_state(builder.build()))
}

fn nwind_session(db: &Path, dialect: SqlDialect) -> JetSession {
    let s = session_with_limit(None);
    s.register("nw", db, JetOptions::default(), true).unwrap();
    s.set_dialect(dialect);
    s
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_stack_size(16 << 20)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn copy_checks_through_the_library() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.mdb");
    std::fs::copy(corpus.join("mdbtools/nwind.mdb"), &db).unwrap();
    let before = std::fs::read(&db).unwrap();
    let rt = rt();
    for dialect in [SqlDialect::Access, SqlDialect::DataFusion] {
        let s = nwind_session(&db, dialect);
        let target = db.display().to_string();
        for sql in [
            format!("COPY (SELECT 1 AS x) TO '{target}' STORED AS CSV"),
            format!("EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{target}' STORED AS CSV"),
            format!("COPY (SELECT 1 AS x) TO '{target}.jetjournal' STORED AS PARQUET"),
            format!("CREATE EXTERNAL TABLE e STORED AS CSV LOCATION '{target}'"),
        ] {
            let e = rt.block_on(s.sql(&sql)).unwrap_err().to_string();
            assert!(e.contains("open database or its journal"), "{sql}: {e}");
        }
        let e = rt
            .block_on(s.sql("COPY (SELECT 1 AS x) TO 'whatever.txt' STORED AS bogus"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("unknown format") && e.contains("csv, parquet, json, arrow"),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "files left behind: {left:?}");
}

#[test]
fn deep_statements_end_quickly_in_both_dialects() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let db = corpus.join("mdbtools/nwind.mdb");
    let rt = rt();
    let mut ctes = String::from("WITH c0 AS (SELECT 1 AS x)");
    for i in 1..5000 {
        ctes.push_str(&format!(", c{i} AS (SELECT x FROM c{})", i - 1));
    }
    ctes.push_str(" SELECT x FROM c4999");
    let cases: Vec<(String, &str)> = vec![
        (format!("SELECT 1{}", " + 1".repeat(5000)), "5000 operators"),
        (
            format!("SELECT 'a'{}", " || 'a'".repeat(5000)),
            "5000 operators",
        ),
        (
            format!("SELECT 'a'{}", " & 'a'".repeat(5000)),
            "5000 operators",
        ),
        (
            format!("SELECT 1 WHERE 1=1{}", " AND 1=1".repeat(5000)),
            "the limit is 200",
        ),
        (
            format!("SELECT 1 WHERE 1=0{}", " OR 1=0".repeat(5000)),
            "the limit is 200",
        ),
        (
            format!("SELECT 1 AS x{}", " UNION ALL SELECT 1".repeat(3000)),
            "3000 operators",
        ),
        (ctes, "5001 SELECTs"),
        (
            format!("SELECT {}1{}", "CAST(".repeat(48), " AS BIGINT)".repeat(48)),
            "too deeply nested: 48 levels of parentheses, the limit is 40",
        ),
        (
            format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000)),
            "too deeply nested: 5000 levels",
        ),
    ];
    for dialect in [SqlDialect::Access, SqlDialect::DataFusion] {
        let s = nwind_session(&db, dialect);
        for (sql, want) in &cases {
            let t = Instant::now();
            let e = rt.block_on(s.sql(sql)).unwrap_err().to_string();
            assert!(e.contains(want), "{dialect}: {e}");
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{dialect}: {:?}",
                t.elapsed()
            );
        }
        // just inside the limits, statements answer (and quickly)
        for (sql, rows) in [
            (format!("SELECT 1{} AS v", " + 1".repeat(200)), 1),
            (
                format!(
                    "SELECT {}1{} AS v",
                    "CAST(".repeat(40),
                    " AS BIGINT)".repeat(40)
                ),
                1,
            ),
            (
                format!("SELECT 1 AS x{}", " UNION ALL SELECT 1".repeat(200)),
                201,
            ),
        ] {
            let t = Instant::now();
            let b = rt
                .block_on(s.sql(&sql))
                .unwrap_or_else(|e| panic!("{dialect}: {e}"));
            assert_eq!(b.iter().map(|b| b.num_rows()).sum::<usize>(), rows);
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "{dialect}: {:?}",
                t.elapsed()
            );
        }
    }
}

#[test]
fn text_functions_respect_the_memory_limit() {
    let rt = rt();
    let s = session_with_limit(Some(64 << 20));
    for dialect in [SqlDialect::Access, SqlDialect::DataFusion] {
        s.set_dialect(dialect);
        for sql in [
            "SELECT length(repeat('x', 100000000))",
            "SELECT length(lpad('x', 100000000))",
            "SELECT length(rpad('x', 20000000, 'é'))",
            "SELECT length(replace(repeat('x', 10000), 'x', repeat('y', 10000)))",
        ] {
            let e = rt.block_on(s.sql(sql)).unwrap_err().to_string();
            assert!(
                e.contains("Resources exhausted") && e.contains("memory limit of 64.0 MiB"),
                "{dialect}: {sql}: {e}"
            );
        }
        let b = rt
            .block_on(s.sql("SELECT length(repeat('ab', 1000000)) = 2000000 AS ok"))
            .unwrap();
        let ok = b[0]
            .column(0)
            .as_any()
            .downcast_ref::<datafusion::arrow::array::BooleanArray>();
        assert_eq!(ok.map(|a| a.value(0)), Some(true), "{dialect}");
    }
}

/// The error of `sql` in `s`, which must fail with "Resources exhausted"
/// holding `want`.
fn exhausted(rt: &tokio::runtime::Runtime, s: &JetSession, sql: &str, want: &str) {
    let e = match rt.block_on(s.sql(sql)) {
        Ok(_) => panic!("{sql}: answered, wanted {want:?}"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("Resources exhausted") && e.contains(want),
        "{sql}: want {want:?} in {e}"
    );
}

/// The one value of a one-row, one-column answer, as text.
fn one_value(rt: &tokio::runtime::Runtime, s: &JetSession, sql: &str) -> String {
    let b = rt
        .block_on(s.sql(sql))
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let b: Vec<_> = b.into_iter().filter(|b| b.num_rows() > 0).collect();
    assert_eq!(b.len(), 1, "{sql}");
    datafusion::arrow::util::display::array_value_to_string(b[0].column(0), 0).unwrap()
}

/// The value-building functions beyond repeat/lpad/rpad/overlay/replace
/// (issue 35): concat, concat_ws, regexp_replace, encode, and Access's
/// String and `&`, each refused past the limit before it allocates.
#[test]
fn more_value_building_functions_respect_the_memory_limit() {
    let rt = rt();
    let s = session_with_limit(Some(64 << 20));
    s.set_dialect(SqlDialect::DataFusion);
    for (sql, want) in [
        (
            // each repeat needs twice its 25 MB (its result and a buffer of
            // one value), under the 64 MiB limit; their concat is 75 MB
            "SELECT length(concat(repeat('x', 25000000), repeat('y', 25000000), repeat('z', 25000000)))",
            "concat() would need",
        ),
        (
            "SELECT length(concat_ws(',', repeat('x', 25000000), repeat('y', 25000000), repeat('z', 25000000)))",
            "concat_ws() would need",
        ),
        (
            "SELECT length(regexp_replace(repeat('x', 1000000), 'x', repeat('y', 100), 'g'))",
            "regexp_replace() would need",
        ),
        (
            "SELECT length(encode(concat(repeat('x', 20000000), repeat('y', 20000000)), 'hex'))",
            "encode() would need",
        ),
    ] {
        exhausted(&rt, &s, sql, want);
    }
    assert_eq!(
        one_value(
            &rt,
            &s,
            "SELECT length(concat(repeat('x', 1000), 'y')) AS n"
        ),
        "1001"
    );
    s.set_dialect(SqlDialect::Access);
    for (sql, want) in [
        ("SELECT Len(String(20000000, 'x'))", "string() would need"),
        (
            "SELECT Len(Space(30000000) & Space(30000000) & Space(30000000))",
            "the & operator would need",
        ),
    ] {
        exhausted(&rt, &s, sql, want);
    }
    assert_eq!(
        one_value(&rt, &s, "SELECT Len(Space(1000) & String(1000, 'x')) AS n"),
        "2000"
    );
}

/// A large constant repeated over every row of a batch (typed into the
/// statement, `string_agg('…100 KB…', ',')` over a table function) is
/// refused before the query runs, and `repeat` of a constant is not
/// folded into one but checked with the rows it runs for; over one row,
/// or two, the same values answer.
#[test]
fn constants_repeated_over_a_batch_respect_the_memory_limit() {
    let rt = rt();
    let s = session_with_limit(Some(64 << 20));
    s.set_dialect(SqlDialect::DataFusion);
    let big = "x".repeat(100_000);
    exhausted(
        &rt,
        &s,
        &format!("SELECT length(string_agg('{big}', ',')) FROM generate_series(1, 10000)"),
        "a constant of 97.7 KiB would need",
    );
    exhausted(
        &rt,
        &s,
        &format!("SELECT '{big}' AS v FROM generate_series(1, 10000)"),
        "repeated over a batch of 8192 rows",
    );
    exhausted(
        &rt,
        &s,
        "SELECT length(string_agg(repeat('x', 100000), ',')) FROM generate_series(1, 10000)",
        "repeat() would need",
    );
    assert_eq!(
        one_value(&rt, &s, "SELECT length(repeat('x', 100000)) AS n"),
        "100000"
    );
    assert_eq!(
        one_value(&rt, &s, &format!("SELECT length('{big}') AS n")),
        "100000"
    );
    assert_eq!(
        one_value(
            &rt,
            &s,
            "SELECT length(max(v)) AS n FROM (SELECT repeat('x', 100000) AS v \
             FROM (VALUES (1), (2)) AS t(x))"
        ),
        "100000"
    );
}

/// string_agg and array_agg check each batch before their value grows
/// (with and without GROUP BY), so a value past the limit is "resources
/// exhausted" naming the aggregate; within the limit they answer.
#[test]
fn string_agg_and_array_agg_respect_the_memory_limit() {
    let rt = rt();
    let s = session_with_limit(Some(4 << 20));
    s.set_dialect(SqlDialect::DataFusion);
    // small batches, one partition: the aggregate's own check meets the
    // growth before the pool (charged after each batch) does
    for set in [
        "SET datafusion.execution.batch_size = 64",
        "SET datafusion.execution.target_partitions = 1",
    ] {
        rt.block_on(s.sql(set)).unwrap();
    }
    let row = "concat(CAST(value AS VARCHAR), repeat('x', 1000))";
    for (sql, want) in [
        (
            format!("SELECT length(string_agg({row}, ',')) FROM generate_series(1, 10000)"),
            "string_agg() would need",
        ),
        (
            format!(
                "SELECT value % 2 AS k, length(string_agg({row}, ',')) \
                 FROM generate_series(1, 10000) GROUP BY value % 2"
            ),
            "string_agg() would need",
        ),
        (
            format!("SELECT cardinality(array_agg({row})) FROM generate_series(1, 10000)"),
            "array_agg() would need",
        ),
    ] {
        exhausted(&rt, &s, &sql, want);
    }
    assert_eq!(
        one_value(
            &rt,
            &s,
            "SELECT length(string_agg(CAST(value AS VARCHAR), ',')) AS n \
             FROM generate_series(1, 1000)"
        ),
        "3892"
    );
    assert_eq!(
        one_value(
            &rt,
            &s,
            "SELECT cardinality(array_agg(value)) AS n FROM generate_series(1, 1000)"
        ),
        "1000"
    );
}

/// A function that panics, standing in for a bug in the engine.
#[derive(Debug, PartialEq, Eq, Hash)]
struct Boom(Signature);

impl ScalarUDFImpl for Boom {
    fn name(&self) -> &str {
        "boom"
    }
    fn signature(&self) -> &Signature {
        &self.0
    }
    fn return_type(&self, _: &[DataType]) -> datafusion::error::Result<DataType> {
        Ok(DataType::Int64)
    }
    fn invoke_with_args(&self, _: ScalarFunctionArgs) -> datafusion::error::Result<ColumnarValue> {
        panic!("offset overflow")
    }
}

#[test]
fn a_panic_while_running_is_an_error() {
    let rt = rt();
    let s = session_with_limit(None);
    s.context()
        .register_udf(ScalarUDF::new_from_impl(Boom(Signature::exact(
            vec![DataType::Int64],
            Volatility::Volatile,
        ))));
    let e = rt
        .block_on(s.sql("SELECT boom(x) FROM (VALUES (1), (2)) AS t(x)"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("offset overflow") && e.contains("this is a bug"),
        "{e}"
    );
    // the session goes on
    let b = rt.block_on(s.sql("SELECT 1 AS one")).unwrap();
    assert_eq!(b[0].num_rows(), 1);
}

#[test]
fn storage_refuses_what_is_not_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let e = Database::open(dir.path(), OpenOptions::default()).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Format(FormatError::NotAFile {
                kind: "a directory",
                ..
            })
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{} is a directory, not an Access database file",
            dir.path().display()
        )
    );
    let e = jet_storage::journal::recover(dir.path()).unwrap_err();
    assert!(e.to_string().contains("is a directory"), "{e}");
    #[cfg(unix)]
    {
        let fifo = dir.path().join("f.mdb");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let t = Instant::now();
            let e = Database::open(&fifo, OpenOptions::default()).unwrap_err();
            assert!(
                e.to_string()
                    .ends_with("is a FIFO, not an Access database file"),
                "{e}"
            );
            assert!(t.elapsed() < Duration::from_secs(2));
        }
        let e = Database::open("/dev/null", OpenOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/null is a device, not an Access database file"
        );
    }
}
