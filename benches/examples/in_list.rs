//! Times `IN` lists of many literals on an indexed column of the generated
//! million-row table (`jet_fixtures::bench`, ACE12, primary key on `ID`,
//! index on `Amount`): planning plus execution, with pushdown (one
//! multi-range `IndexSeekExec`) and, for the agreement check, without.
//!
//! ```text
//! cargo run --release -p jet-benches --features examples --example in_list -- [--file F] [--reps N] [--values 1000,40000,100000]
//! ```
//!
//! The file is generated under `target/bench-data/gen_1m.accdb` when
//! missing. Prints one line per list size and column:
//! `column=<c> values=<n> rows=<matches> secs=<median> min=<s> off_secs=<s> agrees=<bool> plan=<seek node>`.

use datafusion::error::Result;
use datafusion::physical_plan::{collect, displayable};
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, register_jet, session_context};
use std::path::PathBuf;
use std::time::Instant;

fn session(file: &PathBuf, pushdown: bool) -> Result<SessionContext> {
    let ctx = session_context(SessionConfig::new());
    let opts = JetOptions {
        pushdown,
        ..Default::default()
    };
    register_jet(&ctx, "g", file, opts)?;
    Ok(ctx)
}

/// Rows of `sql` (a count) and the seconds it took, planning included;
/// with `plan`, the seek line of the physical plan too.
async fn timed(ctx: &SessionContext, sql: &str) -> Result<(i64, f64, String)> {
    let t = Instant::now();
    let df = ctx.sql(sql).await?;
    let p = df.create_physical_plan().await?;
    let batches = collect(p.clone(), ctx.task_ctx()).await?;
    let secs = t.elapsed().as_secs_f64();
    let count = batches
        .first()
        .and_then(|b| {
            b.column(0)
                .as_any()
                .downcast_ref::<datafusion::arrow::array::Int64Array>()
                .map(|a| a.value(0))
        })
        .unwrap_or(-1);
    let shown = displayable(p.as_ref()).indent(false).to_string();
    let seek = shown
        .lines()
        .find(|l| l.contains("IndexSeekExec") || l.contains("JetScanExec"))
        .map(|l| {
            let l = l.trim();
            l.split(", filter=").next().unwrap_or(l).to_string()
        })
        .unwrap_or_default();
    Ok((count, secs, seek))
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut file: Option<PathBuf> = None;
    let mut reps = 5usize;
    let mut sizes = vec![1_000usize, 10_000, 40_000, 100_000];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--file" => file = Some(PathBuf::from(val()?)),
            "--reps" => reps = val()?.parse()?,
            "--values" => {
                sizes = val()?
                    .split(',')
                    .map(str::parse)
                    .collect::<std::result::Result<_, _>>()?
            }
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let file = match file {
        Some(f) => f,
        None => {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
            std::fs::create_dir_all(&dir)?;
            let f = dir.join("gen_1m.accdb");
            if !f.exists() {
                eprintln!("generating {}", f.display());
                let bytes = jet_fixtures::bench(jet_storage::JetVersion::Ace12, 1_000_000, true)?;
                std::fs::write(&f, bytes)?;
            }
            f
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let on = session(&file, true)?;
    let off = session(&file, false)?;
    let mut rng = jet_fixtures::Rng::new(0x1415);
    for column in ["ID", "Amount"] {
        for &n in &sizes {
            // IDs: half inside 1..=1,000,000; Amount: random values, few hits
            let values: Vec<String> = (0..n)
                .map(|_| match column {
                    "ID" => (1 + rng.below(2_000_000)).to_string(),
                    _ => (rng.below(2_000_000_000) as i64 - 1_000_000_000).to_string(),
                })
                .collect();
            let sql = format!(
                r#"SELECT count(*) FROM g.public."Bench" WHERE "{column}" IN ({})"#,
                values.join(", ")
            );
            let mut times = Vec::new();
            let mut result = (0, String::new());
            for _ in 0..reps.max(1) {
                let (count, secs, seek) = rt.block_on(timed(&on, &sql))?;
                times.push(secs);
                result = (count, seek);
            }
            times.sort_by(f64::total_cmp);
            let (off_count, off_secs, _) = rt.block_on(timed(&off, &sql))?;
            println!(
                "column={column} values={n} rows={} secs={:.4} min={:.4} off_secs={off_secs:.4} agrees={} plan={}",
                result.0,
                times[times.len() / 2],
                times[0],
                result.0 == off_count,
                result.1
            );
        }
    }
    Ok(())
}
