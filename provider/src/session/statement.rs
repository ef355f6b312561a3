//! The statement entry point for writes: [`JetSession`] parses SQL with
//! DataFusion's parser, handles `BEGIN` / `COMMIT` / `ROLLBACK` itself,
//! refuses the statements DataFusion 55 would run wrongly, and tells the
//! DELETE / UPDATE hooks whether the statement had a WHERE clause.
//!
//! Why: DataFusion 55's `delete_from` / `update` hooks receive no filters
//! when the WHERE clause holds a subquery, `EXISTS` or a constant
//! (upstream issue 24654), which reads as "every row"; `DELETE … LIMIT` is
//! ignored (24998); `UPDATE … FROM` is unsupported (19950). The hooks
//! refuse to run unless a [`DmlGuard`] installed by this entry point says
//! what the statement looked like.

use super::kind::{Kind, classify};
use crate::access::{Params, SqlDialect};
use crate::catalog::JetCatalogProvider;
use crate::error::{refuse, to_df};
use crate::handle::{JetHandle, JetOptions};
use crate::write::guard::DmlGuard;
use datafusion::arrow::array::RecordBatch;
use datafusion::common::DFSchema;
use datafusion::common::{ParamValues, ScalarValue};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::{EmptyRelation, LogicalPlan};
use datafusion::prelude::{DataFrame, SessionContext};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{CreateTable, ObjectName, Statement as SqlStatement};
use jet_storage::{Database, OpenOptions};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Whether a statement writes or names files (`COPY … TO`, `CREATE
/// EXTERNAL TABLE`, either under `EXPLAIN`).
fn touches_files(s: &DFStatement) -> bool {
    match s {
        DFStatement::CopyTo(_) | DFStatement::CreateExternalTable(_) => true,
        DFStatement::Explain(e) => touches_files(&e.statement),
        _ => false,
    }
}

/// The [`crate::frontdoor::copy`] checks of one statement.
fn file_checks(s: &mut DFStatement, protected: &[std::path::PathBuf]) -> Result<()> {
    match s {
        DFStatement::CopyTo(c) => crate::frontdoor::copy::check_copy(c, protected),
        DFStatement::CreateExternalTable(t) => {
            crate::frontdoor::copy::check_location(&t.locations, protected)
        }
        DFStatement::Explain(e) => file_checks(&mut e.statement, protected),
        _ => Ok(()),
    }
}

/// A DataFusion session with Jet databases registered, and the statement
/// entry point for writes. Every statement that changes a database is
/// one journaled transaction, unless an explicit `BEGIN` … `COMMIT`
/// groups several (then the whole group commits at once, or on
/// `ROLLBACK` or an error in `COMMIT` not at all).
pub struct JetSession {
    pub(super) ctx: SessionContext,
    guard: Arc<DmlGuard>,
    pub(super) handles: Mutex<Vec<(String, Arc<JetHandle>)>>,
    /// The catalog whose tables answer to bare names.
    pub(super) default_db: Mutex<Option<String>>,
    /// Which SQL the session reads.
    dialect: Mutex<SqlDialect>,
    /// Parameter values bound by name (Access `[Enter a value]`).
    pub(super) params: Arc<Mutex<Params>>,
    /// The state Access statements are planned in, built once (its
    /// catalogs are the context's own); dropped when `SET` changes the
    /// configuration.
    access_state: Mutex<Option<SessionState>>,
    /// Counts the statements that may change what names mean (any but a
    /// query) and the databases registered: part of
    /// [`JetSession::generation`].
    changes: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for JetSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JetSession").finish_non_exhaustive()
    }
}

