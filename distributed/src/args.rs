//! The options every cluster process takes: its passwords and memory.

use crate::keyring::Keyring;
use crate::node::Node;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Options shared by `jetsql-scheduler` and `jetsql-executor`.
#[derive(Debug, Clone, clap::Args)]
pub struct NodeArgs {
    /// File of passwords for encrypted databases, one `PATTERN = PASSWORD`
    /// per line (plans never carry passwords; each process reads its own).
    #[arg(long, value_name = "FILE")]
    pub passwords: Option<PathBuf>,
    /// Memory a query may use, e.g. `4GiB` (default: as jetsql).
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<String>,
}

impl NodeArgs {
    /// The node these options describe; the error is for people.
    pub fn node(&self) -> Result<Node, String> {
        let keyring = match &self.passwords {
            Some(p) => Keyring::read(p).map_err(|e| e.to_string())?,
            None => Keyring::default(),
        };
        let memory_limit = match &self.memory_limit {
            Some(s) => jet_provider::frontdoor::memory_limit(Some(
                jet_provider::frontdoor::parse_memory_size(s)
                    .map_err(|e| format!("--memory-limit: {e}"))?,
            )),
            None => jet_provider::frontdoor::default_memory_limit(),
        };
        Ok(Node {
            keyring,
            memory_limit,
        })
    }
}

/// A runtime for a cluster process: threads with room for deep plans.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 << 20)
        .build()
}

/// Logs to standard error: warnings and errors by default, more with
/// `RUST_LOG` (e.g. `RUST_LOG=info`, `RUST_LOG=ballista=debug`).
pub fn init_logging() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
}

/// The body of a cluster program's `main`: logging, the node `node`
/// describes, a runtime, then `run` on it. A bad option ends with exit
/// code 2, a failure of `run` with 1; either is printed after `program`.
pub fn main_with<F>(program: &str, node: &NodeArgs, run: impl FnOnce(Arc<Node>) -> F) -> ExitCode
where
    F: std::future::Future<Output = datafusion::error::Result<()>>,
{
    init_logging();
    let node = match node.node() {
        Ok(n) => Arc::new(n),
        Err(e) => {
            eprintln!("{program}: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime().map_err(|e| e.to_string()).and_then(|rt| {
        rt.block_on(run(node))
            .map_err(|e| jet_provider::messages::plain(&e.to_string()))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::FAILURE
        }
    }
}
