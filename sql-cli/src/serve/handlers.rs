//! One connection's protocol handlers (pgwire's traits): startup (the
//! password exchange of a server with `--users`, the database asked for,
//! the dialect, the connection limit), simple query
//! (a text of one or more statements), and the extended protocol (Parse
//! plans and describes once, Bind reads the parameters, Execute runs;
//! rows in text or binary as each column asks).

use super::auth::{Pending, Refused, Right};
use super::catalog::{Answer, Catalog, Claimed};
use super::encode::{self, Column};
use super::errors::{error, from_engine, info};
use super::limits::{self, Stop};
use super::local::{self, Local, Settings};
use super::params;
use super::server::Server;
use super::types::pg_type;
use super::writes::{Gate, Held, Tx};
use crate::script::{Item, split};
use async_trait::async_trait;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::common::ParamValues;
use datafusion::error::DataFusionError;
use datafusion::sql::parser::Statement as DFStatement;
use futures::{Sink, SinkExt, StreamExt, stream};
use jet_provider::session::{PlannedQuery, StatementKind};
use jet_provider::{JetSession, SqlDialect};
use pgwire::api::auth::{
    DefaultServerParameterProvider, StartupHandler, finish_authentication, protocol_negotiation,
    save_startup_parameters_to_metadata,
};
use pgwire::api::cancel::DefaultCancelHandler;
use pgwire::api::portal::{Format, Portal};
use pgwire::api::query::{ExtendedQueryHandler, SimpleQueryHandler};
use pgwire::api::results::{
    DescribePortalResponse, DescribeResponse, DescribeStatementResponse, FieldFormat, FieldInfo,
    QueryResponse, Response, Tag,
};
use pgwire::api::stmt::{QueryParser, StoredStatement};
use pgwire::api::store::PortalStore;
use pgwire::api::{
    ClientInfo, ClientPortalStore, ConnectionGuard, ConnectionHandle, METADATA_DATABASE,
    METADATA_USER, PgWireConnectionState, PgWireServerHandlers, PidSecretKeyGenerator,
    RandomPidSecretKeyGenerator, Type,
};
use pgwire::error::{ErrorInfo, PgWireError, PgWireResult};
use pgwire::messages::response::TransactionStatus;
use pgwire::messages::startup::{Authentication, PasswordMessageFamily};
use pgwire::messages::{PgWireBackendMessage, PgWireFrontendMessage};
use std::fmt::Debug;
use std::sync::{Arc, Mutex, OnceLock};

/// The version clients are told (`server_version`): the PostgreSQL whose
/// protocol and catalog the server follows, and jetsql's own.
pub const SERVER_VERSION: &str = concat!("16.6 (jetsql ", env!("CARGO_PKG_VERSION"), ")");

/// One connection after startup: its session and parameters.
pub struct Conn {
    session: JetSession,
    /// The catalog, built at the first catalog statement and again when
    /// the session's databases changed (the generation it was built at).
    catalog: tokio::sync::Mutex<Option<(u64, Arc<Catalog>)>>,
    /// The database the connection reads, and every one served.
    served: (String, Arc<jet_provider::JetHandle>, Vec<String>),
    settings: Arc<Mutex<Settings>>,
    /// The dialect the connection started in (`RESET` goes back to it).
    start_dialect: SqlDialect,
    /// What the connection's user may do.
    right: Right,
    /// The server's write gate (a `--write` server).
    gate: Option<Arc<Gate>>,
    /// Where the connection stands with transactions.
    tx: Mutex<Tx>,
    /// Where its cancel requests arrive.
    cancel: Arc<ConnectionHandle>,
    /// Its entry among the server's cancel keys (removed with it).
    _cancel_key: ConnectionGuard,
    /// The server's longest statement.
    server_timeout: Option<std::time::Duration>,
}

/// A statement as Parse leaves it.
#[derive(Clone)]
pub enum Prepared {
    /// Only blanks and `;`.
    Empty,
    /// Answered by the connection ([`local`]).
    Local(Local),
    /// Run by the engine.
    Engine(Arc<EngineStatement>),
    /// Answered from the PostgreSQL catalog.
    Catalog(Arc<CatalogStatement>),
}

/// A catalog statement, rewritten and described at Parse.
pub struct CatalogStatement {
    stmt: datafusion::sql::sqlparser::ast::Statement,
    params: Vec<Option<DataType>>,
    schema: SchemaRef,
}

/// A statement of the engine, planned and described at Parse.
pub struct EngineStatement {
    stmt: DFStatement,
    /// The types of `$1`, `$2`, … (`None`: not fixed by the plan).
    params: Vec<Option<DataType>>,
    schema: SchemaRef,
    /// A query's plan with its placeholders open, made at Parse and
    /// made again when the databases changed (writes, DDL).
    planned: Mutex<Option<PlannedQuery>>,
}

/// The handlers of one connection (pgwire asks a fresh set for each
/// socket; the connection's state lives here).
pub struct Handlers {
    server: Arc<Server>,
    /// Set by startup.
    conn: Arc<OnceLock<Arc<Conn>>>,
    /// Whether the connection is within the server's limit; one over it is
    /// refused at startup (53300).
    admitted: bool,
    parser: Arc<Parser>,
    /// The password exchange of a server with users.
    auth: Arc<Mutex<AuthState>>,
}

