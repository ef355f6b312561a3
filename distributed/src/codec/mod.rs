//! Ballista extension codecs for Jet tables and plans. Each wraps
//! Ballista's own codec (shuffles, file formats), so one codec per kind
//! serves a whole cluster; every process of it must install them:
//! the client ([`crate::client::remote_session`]), the scheduler
//! ([`crate::processes::scheduler_config`]) and each executor
//! ([`crate::processes::executor_config`]).

mod functions;
mod logical;
mod physical;
mod tables;

pub use logical::JetLogicalCodec;
pub use physical::JetPhysicalCodec;
