//! `jetsql serve --users`: clients log in by SCRAM-SHA-256 against
//! verifiers written by PostgreSQL itself and by `--hash-password`; the
//! client side is psql (libpq) and tokio-postgres, two implementations
//! independent of the server's. Wrong passwords, unknown users and
//! malformed SASL messages are refused with PostgreSQL's words and codes,
//! and the server goes on serving the others.

use crate::common::{jetsql, nwind};
use crate::serve::{Server, pg_admin, psql_at};
use std::path::Path;
use std::process::Command;

/// A verifier of `password` written by the PostgreSQL server of
/// `$JETSQL_TEST_PG` (`CREATE ROLE … PASSWORD`, scram-sha-256).
fn postgresql_verifier(admin: &str, password: &str) -> String {
    let role = format!("jetsql_scram_{}", std::process::id());
    psql_at(
        admin,
        &format!(
            "SET password_encryption = 'scram-sha-256'; DROP ROLE IF EXISTS {role}; CREATE ROLE {role} PASSWORD '{password}'"
        ),
    );
    let v = psql_at(
        admin,
        &format!("SELECT rolpassword FROM pg_authid WHERE rolname = '{role}'"),
    );
    psql_at(admin, &format!("DROP ROLE {role}"));
    let v = v.lines().nth(1).expect("a verifier row").to_string();
    assert!(v.starts_with("SCRAM-SHA-256$4096:"), "{v}");
    v
}

