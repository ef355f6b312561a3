//! `jetsql serve` against hostile clients: oversized, truncated and
//! malformed messages, garbage before and after startup, a client that
//! stops reading, and a bounded fuzz of random message sequences
//! (`JETSQL_SERVE_FUZZ_SECS`, 10 s by default; `JETSQL_SERVE_FUZZ_SEED`)
//! against a `--write` server (random writes and transactions among
//! them) and a `--users` server (random SASL messages).
//! After each, a well-behaved client on another connection still gets
//! its answer, the process still runs, and it never reported a panic.

use crate::serve::{Server, sample};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A startup message for `user` and `database`.
fn startup(database: &str) -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&196_608i32.to_be_bytes());
    for (k, v) in [("user", "hostile"), ("database", database)] {
        body.extend_from_slice(k.as_bytes());
        body.push(0);
        body.extend_from_slice(v.as_bytes());
        body.push(0);
    }
    body.push(0);
    let mut m = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    m.extend_from_slice(&body);
    m
}

fn message(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut m = vec![kind];
    m.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
    m.extend_from_slice(body);
    m
}

/// A connection past startup (its ReadyForQuery read).
fn connected(port: u16) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(&startup("sample")).unwrap();
    read_until_ready(&mut s);
    s
}

/// Reads messages until a ReadyForQuery; false when the server closed.
fn read_until_ready(s: &mut TcpStream) -> bool {
    loop {
        let mut head = [0u8; 5];
        if s.read_exact(&mut head).is_err() {
            return false;
        }
        let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len.saturating_sub(4)];
        if s.read_exact(&mut body).is_err() {
            return false;
        }
        if head[0] == b'Z' {
            return true;
        }
    }
}

/// Whether the server closes `s` within 10 s (reads reach end of file).
fn closed(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut =>
            {
                return false;
            }
            Err(_) => return true,
        }
    }
    false
}

/// A well-behaved client's answer.
fn healthy(server: &mut Server) {
    assert!(server.alive(), "the server died: {:?}", server.stderr());
    let mut s = connected(server.port);
    s.write_all(&message(b'Q', b"SELECT COUNT(*) FROM Customers\0"))
        .unwrap();
    let mut seen = Vec::new();
    let mut head = [0u8; 5];
    loop {
        s.read_exact(&mut head).unwrap();
        let len = i32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut body = vec![0u8; len - 4];
        s.read_exact(&mut body).unwrap();
        if head[0] == b'D' {
            seen = body;
        }
        if head[0] == b'Z' {
            break;
        }
    }
    // one column: length 3, "250"
    assert_eq!(&seen[..], &[0, 1, 0, 0, 0, 3, b'2', b'5', b'0']);
    assert_log_clean(server);
}

/// The server's log shows no panic and no internal error.
fn assert_log_clean(server: &Server) {
    let stderr = server.stderr();
    assert!(
        !stderr
            .iter()
            .any(|l| l.contains("panicked") || l.contains("internal error")),
        "{stderr:?}"
    );
}