/// Where a connection's SCRAM exchange stands.
enum AuthState {
    /// No SASL message yet.
    Start,
    /// The server-first message was sent.
    Waiting(Pending),
    /// Over (done, or failed and the connection closing).
    Over,
}

impl Handlers {
    /// The handlers of a new connection.
    pub fn new(server: Arc<Server>, admitted: bool) -> Handlers {
        let conn: Arc<OnceLock<Arc<Conn>>> = Arc::new(OnceLock::new());
        Handlers {
            server,
            parser: Arc::new(Parser { conn: conn.clone() }),
            conn,
            admitted,
            auth: Arc::new(Mutex::new(AuthState::Start)),
        }
    }

    fn conn(&self) -> PgWireResult<Arc<Conn>> {
        self.conn
            .get()
            .cloned()
            .ok_or_else(|| error("08P01", "no query before startup"))
    }
}

impl PgWireServerHandlers for Handlers {
    fn simple_query_handler(&self) -> Arc<impl SimpleQueryHandler> {
        Arc::new(self.clone_ref())
    }

    fn extended_query_handler(&self) -> Arc<impl ExtendedQueryHandler> {
        Arc::new(self.clone_ref())
    }

    fn startup_handler(&self) -> Arc<impl StartupHandler> {
        Arc::new(self.clone_ref())
    }

    fn cancel_handler(&self) -> Arc<impl pgwire::api::cancel::CancelHandler> {
        Arc::new(DefaultCancelHandler::new(self.server.cancels.clone()))
    }
}

impl Handlers {
    fn clone_ref(&self) -> Handlers {
        Handlers {
            server: self.server.clone(),
            conn: self.conn.clone(),
            admitted: self.admitted,
            parser: self.parser.clone(),
            auth: self.auth.clone(),
        }
    }
}

fn fatal(code: &str, message: impl Into<String>) -> PgWireError {
    PgWireError::UserError(Box::new(ErrorInfo::new(
        "FATAL".to_string(),
        code.to_string(),
        message.into(),
    )))
}

/// `jetsql.dialect` from the startup packet: a parameter of that name, or
/// `-c jetsql.dialect=…` / `--jetsql.dialect=…` in `options` (libpq's
/// `PGOPTIONS`).
fn startup_dialect(metadata: &std::collections::HashMap<String, String>) -> Option<String> {
    if let Some(d) = metadata.get("jetsql.dialect") {
        return Some(d.clone());
    }
    let options = metadata.get("options")?;
    let words: Vec<&str> = options.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let setting = match words[i] {
            "-c" => {
                i += 1;
                words.get(i).copied()
            }
            w => w.strip_prefix("-c").or_else(|| w.strip_prefix("--")),
        };
        if let Some((k, v)) = setting.and_then(|s| s.split_once('='))
            && k.eq_ignore_ascii_case("jetsql.dialect")
        {
            return Some(v.to_string());
        }
        i += 1;
    }
    None
}

