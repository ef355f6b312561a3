//! The scheduler and executor processes of a Jet cluster: Ballista's,
//! configured with the Jet codecs, the Jet session and this node's
//! keyring.

use crate::codec::{JetLogicalCodec, JetPhysicalCodec};
use crate::node::Node;
use ballista_core::config::TaskSchedulingPolicy;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_grpc_service_with_listener};
use datafusion::error::{DataFusionError, Result};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

fn ballista(e: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::External(e.to_string().into())
}

/// How a scheduler runs.
#[derive(Debug, Clone)]
pub struct SchedulerOptions {
    /// Address to listen on (port 0: any free port).
    pub bind: SocketAddr,
    /// Host name executors and clients reach it by.
    pub external_host: String,
    /// An executor silent this long is taken for dead: its tasks run
    /// again elsewhere, or the job fails.
    pub executor_timeout: Duration,
}

/// Ballista's scheduler configuration with the Jet codecs and session.
/// Executors pull their tasks (Ballista 55's push mode loses a job whose
/// finished stages are rolled back when an executor dies: the job never
/// ends; pulled, the lost tasks run again on the executors left).
pub fn scheduler_config(node: Arc<Node>, options: &SchedulerOptions) -> SchedulerConfig {
    let sessions = node.clone();
    let timeout = options.executor_timeout.as_secs().max(1);
    SchedulerConfig {
        bind_host: options.bind.ip().to_string(),
        bind_port: options.bind.port(),
        external_host: options.external_host.clone(),
        executor_timeout_seconds: timeout,
        expire_dead_executor_interval_seconds: (timeout / 3).max(1),
        no_executors_grace_period_seconds: timeout,
        scheduling_policy: TaskSchedulingPolicy::PullStaged,
        override_session_builder: Some(Arc::new(move |config| sessions.session_state(config))),
        override_logical_codec: Some(Arc::new(JetLogicalCodec::new(node.clone()))),
        override_physical_codec: Some(Arc::new(JetPhysicalCodec::new(node))),
        ..SchedulerConfig::default()
    }
}

/// Runs a scheduler until the process ends; `ready` is called with the
/// address it listens on once it does.
pub async fn run_scheduler(
    node: Arc<Node>,
    options: SchedulerOptions,
    ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(options.bind)
        .await
        .map_err(|e| {
            DataFusionError::Execution(format!("cannot listen on {}: {e}", options.bind))
        })?;
    let addr = listener.local_addr()?;
    let mut options = options;
    options.bind = addr;
    let config = Arc::new(scheduler_config(node, &options));
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(ballista)?;
    let scheduler = create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, config)
        .await
        .map_err(ballista)?;
    ready(addr);
    start_grpc_service_with_listener(listener, scheduler)
        .await
        .map_err(ballista)
}

/// How an executor runs.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The scheduler's host and port.
    pub scheduler: (String, u16),
    /// Host to listen on.
    pub bind_host: String,
    /// Host name the scheduler and other executors reach it by.
    pub external_host: Option<String>,
    /// Port of its Arrow Flight service (shuffle data).
    pub flight_port: u16,
    /// Port of its gRPC service (tasks).
    pub grpc_port: u16,
    /// Tasks it runs at once (0: one per core).
    pub concurrent_tasks: usize,
    /// Where it keeps shuffle files (a temporary directory when `None`).
    pub work_dir: Option<String>,
    /// How often it tells the scheduler it is alive.
    pub heartbeat: Duration,
}

/// Ballista's executor configuration with the Jet codecs and functions;
/// it pulls tasks, as [`scheduler_config`] expects.
pub fn executor_config(
    node: Arc<Node>,
    options: &ExecutorOptions,
) -> Result<ExecutorProcessConfig> {
    Ok(ExecutorProcessConfig {
        bind_host: options.bind_host.clone(),
        external_host: options.external_host.clone(),
        port: options.flight_port,
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler.0.clone(),
        scheduler_port: options.scheduler.1,
        scheduler_connect_timeout_seconds: 30,
        vcores: options.concurrent_tasks,
        task_scheduling_policy: TaskSchedulingPolicy::PullStaged,
        work_dir: options.work_dir.clone(),
        print_thread_info: false,
        executor_heartbeat_interval_seconds: options.heartbeat.as_secs().max(1),
        override_function_registry: Some(node.function_registry()?),
        override_logical_codec: Some(Arc::new(JetLogicalCodec::new(node.clone()))),
        override_physical_codec: Some(Arc::new(JetPhysicalCodec::new(node))),
        ..ExecutorProcessConfig::default()
    })
}

/// Runs an executor until it is stopped.
pub async fn run_executor(node: Arc<Node>, options: ExecutorOptions) -> Result<()> {
    let config = executor_config(node, &options)?;
    start_executor_process(Arc::new(config))
        .await
        .map_err(ballista)
}
