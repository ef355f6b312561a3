//! `jetsql serve --tls-cert --tls-key [--require-tls]`: psql (libpq and
//! its OpenSSL, a TLS implementation independent of the server's)
//! connects over TLS and verifies the server's certificate, made here by
//! the openssl tool; with --require-tls a client in clear text is refused
//! before it may send a password; garbage in place of a TLS handshake
//! closes only its own connection.

use crate::common::jetsql;
use crate::serve::{Server, sample};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A self-signed certificate for localhost and 127.0.0.1 and its key, in
/// `dir`.
fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("server.crt"), dir.join("server.key"));
    let out = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl runs (apt openssl)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (cert, key)
}

/// psql with `extra` connection settings: `\conninfo`'s line and the
/// query's answer, or the error.
fn psql(port: u16, extra: &str, sql: &str) -> Result<String, String> {
    let out = Command::new("psql")
        .arg(format!(
            "host=localhost hostaddr=127.0.0.1 port={port} user=tester dbname=sample {extra}"
        ))
        .args(["-X", "-A", "-t", "-c", "\\conninfo", "-c", sql])
        .env_remove("PGSSLMODE")
        .output()
        .expect("psql runs");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn clients_connect_over_tls_and_verify_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(dir.path());
    let (c, k) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let server = Server::start(&[&sample()], &["--tls-cert", c, "--tls-key", k]);
    let verified = format!("sslmode=verify-full sslrootcert={c}");
    let out = psql(server.port, &verified, "SELECT count(*) FROM Customers").unwrap();
    assert!(out.contains("SSL connection (protocol: TLSv1.3"), "{out}");
    assert!(out.trim_end().ends_with("250"), "{out}");
    // clear text still served without --require-tls
    let out = psql(server.port, "sslmode=disable", "SELECT 1").unwrap();
    assert!(!out.contains("SSL connection"), "{out}");
    // a certificate the client does not trust is refused by the client
    let other = tempfile::tempdir().unwrap();
    let (stranger, _) = certificate(other.path());
    let e = psql(
        server.port,
        &format!("sslmode=verify-full sslrootcert={}", stranger.display()),
        "SELECT 1",
    )
    .unwrap_err();
    assert!(e.contains("certificate verify failed"), "{e}");
    drop(server);

    let server = Server::start(
        &[&sample()],
        &["--tls-cert", c, "--tls-key", k, "--require-tls"],
    );
    let e = psql(server.port, "sslmode=disable", "SELECT 1").unwrap_err();
    assert!(e.contains("encrypted connections only"), "{e}");
    let out = psql(server.port, "sslmode=require", "SELECT 2").unwrap();
    assert!(out.trim_end().ends_with('2'), "{out}");
}

#[test]
fn a_broken_handshake_closes_only_its_connection() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(dir.path());
    let mut server = Server::start(
        &[&sample()],
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    for garbage in [
        &b"\x16\x03\x01\x00\x05hello"[..],
        b"GET / HTTP/1.1\r\n\r\n",
        &[0u8; 600],
    ] {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .unwrap();
        // SSLRequest, answered S
        s.write_all(&[0, 0, 0, 8, 4, 210, 22, 47]).unwrap();
        let mut answer = [0u8; 1];
        s.read_exact(&mut answer).unwrap();
        assert_eq!(&answer, b"S");
        let _ = s.write_all(garbage);
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest);
        assert!(server.alive());
    }
    let verified = format!("sslmode=verify-full sslrootcert={}", cert.display());
    assert!(psql(server.port, &verified, "SELECT 3").is_ok());
}

#[test]
fn bad_certificates_are_named_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = certificate(dir.path());
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").unwrap();
    for (c, k, says) in [
        (&empty, &key, "no certificate in the file"),
        (&cert, &empty, "--tls-key"),
        (&key, &cert, "--tls-"),
    ] {
        let out = jetsql()
            .arg("serve")
            .arg(sample())
            .args(["--listen", "127.0.0.1:0", "--tls-cert"])
            .arg(c)
            .arg("--tls-key")
            .arg(k)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains(says), "{e}");
    }
    let out = jetsql()
        .arg("serve")
        .arg(sample())
        .arg("--require-tls")
        .output()
        .unwrap();
    assert!(!out.status.success());
}
