//! `jetsql-executor`: an executor of a Jet cluster.

use clap::Parser;
use jet_distributed::args::{NodeArgs, main_with};
use jet_distributed::processes::{ExecutorOptions, run_executor};
use std::process::ExitCode;
use std::time::Duration;

/// Runs the tasks a `jetsql-scheduler` hands out, reading the Access
/// files itself (at the same paths the client and scheduler see).
#[derive(Debug, Parser)]
#[command(name = "jetsql-executor", version)]
struct Args {
    /// The scheduler, HOST:PORT.
    #[arg(long, default_value = "localhost:50050")]
    scheduler: String,
    /// Host to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    bind_host: String,
    /// Host name the scheduler and other executors reach this one by.
    #[arg(long)]
    external_host: Option<String>,
    /// Port of the Arrow Flight service (results and shuffle data).
    #[arg(long, default_value_t = 50051)]
    flight_port: u16,
    /// Port of the gRPC service (tasks).
    #[arg(long, default_value_t = 50052)]
    grpc_port: u16,
    /// Tasks run at once (default: one per core).
    #[arg(long, default_value_t = 0)]
    concurrent_tasks: usize,
    /// Directory for shuffle files (default: a temporary one).
    #[arg(long)]
    work_dir: Option<String>,
    /// Seconds between heartbeats to the scheduler.
    #[arg(long, default_value_t = 10)]
    heartbeat: u64,
    #[command(flatten)]
    node: NodeArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let Some((host, port)) = args
        .scheduler
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
    else {
        eprintln!(
            "jetsql-executor: --scheduler must be HOST:PORT, not {:?}",
            args.scheduler
        );
        return ExitCode::from(2);
    };
    let options = ExecutorOptions {
        scheduler: (host, port),
        bind_host: args.bind_host,
        external_host: args.external_host,
        flight_port: args.flight_port,
        grpc_port: args.grpc_port,
        concurrent_tasks: args.concurrent_tasks,
        work_dir: args.work_dir,
        heartbeat: Duration::from_secs(args.heartbeat),
    };
    main_with("jetsql-executor", &args.node, |node| {
        run_executor(node, options)
    })
}
