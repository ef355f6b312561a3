//! `jetsql serve`: Access databases behind the PostgreSQL wire protocol,
//! for psql, JDBC and ODBC clients, BI tools and drivers
//! (docs/serve-design.md has the design and what comes next).
//!
//! Map: [`server`] holds what connections share (the databases, each
//! opened once); [`handlers`] is one connection (startup, simple and
//! extended query); [`local`] answers `SET`/`SHOW`/`BEGIN`/… itself;
//! [`types`] gives each result column its PostgreSQL type, [`encode`]
//! writes the rows and [`params`] reads the parameters; [`errors`] gives
//! each error its SQLSTATE.
//!
//! Who may connect: anyone on a loopback address, or with `--users` the
//! users of that file, each proving their password by SCRAM-SHA-256
//! ([`auth`]); then any address may be listened on.

mod auth;
mod catalog;
mod encode;
mod errors;
mod guard;
mod handlers;
mod limits;
mod local;
mod params;
mod server;
mod types;
mod writes;

pub use handlers::SERVER_VERSION;

use crate::session::OpenRequest;
use server::Server;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// What `jetsql serve` is told.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The database files; clients choose one by name, the file's stem
    /// in lower case (`psql -d nwind`); the first is the default.
    #[arg(required_unless_present = "hash_password")]
    pub files: Vec<PathBuf>,
    /// The address to listen on (port 0: any free port, printed at
    /// start). A loopback address unless --users is given.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:5432")]
    pub listen: SocketAddr,
    /// The users who may connect, one a line: NAME read|write VERIFIER,
    /// the verifier in PostgreSQL's SCRAM-SHA-256 form (from
    /// pg_authid.rolpassword, or --hash-password). Clients then log in with
    /// a password (SCRAM-SHA-256); without --users anyone on the loopback
    /// address connects without one.
    #[arg(long, value_name = "FILE")]
    pub users: Option<PathBuf>,
    /// Let clients write: INSERT, UPDATE, DELETE, DDL and BEGIN … COMMIT,
    /// through the journal as `jetsql --write` does; one writer at a time
    /// (users of --users with the write right; without --users, every
    /// client).
    #[arg(long)]
    pub write: bool,
    /// Seconds a statement waits for another client's write to finish
    /// before it fails (SQLSTATE 55P03).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub lock_wait: u64,
    /// Seconds any statement may run before it is canceled (SQLSTATE
    /// 57014); 0: no limit. A client's SET statement_timeout can only
    /// lower it.
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    pub statement_timeout: u64,
    /// The server's TLS certificate chain (PEM): clients that ask for TLS
    /// (sslmode=require and up) get it. Needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Refuse clients that do not ask for TLS (before they may send a
    /// password). Needs --tls-cert.
    #[arg(long, requires = "tls_cert")]
    pub require_tls: bool,
    /// Print the SCRAM-SHA-256 verifier of a password read from standard
    /// input (one line), for a users file, and exit.
    #[arg(long)]
    pub hash_password: bool,
    /// Most connections served at once; one more is refused with
    /// "too many clients" (SQLSTATE 53300). Each connection's queries get
    /// an equal share of --memory-limit (at least 32 MiB).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub max_connections: usize,
    /// Largest message a client may send (a query, or a prepared
    /// statement's parameters); a connection that declares a larger one
    /// is closed before it is read.
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = jet_provider::frontdoor::parse_memory_size)]
    pub max_message: u64,
    /// Seconds a client may leave the server's output unread before its
    /// connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub write_timeout: u64,
}

