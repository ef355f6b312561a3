//! The client side: a Jet session whose queries a Ballista scheduler plans
//! and its executors run. SQL (Jet or Access dialect) is parsed and
//! planned here, where the tables are registered; the plan goes to the
//! scheduler, which opens the same files (a shared file system) to plan
//! stages; results come back as Arrow. Queries over `information_schema`
//! (`SHOW TABLES`) run here. Writes are refused: the cluster reads.

use crate::codec::{JetLogicalCodec, JetPhysicalCodec};
use crate::node::Node;
use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::JetSession;
use std::sync::Arc;

/// The scheduler address as Ballista takes it: `HOST:PORT` or
/// `df://HOST:PORT` (port 50050 when left out).
pub fn scheduler_url(address: &str) -> String {
    if address.contains("://") {
        address.to_string()
    } else {
        format!("df://{address}")
    }
}

/// A session whose queries run on the cluster whose scheduler is at
/// `address` (see [`scheduler_url`]). `node` holds this process's memory
/// limit; its keyring is not used here (the client opens files with the
/// passwords it is given, the cluster with its own). Fails when the
/// address is not one; an unreachable scheduler fails the first query,
/// naming the address.
pub async fn remote_session(address: &str, node: Arc<Node>) -> Result<JetSession> {
    let mut config = SessionConfig::new_with_ballista()
        .with_information_schema(true)
        .with_default_catalog_and_schema("datafusion", "public")
        .with_ballista_logical_extension_codec(Arc::new(JetLogicalCodec::new(node.clone())))
        .with_ballista_physical_extension_codec(Arc::new(JetPhysicalCodec::new(node.clone())));
    config.options_mut().catalog.newlines_in_values = true;
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_limit(
            usize::try_from(node.memory_limit).unwrap_or(usize::MAX),
            1.0,
        )
        .build_arc()?;
    let state = jet_provider::jet_session_state_builder(config)
        .with_runtime_env(runtime)
        .build();
    let url = scheduler_url(address);
    let ctx = SessionContext::remote_with_state(&url, state)
        .await
        .map_err(|e| {
            DataFusionError::Configuration(format!(
                "cannot use scheduler {address}: {}",
                jet_provider::messages::plain(&e.to_string())
            ))
        })?;
    Ok(JetSession::new(ctx))
}
