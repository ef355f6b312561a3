//! One DataFusion setup, two sources: runs a SQL string over tables
//! registered either from a Jet database (jetsql's provider) or from Parquet
//! files, so both sides of the side-by-side comparison share the session,
//! the partition count and the runtime (`benches/compare.py`).
//!
//! ```text
//! cargo run --release -p jet-benches --features examples --example df_sql -- \
//!     --jet FILE  --table t=TABLE [--table u=TABLE2] --sql "SELECT count(*) FROM t"
//! cargo run --release -p jet-benches --features examples --example df_sql -- \
//!     --parquet --table t=t.parquet --sql "SELECT count(*) FROM t"
//! cargo run --release -p jet-benches --features examples --example df_sql -- \
//!     --jet FILE --table t=TABLE --export-parquet DIR     # writes DIR/t.parquet
//! ```
//!
//! Options: `--reps N` (timed runs, default 1), `--warmup N` (untimed runs
//! first, default 0), `--no-pushdown` (Jet: every filter evaluated over a
//! full scan), `--partitions N` (default: the number of cores), `--mmap`
//! (Jet: memory-mapped pages), `--index-heights` (Jet: print
//! `height <first key column>=<pages from root to leaf>` for each real
//! index of the first table, then run the SQL if any).
//!
//! Prints one line on standard output:
//! `rows=<n> secs=<median> min=<s> exec=<median> pages_read=<n> index_pages_read=<n> digest=<hex>`
//! where `secs` covers planning and execution (not opening the file),
//! `exec` execution alone (the physical plan already built),
//! results are streamed (never collected unless small), `pages_read` sums
//! the Jet plans' `pages_read` metrics of the last run (every page: index,
//! data, TDEF), `index_pages_read` their `index_pages_read` metrics (the
//! B-tree pages among them), and `digest` is a
//! hash of the sorted formatted rows when there are at most 10,000 of them
//! (so the two sources can be checked to agree).

use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::context::SessionContext;
use datafusion::physical_plan::{ExecutionPlan, execute_stream};
use datafusion::prelude::{ParquetReadOptions, SessionConfig};
use futures::StreamExt;
use jet_provider::{JetOptions, JetTable};
use jet_storage::{Backend, Database, OpenOptions};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Instant;

#[derive(Default)]
struct Args {
    jet: Option<String>,
    parquet: bool,
    tables: Vec<(String, String)>,
    sql: Option<String>,
    export: Option<String>,
    reps: usize,
    warmup: usize,
    pushdown: bool,
    partitions: Option<usize>,
    mmap: bool,
    index_heights: bool,
}