/// `jetsql serve --hash-password` of `password`.
fn hashed(password: &str) -> String {
    let out = jetsql()
        .args(["serve", "--hash-password"])
        .write_stdin(format!("{password}\n"))
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// psql as `user` with `password` (none: no password at all), its
/// output or its error.
fn psql_as(
    port: u16,
    db: &str,
    user: &str,
    password: Option<&str>,
    sql: &str,
) -> Result<String, String> {
    let mut c = Command::new("psql");
    c.arg(format!(
        "host=127.0.0.1 port={port} user={user} dbname={db}"
    ))
    .args(["-X", "-A", "-t", "-w", "-c", sql])
    .env_remove("PGPASSWORD")
    .env_remove("PGPASSFILE")
    .env("PGPASSFILE", "/nonexistent");
    if let Some(p) = password {
        c.env("PGPASSWORD", p);
    }
    let out = c.output().expect("psql runs");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).unwrap().trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn users_file(dir: &Path, text: &str) -> std::path::PathBuf {
    let p = dir.join("users");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn passwords_from_a_users_file() {
    let (Some(db), Some(admin)) = (nwind(), pg_admin()) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let users = users_file(
        dir.path(),
        &format!(
            "# who may connect\nalice read {}\nbob   read {}\n",
            postgresql_verifier(&admin, "pencil"),
            hashed("s3cret wörd")
        ),
    );
    let users = users.to_str().unwrap();
    let server = Server::start(&[&db], &["--users", users]);
    let port = server.port;
    let q = "SELECT count(*) FROM Orders";
    assert_eq!(
        psql_as(port, "nwind", "alice", Some("pencil"), q).unwrap(),
        "830"
    );
    assert_eq!(
        psql_as(port, "nwind", "bob", Some("s3cret wörd"), q).unwrap(),
        "830"
    );
    for (user, password) in [
        ("alice", Some("Pencil")),
        ("bob", Some("pencil")),
        ("carol", Some("pencil")),
    ] {
        let e = psql_as(port, "nwind", user, password, q).unwrap_err();
        assert!(
            e.contains(&format!(
                "password authentication failed for user \"{user}\""
            )),
            "{user}: {e}"
        );
    }
    // libpq asks for a password the user did not give
    let e = psql_as(port, "nwind", "alice", None, q).unwrap_err();
    assert!(e.contains("no password supplied"), "{e}");
    assert!(server.said("password authentication failed for user \"carol\""));
    // a read user on a read-only server
    assert_eq!(
        psql_as(
            port,
            "nwind",
            "alice",
            Some("pencil"),
            "SHOW default_transaction_read_only"
        )
        .unwrap(),
        "on"
    );

    // tokio-postgres's own SCRAM client
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let ok = format!("host=127.0.0.1 port={port} user=bob password='s3cret wörd' dbname=nwind");
        let (client, conn) = tokio_postgres::connect(&ok, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        let row = client
            .query_one(
                "SELECT count(*) FROM Customers WHERE Country = $1",
                &[&"Germany"],
            )
            .await
            .unwrap();
        assert_eq!(row.get::<_, i64>(0), 11);
        let bad = format!("host=127.0.0.1 port={port} user=bob password=wrong dbname=nwind");
        let e = tokio_postgres::connect(&bad, tokio_postgres::NoTls)
            .await
            .err()
            .expect("a wrong password is refused");
        assert_eq!(
            e.code(),
            Some(&tokio_postgres::error::SqlState::INVALID_PASSWORD),
            "{e}"
        );
    });
}

#[test]
fn other_addresses_need_users() {
    let db = crate::serve::sample();
    let out = jetsql()
        .arg("serve")
        .arg(&db)
        .args(["--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("give --users FILE"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    for (text, says) in [
        ("alice admin x", "line 1: the right of alice is \"admin\""),
        (
            "alice read md5abc",
            "line 1: alice's verifier is not a SCRAM-SHA-256 verifier",
        ),
    ] {
        let users = users_file(dir.path(), text);
        let out = jetsql()
            .arg("serve")
            .arg(&db)
            .arg("--users")
            .arg(&users)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(says), "{e}");
    }
    // with users, any address
    let users = users_file(dir.path(), &format!("alice read {}", hashed("pw")));
    let server = Server::start_at(&[&db], "0.0.0.0:0", &["--users", users.to_str().unwrap()]);
    assert_eq!(
        psql_as(server.port, "sample", "alice", Some("pw"), "SELECT 1 + 1").unwrap(),
        "2"
    );
}

/// A startup message for `user`.
fn startup(user: &str) -> Vec<u8> {
    let mut body = 196_608i32.to_be_bytes().to_vec();
    for s in ["user", user, "database", "sample", ""] {
        body.extend_from_slice(s.as_bytes());
        body.push(0);
    }
    let mut m = ((body.len() + 4) as i32).to_be_bytes().to_vec();
    m.extend_from_slice(&body);
    m
}

/// Everything the server sends until it closes the connection (or 5 s).
fn read_to_end(s: &mut std::net::TcpStream) -> Vec<u8> {
    use std::io::Read;
    s.set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out
}

#[test]
fn malformed_and_wrong_logins_close_only_their_connection() {
    use std::io::Write;
    let db = crate::serve::sample();
    let dir = tempfile::tempdir().unwrap();
    let users = users_file(dir.path(), &format!("alice read {}", hashed("pw")));
    let mut server = Server::start(&[&db], &["--users", users.to_str().unwrap()]);
    let p = |body: &[u8]| {
        let mut m = vec![b'p'];
        m.extend_from_slice(&((body.len() + 4) as i32).to_be_bytes());
        m.extend_from_slice(body);
        m
    };
    let bodies: Vec<Vec<u8>> = vec![
        // cut before the length
        b"SCRAM-SHA-256\0\0".to_vec(),
        // a length past the message
        [&b"SCRAM-SHA-256\0"[..], &[0, 0, 1, 0], b"n,,n=,r=abc"].concat(),
        // a negative length other than -1
        [&b"SCRAM-SHA-256\0"[..], &[0xff, 0xff, 0xff, 0xf0]].concat(),
        // another mechanism
        [&b"PLAIN\0"[..], &[0, 0, 0, 3], b"abc"].concat(),
        // not a client-first message
        [&b"SCRAM-SHA-256\0"[..], &[0, 0, 0, 4], b"junk"].concat(),
        // channel binding that was not offered
        [
            &b"SCRAM-SHA-256\0"[..],
            &[0, 0, 0, 32],
            b"p=tls-server-end-point,,n=,r=abc",
        ]
        .concat(),
        // no body at all
        Vec::new(),
    ];
    for body in &bodies {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        s.write_all(&startup("alice")).unwrap();
        s.write_all(&p(body)).unwrap();
        let answer = read_to_end(&mut s);
        // an ErrorResponse, FATAL, then the connection closed
        assert!(
            answer.windows(5).any(|w| w == b"FATAL"),
            "{body:?}: {:?}",
            String::from_utf8_lossy(&answer)
        );
        assert!(server.alive());
    }
    // many wrong passwords, then the right one
    for i in 0..20 {
        let e = psql_as(
            server.port,
            "sample",
            "alice",
            Some(&format!("no{i}")),
            "SELECT 1",
        )
        .unwrap_err();
        assert!(e.contains("password authentication failed"), "{e}");
    }
    assert_eq!(
        psql_as(server.port, "sample", "alice", Some("pw"), "SELECT 40 + 2").unwrap(),
        "42"
    );
    assert!(server.alive());
    assert!(!server.stderr().iter().any(|l| l.contains("panicked")));
}