#[async_trait]
impl StartupHandler for Handlers {
    async fn on_startup<C>(
        &self,
        client: &mut C,
        message: PgWireFrontendMessage,
    ) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        match message {
            PgWireFrontendMessage::Startup(ref startup) => {
                protocol_negotiation(client, startup).await?;
                save_startup_parameters_to_metadata(client, startup);
                if !self.admitted {
                    return Err(fatal(
                        "53300",
                        format!(
                            "sorry, too many clients already (this server takes {})",
                            self.server.max_connections
                        ),
                    ));
                }
                if self.server.users.is_none() {
                    return self.admit(client, self.server.right(None)).await;
                }
                client.set_state(PgWireConnectionState::AuthenticationInProgress);
                client
                    .send(PgWireBackendMessage::Authentication(Authentication::SASL(
                        vec![SCRAM.to_string()],
                    )))
                    .await?;
                Ok(())
            }
            PgWireFrontendMessage::PasswordMessageFamily(msg) => {
                let right = self.password(client, msg).await?;
                match right {
                    Some(right) => self.admit(client, right).await,
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

/// The one SASL mechanism offered.
const SCRAM: &str = "SCRAM-SHA-256";

impl Handlers {
    /// One message of the SCRAM exchange: the user's right once the proof
    /// holds, `None` while the exchange goes on.
    async fn password<C>(
        &self,
        client: &mut C,
        msg: PasswordMessageFamily,
    ) -> PgWireResult<Option<Right>>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let Some(users) = &self.server.users else {
            return Err(fatal("08P01", "a password message, but none was asked for"));
        };
        let PasswordMessageFamily::Raw(body) = msg else {
            return Err(fatal("08P01", "a password message out of order"));
        };
        let user = client
            .metadata()
            .get(METADATA_USER)
            .cloned()
            .unwrap_or_default();
        let refused = |r: Refused| match r {
            Refused::Protocol(m) => fatal("08P01", m),
            Refused::Password => {
                eprintln!("jetsql serve: password authentication failed for user \"{user}\"");
                fatal(
                    "28P01",
                    format!("password authentication failed for user \"{user}\""),
                )
            }
        };
        let state = std::mem::replace(
            &mut *self
                .auth
                .lock()
                .map_err(|_| fatal("XX000", "authentication state lost"))?,
            AuthState::Over,
        );
        match state {
            AuthState::Start => {
                let first = jet_kernels::scram::initial_response(&body)
                    .map_err(|r| fatal("08P01", r.reason()))?;
                if first.mechanism != SCRAM.as_bytes() {
                    return Err(fatal(
                        "28000",
                        format!(
                            "SASL mechanism {} is not offered; this server takes {SCRAM}",
                            String::from_utf8_lossy(first.mechanism)
                        ),
                    ));
                }
                let data = first
                    .data
                    .ok_or_else(|| fatal("08P01", "SCRAM: no client-first message"))?;
                let (server_first, pending) = users.first(&user, data).map_err(refused)?;
                client
                    .send(PgWireBackendMessage::Authentication(
                        Authentication::SASLContinue(server_first.into_bytes().into()),
                    ))
                    .await?;
                *self
                    .auth
                    .lock()
                    .map_err(|_| fatal("XX000", "authentication state lost"))? =
                    AuthState::Waiting(pending);
                Ok(None)
            }
            AuthState::Waiting(pending) => {
                let (server_final, right) = pending.finish(&body).map_err(refused)?;
                client
                    .send(PgWireBackendMessage::Authentication(
                        Authentication::SASLFinal(server_final.into_bytes().into()),
                    ))
                    .await?;
                Ok(Some(self.server.right(Some(right))))
            }
            AuthState::Over => Err(fatal("08P01", "a password message after authentication")),
        }
    }

    /// Lets an authenticated client in with `right`: its database, its
    /// session and catalog, then ReadyForQuery.
    async fn admit<C>(&self, client: &mut C, right: Right) -> PgWireResult<()>
    where
        C: ClientInfo + Sink<PgWireBackendMessage> + Unpin + Send,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let asked = client.metadata().get(METADATA_DATABASE).cloned();
        let Some(served) = self.server.database(asked.as_deref()) else {
            let names: Vec<&str> = self.server.served.iter().map(|s| s.name.as_str()).collect();
            return Err(fatal(
                "3D000",
                format!(
                    "database \"{}\" does not exist; this server serves {}",
                    asked.unwrap_or_default(),
                    names.join(", ")
                ),
            ));
        };
        let session = self
            .server
            .session(served, right)
            .map_err(|e| fatal("XX000", from_engine(&e).message))?;
        let mut settings = Settings::new(self.server.dialect, right == Right::Write);
        let mut dialect = self.server.dialect;
        if let Some(d) = startup_dialect(client.metadata()) {
            match settings.set("jetsql.dialect", &d) {
                Ok(Some(chosen)) => dialect = chosen,
                Ok(None) => {}
                Err(e) => return Err(fatal("22023", e)),
            }
        }
        if let Some(app) = client.metadata().get("application_name").cloned() {
            let _ = settings.set("application_name", &app);
        }
        session.set_dialect(dialect);
        let settings = Arc::new(Mutex::new(settings));
        let (pid, key) = PIDS.generate(client);
        client.set_pid_and_secret_key(pid, key.clone());
        let (cancel, cancel_key) = self.server.cancels.register(pid, key);
        let conn = Arc::new(Conn {
            session,
            catalog: tokio::sync::Mutex::new(None),
            served: (
                served.name.clone(),
                served.handle.clone(),
                self.server.served.iter().map(|s| s.name.clone()).collect(),
            ),
            settings,
            start_dialect: dialect,
            right,
            gate: self.server.gate.clone(),
            tx: Mutex::new(Tx::default()),
            cancel,
            _cancel_key: cancel_key,
            server_timeout: self.server.statement_timeout,
        });
        let _ = self.conn.set(conn);
        let mut parameters = DefaultServerParameterProvider::default();
        parameters.server_version = SERVER_VERSION.to_string();
        parameters.is_superuser = false;
        parameters.default_transaction_read_only = right == Right::Read;
        parameters.time_zone = "UTC".to_string();
        finish_authentication(client, &parameters).await
    }
}

static PIDS: std::sync::LazyLock<RandomPidSecretKeyGenerator> =
    std::sync::LazyLock::new(RandomPidSecretKeyGenerator::default);

/// Whether `sql` is only blanks, `;` and comments of the dialect.
fn is_empty(sql: &str) -> bool {
    sql.trim().trim_matches(';').trim().is_empty()
}

/// The format of column or parameter `i` of `n`, checked: a Bind whose
/// list of format codes is neither empty, one, nor one per column is a
/// protocol error, not a panic.
fn format_at(f: &Format, i: usize, n: usize) -> PgWireResult<FieldFormat> {
    match f {
        Format::Individual(codes) if codes.len() != n => Err(error(
            "08P01",
            format!("{} format codes for {n} values", codes.len()),
        )),
        Format::Individual(codes) => Ok(match codes.get(i) {
            Some(1) => FieldFormat::Binary,
            _ => FieldFormat::Text,
        }),
        Format::UnifiedBinary => Ok(FieldFormat::Binary),
        Format::UnifiedText => Ok(FieldFormat::Text),
    }
}

/// The `RowDescription` fields of `schema`, each in its format.
fn fields(schema: &SchemaRef, formats: &[FieldFormat]) -> Vec<FieldInfo> {
    schema
        .fields()
        .iter()
        .zip(formats)
        .map(|(f, format)| {
            let (ty, typmod) = pg_type(f);
            FieldInfo::new(f.name().clone(), None, None, ty.clone(), *format)
                .with_type_modifier(typmod)
                .with_type_size(type_size(&ty))
        })
        .collect()
}

/// `pg_type.typlen` of `ty`.
fn type_size(ty: &Type) -> i16 {
    match *ty {
        Type::BOOL => 1,
        Type::INT2 => 2,
        Type::INT4 | Type::FLOAT4 | Type::DATE => 4,
        Type::INT8 | Type::FLOAT8 | Type::TIMESTAMP | Type::TIME => 8,
        Type::UUID => 16,
        _ => -1,
    }
}

fn engine(e: DataFusionError) -> PgWireError {
    PgWireError::UserError(Box::new(from_engine(&e)))
}

impl Conn {
    /// The catalog as the databases are now (built when first asked for,
    /// again after a change).
    async fn catalog(&self) -> PgWireResult<Arc<Catalog>> {
        let mut slot = self.catalog.lock().await;
        let now = self.session.generation();
        if let Some((g, c)) = slot.as_ref()
            && *g == now
        {
            return Ok(c.clone());
        }
        let (name, handle, databases) = &self.served;
        let built = Arc::new(
            Catalog::build(
                &self.session,
                name,
                handle.database().ok(),
                databases.clone(),
                self.settings.clone(),
            )
            .await
            .map_err(engine)?,
        );
        *slot = Some((now, built.clone()));
        Ok(built)
    }

    /// `sql` if it is a catalog statement, rewritten for the catalog.
    async fn claims(&self, sql: &str) -> PgWireResult<Option<(Arc<Catalog>, Claimed)>> {
        let served = |t: &str| {
            self.session
                .context()
                .catalog(&self.served.0)
                .and_then(|c| c.schema("public"))
                .is_some_and(|s| s.table_names().iter().any(|n| n.to_lowercase() == t))
        };
        let Some(claimed) = super::catalog::claims(sql, served) else {
            return Ok(None);
        };
        let catalog = self.catalog().await?;
        let claimed = catalog.rewritten(claimed);
        Ok(Some((catalog, claimed)))
    }

    fn tx(&self) -> PgWireResult<std::sync::MutexGuard<'_, Tx>> {
        self.tx
            .lock()
            .map_err(|_| error("XX000", "transaction state lost"))
    }

    /// `BEGIN`: later writes join one transaction (begun at the first).
    fn begin_block(&self) -> PgWireResult<Response> {
        self.tx()?.in_block = true;
        Ok(Response::TransactionStart(Tag::new("BEGIN")))
    }

    /// `COMMIT` (`commit`) or `ROLLBACK`: ends the block; a write
    /// transaction it holds is committed or rolled back.
    fn end_block(&self, commit: bool) -> PgWireResult<Response> {
        let held = {
            let mut tx = self.tx()?;
            tx.in_block = false;
            tx.held.take()
        };
        let tag = if commit { "COMMIT" } else { "ROLLBACK" };
        match held {
            Some(h) if commit => h.commit()?,
            Some(h) => drop(h),
            None => {}
        }
        Ok(Response::TransactionEnd(Tag::new(tag)))
    }

    /// Answers a local statement; `failed`: the transaction has failed (a
    /// `COMMIT` rolls it back).
    fn local(&self, l: Local, failed: bool) -> PgWireResult<Response> {
        match l {
            Local::Begin => return self.begin_block(),
            Local::Commit => return self.end_block(!failed),
            Local::Rollback => return self.end_block(false),
            Local::Savepoint(tag) if self.tx()?.held.is_some() => {
                return Err(error(
                    "0A000",
                    format!("{tag}: savepoints are not supported inside a transaction that writes"),
                ));
            }
            _ => {}
        }
        let mut settings = self
            .settings
            .lock()
            .map_err(|_| error("XX000", "settings lock poisoned"))?;
        Ok(match l {
            Local::Set(None) => Response::Execution(Tag::new("SET")),
            Local::Set(Some((name, value))) => {
                if let Some(d) = settings.set(&name, &value).map_err(|e| error("22023", e))? {
                    self.session.set_dialect(d);
                }
                Response::Execution(Tag::new("SET"))
            }
            Local::Reset(name) => {
                if let Some(d) = settings.reset(name.as_deref(), self.start_dialect) {
                    self.session.set_dialect(d);
                }
                Response::Execution(Tag::new("RESET"))
            }
            Local::Show(Some(name)) => {
                let value = settings
                    .get(&name)
                    .ok_or_else(|| {
                        error(
                            "42704",
                            format!("unrecognized configuration parameter \"{name}\""),
                        )
                    })?
                    .to_string();
                text_rows(&[name.as_str()], vec![vec![value]])
            }
            Local::Show(None) => text_rows(
                &["name", "setting", "description"],
                settings
                    .all()
                    .into_iter()
                    .map(|(n, v, d)| vec![n, v, d])
                    .collect(),
            ),
            Local::Begin | Local::Commit | Local::Rollback => {
                return Err(error("XX000", "a transaction statement out of place"));
            }
            // ROLLBACK TO SAVEPOINT clears a failed transaction's error
            Local::Savepoint("ROLLBACK") => Response::TransactionStart(Tag::new("ROLLBACK")),
            Local::Savepoint(tag) => Response::Execution(Tag::new(tag)),
            Local::Discard => {
                if let Some(d) = settings.reset(None, self.start_dialect) {
                    self.session.set_dialect(d);
                }
                Response::Execution(Tag::new("DISCARD ALL"))
            }
            Local::Accepted(tag) => Response::Execution(Tag::new(tag)),
        })
    }

    /// Plans one statement of the engine and describes it.
    async fn prepare_one(&self, sql: &str) -> PgWireResult<Arc<EngineStatement>> {
        let mut stmts = self.session.prepare(sql).await.map_err(engine)?;
        if stmts.len() != 1 {
            return Err(error(
                "42601",
                "cannot insert multiple commands into a prepared statement",
            ));
        }
        let stmt = stmts.pop().ok_or_else(|| error("42601", "no statement"))?;
        let described = self.session.describe(&stmt).await.map_err(engine)?;
        let planned = self.session.plan_query(&stmt).await.map_err(engine)?;
        Ok(Arc::new(EngineStatement {
            stmt,
            params: described.parameters,
            schema: described.schema,
            planned: Mutex::new(planned),
        }))
    }

    /// Runs one engine statement: its rows streamed when `stream`, else
    /// gathered first (a statement followed by others in one simple query
    /// runs to its end before the next starts).
    async fn run(
        &self,
        stmt: DFStatement,
        values: Option<ParamValues>,
        formats: &Format,
        stream_rows: bool,
    ) -> PgWireResult<Response> {
        self.run_prepared(stmt, None, values, formats, stream_rows)
            .await
    }

    /// [`Conn::run`] of a statement prepared by Parse: a query runs from
    /// the plan Parse made while the databases are as they were then.
    async fn run_prepared(
        &self,
        stmt: DFStatement,
        prepared: Option<&EngineStatement>,
        values: Option<ParamValues>,
        formats: &Format,
        stream_rows: bool,
    ) -> PgWireResult<Response> {
        let mut stop = self.stop().await?;
        let r = limits::unless(
            &mut stop,
            self.run_gated(stmt, prepared, values, formats, stream_rows),
        )
        .await?;
        Ok(limits::until(r, stop))
    }

    /// The stop signal of a statement starting now: a cancel request or
    /// the statement timeout (the lower of the server's and the
    /// connection's).
    async fn stop(&self) -> PgWireResult<Stop> {
        let set = self
            .settings
            .lock()
            .map_err(|_| error("XX000", "settings lock poisoned"))?
            .get("statement_timeout")
            .map(limits::parse_timeout)
            .transpose()
            .map_err(|e| error("22023", e))?
            .flatten();
        let limit = match (set, self.server_timeout) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Ok(limits::stop(&self.cancel, limit).await)
    }

    /// [`Conn::run`] under the write gate of a `--write` server.
    async fn run_gated(
        &self,
        stmt: DFStatement,
        prepared: Option<&EngineStatement>,
        values: Option<ParamValues>,
        formats: &Format,
        stream_rows: bool,
    ) -> PgWireResult<Response> {
        let kind = JetSession::kind_of(&stmt).map_err(engine)?;
        match kind {
            StatementKind::Begin => return self.begin_block(),
            StatementKind::Commit => return self.end_block(true),
            StatementKind::Rollback => return self.end_block(false),
            StatementKind::Write if !self.writes_allowed()? => {
                return Err(error("25006", self.read_only_reason()));
            }
            StatementKind::Write | StatementKind::Read | StatementKind::Execute => {}
        }
        let Some(gate) = &self.gate else {
            // a read-only server: nothing changes the files it reads
            let frame = self.frame(stmt, prepared, values).await?;
            return self.respond(frame, formats, stream_rows, None).await;
        };
        // a saved query run by EXECUTE may write
        let writes = kind == StatementKind::Write
            || (kind == StatementKind::Execute && self.writes_allowed()?);
        let (in_block, holds) = {
            let tx = self.tx()?;
            (tx.in_block, tx.held.is_some())
        };
        if holds {
            // inside its own write transaction: no one else reads or writes
            let frame = self.frame(stmt, prepared, values).await?;
            return self.respond(frame, formats, stream_rows, None).await;
        }
        if writes && in_block {
            let held = Held::begin(gate).await?;
            self.tx()?.held = Some(held);
            let frame = self.frame(stmt, prepared, values).await?;
            return self.respond(frame, formats, stream_rows, None).await;
        }
        if writes {
            // one statement, one commit: the gate until it is done
            let _gate = gate.write().await?;
            let frame = self.frame(stmt, prepared, values).await?;
            return self.respond(frame, formats, false, None).await;
        }
        let shared = gate.read().await?;
        let frame = self.frame(stmt, prepared, values).await?;
        self.respond(frame, formats, stream_rows, Some(shared))
            .await
    }

    /// The frame of `stmt` with `values`: from the plan Parse made when it
    /// still holds (a query whose databases have not changed since), else
    /// planned now (and kept for the next time).
    async fn frame(
        &self,
        stmt: DFStatement,
        prepared: Option<&EngineStatement>,
        values: Option<ParamValues>,
    ) -> PgWireResult<datafusion::prelude::DataFrame> {
        if let Some(p) = prepared {
            let cached = p
                .planned
                .lock()
                .map_err(|_| error("XX000", "plan cache lost"))?
                .clone();
            let mut planned = cached;
            for attempt in 0..2 {
                let Some(q) = &planned else { break };
                if let Some(frame) = self
                    .session
                    .frame_for_planned(q, values.as_ref())
                    .map_err(engine)?
                {
                    return Ok(frame);
                }
                if attempt == 0 {
                    // the databases changed: plan again, keep the new plan
                    planned = self.session.plan_query(&stmt).await.map_err(engine)?;
                    *p.planned
                        .lock()
                        .map_err(|_| error("XX000", "plan cache lost"))? = planned.clone();
                }
            }
        }
        self.session.frame_for(stmt, values).await.map_err(engine)
    }

    /// Whether the connection may write now.
    fn writes_allowed(&self) -> PgWireResult<bool> {
        Ok(self.right == Right::Write
            && self
                .settings
                .lock()
                .map_err(|_| error("XX000", "settings lock poisoned"))?
                .writes_allowed())
    }

    /// Why the connection may not write.
    fn read_only_reason(&self) -> &'static str {
        if self.gate.is_none() {
            "cannot change a database: the server serves them read-only (start it with --write)"
        } else if self.right == Right::Read {
            "cannot change a database: this user may only read (the users file gives read)"
        } else {
            "cannot execute a write in a read-only transaction (transaction_read_only is on)"
        }
    }

