//! A guard between each client's socket and the protocol handler, which
//! buffers a whole message before it decodes one (up to 1 GiB) and writes
//! without a deadline. The guard:
//! - answers the TLS and GSSAPI encryption requests of the startup phase
//!   itself with "no" (this server speaks neither yet), and reads the
//!   startup message under PostgreSQL's own limit of 10,000 bytes;
//! - then meters every message header (`jet_kernels::pg_frame`) and
//!   closes the connection at the first one declaring more than
//!   `--max-message` bytes, before its body is read, and passes on only
//!   whole messages whose every field lies inside them (the handler's
//!   decoders read past a short message's end, or panic);
//! - closes a connection whose client stops reading for
//!   `--write-timeout` (so a stalled client holds nothing for long).
//!
//! The handler sees the client through a socket pair; a closed guard
//! closes it, and the handler's task ends.

use jet_kernels::pg_frame::{
    FrameRefusal, GSSENC_REQUEST, Meter, SSL_REQUEST, startup_well_formed, well_formed,
};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
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

/// PostgreSQL's limit on a startup-phase message.
const MAX_STARTUP: usize = 10_000;

/// Reads the startup phase from `client`: encryption requests answered
/// with `N`, then the first other message (a startup or cancel message)
/// returned whole. `None` when the client goes away or breaks the rules.
async fn startup(client: &mut TcpStream) -> Option<Vec<u8>> {
    loop {
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
            client.write_all(b"N").await.ok()?;
            continue;
        }
        if !startup_well_formed(&body) {
            return None;
        }
        let mut whole = len.to_vec();
        whole.extend_from_slice(&body);
        return Some(whole);
    }
}

/// Starts guarding `client`: the socket the protocol handler reads, or
/// `None` when the startup phase failed (the connection is closed).
pub async fn guard(mut client: TcpStream, peer: SocketAddr, limits: Limits) -> Option<UnixStream> {
    let first = tokio::time::timeout(limits.startup_timeout, startup(&mut client))
        .await
        .ok()??;
    let (mut ours, theirs) = UnixStream::pair().ok()?;
    ours.write_all(&first).await.ok()?;
    tokio::spawn(async move {
        let (mut client_read, mut client_write) = client.into_split();
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
                match tokio::time::timeout(limits.write_timeout, client_write.write_all(&buf[..n]))
                    .await
                {
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
    });
    Some(theirs)
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