impl JetSession {
    /// Wraps `ctx` (installs the [`DmlGuard`] the DELETE / UPDATE hooks
    /// require).
    pub fn new(ctx: SessionContext) -> Self {
        let guard = Arc::new(DmlGuard::default());
        ctx.state_ref()
            .write()
            .config_mut()
            .set_extension(guard.clone());
        // text functions that allocate their whole result check its size
        // against the memory limit first (frontdoor::strings), string_agg
        // and array_agg each batch (frontdoor::aggregates), and a plan
        // its constants repeated over a batch (frontdoor::constants)
        let limit = crate::frontdoor::strings::session_limit(&ctx);
        for name in crate::frontdoor::strings::CHECKED_FUNCTIONS {
            if let Ok(f) = datafusion::execution::FunctionRegistry::udf(&ctx, name) {
                ctx.register_udf(
                    crate::frontdoor::strings::size_checked(f, limit)
                        .as_ref()
                        .clone(),
                );
            }
        }
        for name in crate::frontdoor::aggregates::CHECKED_AGGREGATES {
            if let Ok(f) = datafusion::execution::FunctionRegistry::udaf(&ctx, name) {
                ctx.register_udaf(
                    crate::frontdoor::aggregates::size_checked_aggregate(f, limit)
                        .as_ref()
                        .clone(),
                );
            }
        }
        ctx.add_optimizer_rule(Arc::new(
            crate::frontdoor::constants::RepeatedConstants::new(limit),
        ));
        JetSession {
            ctx,
            guard,
            handles: Mutex::new(Vec::new()),
            default_db: Mutex::new(None),
            dialect: Mutex::new(SqlDialect::DataFusion),
            params: Arc::new(Mutex::new(Params::default())),
            access_state: Mutex::new(None),
            changes: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// A number that changes whenever a plan made before may read
    /// something else now: a registered database's image replaced
    /// ([`JetHandle::generation`]), a database registered, or any
    /// statement but a query run (DDL, `SET`, a view created).
    pub fn generation(&self) -> u64 {
        let mut g = self.changes.load(std::sync::atomic::Ordering::SeqCst);
        for h in self.handles() {
            g = g.wrapping_add(h.generation().wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
        g
    }

    fn changed(&self) {
        self.changes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// The DataFusion context.
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// Opens the database at `path` and registers it as catalog `name`
    /// (tables `name.public."Table"`); with `default_schema` its tables
    /// also answer to bare names. Writable only with `options.writable`.
    pub fn register(
        &self,
        name: &str,
        path: impl AsRef<Path>,
        options: JetOptions,
        default_schema: bool,
    ) -> Result<Arc<JetHandle>> {
        let open = OpenOptions {
            password: options.password.clone(),
            ..OpenOptions::default()
        };
        let db = Database::open(path.as_ref(), open).map_err(to_df)?;
        self.register_database(name, db, options, default_schema)
    }

    /// [`JetSession::register`] for a database the caller opened (from a
    /// file: only then can it be written).
    pub fn register_database(
        &self,
        name: &str,
        db: Database,
        options: JetOptions,
        default_schema: bool,
    ) -> Result<Arc<JetHandle>> {
        let handle = Arc::new(JetHandle::new(db, options));
        self.register_handle(name, handle.clone(), default_schema)?;
        Ok(handle)
    }

    /// Registers a database another session opened (its handle is shared:
    /// both sessions read the same committed image, and a transaction
    /// begun on it is the handle's, so share only read-only handles or
    /// serialise the writers) as catalog `name`, as
    /// [`JetSession::register_database`] does.
    pub fn register_handle(
        &self,
        name: &str,
        handle: Arc<JetHandle>,
        default_schema: bool,
    ) -> Result<()> {
        self.changed();
        let catalog = Arc::new(JetCatalogProvider::with_handle(handle.clone()));
        catalog
            .jet_schema()
            .set_view_planner(Arc::new(crate::access::views::ViewPlanner::new(
                self.ctx.state_weak_ref(),
                self.params.clone(),
                name,
            )));
        self.ctx.register_catalog(name, catalog.clone());
        if default_schema {
            let opts = self.ctx.state().config().options().catalog.clone();
            let schema = datafusion::catalog::CatalogProvider::schema(catalog.as_ref(), "public")
                .ok_or_else(|| DataFusionError::Internal("no public schema".into()))?;
            self.ctx
                .catalog(&opts.default_catalog)
                .ok_or_else(|| refuse("no default catalog"))?
                .register_schema(&opts.default_schema, schema)?;
            self.set_default_database(name)?;
        }
        self.handles
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .push((name.to_string(), handle));
        Ok(())
    }

    /// Says that bare table names (and `CREATE TABLE` of a bare name) mean
    /// catalog `name`, registered before with [`JetSession::register`];
    /// for a caller that installs its own default schema over that
    /// database's tables.
    pub fn set_default_database(&self, name: &str) -> Result<()> {
        *self
            .default_db
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))? =
            Some(name.to_string());
        Ok(())
    }

    fn handles(&self) -> Vec<Arc<JetHandle>> {
        self.handles
            .lock()
            .map(|h| h.iter().map(|(_, h)| h.clone()).collect())
            .unwrap_or_default()
    }

    fn writable(&self) -> Vec<Arc<JetHandle>> {
        self.handles()
            .into_iter()
            .filter(|h| h.options().writable)
            .collect()
    }

    /// Runs every statement of `sql` in order and returns the batches of
    /// the last one. Stops at the first error (statements before it keep
    /// their effect, as in any SQL shell; an open explicit transaction
    /// stays open).
    /// A panic inside the engine comes back as an error.
    pub async fn sql(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        crate::frontdoor::catch_panic(async {
            let mut last = Vec::new();
            for s in self.parse(sql).await? {
                last = self.statement(s, self.dialect()).await?;
            }
            Ok(last)
        })
        .await
    }

    /// Like [`JetSession::sql`], but the last statement comes back as a
    /// DataFrame: a query is planned and not yet run (so its rows can be
    /// streamed); a statement this entry point carries out itself, and a
    /// DELETE / UPDATE, has already run and the frame holds its result
    /// (the `count` row, or nothing). A panic while preparing comes back as
    /// an error (the caller runs the frame: see
    /// [`crate::frontdoor::catch_panic`]).
    pub async fn sql_frame(&self, sql: &str) -> Result<DataFrame> {
        crate::frontdoor::catch_panic(self.sql_frame_inner(sql)).await
    }

    async fn sql_frame_inner(&self, sql: &str) -> Result<DataFrame> {
        let mut statements = self.parse(sql).await?;
        let Some(last) = statements.pop() else {
            return Ok(self.empty_frame());
        };
        for s in statements {
            self.statement(s, self.dialect()).await?;
        }
        self.frame_of(last, None).await
    }

    /// The frame of one prepared statement (see [`JetSession::sql_frame`]),
    /// with `params` put in for its placeholders.
    pub(super) async fn frame_of(
        &self,
        s: DFStatement,
        params: Option<&ParamValues>,
    ) -> Result<DataFrame> {
        let dialect = self.dialect();
        if matches!(classify(&s)?, Kind::Other) {
            let plan = self.plan(s, dialect, params).await?;
            return self.ctx.execute_logical_plan(plan).await;
        }
        let batches = self.statement_with(s, dialect, params).await?;
        if batches.is_empty() {
            return Ok(self.empty_frame());
        }
        self.ctx.read_batches(batches)
    }

    fn empty_frame(&self) -> DataFrame {
        DataFrame::new(
            self.ctx.state(),
            LogicalPlan::EmptyRelation(EmptyRelation {
                produce_one_row: false,
                schema: Arc::new(DFSchema::empty()),
            }),
        )
    }

    /// Parses `sql` in the session's dialect; names are resolved against
    /// the catalog ignoring case (both dialects), Access constructs are
    /// translated (see [`crate::access`]).
    /// Statements too deep or too long are refused first
    /// ([`crate::frontdoor::shape`]); `COPY … TO` and `CREATE EXTERNAL
    /// TABLE` are checked against the open databases
    /// ([`crate::frontdoor::copy`]).
    pub(super) async fn parse(&self, sql: &str) -> Result<Vec<DFStatement>> {
        use crate::frontdoor::shape::{Reading, check_in};
        let reading = match self.dialect() {
            SqlDialect::Access => Reading::Access,
            SqlDialect::DataFusion => Reading::DataFusion,
        };
        check_in(sql, reading)?;
        let mut statements = self.parse_checked(sql).await?;
        if statements.iter().any(touches_files) {
            let protected = crate::frontdoor::copy::protected_files(&self.database_paths());
            for s in &mut statements {
                file_checks(s, &protected)?;
            }
        }
        Ok(statements)
    }

    /// The files of the registered databases.
    fn database_paths(&self) -> Vec<std::path::PathBuf> {
        self.handles()
            .iter()
            .filter_map(|h| h.database().ok())
            .filter_map(|db| db.path().map(Path::to_path_buf))
            .collect()
    }

    async fn parse_checked(&self, sql: &str) -> Result<Vec<DFStatement>> {
        let dialect = self.dialect();
        let params = self
            .params
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        Ok(crate::access::prepare(sql, dialect, &self.ctx, &params)
            .await?
            .into_iter()
            .map(|p| p.statement)
            .collect())
    }

    /// The state statements are planned in: the context's, plus the Access
    /// operators and functions in the Access dialect.
    pub(super) fn planning_state(&self, dialect: SqlDialect) -> Result<SessionState> {
        match dialect {
            SqlDialect::Access => {
                let mut cached = self
                    .access_state
                    .lock()
                    .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?;
                if let Some(s) = cached.as_ref() {
                    return Ok(s.clone());
                }
                let s = crate::access::access_state(&self.ctx)?;
                *cached = Some(s.clone());
                Ok(s)
            }
            SqlDialect::DataFusion => Ok(self.ctx.state()),
        }
    }

    /// The SQL dialect statements are read in.
    pub fn dialect(&self) -> SqlDialect {
        self.dialect.lock().map(|d| *d).unwrap_or_default()
    }

    /// Chooses the SQL dialect of the statements that follow.
    pub fn set_dialect(&self, dialect: SqlDialect) {
        if let Ok(mut d) = self.dialect.lock() {
            *d = dialect;
        }
    }

    /// Binds a parameter value by name (`[Enter a date]` in Access SQL;
    /// names match ignoring case). Unbound parameters are an error that
    /// names them.
    pub fn bind(&self, name: &str, value: ScalarValue) {
        if let Ok(mut p) = self.params.lock() {
            p.bind(name, value);
        }
    }

    /// Removes every parameter binding.
    pub fn clear_params(&self) {
        if let Ok(mut p) = self.params.lock() {
            p.clear();
        }
    }

    /// The names of the bound parameters.
    pub fn param_names(&self) -> Vec<String> {
        self.params.lock().map(|p| p.names()).unwrap_or_default()
    }

    /// Runs one statement; one that writes runs holding the writer lock of
    /// every writable database (taken before planning, so everything it
    /// reads is the image it changes: writers are serializable).
    /// Statements prepared in the Access dialect are planned in the Access
    /// state (`dialect`), whatever the session's dialect.
    pub(super) async fn statement(
        &self,
        s: DFStatement,
        dialect: SqlDialect,
    ) -> Result<Vec<RecordBatch>> {
        self.statement_with(s, dialect, None).await
    }

    /// [`JetSession::statement`] with values for the statement's `$n`
    /// placeholders (INSERT, UPDATE, DELETE and queries take them; the
    /// statements this entry point carries out itself refuse them).
    pub(super) async fn statement_with(
        &self,
        s: DFStatement,
        dialect: SqlDialect,
        params: Option<&ParamValues>,
    ) -> Result<Vec<RecordBatch>> {
        if matches!(&s, DFStatement::Statement(st) if matches!(st.as_ref(), SqlStatement::Set(_)))
            && let Ok(mut cached) = self.access_state.lock()
        {
            // the configuration changes: plan Access statements anew
            *cached = None;
        }
        let kind = classify(&s)?;
        if !matches!(kind, Kind::Other) {
            self.changed();
        }
        if let Kind::Execute(name, args) = &kind {
            if let Some(found) = self.find_saved_query(name)? {
                return Box::pin(self.execute_saved(found, args)).await;
            }
            // not a saved query: DataFusion's prepared statement
            return self.dispatch(Kind::Other, s, dialect, params).await;
        }
        if params.is_some() && !kind.takes_parameters() {
            return Err(refuse(
                "parameters ($1, $2, …) are not supported in CREATE, ALTER, DROP, BEGIN, COMMIT, ROLLBACK or EXECUTE; nothing changed",
            ));
        }
        if !kind.writes() {
            return self.dispatch(kind, s, dialect, params).await;
        }
        let mut held: Vec<Arc<JetHandle>> = Vec::new();
        for h in self.writable() {
            if h.in_transaction() {
                continue;
            }
            if let Err(e) = h.lock_for_statement() {
                for h in &held {
                    h.unlock_statement();
                }
                return Err(e);
            }
            held.push(h);
        }
        let out = self.dispatch(kind, s, dialect, params).await;
        for h in &held {
            h.unlock_statement();
        }
        out
    }

    async fn dispatch(
        &self,
        kind: Kind,
        s: DFStatement,
        dialect: SqlDialect,
        params: Option<&ParamValues>,
    ) -> Result<Vec<RecordBatch>> {
        match kind {
            Kind::Begin => {
                let hs = self.writable();
                if hs.is_empty() {
                    return Err(refuse(
                        "BEGIN: every database is open read-only (open one for writing: jetsql --write)",
                    ));
                }
                for (i, h) in hs.iter().enumerate() {
                    if let Err(e) = h.begin() {
                        for h in hs.iter().take(i) {
                            let _ = h.rollback();
                        }
                        return Err(e);
                    }
                }
                Ok(Vec::new())
            }
            Kind::Commit => {
                let hs: Vec<_> = self
                    .writable()
                    .into_iter()
                    .filter(|h| h.in_transaction())
                    .collect();
                if hs.is_empty() {
                    return Err(refuse("COMMIT without BEGIN"));
                }
                for h in hs {
                    h.commit()?;
                }
                Ok(Vec::new())
            }
            Kind::Rollback => {
                let hs: Vec<_> = self
                    .writable()
                    .into_iter()
                    .filter(|h| h.in_transaction())
                    .collect();
                if hs.is_empty() {
                    return Err(refuse("ROLLBACK without BEGIN"));
                }
                for h in hs {
                    h.rollback()?;
                }
                Ok(Vec::new())
            }
            Kind::DropTable(names, if_exists) => self.drop_tables(&names, if_exists).await,
            Kind::CreateTable(ct) => match self.create_target(&ct.name, dialect)? {
                Some((handle, catalog, table)) => {
                    self.create_table(&handle, &catalog, &table, &ct, dialect)
                        .await
                }
                None => self.run(s, dialect).await,
            },
            Kind::CreateIndex(ci) => {
                if let (Some(handle), real) = self.resolve_jet_table(&ci.table_name.to_string())? {
                    return self.create_jet_index(&handle, &real, &ci);
                }
                self.run(s, dialect).await
            }
            Kind::DropIndex(names, table, if_exists) => {
                match self.drop_jet_indexes(&names, table.as_ref(), if_exists)? {
                    Some(done) => Ok(done),
                    None => self.run(s, dialect).await,
                }
            }
            Kind::AlterTable(at) => self.alter_table(&at),
            Kind::Dml(has_where) => {
                self.guard.set(Some(has_where));
                let out = self.run_with(s, dialect, params).await;
                self.guard.set(None);
                out
            }
            Kind::Insert | Kind::Other | Kind::Execute(..) => {
                self.run_with(s, dialect, params).await
            }
        }
    }

    async fn run(&self, s: DFStatement, dialect: SqlDialect) -> Result<Vec<RecordBatch>> {
        self.run_with(s, dialect, None).await
    }

    async fn run_with(
        &self,
        s: DFStatement,
        dialect: SqlDialect,
        params: Option<&ParamValues>,
    ) -> Result<Vec<RecordBatch>> {
        let plan = self.plan(s, dialect, params).await?;
        self.ctx.execute_logical_plan(plan).await?.collect().await
    }

    /// The logical plan of `s` in `dialect`, with `params` put in for its
    /// placeholders.
    pub(super) async fn plan(
        &self,
        s: DFStatement,
        dialect: SqlDialect,
        params: Option<&ParamValues>,
    ) -> Result<LogicalPlan> {
        let plan = self.planning_state(dialect)?.statement_to_plan(s).await?;
        match params {
            Some(p) => {
                let p = super::parameters::fit_parameters(&plan, p)?;
                plan.with_param_values(p)
            }
            None => Ok(plan),
        }
    }

    /// Whether unquoted names of new tables and columns are lower-cased:
    /// in the DataFusion dialect when the session normalizes identifiers
    /// (DataFusion resolves column names case-sensitively); never in the
    /// Access dialect, which keeps the spelling typed (`CREATE TABLE
    /// MyContacts (FirstName …)` is written so) and resolves names
    /// ignoring case.
    fn normalizes(&self, dialect: SqlDialect) -> bool {
        dialect == SqlDialect::DataFusion
            && self
                .ctx
                .state()
                .config()
                .options()
                .sql_parser
                .enable_ident_normalization
    }

    /// Where `CREATE TABLE name` goes: (handle, catalog, table name) when
    /// the name resolves to a Jet database that is writable, or is
    /// qualified with a Jet catalog (read-only: an error); `None` when
    /// DataFusion should create a session table (an unknown catalog, or a
    /// bare name while the default database is read-only).
    fn create_target(
        &self,
        name: &ObjectName,
        dialect: SqlDialect,
    ) -> Result<Option<(Arc<JetHandle>, String, String)>> {
        let parts = crate::write::ddl::name_parts(name, self.normalizes(dialect));
        let handles = self
            .handles
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let default = self
            .default_db
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let find = |c: &str| {
            handles
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(c))
                .map(|(n, h)| (n.clone(), h.clone()))
        };
        let (found, table, qualified) = match parts.as_slice() {
            [t] => (default.as_deref().and_then(find), t.clone(), false),
            [c, t] => (find(c), t.clone(), true),
            [c, s, t] if s.eq_ignore_ascii_case("public") => (find(c), t.clone(), true),
            _ => (None, String::new(), true),
        };
        let Some((catalog, handle)) = found else {
            return Ok(None);
        };
        if !handle.options().writable {
            if !qualified {
                return Ok(None);
            }
            return Err(refuse(format!(
                "CREATE TABLE {table:?}: database {catalog:?} is open read-only \
                 (open it for writing: jetsql --write); nothing changed"
            )));
        }
        Ok(Some((handle, catalog, table)))
    }

    /// `CREATE TABLE` in a Jet database, one transaction: the table (and
    /// for `AS SELECT` its rows). Returns the inserted row count for
    /// `AS SELECT`.
    async fn create_table(
        &self,
        handle: &Arc<JetHandle>,
        catalog: &str,
        table: &str,
        ct: &CreateTable,
        dialect: SqlDialect,
    ) -> Result<Vec<RecordBatch>> {
        if ct.or_replace || ct.temporary || ct.external || ct.like.is_some() || ct.clone.is_some() {
            return Err(refuse(format!(
                "CREATE TABLE {table:?}: OR REPLACE, TEMPORARY, EXTERNAL, LIKE and CLONE are not supported \
                 for Jet tables; nothing changed"
            )));
        }
        let db = handle.database()?;
        let exists = db
            .table_names()
            .into_iter()
            .chain(db.system_table_names())
            .find(|n| n.eq_ignore_ascii_case(table));
        if let Some(existing) = exists {
            if ct.if_not_exists {
                return Ok(Vec::new());
            }
            return Err(refuse(format!(
                "CREATE TABLE {table:?}: database {catalog:?} already has a table {existing:?}; nothing changed"
            )));
        }
        let Some(query) = &ct.query else {
            let spec = crate::write::ddl::table_spec(ct, table, self.normalizes(dialect))?;
            handle.write(|_| Ok(()), |tx, ()| tx.create_table(&spec))?;
            return Ok(Vec::new());
        };
        if !ct.columns.is_empty() || !ct.constraints.is_empty() {
            return Err(refuse(format!(
                "CREATE TABLE {table:?} AS SELECT: a column list or constraints with AS SELECT are not supported; \
                 CAST in the query to choose types; nothing changed"
            )));
        }
        let plan = self
            .planning_state(dialect)?
            .statement_to_plan(DFStatement::Statement(Box::new(SqlStatement::Query(
                query.clone(),
            ))))
            .await?;
        let df = self.ctx.execute_logical_plan(plan).await?;
        let schema = df.schema().as_arrow().clone();
        let spec = crate::write::ddl::spec_from_schema(table, &schema, db.version())?;
        drop(db);
        let batches = df.collect().await?;
        let name = spec.name.clone();
        let n = handle.write(
            |_| Ok(()),
            |tx, ()| {
                tx.create_table(&spec)?;
                let mut n = 0u64;
                for b in batches.iter().filter(|b| b.num_rows() > 0) {
                    n += tx.insert(&name, b)?.len() as u64;
                }
                Ok(n)
            },
        )?;
        Ok(vec![crate::write::dml::count_batch(n)?])
    }

    async fn drop_tables(&self, names: &[String], if_exists: bool) -> Result<Vec<RecordBatch>> {
        for name in names {
            let (handle, table) = self.resolve_jet_table(name)?;
            let Some(handle) = handle else {
                if if_exists {
                    continue;
                }
                return Err(refuse(format!("DROP TABLE: no Jet table {name:?}")));
            };
            handle.write(|_| Ok(()), |tx, ()| tx.drop_table(&table))?;
        }
        Ok(Vec::new())
    }

    /// The handle and the Access name of a (possibly qualified) table name.
    pub(super) fn resolve_jet_table(&self, name: &str) -> Result<(Option<Arc<JetHandle>>, String)> {
        let parts: Vec<String> = name
            .split('.')
            .map(|p| {
                p.trim_matches(|c| c == '"' || c == '[' || c == ']')
                    .to_string()
            })
            .collect();
        let handles = self
            .handles
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let default = self
            .default_db
            .lock()
            .map_err(|_| DataFusionError::Internal("lock poisoned".into()))?
            .clone();
        let (catalog, table) = match parts.as_slice() {
            // a bare name is the default database's (any database's when
            // none is the default)
            [t] => (default, t.clone()),
            [c, _, t] => (Some(c.clone()), t.clone()),
            [c, t] => (Some(c.clone()), t.clone()),
            _ => return Err(refuse(format!("bad table name {name:?}"))),
        };
        for (cname, h) in handles {
            if catalog
                .as_ref()
                .is_some_and(|c| !c.eq_ignore_ascii_case(&cname))
            {
                continue;
            }
            let db = h.database()?;
            if let Some(real) = db
                .table_names()
                .into_iter()
                .find(|n| n.eq_ignore_ascii_case(&table))
            {
                return Ok((Some(h), real));
            }
        }
        Ok((None, table))
    }
}