    /// Runs a catalog statement.
    async fn run_catalog(
        &self,
        stmt: datafusion::sql::sqlparser::ast::Statement,
        values: Option<ParamValues>,
        formats: &Format,
        stream_rows: bool,
    ) -> PgWireResult<Response> {
        let mut stop = self.stop().await?;
        let r = limits::unless(
            &mut stop,
            self.catalog_rows(stmt, values, formats, stream_rows),
        )
        .await?;
        Ok(limits::until(r, stop))
    }

    async fn catalog_rows(
        &self,
        stmt: datafusion::sql::sqlparser::ast::Statement,
        values: Option<ParamValues>,
        formats: &Format,
        stream_rows: bool,
    ) -> PgWireResult<Response> {
        match self
            .catalog()
            .await?
            .frame(stmt, values)
            .await
            .map_err(engine)?
        {
            Answer::Rows(frame) => self.respond(frame, formats, stream_rows, None).await,
            Answer::Empty(names) => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                Ok(text_rows(&names, Vec::new()))
            }
        }
    }

    /// The rows of `frame` as a response; `shared`, the gate held for
    /// reading, is kept until the last row is sent.
    async fn respond(
        &self,
        frame: datafusion::prelude::DataFrame,
        formats: &Format,
        stream_rows: bool,
        shared: Option<tokio::sync::OwnedRwLockReadGuard<()>>,
    ) -> PgWireResult<Response> {
        let schema: SchemaRef = Arc::new(frame.schema().as_arrow().clone());
        let n = schema.fields().len();
        let formats: Vec<FieldFormat> = (0..n)
            .map(|i| format_at(formats, i, n))
            .collect::<PgWireResult<_>>()?;
        let columns: Arc<Vec<Column>> = Arc::new(
            schema
                .fields()
                .iter()
                .zip(&formats)
                .map(|(f, fmt)| Column::new(f, *fmt))
                .collect(),
        );
        let infos = Arc::new(fields(&schema, &formats));
        let batches = frame.execute_stream().await.map_err(engine)?;
        let to_rows = move |b: Result<datafusion::arrow::array::RecordBatch, DataFusionError>| {
            let rows = b.map_err(engine).and_then(|b| encode::rows(&b, &columns));
            stream::iter(match rows {
                Ok(rows) => rows.into_iter().map(Ok).collect::<Vec<_>>(),
                Err(e) => vec![Err(e)],
            })
        };
        if stream_rows {
            let rows = batches
                .map(move |b| {
                    let _held_until_the_last_row = &shared;
                    to_rows(b)
                })
                .flatten();
            Ok(Response::Query(QueryResponse::new(infos, rows)))
        } else {
            let gathered: Vec<_> = batches.map(to_rows).flatten().collect().await;
            Ok(Response::Query(QueryResponse::new(
                infos,
                stream::iter(gathered),
            )))
        }
    }
}

