//! Who may connect, and what they may do: the users file (`--users`) and
//! the SCRAM-SHA-256 exchange that proves a client knows a user's
//! password (RFC 5802, RFC 7677, as PostgreSQL speaks it).
//!
//! The file keeps no password, only PostgreSQL's verifier of it
//! (`SCRAM-SHA-256$ITERATIONS:SALT$STOREDKEY:SERVERKEY`, the form of
//! `pg_authid.rolpassword`), so a verifier may be copied from a
//! PostgreSQL server or made with `jetsql serve --hash-password`. One user
//! a line:
//!
//! ```text
//! # NAME  RIGHT  VERIFIER
//! alice   write  SCRAM-SHA-256$4096:…$…:…
//! bob     read   SCRAM-SHA-256$4096:…$…:…
//! ```
//!
//! A user who is not in the file goes through the same exchange, with a
//! salt made from the name and a secret of this process, and is refused
//! at its end with the same words as a wrong password: the server does
//! not tell which names exist.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use hmac::{Hmac, Mac};
use jet_kernels::scram::{self, Binding};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::Path;

/// What a user may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Right {
    /// Read only: every statement that would change a file is refused.
    Read,
    /// Read and, on a `--write` server, write.
    Write,
}

/// One user's verifier.
#[derive(Debug, Clone)]
struct User {
    right: Right,
    iterations: u32,
    salt: Vec<u8>,
    stored_key: [u8; 32],
    server_key: [u8; 32],
}

/// The users of a server.
#[derive(Debug)]
pub struct Users {
    by_name: HashMap<String, User>,
    /// Salts the exchange of names not in the file.
    secret: [u8; 32],
}

/// Why a client was not let in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// A malformed or out-of-order SCRAM message (SQLSTATE 08P01).
    Protocol(String),
    /// A wrong password or an unknown user (SQLSTATE 28P01).
    Password,
}

fn key32(b64: &[u8]) -> Option<[u8; 32]> {
    B64.decode(b64).ok()?.try_into().ok()
}

impl Users {
    /// Reads the users file at `path`.
    ///
    /// # Errors
    /// The file cannot be read, or a line is not `NAME read|write
    /// VERIFIER` (the message names the file and line).
    pub fn load(path: &Path) -> Result<Users, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--users {}: {e}", path.display()))?;
        Users::parse(&text).map_err(|e| format!("--users {}: {e}", path.display()))
    }

    /// Reads the text of a users file.
    ///
    /// # Errors
    /// A line that is not `NAME read|write VERIFIER`, a name given twice,
    /// or no user at all.
    pub fn parse(text: &str) -> Result<Users, String> {
        let mut by_name = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let [name, right, verifier] = words[..] else {
                return Err(format!(
                    "line {n}: expected NAME read|write VERIFIER, found {} words",
                    words.len()
                ));
            };
            let right = match right.to_ascii_lowercase().as_str() {
                "read" => Right::Read,
                "write" => Right::Write,
                other => {
                    return Err(format!(
                        "line {n}: the right of {name} is \"{other}\", not read or write"
                    ));
                }
            };
            let v = scram::verifier(verifier.as_bytes())
                .map_err(|r| format!("line {n}: {name}'s verifier is {}", r.reason()))?;
            let bad = || format!("line {n}: {name}'s verifier has keys that are not 32 bytes");
            let user = User {
                right,
                iterations: v.iterations,
                salt: B64.decode(v.salt).map_err(|_| bad())?,
                stored_key: key32(v.stored_key).ok_or_else(bad)?,
                server_key: key32(v.server_key).ok_or_else(bad)?,
            };
            if by_name.insert(name.to_string(), user).is_some() {
                return Err(format!("line {n}: {name} is named twice"));
            }
        }
        if by_name.is_empty() {
            return Err("no users in the file".into());
        }
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| format!("no random numbers: {e}"))?;
        Ok(Users { by_name, secret })
    }

    /// The number of users.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Answers a client-first message for `user` (the startup message's
    /// user): the server-first message to send, and what the final step
    /// needs.
    ///
    /// # Errors
    /// [`Refused::Protocol`] for a malformed message or a channel binding
    /// the server does not offer.
    pub fn first(&self, user: &str, client_first: &[u8]) -> Result<(String, Pending), Refused> {
        let first = scram::client_first(client_first)
            .map_err(|r| Refused::Protocol(format!("SCRAM: {}", r.reason())))?;
        if let Binding::Required(_) = first.binding {
            return Err(Refused::Protocol(
                "SCRAM: channel binding is not offered by this server (use SCRAM-SHA-256)".into(),
            ));
        }
        let known = self.by_name.get(user).cloned();
        let (salt, iterations) = match &known {
            Some(u) => (u.salt.clone(), u.iterations),
            None => {
                let mut h = Sha256::new();
                h.update(self.secret);
                h.update(user.as_bytes());
                (h.finalize()[..16].to_vec(), 4096)
            }
        };
        let mut ours = [0u8; 18];
        getrandom::fill(&mut ours).map_err(|e| Refused::Protocol(format!("no nonce: {e}")))?;
        let nonce = format!(
            "{}{}",
            String::from_utf8_lossy(first.nonce),
            B64.encode(ours)
        );
        let server_first = format!("r={nonce},s={},i={iterations}", B64.encode(&salt));
        Ok((
            server_first.clone(),
            Pending {
                user: known,
                gs2_header: first.gs2_header.to_vec(),
                client_first_bare: first.bare.to_vec(),
                server_first,
                nonce,
            },
        ))
    }
}

