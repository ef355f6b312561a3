//! `jetsql-scheduler`: the Ballista scheduler of a Jet cluster.

use clap::Parser;
use jet_distributed::args::{NodeArgs, main_with};
use jet_distributed::processes::{SchedulerOptions, run_scheduler};
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

/// Plans queries over Access files for a cluster of `jetsql-executor`s;
/// clients connect with `jetsql --cluster HOST:PORT`.
#[derive(Debug, Parser)]
#[command(name = "jetsql-scheduler", version)]
struct Args {
    /// Address to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "0.0.0.0:50050")]
    bind: SocketAddr,
    /// Host name executors and clients reach this scheduler by.
    #[arg(long, default_value = "localhost")]
    external_host: String,
    /// Seconds after which a silent executor is taken for dead (its tasks
    /// run again elsewhere, or the query fails).
    #[arg(long, default_value_t = 60)]
    executor_timeout: u64,
    #[command(flatten)]
    node: NodeArgs,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let options = SchedulerOptions {
        bind: args.bind,
        external_host: args.external_host,
        executor_timeout: Duration::from_secs(args.executor_timeout),
    };
    main_with("jetsql-scheduler", &args.node, |node| {
        run_scheduler(node, options, |addr| {
            println!("jetsql-scheduler listening on {addr}");
        })
    })
}