fn parse() -> std::result::Result<Args, String> {
    let mut a = Args {
        reps: 1,
        pushdown: true,
        ..Default::default()
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--jet" => a.jet = Some(val()?),
            "--parquet" => a.parquet = true,
            "--table" => {
                let v = val()?;
                let (n, t) = v
                    .split_once('=')
                    .ok_or_else(|| format!("--table wants NAME=SOURCE, got {v:?}"))?;
                a.tables.push((n.to_string(), t.to_string()));
            }
            "--sql" => a.sql = Some(val()?),
            "--export-parquet" => a.export = Some(val()?),
            "--reps" => a.reps = val()?.parse().map_err(|e| format!("--reps: {e}"))?,
            "--warmup" => a.warmup = val()?.parse().map_err(|e| format!("--warmup: {e}"))?,
            "--partitions" => {
                a.partitions = Some(val()?.parse().map_err(|e| format!("--partitions: {e}"))?)
            }
            "--no-pushdown" => a.pushdown = false,
            "--mmap" => a.mmap = true,
            "--index-heights" => a.index_heights = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if a.jet.is_some() == a.parquet {
        return Err("give exactly one of --jet FILE or --parquet".into());
    }
    if a.tables.is_empty() {
        return Err("give at least one --table NAME=SOURCE".into());
    }
    if a.sql.is_none() && a.export.is_none() && !a.index_heights {
        return Err("give --sql, --export-parquet or --index-heights".into());
    }
    a.reps = a.reps.max(1);
    Ok(a)
}

/// Sum of the metrics called `name` over the plan tree.
fn metric_sum(plan: &Arc<dyn ExecutionPlan>, name: &str) -> usize {
    let own = plan
        .metrics()
        .and_then(|m| m.sum_by_name(name))
        .map(|v| v.as_usize())
        .unwrap_or(0);
    own + plan
        .children()
        .iter()
        .map(|c| metric_sum(c, name))
        .sum::<usize>()
}

fn rows_text(batches: &[RecordBatch]) -> Result<Vec<String>> {
    let opts = FormatOptions::default().with_null("NULL");
    let mut lines = Vec::new();
    for b in batches {
        let fmts = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        for r in 0..b.num_rows() {
            let cells: Vec<String> = fmts.iter().map(|f| f.value(r).to_string()).collect();
            lines.push(cells.join("|"));
        }
    }
    Ok(lines)
}

/// Prints `height <first key column>=<h>` for every real index of `t`.
fn print_index_heights(t: &jet_storage::Table) -> Result<()> {
    for (n, real) in t.def().real_indexes.iter().enumerate() {
        let first = real
            .key
            .first()
            .and_then(|(c, _)| t.def().columns.iter().find(|col| col.col_num == *c))
            .map_or("?", |c| c.name.as_str());
        let h = t
            .index(n)
            .and_then(|r| r.height().map_err(Into::into))
            .map_err(jet_provider::to_df)?;
        println!("height {first}={h}");
    }
    Ok(())
}

struct Run {
    rows: usize,
    secs: f64,
    /// Execution alone (after planning).
    exec: f64,
    pages: usize,
    index_pages: usize,
    kept: Vec<RecordBatch>,
}

async fn run_once(ctx: &SessionContext, sql: &str) -> Result<Run> {
    let start = Instant::now();
    let plan = ctx.sql(sql).await?.create_physical_plan().await?;
    let planned = Instant::now();
    let mut stream = execute_stream(plan.clone(), ctx.task_ctx())?;
    let mut rows = 0usize;
    let mut kept = Vec::new();
    while let Some(b) = stream.next().await {
        let b = b?;
        rows += b.num_rows();
        if rows <= 10_000 {
            kept.push(b);
        } else {
            kept.clear();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    Ok(Run {
        rows,
        secs,
        exec: planned.elapsed().as_secs_f64(),
        pages: metric_sum(&plan, "pages_read"),
        index_pages: metric_sum(&plan, "index_pages_read"),
        kept,
    })
}

async fn main_async(a: Args) -> Result<()> {
    let partitions = a
        .partitions
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // jetsql's own session (its planner carries the Jet index rules:
    // ORDER BY … LIMIT as an index walk, MIN/MAX from index ends); the
    // rules match only Jet scans, so Parquet plans are DataFusion's own
    let ctx =
        jet_provider::session_context(SessionConfig::new().with_target_partitions(partitions));
    if let Some(file) = &a.jet {
        let backend = if a.mmap { Backend::Mmap } else { Backend::File };
        let db = Database::open(
            file,
            OpenOptions {
                backend,
                ..Default::default()
            },
        )
        .map_err(jet_provider::to_df)?;
        let options = JetOptions {
            pushdown: a.pushdown,
            ..Default::default()
        };
        for (i, (name, table)) in a.tables.iter().enumerate() {
            let t = db.table(table).map_err(jet_provider::to_df)?;
            if a.index_heights && i == 0 {
                print_index_heights(&t)?;
            }
            ctx.register_table(
                name.as_str(),
                Arc::new(JetTable::new(t, db.clone(), options.clone())),
            )?;
        }
    } else {
        for (name, path) in &a.tables {
            ctx.register_parquet(name.as_str(), path.as_str(), ParquetReadOptions::default())
                .await?;
        }
    }
    if let Some(dir) = &a.export {
        std::fs::create_dir_all(dir)?;
        for (name, _) in &a.tables {
            let path = format!("{dir}/{name}.parquet");
            let start = Instant::now();
            ctx.table(name.as_str())
                .await?
                .write_parquet(
                    &path,
                    DataFrameWriteOptions::new().with_single_file_output(true),
                    None,
                )
                .await?;
            eprintln!("wrote {path} in {:.3} s", start.elapsed().as_secs_f64());
        }
    }
    let Some(sql) = &a.sql else { return Ok(()) };
    for _ in 0..a.warmup {
        run_once(&ctx, sql).await?;
    }
    let mut times = Vec::new();
    let mut execs = Vec::new();
    let mut last = None;
    for _ in 0..a.reps {
        let r = run_once(&ctx, sql).await?;
        times.push(r.secs);
        execs.push(r.exec);
        last = Some(r);
    }
    let last = last.ok_or_else(|| DataFusionError::Internal("no run".into()))?;
    times.sort_by(f64::total_cmp);
    execs.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let exec = execs[execs.len() / 2];
    if std::env::var_os("DF_SQL_PRINT").is_some() {
        for l in rows_text(&last.kept)? {
            eprintln!("{l}");
        }
    }
    let digest = if last.rows <= 10_000 {
        let mut lines = rows_text(&last.kept)?;
        lines.sort();
        let mut h = DefaultHasher::new();
        lines.hash(&mut h);
        format!("{:016x}", h.finish())
    } else {
        "-".into()
    };
    println!(
        "rows={} secs={median:.9} min={:.9} exec={exec:.9} pages_read={} index_pages_read={} digest={digest}",
        last.rows, times[0], last.pages, last.index_pages
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("df_sql: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("df_sql: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match rt.block_on(main_async(args)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("df_sql: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