/// A SCRAM exchange waiting for the client's final message.
#[derive(Debug)]
pub struct Pending {
    /// `None`: a name not in the file (always refused).
    user: Option<User>,
    gs2_header: Vec<u8>,
    client_first_bare: Vec<u8>,
    server_first: String,
    nonce: String,
}

fn hmac(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(msg);
    mac.finalize().into_bytes().into()
}

/// Whether `a` equals `b`, in time that does not depend on where they
/// differ.
fn same(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

impl Pending {
    /// Checks the client-final message: the server-final message to send
    /// when the proof holds, and the user's right.
    ///
    /// # Errors
    /// [`Refused::Protocol`] for a malformed message, another nonce or
    /// channel binding; [`Refused::Password`] when the proof is wrong or
    /// the user unknown.
    pub fn finish(&self, client_final: &[u8]) -> Result<(String, Right), Refused> {
        let fin = scram::client_final(client_final)
            .map_err(|r| Refused::Protocol(format!("SCRAM: {}", r.reason())))?;
        if fin.nonce != self.nonce.as_bytes() {
            return Err(Refused::Protocol("SCRAM: the nonce does not match".into()));
        }
        if B64.decode(fin.binding).ok().as_deref() != Some(&self.gs2_header[..]) {
            return Err(Refused::Protocol(
                "SCRAM: the channel binding does not match".into(),
            ));
        }
        let Some(user) = &self.user else {
            return Err(Refused::Password);
        };
        let proof: [u8; 32] = B64
            .decode(fin.proof)
            .ok()
            .and_then(|p| p.try_into().ok())
            .ok_or(Refused::Password)?;
        let mut auth_message = self.client_first_bare.clone();
        auth_message.push(b',');
        auth_message.extend_from_slice(self.server_first.as_bytes());
        auth_message.push(b',');
        auth_message.extend_from_slice(fin.without_proof);
        let signature = hmac(&user.stored_key, &auth_message);
        let mut client_key = [0u8; 32];
        for (k, (p, s)) in client_key.iter_mut().zip(proof.iter().zip(&signature)) {
            *k = p ^ s;
        }
        let stored: [u8; 32] = Sha256::digest(client_key).into();
        if !same(&stored, &user.stored_key) {
            return Err(Refused::Password);
        }
        let verifier = hmac(&user.server_key, &auth_message);
        Ok((format!("v={}", B64.encode(verifier)), user.right))
    }
}

/// PostgreSQL's verifier of `password` with a fresh random salt and 4096
/// iterations (what `--hash-password` prints).
pub fn hash_password(password: &str) -> String {
    postgres_protocol::password::scram_sha_256(password.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256};

    /// The client side of the exchange, from tokio-postgres's protocol
    /// crate (an implementation independent of ours).
    fn login(users: &Users, user: &str, password: &str) -> Result<Right, Refused> {
        let mut client = ScramSha256::new(password.as_bytes(), ChannelBinding::unsupported());
        let (server_first, pending) = users.first(user, client.message())?;
        client
            .update(server_first.as_bytes())
            .map_err(|e| Refused::Protocol(e.to_string()))?;
        let (server_final, right) = pending.finish(client.message())?;
        client
            .finish(server_final.as_bytes())
            .map_err(|e| Refused::Protocol(format!("client rejects the server: {e}")))?;
        Ok(right)
    }

    #[test]
    fn verifiers_made_here_and_by_postgresql_let_the_right_password_in() {
        // the second verifier was written by PostgreSQL 15 for
        // CREATE ROLE … PASSWORD 'pencil' (password_encryption=scram-sha-256)
        let text = format!(
            "# users\nalice write {}\n\nbob  read  SCRAM-SHA-256$4096:XmJObPbN8+Rf8odo87ls1w==$59gOmdMukbtEp9Hpj052ZYmvMsmfbPpRR4+E6RUwRS4=:Rwvu6YmvPWQvvqPNFS42zypwzDBGSPL9VXQm7d0Jynk=\n",
            hash_password("s3cret ü")
        );
        let users = Users::parse(&text).unwrap();
        assert_eq!(users.len(), 2);
        assert_eq!(login(&users, "alice", "s3cret ü"), Ok(Right::Write));
        assert_eq!(login(&users, "bob", "pencil"), Ok(Right::Read));
        assert_eq!(login(&users, "alice", "s3cret"), Err(Refused::Password));
        assert_eq!(login(&users, "bob", "Pencil"), Err(Refused::Password));
        assert_eq!(login(&users, "carol", "pencil"), Err(Refused::Password));
    }

    #[test]
    fn rfc_7677_example_exchange_verifies() {
        // RFC 7677 §3: password "pencil", salt W22ZaJ0SNY7soEsUEjb6gQ==,
        // 4096 iterations; StoredKey and ServerKey from its SaltedPassword
        let salted = {
            let salt = B64.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
            let mut u = hmac(b"pencil", &[salt, vec![0, 0, 0, 1]].concat());
            let mut hi = u;
            for _ in 1..4096 {
                u = hmac(b"pencil", &u);
                hi.iter_mut().zip(&u).for_each(|(h, x)| *h ^= x);
            }
            hi
        };
        let stored: [u8; 32] = Sha256::digest(hmac(&salted, b"Client Key")).into();
        let server = hmac(&salted, b"Server Key");
        let users = Users::parse(&format!(
            "user read SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==${}:{}",
            B64.encode(stored),
            B64.encode(server)
        ))
        .unwrap();
        let pending = Pending {
            user: users.by_name.get("user").cloned(),
            gs2_header: b"n,,".to_vec(),
            client_first_bare: b"n=user,r=rOprNGfwEbeRWgbNEkqO".to_vec(),
            server_first: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096".into(),
            nonce: "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0".into(),
        };
        let (server_final, _) = pending
            .finish(b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
            .unwrap();
        assert_eq!(
            server_final,
            "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
        );
    }

    #[test]
    fn malformed_exchanges_are_protocol_errors() {
        let users = Users::parse(&format!("u read {}", hash_password("pw"))).unwrap();
        assert!(matches!(
            users.first("u", b"p=tls-server-end-point,,n=,r=abc"),
            Err(Refused::Protocol(_))
        ));
        assert!(matches!(
            users.first("u", b"junk"),
            Err(Refused::Protocol(_))
        ));
        let (_, pending) = users.first("u", b"n,,n=,r=abc").unwrap();
        assert!(matches!(
            pending.finish(b"c=biws,r=abcOTHER,p=AAAA"),
            Err(Refused::Protocol(_))
        ));
        assert!(matches!(
            pending.finish(&[0xff; 40]),
            Err(Refused::Protocol(_))
        ));
    }

    #[test]
    fn bad_files_name_their_line() {
        for (text, says) in [
            ("", "no users"),
            ("alice write", "line 1: expected NAME read|write VERIFIER"),
            (
                "\nalice admin SCRAM-SHA-256$1:AAAA$AAAA:AAAA",
                "line 2: the right of alice is \"admin\"",
            ),
            (
                "alice read md5abc",
                "line 1: alice's verifier is not a SCRAM-SHA-256 verifier",
            ),
            (
                "alice read SCRAM-SHA-256$1:AAAA$AAAA:AAAA",
                "keys that are not 32 bytes",
            ),
        ] {
            let e = Users::parse(text).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
        let v = hash_password("x");
        let e = Users::parse(&format!("a read {v}\na write {v}")).unwrap_err();
        assert!(e.contains("line 2: a is named twice"), "{e}");
    }
}
