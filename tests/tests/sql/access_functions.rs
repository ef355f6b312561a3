//! Runs `tests/slt/access/functions_*.slt` (sqllogictest format): the
//! Access function library (`jet_provider::access::functions`) registered
//! on a plain session, where it replaces DataFusion's functions of the
//! same names. Expected values in those files come from Microsoft's
//! documentation of each function (cited in the files).
//!
//! One target partition keeps the record order First and Last see equal
//! to the order of the VALUES lists.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::prelude::{SessionConfig, SessionContext};
use sqllogictest::{DBOutput, DefaultColumnType};
use std::path::PathBuf;

struct Access {
    ctx: SessionContext,
}

#[derive(Debug)]
struct SltError(String);
impl std::fmt::Display for SltError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SltError {}

/// A session with the Access functions registered.
fn session() -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    jet_provider::access::functions::register(&ctx);
    ctx
}

/// One cell as text: NULL, `(empty)` for a zero-length string, floating
/// point numbers in Rust's shortest form (`2`, `0.5`), everything else as
/// Arrow displays it.
fn cell(col: &dyn Array, fmt: &ArrayFormatter, r: usize) -> String {
    if col.is_null(r) {
        return "NULL".into();
    }
    let s = match col.data_type() {
        DataType::Float64 => col.as_primitive::<Float64Type>().value(r).to_string(),
        DataType::Float32 => col.as_primitive::<Float32Type>().value(r).to_string(),
        _ => fmt.value(r).to_string(),
    };
    if s.is_empty() { "(empty)".into() } else { s }
}

#[async_trait::async_trait]
impl sqllogictest::AsyncDB for Access {
    type Error = SltError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SltError> {
        let df = self
            .ctx
            .sql(sql)
            .await
            .map_err(|e| SltError(e.to_string()))?;
        let schema = df.schema().as_arrow().clone();
        let batches = df.collect().await.map_err(|e| SltError(e.to_string()))?;
        let types = schema
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                t if t.is_integer() => DefaultColumnType::Integer,
                t if t.is_floating() || matches!(t, DataType::Decimal128(..)) => {
                    DefaultColumnType::FloatingPoint
                }
                _ => DefaultColumnType::Text,
            })
            .collect();
        let opts = FormatOptions::default().with_null("NULL");
        let mut rows = Vec::new();
        for b in &batches {
            let fmts: Vec<ArrayFormatter> = b
                .columns()
                .iter()
                .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts))
                .collect::<Result<_, _>>()
                .map_err(|e| SltError(e.to_string()))?;
            for r in 0..b.num_rows() {
                rows.push(
                    b.columns()
                        .iter()
                        .zip(&fmts)
                        .map(|(c, f)| cell(c.as_ref(), f, r))
                        .collect(),
                );
            }
        }
        Ok(DBOutput::Rows { types, rows })
    }

    async fn shutdown(&mut self) {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_function_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("slt/access");
    // ACCESS_SLT_DIR runs another directory of files (for bisecting).
    let dir = std::env::var_os("ACCESS_SLT_DIR").map_or(dir, PathBuf::from);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        // the function files; tests/tests/sql/access_sql.rs runs every file
        // of the folder (these too) through the Access front end
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("functions_"))
        })
        .collect();
    files.sort();
    let mut records = 0;
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        records += text
            .lines()
            .filter(|l| l.starts_with("query") || l.starts_with("statement"))
            .count();
        let mut runner = sqllogictest::Runner::new(|| async { Ok(Access { ctx: session() }) });
        match runner.run_file_async(f).await {
            Ok(()) => eprintln!("{}: ok", f.display()),
            Err(e) => failures.push(format!("{}: {e}", f.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    if std::env::var_os("ACCESS_SLT_DIR").is_none() {
        assert!(files.len() >= 8, "the function files are missing");
        assert!(records >= 250, "only {records} statements");
    }
    eprintln!("{records} statements in {} files", files.len());
}

/// The `$` variants are aliases of the plain functions.
#[tokio::test]
async fn dollar_aliases() {
    let ctx = session();
    let df = ctx
        .sql(r#"SELECT "left$"('Hello', 2), "format$"(5, '0.0'), "mid$"('abc', 2)"#)
        .await
        .unwrap();
    let batches = df.collect().await.unwrap();
    let row: Vec<String> = batches[0]
        .columns()
        .iter()
        .map(|c| c.as_string::<i32>().value(0).to_string())
        .collect();
    assert_eq!(row, ["He", "5.0", "bc"]);
}

/// Constant calls fold at planning, so a comparison with
/// `DateSerial(…)` reaches the scan as a literal (what index seeks need).
#[tokio::test]
async fn constant_calls_fold() {
    let ctx = session();
    let plan = ctx
        .sql("EXPLAIN SELECT * FROM (VALUES (CAST('1998-01-05' AS TIMESTAMP))) AS t(d) WHERE d > DateSerial(1998, 1, 1)")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&plan)
        .unwrap()
        .to_string();
    assert!(!text.contains("dateserial"), "not folded:\n{text}");
    let now = ctx
        .sql("EXPLAIN SELECT Now()")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&now)
        .unwrap()
        .to_string();
    assert!(text.contains("now()"), "Now() must stay volatile:\n{text}");
}