/// A client with the right password is let in and answered.
fn logs_in(server: &mut Server) {
    assert!(server.alive(), "the server died: {:?}", server.stderr());
    let out = std::process::Command::new("psql")
        .arg(format!(
            "host=127.0.0.1 port={} user=hostile dbname=sample",
            server.port
        ))
        .args(["-X", "-A", "-t", "-c", "SELECT count(*) FROM Customers"])
        .env("PGPASSWORD", "pw")
        .output()
        .expect("psql runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "250",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_log_clean(server);
}

/// A declared 1 GiB message closes that connection before its body is
/// read; garbage lengths and a startup over PostgreSQL's limit too.
#[test]
fn oversized_and_malformed_messages_close_only_their_connection() {
    let mut server = Server::start(&[&sample()], &["--max-message", "1MiB"]);
    let mut s = connected(server.port);
    let mut huge = vec![b'Q'];
    huge.extend_from_slice(&0x3fff_fffei32.to_be_bytes());
    s.write_all(&huge).unwrap();
    assert!(closed(&mut s), "a 1 GiB message was not refused");
    assert!(server.said("over --max-message"), "{:?}", server.stderr());
    healthy(&mut server);
    // a negative length
    let mut s = connected(server.port);
    s.write_all(&[b'P', 0xff, 0xff, 0xff, 0xf0]).unwrap();
    assert!(closed(&mut s));
    healthy(&mut server);
    // a startup message longer than 10,000 bytes, and garbage instead of one
    for first in [
        100_000i32.to_be_bytes().to_vec(),
        b"GET / HTTP/1.1\r\n\r\n".to_vec(),
    ] {
        let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(&first).unwrap();
        assert!(closed(&mut s));
        healthy(&mut server);
    }
    // a message cut short, then the client goes away
    let mut s = connected(server.port);
    s.write_all(&message(b'Q', b"SELECT 1\0")[..7]).unwrap();
    drop(s);
    healthy(&mut server);
    // a message the protocol does not know, and a Bind for nothing
    for m in [
        message(b'@', b"x"),
        message(b'B', &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ] {
        let mut s = connected(server.port);
        s.write_all(&m).unwrap();
        s.write_all(&message(b'S', b"")).unwrap();
        let _ = read_until_ready(&mut s);
        healthy(&mut server);
    }
}

/// A client that stops reading a large result is closed after
/// --write-timeout, and others are served meanwhile.
#[test]
fn a_client_that_stops_reading_is_closed() {
    let _timing = crate::common::timing_exclusive();
    let mut server = Server::start(&[&sample()], &["--write-timeout", "1"]);
    let mut s = connected(server.port);
    // about 60 MB of rows, never read
    s.write_all(&message(
        b'Q',
        b"SELECT a.Notes, b.Notes FROM Customers a, Customers b\0",
    ))
    .unwrap();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30)
        && !server.stderr().iter().any(|l| l.contains("read nothing"))
    {
        healthy(&mut server);
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        server.stderr().iter().any(|l| l.contains("read nothing")),
        "{:?}",
        server.stderr()
    );
    healthy(&mut server);
}

/// xorshift: the fuzz's own generator (reproducible from the seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Random message sequences, some valid, some mutated, against one
/// server for a bounded time; a healthy client is answered after each.
#[test]
fn bounded_protocol_fuzz() {
    let _timing = crate::common::timing_exclusive();
    let secs: u64 = std::env::var("JETSQL_SERVE_FUZZ_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let seed: u64 = std::env::var("JETSQL_SERVE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(37);
    let mut rng = Rng(seed | 1);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("sample.mdb");
    std::fs::copy(sample(), &copy).unwrap();
    let mut server = Server::start(
        &[&copy],
        &[
            "--max-message",
            "64KiB",
            "--write-timeout",
            "2",
            "--write",
            "--lock-wait",
            "5",
        ],
    );
    let users_file = dir.path().join("users");
    let verifier = crate::common::jetsql()
        .args(["serve", "--hash-password"])
        .write_stdin("pw\n")
        .output()
        .unwrap()
        .stdout;
    std::fs::write(
        &users_file,
        format!("hostile read {}", String::from_utf8(verifier).unwrap()),
    )
    .unwrap();
    let mut guarded = Server::start(
        &[&sample()],
        &[
            "--users",
            users_file.to_str().unwrap(),
            "--max-message",
            "64KiB",
        ],
    );
    let kinds = b"QPBEDSCHFXdcf@p";
    let texts: [&[u8]; 10] = [
        b"SELECT * FROM Customers WHERE CustomerID = $1",
        b"SELECT 1",
        b"BEGIN",
        b"SET jetsql.dialect = datafusion",
        b"SELECT \"x\" FROM pg_catalog.pg_class",
        b"\\d",
        b"INSERT INTO Orders (OrderID, CustomerID, Freight) VALUES ($1, 1, 2.5)",
        b"UPDATE Orders SET Freight = Freight + 1 WHERE OrderID = $1",
        b"COMMIT",
        b"ROLLBACK",
    ];
    // SASL bodies: a mechanism, a length, a client-first message
    let sasl: [&[u8]; 3] = [
        b"SCRAM-SHA-256\0\0\0\0\x0bn,,n=,r=abc",
        b"SCRAM-SHA-256\0\0\0\0\x20p=tls-server-end-point,,n=,r=abc",
        b"c=biws,r=abc,p=AAAA",
    ];
    let start = Instant::now();
    let mut sessions = 0u64;
    while start.elapsed() < Duration::from_secs(secs) {
        sessions += 1;
        let mut stream = Vec::new();
        if rng.below(10) > 0 {
            stream.extend_from_slice(&startup(if rng.below(5) == 0 { "nope" } else { "sample" }));
        }
        for _ in 0..rng.below(12) {
            let kind = kinds[rng.below(kinds.len() as u64) as usize];
            let mut body: Vec<u8> = match rng.below(3) {
                0 if kind == b'p' => sasl[rng.below(sasl.len() as u64) as usize].to_vec(),
                0 => {
                    let mut b = texts[rng.below(texts.len() as u64) as usize].to_vec();
                    b.push(0);
                    b
                }
                _ => (0..rng.below(64)).map(|_| rng.next() as u8).collect(),
            };
            if kind == b'P' {
                // a named or unnamed statement, its text, parameter types
                let mut p = vec![0u8];
                p.extend_from_slice(&body);
                p.push(0);
                p.extend_from_slice(&[0, 1, 0, 0, 0, 23]);
                body = p;
            }
            let mut m = message(kind, &body);
            match rng.below(8) {
                // a wrong length
                0 => {
                    let l = rng.next() as i32;
                    m[1..5].copy_from_slice(&l.to_be_bytes());
                }
                // cut short
                1 => m.truncate(rng.below(m.len() as u64) as usize),
                // a flipped byte
                2 => {
                    let i = rng.below(m.len() as u64) as usize;
                    m[i] ^= 1 << rng.below(8);
                }
                _ => {}
            }
            stream.extend_from_slice(&m);
        }
        // a third of the sessions go to the server with passwords
        let port = if rng.below(3) == 0 {
            guarded.port
        } else {
            server.port
        };
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            s.set_read_timeout(Some(Duration::from_millis(300)))
                .unwrap();
            let _ = s.write_all(&stream);
            let mut buf = [0u8; 8192];
            while let Ok(n) = s.read(&mut buf) {
                if n == 0 {
                    break;
                }
            }
        }
        if sessions.is_multiple_of(10) {
            healthy(&mut server);
            logs_in(&mut guarded);
        }
    }
    healthy(&mut server);
    logs_in(&mut guarded);
    eprintln!("serve fuzz: {sessions} sessions, seed {seed}");
}
