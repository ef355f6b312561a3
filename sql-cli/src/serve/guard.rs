//! A guard between each client's socket and the protocol handler, which
//! buffers a whole message before it decodes one (up to 1 GiB) and writes
//! without a deadline. The guard:
//! - reads the startup phase itself: a TLS request is answered `S` and
//!   the TLS handshake done when the server has a certificate (`--tls-cert`,
//!   `--tls-key`), else `N`; a GSSAPI encryption request is answered `N`;
//!   the startup message is read under PostgreSQL's own limit of 10,000
//!   bytes; with `--require-tls` a client that did not ask for TLS is
//!   refused (SQLSTATE 28000) before it may authenticate;
//! - then meters every message header (`jet_kernels::pg_frame`) and
//!   closes the connection at the first one declaring more than
//!   `--max-message` bytes, before its body is read, and passes on only
//!   whole messages whose every field lies inside them (the handler's
//!   decoders read past a short message's end, or panic);
//! - closes a connection whose client stops reading for
//!   `--write-timeout` (so a stalled client holds nothing for long).
//!
//! The handler sees the client through a socket pair, in clear text (TLS
//! ends here); a closed guard closes it, and the handler's task ends.

use jet_kernels::pg_frame::{
    CANCEL_REQUEST, FrameRefusal, GSSENC_REQUEST, Meter, SSL_REQUEST, startup_well_formed,
    well_formed,
};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};

/// The guard's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest message a client may send, in bytes.
    pub max_message: u32,
    /// Longest a client may leave the server's output unread.
    pub write_timeout: Duration,
    /// Longest the startup phase may take.
    pub startup_timeout: Duration,
}

/// How the server speaks TLS.
#[derive(Clone)]
pub struct Tls {
    /// The server's certificate and key.
    pub acceptor: tokio_rustls::TlsAcceptor,
    /// Refuse clients that do not ask for TLS.
    pub required: bool,
}

/// PostgreSQL's limit on a startup-phase message.
const MAX_STARTUP: usize = 10_000;

/// One message of the startup phase.
enum Opening {
    /// A TLS or GSSAPI encryption request (its code).
    Request(i32),
    /// A startup or cancel message, whole (length included), checked.
    Message { whole: Vec<u8>, cancel: bool },
}

/// Reads one startup-phase message; `None` when the client goes away or
/// breaks the rules.
async fn opening<S: AsyncRead + Unpin>(client: &mut S) -> Option<Opening> {
    let mut len = [0u8; 4];
    client.read_exact(&mut len).await.ok()?;
    let n = usize::try_from(i32::from_be_bytes(len)).ok()?;
    if !(8..=MAX_STARTUP).contains(&n) {
        return None;
    }
    let mut body = vec![0u8; n - 4];
    client.read_exact(&mut body).await.ok()?;
    let code = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
    if n == 8 && (code == SSL_REQUEST || code == GSSENC_REQUEST) {
        return Some(Opening::Request(code));
    }
    if !startup_well_formed(&body) {
        return None;
    }
    let mut whole = len.to_vec();
    whole.extend_from_slice(&body);
    Some(Opening::Message {
        whole,
        cancel: code == CANCEL_REQUEST,
    })
}