/// A result of text columns.
fn text_rows(names: &[&str], rows: Vec<Vec<String>>) -> Response {
    let infos: Vec<FieldInfo> = names
        .iter()
        .map(|n| FieldInfo::new(n.to_string(), None, None, Type::TEXT, FieldFormat::Text))
        .collect();
    let field_count = names.len() as i16;
    let rows: Vec<PgWireResult<pgwire::messages::data::DataRow>> = rows
        .into_iter()
        .map(|r| {
            let mut data = bytes::BytesMut::new();
            for v in r {
                bytes::BufMut::put_i32(&mut data, v.len() as i32);
                bytes::BufMut::put_slice(&mut data, v.as_bytes());
            }
            Ok(pgwire::messages::data::DataRow::new(data, field_count))
        })
        .collect();
    Response::Query(QueryResponse::new(Arc::new(infos), stream::iter(rows)))
}

/// Whether a statement may run while the transaction has failed: only
/// the ones that end it.
fn ends_transaction(p: &Prepared) -> bool {
    matches!(
        p,
        Prepared::Local(Local::Commit | Local::Rollback | Local::Savepoint("ROLLBACK"))
    )
}

fn aborted() -> PgWireError {
    error(
        "25P02",
        "current transaction is aborted, commands ignored until end of transaction block",
    )
}