/// Runs the server until SIGINT or SIGTERM; `memory_limit` (bytes) is
/// shared out among the connections.
pub fn run(args: ServeArgs, req: &OpenRequest, memory_limit: u64) -> Result<(), String> {
    if args.hash_password {
        let mut line = String::new();
        std::io::stdin()
            .read_line(&mut line)
            .map_err(|e| format!("cannot read the password: {e}"))?;
        let password = line.trim_end_matches(['\n', '\r']);
        if password.is_empty() {
            return Err("--hash-password: no password on standard input".into());
        }
        println!("{}", auth::hash_password(password));
        return Ok(());
    }
    let users = args.users.as_deref().map(auth::Users::load).transpose()?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(Arc::new(tls(cert, key, args.require_tls)?)),
        _ => None,
    };
    if users.is_none() && !args.listen.ip().is_loopback() {
        return Err(format!(
            "--listen {}: without --users anyone who reaches the port could connect, so the server listens on a loopback address only (127.0.0.1, ::1); give --users FILE to listen on others",
            args.listen
        ));
    }
    if args.max_connections == 0 {
        return Err("--max-connections must be at least 1".into());
    }
    let per_session = (memory_limit / args.max_connections as u64).max(32 << 20);
    let write = args
        .write
        .then(|| std::time::Duration::from_secs(args.lock_wait.max(1)));
    let mut server = Server::open(&args.files, req, per_session, args.max_connections, write)?;
    server.users = users;
    server.statement_timeout = (args.statement_timeout > 0)
        .then(|| std::time::Duration::from_secs(args.statement_timeout));
    let server = Arc::new(server);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    let limits = guard::Limits {
        max_message: u32::try_from(args.max_message.clamp(1024, 1 << 30)).unwrap_or(1 << 30),
        write_timeout: std::time::Duration::from_secs(args.write_timeout.max(1)),
        startup_timeout: std::time::Duration::from_secs(60),
    };
    rt.block_on(serve(server, args.listen, limits, tls))
}

/// The TLS side of the guard from a certificate chain and key in PEM.
fn tls(cert: &Path, key: &Path, required: bool) -> Result<guard::Tls, String> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<_, _>>())
        .map_err(|e| format!("--tls-cert {}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!(
            "--tls-cert {}: no certificate in the file (PEM, BEGIN CERTIFICATE)",
            cert.display()
        ));
    }
    let private = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| format!("--tls-key {}: {e}", key.display()))?;
    // ring: rustls marks its provider deprecated for lacking post-quantum
    // key exchange, which no PostgreSQL client offers yet (libpq on
    // OpenSSL 3.0, pgjdbc on Java 17); aws-lc-rs would add a large C build
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(chain, private))
        .map_err(|e| {
            format!(
                "--tls-cert {} and --tls-key {}: {e}",
                cert.display(),
                key.display()
            )
        })?;
    Ok(guard::Tls {
        acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
        required,
    })
}

async fn serve(
    server: Arc<Server>,
    listen: SocketAddr,
    limits: guard::Limits,
    tls: Option<Arc<guard::Tls>>,
) -> Result<(), String> {
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let names: Vec<&str> = server.served.iter().map(|s| s.name.as_str()).collect();
    let mut who = match &server.users {
        Some(u) => format!("{} users, SCRAM-SHA-256", u.len()),
        None => "no passwords".to_string(),
    };
    who.push_str(match &tls {
        Some(t) if t.required => ", TLS required",
        Some(_) => ", TLS",
        None => "",
    });
    let mode = if server.writable {
        "read and write"
    } else {
        "read-only"
    };
    eprintln!(
        "jetsql serve: listening on {local}, serving {} ({mode}; {who})",
        names.join(", ")
    );
    let slots = Arc::new(Semaphore::new(server.max_connections));
    let stop = shutdown();
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = &mut stop => {
                eprintln!("jetsql serve: stopped");
                return Ok(());
            }
        };
        let (socket, peer) = match accepted {
            Ok(s) => s,
            // a client that went away between SYN and accept, or a
            // descriptor limit: keep serving the others
            Err(e) => {
                eprintln!("jetsql serve: accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = socket.set_nodelay(true);
        let permit = slots.clone().try_acquire_owned().ok();
        let handlers = Arc::new(handlers::Handlers::new(server.clone(), permit.is_some()));
        let tls = tls.clone();
        tokio::spawn(async move {
            let _permit = permit;
            if let Some(inner) = guard::guard(socket, peer, limits, tls).await {
                let _ = pgwire::tokio::process_socket_unix(inner, handlers).await;
            }
        });
    }
}

/// Resolves at SIGINT or SIGTERM.
async fn shutdown() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}
