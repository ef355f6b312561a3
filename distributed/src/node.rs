//! What every process of a cluster (client, scheduler, executor) needs to
//! plan and run Jet queries: its keyring, its memory limit, and the
//! session it plans in.

use crate::keyring::Keyring;
use datafusion::error::Result;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::session_state::SessionState;
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::prelude::SessionConfig;
use jet_storage::{Database, OpenOptions, Password};
use std::path::Path;
use std::sync::Arc;

/// One process's own configuration: the passwords it opens files with
/// and the memory a query may use.
#[derive(Debug, Clone)]
pub struct Node {
    /// Passwords by file (never sent anywhere).
    pub keyring: Keyring,
    /// Bytes a query may hold in memory (text functions that build a whole
    /// result check it too).
    pub memory_limit: u64,
}

impl Default for Node {
    fn default() -> Self {
        Node {
            keyring: Keyring::default(),
            memory_limit: jet_provider::frontdoor::default_memory_limit(),
        }
    }
}

impl Node {
    /// The password this process opens `path` with.
    pub fn password_for(&self, path: &Path) -> Option<Password> {
        self.keyring.password_for(path)
    }

    /// Opens the database at `path` for reading, with this process's
    /// password for it. The error names the file.
    pub fn open(&self, path: &Path) -> Result<Database> {
        let opts = OpenOptions {
            password: self.password_for(path),
            ..OpenOptions::default()
        };
        Database::open(path, opts).map_err(|e| {
            datafusion::error::DataFusionError::Execution(format!("{}: {e}", path.display()))
        })
    }

    /// The session state a scheduler plans in for a client's `config`:
    /// the Jet session's analyzer rules and table function, DataFusion's
    /// functions (with the shell's size checks) and physical optimizer
    /// rules, Ballista's logical rules. Access's functions are not
    /// registered by name: a plan names them as Access's (see
    /// [`crate::codec`]), so `log` or `round` in a plan always mean
    /// the function the client planned. The index-walk rules of a single
    /// machine (ordered walks, MIN/MAX from index ends) are left out: the
    /// cluster reads with scans and seeks. Ballista's adaptive planner is
    /// turned off (it can lose a job when an executor dies mid-query).
    pub fn session_state(&self, config: SessionConfig) -> Result<SessionState> {
        use ballista_core::extension::SessionConfigExt;
        // Ballista 55's adaptive planner loses track of a job whose finished
        // stages are rolled back when an executor dies (the job then never
        // ends); the static planner re-runs them
        let config = config.with_ballista_adaptive_query_planner(false);
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_limit(
                usize::try_from(self.memory_limit).unwrap_or(usize::MAX),
                1.0,
            )
            .build_arc()?;
        let mut scalars = ballista_core::extension::ballista_scalar_functions();
        for f in scalars.iter_mut() {
            *f = jet_provider::frontdoor::strings::size_checked(f.clone(), self.memory_limit);
        }
        let state = jet_provider::jet_session_state_builder(config)
            .with_runtime_env(runtime)
            .with_physical_optimizer_rules(PhysicalOptimizer::new().rules)
            .with_optimizer_rules(ballista_core::optimizer::ballista_default_optimizer_rules())
            .with_scalar_functions(scalars)
            .with_aggregate_functions(ballista_core::extension::ballista_aggregate_functions())
            .with_window_functions(ballista_core::extension::ballista_window_functions())
            .build();
        Ok(state)
    }

    /// The functions an executor resolves by name in the plans it runs:
    /// those of [`Self::session_state`].
    pub fn function_registry(
        &self,
    ) -> Result<Arc<ballista_core::registry::BallistaFunctionRegistry>> {
        let state = self.session_state(SessionConfig::new())?;
        Ok(Arc::new((&state).into()))
    }
}