/// A `COMMIT` of a failed transaction rolls it back, as in PostgreSQL.
fn settle(r: Response, failed: bool) -> Response {
    match r {
        Response::TransactionEnd(_) if failed => Response::TransactionEnd(Tag::new("ROLLBACK")),
        r => r,
    }
}

#[async_trait]
impl SimpleQueryHandler for Handlers {
    async fn do_query<C>(&self, client: &mut C, query: &str) -> PgWireResult<Vec<Response>>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let conn = self.conn()?;
        let (items, rest) = split(query, conn.session.dialect());
        let mut texts: Vec<String> = Vec::new();
        for item in items {
            match item {
                Item::Sql(s) if !is_empty(&s) => texts.push(s),
                Item::Sql(_) => {}
                Item::Meta(m) => {
                    return Ok(vec![Response::Error(Box::new(info(
                        "42601",
                        format!("\\{m}: backslash commands are the client's, not SQL"),
                    )))]);
                }
            }
        }
        if !is_empty(&rest) {
            texts.push(rest);
        }
        if texts.is_empty() {
            return Ok(vec![Response::EmptyQuery]);
        }
        let mut failed = client.transaction_status() == TransactionStatus::Error;
        let mut out = Vec::new();
        let count = texts.len();
        for (i, text) in texts.into_iter().enumerate() {
            let last = i + 1 == count;
            match self.simple_one(&conn, &text, last, failed).await {
                Ok(rs) => {
                    for r in rs {
                        if matches!(r, Response::TransactionEnd(_)) {
                            failed = false;
                        }
                        out.push(r);
                    }
                }
                Err(e) => {
                    out.push(Response::Error(Box::new(e.into())));
                    break;
                }
            }
        }
        Ok(out)
    }
}