/// A client after the startup phase: in clear or over TLS.
enum Client {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

/// PostgreSQL's ErrorResponse of a FATAL error.
fn fatal(code: &str, message: &str) -> Vec<u8> {
    let mut fields = Vec::new();
    for (tag, value) in [
        (b'S', "FATAL"),
        (b'V', "FATAL"),
        (b'C', code),
        (b'M', message),
    ] {
        fields.push(tag);
        fields.extend_from_slice(value.as_bytes());
        fields.push(0);
    }
    fields.push(0);
    let mut m = vec![b'E'];
    m.extend_from_slice(
        &u32::try_from(fields.len() + 4)
            .unwrap_or(u32::MAX)
            .to_be_bytes(),
    );
    m.extend_from_slice(&fields);
    m
}

/// The startup phase: encryption requests answered (TLS begun when the
/// server has it), then the startup or cancel message and the client it
/// came over.
async fn startup(mut plain: TcpStream, tls: Option<&Tls>) -> Option<(Vec<u8>, Client)> {
    loop {
        match opening(&mut plain).await? {
            Opening::Request(SSL_REQUEST) if tls.is_some() => {
                let tls = tls?;
                plain.write_all(b"S").await.ok()?;
                let mut secure = tls.acceptor.accept(plain).await.ok()?;
                // one request only: the next message is the startup
                return match opening(&mut secure).await? {
                    Opening::Message { whole, .. } => Some((whole, Client::Tls(Box::new(secure)))),
                    Opening::Request(_) => None,
                };
            }
            Opening::Request(_) => plain.write_all(b"N").await.ok()?,
            Opening::Message { whole, cancel } => {
                if tls.is_some_and(|t| t.required) && !cancel {
                    let _ = plain
                        .write_all(&fatal(
                            "28000",
                            "this server takes encrypted connections only (sslmode=require)",
                        ))
                        .await;
                    return None;
                }
                return Some((whole, Client::Plain(plain)));
            }
        }
    }
}

/// Starts guarding `client`: the socket the protocol handler reads, or
/// `None` when the startup phase failed (the connection is closed).
pub async fn guard(
    client: TcpStream,
    peer: SocketAddr,
    limits: Limits,
    tls: Option<Arc<Tls>>,
) -> Option<UnixStream> {
    let (first, client) =
        tokio::time::timeout(limits.startup_timeout, startup(client, tls.as_deref()))
            .await
            .ok()??;
    let (mut ours, theirs) = UnixStream::pair().ok()?;
    ours.write_all(&first).await.ok()?;
    tokio::spawn(async move {
        match client {
            Client::Plain(s) => {
                let (r, w) = s.into_split();
                proxy(r, w, ours, peer, limits).await;
            }
            Client::Tls(s) => {
                let (r, w) = tokio::io::split(*s);
                proxy(r, w, ours, peer, limits).await;
            }
        }
    });
    Some(theirs)
}

/// Carries bytes both ways between the client and the handler's socket
/// until either side ends, checking the client's messages.
async fn proxy<R, W>(
    mut client_read: R,
    mut client_write: W,
    ours: UnixStream,
    peer: SocketAddr,
    limits: Limits,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let (mut ours_read, mut ours_write) = ours.into_split();
    let up = async {
        let mut meter = Meter::new(limits.max_message);
        let mut buf = vec![0u8; 64 * 1024];
        // bytes of messages not yet whole
        let mut pending: Vec<u8> = Vec::new();
        loop {
            let n = match client_read.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            if let Err(r) = meter.feed(&buf[..n]) {
                report(peer, r, limits.max_message);
                return;
            }
            pending.extend_from_slice(&buf[..n]);
            // pass on every whole message, each checked field by field
            let mut at = 0;
            while let Some(head) = pending.get(at..at + 5) {
                // the meter saw this header: 4 ≤ length ≤ the limit
                let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]);
                let end = at + 1 + usize::try_from(len).unwrap_or(usize::MAX);
                let Some(body) = pending.get(at + 5..end) else {
                    break;
                };
                if !well_formed(head[0], body) {
                    eprintln!(
                        "jetsql serve: {peer}: a malformed message (type {:?}, {len} bytes); connection closed",
                        char::from(head[0])
                    );
                    return;
                }
                at = end;
            }
            if at > 0 {
                if ours_write.write_all(&pending[..at]).await.is_err() {
                    return;
                }
                pending.drain(..at);
            }
        }
    };
    let down = async {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match ours_read.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let sent = async {
                client_write.write_all(&buf[..n]).await?;
                client_write.flush().await
            };
            match tokio::time::timeout(limits.write_timeout, sent).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return,
                Err(_) => {
                    eprintln!(
                        "jetsql serve: {peer}: the client read nothing for {} s; connection closed",
                        limits.write_timeout.as_secs()
                    );
                    return;
                }
            }
        }
    };
    // either direction ending ends the connection
    tokio::select! {
        () = up => {}
        () = down => {}
    }
}

fn report(peer: SocketAddr, r: FrameRefusal, max: u32) {
    match r {
        FrameRefusal::TooLong { kind, length } => eprintln!(
            "jetsql serve: {peer}: a message of {length} bytes (type {:?}) is over --max-message {max}; connection closed",
            char::from(kind)
        ),
        FrameRefusal::TooShort { kind, length } => eprintln!(
            "jetsql serve: {peer}: a message header declares {length} bytes (type {:?}), not a message; connection closed",
            char::from(kind)
        ),
    }
}