impl Handlers {
    /// One statement text of a simple query.
    async fn simple_one(
        &self,
        conn: &Conn,
        text: &str,
        last: bool,
        failed: bool,
    ) -> PgWireResult<Vec<Response>> {
        if let Some(l) = local::parse(text) {
            let p = Prepared::Local(l.clone());
            if failed && !ends_transaction(&p) {
                return Err(aborted());
            }
            return Ok(vec![settle(conn.local(l, failed)?, failed)]);
        }
        if failed {
            return Err(aborted());
        }
        if let Some((_, claimed)) = conn.claims(text).await? {
            return Ok(vec![
                conn.run_catalog(claimed.stmt, None, &Format::UnifiedText, last)
                    .await?,
            ]);
        }
        let stmts = conn.session.prepare(text).await.map_err(engine)?;
        let n = stmts.len();
        let mut out = Vec::with_capacity(n);
        for (i, s) in stmts.into_iter().enumerate() {
            out.push(
                conn.run(s, None, &Format::UnifiedText, last && i + 1 == n)
                    .await?,
            );
        }
        Ok(out)
    }
}

/// Parse for the extended protocol: plans and describes the statement
/// once, in the connection's session.
pub struct Parser {
    conn: Arc<OnceLock<Arc<Conn>>>,
}

#[async_trait]
impl QueryParser for Parser {
    type Statement = Prepared;

    async fn parse_sql<C>(
        &self,
        _client: &C,
        sql: &str,
        _types: &[Option<Type>],
    ) -> PgWireResult<Prepared>
    where
        C: ClientInfo + Unpin + Send + Sync,
    {
        let conn = self
            .conn
            .get()
            .cloned()
            .ok_or_else(|| error("08P01", "no query before startup"))?;
        if is_empty(sql) {
            return Ok(Prepared::Empty);
        }
        if let Some(l) = local::parse(sql) {
            return Ok(Prepared::Local(l));
        }
        if let Some((catalog, claimed)) = conn.claims(sql).await? {
            let (params, schema) = catalog.describe(&claimed).await.map_err(engine)?;
            return Ok(Prepared::Catalog(Arc::new(CatalogStatement {
                stmt: claimed.stmt,
                params,
                schema,
            })));
        }
        Ok(Prepared::Engine(conn.prepare_one(sql).await?))
    }

    fn get_parameter_types(&self, stmt: &Prepared) -> PgWireResult<Vec<Type>> {
        Ok(match stmt {
            Prepared::Engine(e) => e
                .params
                .iter()
                .map(|t| params::described(t.as_ref()))
                .collect(),
            Prepared::Catalog(c) => c
                .params
                .iter()
                .map(|t| params::described(t.as_ref()))
                .collect(),
            _ => Vec::new(),
        })
    }

    fn get_result_schema(
        &self,
        stmt: &Prepared,
        column_format: Option<&Format>,
    ) -> PgWireResult<Vec<FieldInfo>> {
        Ok(match stmt {
            Prepared::Engine(_) | Prepared::Catalog(_) => {
                let schema = match stmt {
                    Prepared::Engine(e) => &e.schema,
                    Prepared::Catalog(c) => &c.schema,
                    _ => return Ok(Vec::new()),
                };
                let n = schema.fields().len();
                let formats = (0..n)
                    .map(|i| column_format.map_or(Ok(FieldFormat::Text), |f| format_at(f, i, n)))
                    .collect::<PgWireResult<Vec<_>>>()?;
                fields(schema, &formats)
            }
            Prepared::Local(Local::Show(Some(name))) => vec![FieldInfo::new(
                name.clone(),
                None,
                None,
                Type::TEXT,
                FieldFormat::Text,
            )],
            _ => Vec::new(),
        })
    }
}

#[async_trait]
impl ExtendedQueryHandler for Handlers {
    type Statement = Prepared;
    type QueryParser = Parser;

    fn query_parser(&self) -> Arc<Parser> {
        self.parser.clone()
    }

    async fn do_describe_statement<C>(
        &self,
        _client: &mut C,
        target: &StoredStatement<Prepared>,
    ) -> PgWireResult<DescribeStatementResponse>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Prepared>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let server_types = self.parser.get_parameter_types(&target.statement)?;
        let n = server_types.len().max(target.parameter_types.len());
        let types = (0..n)
            .map(|i| {
                parameter_type(&target.parameter_types, i, || {
                    server_types.get(i).cloned().unwrap_or(Type::TEXT)
                })
            })
            .collect();
        let fields = self.parser.get_result_schema(&target.statement, None)?;
        Ok(DescribeStatementResponse::new(types, fields))
    }

    async fn do_describe_portal<C>(
        &self,
        _client: &mut C,
        target: &Portal<Prepared>,
    ) -> PgWireResult<DescribePortalResponse>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Prepared>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let fields = self.parser.get_result_schema(
            &target.statement.statement,
            Some(&target.result_column_format),
        )?;
        Ok(if fields.is_empty() {
            DescribePortalResponse::no_data()
        } else {
            DescribePortalResponse::new(fields)
        })
    }

    async fn do_query<C>(
        &self,
        client: &mut C,
        portal: &Portal<Prepared>,
        _max_rows: usize,
    ) -> PgWireResult<Response>
    where
        C: ClientInfo + ClientPortalStore + Sink<PgWireBackendMessage> + Unpin + Send + Sync,
        C::PortalStore: PortalStore<Statement = Prepared>,
        C::Error: Debug,
        PgWireError: From<<C as Sink<PgWireBackendMessage>>::Error>,
    {
        let conn = self.conn()?;
        let failed = client.transaction_status() == TransactionStatus::Error;
        let prepared = &portal.statement.statement;
        if failed && !ends_transaction(prepared) {
            return Err(aborted());
        }
        match prepared {
            Prepared::Empty => Ok(Response::EmptyQuery),
            Prepared::Local(l) => Ok(settle(conn.local(l.clone(), failed)?, failed)),
            Prepared::Catalog(c) => {
                let values = bind_values(portal, &c.params)?;
                conn.run_catalog(c.stmt.clone(), values, &portal.result_column_format, true)
                    .await
            }
            Prepared::Engine(e) => {
                let values = bind_values(portal, &e.params)?;
                conn.run_prepared(
                    e.stmt.clone(),
                    Some(e),
                    values,
                    &portal.result_column_format,
                    true,
                )
                .await
            }
        }
    }
}

/// The type of parameter `i`: the one the client declared at Parse, else
/// (none, or `unknown`) `planned`'s.
fn parameter_type(declared: &[Option<Type>], i: usize, planned: impl FnOnce() -> Type) -> Type {
    declared
        .get(i)
        .cloned()
        .flatten()
        .filter(|t| *t != Type::UNKNOWN)
        .unwrap_or_else(planned)
}

/// The parameter values of a Bind, read by the types the client declared
/// (else the plan's).
fn bind_values(
    portal: &Portal<Prepared>,
    planned: &[Option<DataType>],
) -> PgWireResult<Option<ParamValues>> {
    let sent = &portal.parameters;
    if sent.is_empty() && planned.is_empty() {
        return Ok(None);
    }
    if sent.len() != planned.len() {
        return Err(error(
            "08P01",
            format!(
                "bind message supplies {} parameters, but the statement requires {}",
                sent.len(),
                planned.len()
            ),
        ));
    }
    let declared = &portal.statement.parameter_types;
    let mut values = Vec::with_capacity(sent.len());
    for (i, bytes) in sent.iter().enumerate() {
        let ty = parameter_type(declared, i, || params::described(planned[i].as_ref()));
        let binary = format_at(&portal.parameter_format, i, sent.len())? == FieldFormat::Binary;
        values.push(params::value(i + 1, &ty, bytes.as_deref(), binary)?);
    }
    Ok(Some(ParamValues::from(values)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn dialect_from_startup_options() {
        let m = |k: &str, v: &str| HashMap::from([(k.to_string(), v.to_string())]);
        assert_eq!(
            startup_dialect(&m("options", "-c jetsql.dialect=datafusion")).as_deref(),
            Some("datafusion")
        );
        assert_eq!(
            startup_dialect(&m("options", "--jetsql.dialect=access -c x=y")).as_deref(),
            Some("access")
        );
        assert_eq!(
            startup_dialect(&m("jetsql.dialect", "datafusion")).as_deref(),
            Some("datafusion")
        );
        assert_eq!(startup_dialect(&m("options", "-c search_path=x")), None);
    }

    #[test]
    fn format_codes_are_checked() {
        let f = Format::Individual(vec![0, 1]);
        assert_eq!(format_at(&f, 1, 2).unwrap(), FieldFormat::Binary);
        assert!(format_at(&f, 2, 3).is_err());
        assert_eq!(
            format_at(&Format::UnifiedBinary, 5, 9).unwrap(),
            FieldFormat::Binary
        );
    }
}
