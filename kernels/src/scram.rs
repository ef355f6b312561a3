//! SCRAM-SHA-256 messages a PostgreSQL client sends, and the verifier a
//! server keeps, read field by field (RFC 5802 §7, RFC 7677; PostgreSQL's
//! rules of what it accepts).
//!
//! Every function takes untrusted bytes and is total: any input gives the
//! message's parts (borrowed from the input, never copied) or a
//! [`ScramRefusal`] naming what is wrong, in time linear in the input.
//! Base64 values are returned as their text, checked to hold only the
//! base64 alphabet; decoding and all cryptography are the caller's.
//!
//! ```text
//! client-first  = gs2-header client-first-bare
//! gs2-header    = ("n" / "y" / "p=" cb-name) "," "," ; no authzid
//! client-first-bare = "n=" user "," "r=" nonce *("," attr)
//! client-final  = "c=" b64 "," "r=" nonce *("," attr) "," "p=" b64
//! verifier      = "SCRAM-SHA-256$" iterations ":" b64 "$" b64 ":" b64
//! ```

/// Why a SCRAM message or verifier was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScramRefusal {
    /// The channel-binding flag is not `n`, `y` or `p=NAME`.
    BadBindingFlag,
    /// An authorization identity (`a=`) was given; PostgreSQL takes none.
    Authzid,
    /// A mandatory extension (`m=`) was asked for.
    MandatoryExtension,
    /// No `n=` user attribute where one must be.
    MissingUser,
    /// No `r=` nonce where one must be, or an empty one.
    MissingNonce,
    /// A nonce with a byte outside printable ASCII or a comma.
    BadNonce,
    /// No `c=` channel binding at the start of the final message.
    MissingBinding,
    /// No `p=` proof at the end of the final message.
    MissingProof,
    /// An attribute that is not `letter=value`.
    BadAttribute,
    /// A base64 value holding another byte, or of a length not a multiple
    /// of four.
    BadBase64,
    /// A verifier not of the form `SCRAM-SHA-256$i:salt$stored:server`.
    BadVerifier,
    /// A SASLInitialResponse body that is not a mechanism name, a length
    /// and that many bytes.
    BadInitialResponse,
}

impl ScramRefusal {
    /// What is wrong, in words for a person.
    #[must_use]
    pub const fn reason(self) -> &'static str {
        match self {
            ScramRefusal::BadBindingFlag => "the channel-binding flag is not n, y or p=NAME",
            ScramRefusal::Authzid => "an authorization identity (a=) is not supported",
            ScramRefusal::MandatoryExtension => "a mandatory extension (m=) is not supported",
            ScramRefusal::MissingUser => "the user attribute (n=) is missing",
            ScramRefusal::MissingNonce => "the nonce (r=) is missing or empty",
            ScramRefusal::BadNonce => "the nonce holds a byte that is not printable ASCII",
            ScramRefusal::MissingBinding => "the channel binding (c=) is missing",
            ScramRefusal::MissingProof => "the proof (p=) is missing",
            ScramRefusal::BadAttribute => "an attribute is not of the form letter=value",
            ScramRefusal::BadBase64 => "a value is not base64",
            ScramRefusal::BadInitialResponse => {
                "the SASL initial response is not a mechanism, a length and its data"
            }
            ScramRefusal::BadVerifier => {
                "not a SCRAM-SHA-256 verifier (SCRAM-SHA-256$ITERATIONS:SALT$STOREDKEY:SERVERKEY)"
            }
        }
    }
}

/// The client's channel-binding flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding<'a> {
    /// `n`: the client does not support channel binding.
    NotSupported,
    /// `y`: the client supports it but thinks the server does not.
    NotUsed,
    /// `p=NAME`: the client asks for binding of type NAME.
    Required(&'a [u8]),
}

/// A client-first message's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientFirst<'a> {
    /// The channel-binding flag.
    pub binding: Binding<'a>,
    /// The GS2 header, with its two commas (the final message's `c=`
    /// carries it in base64).
    pub gs2_header: &'a [u8],
    /// The message after the header: part of the signed message.
    pub bare: &'a [u8],
    /// The user named (PostgreSQL ignores it: the startup message's user
    /// counts).
    pub user: &'a [u8],
    /// The client's nonce.
    pub nonce: &'a [u8],
}

/// A client-final message's parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientFinal<'a> {
    /// Everything before `,p=`: part of the signed message.
    pub without_proof: &'a [u8],
    /// The `c=` value, base64 text.
    pub binding: &'a [u8],
    /// The combined nonce.
    pub nonce: &'a [u8],
    /// The `p=` value, base64 text.
    pub proof: &'a [u8],
}

/// A stored SCRAM-SHA-256 verifier's parts (PostgreSQL's
/// `pg_authid.rolpassword` form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verifier<'a> {
    /// The iteration count, at least 1.
    pub iterations: u32,
    /// The salt, base64 text.
    pub salt: &'a [u8],
    /// `StoredKey`, base64 text.
    pub stored_key: &'a [u8],
    /// `ServerKey`, base64 text.
    pub server_key: &'a [u8],
}

/// A SASLInitialResponse message's body: the mechanism chosen and the
/// first message of the exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitialResponse<'a> {
    /// The mechanism's name (without its terminating NUL).
    pub mechanism: &'a [u8],
    /// The data (`None`: length -1).
    pub data: Option<&'a [u8]>,
}

/// Reads a SASLInitialResponse body: a NUL-terminated mechanism name, a
/// big-endian `i32` length (-1 for none) and exactly that many bytes.
///
/// # Errors
/// [`ScramRefusal::BadInitialResponse`] for any other body.
pub fn initial_response(body: &[u8]) -> Result<InitialResponse<'_>, ScramRefusal> {
    let bad = ScramRefusal::BadInitialResponse;
    let (mechanism, rest) = cut(body, 0).ok_or(bad)?;
    let (len, data) = rest.split_first_chunk::<4>().ok_or(bad)?;
    let len = i32::from_be_bytes(*len);
    if len == -1 && data.is_empty() {
        return Ok(InitialResponse {
            mechanism,
            data: None,
        });
    }
    if usize::try_from(len).ok() != Some(data.len()) {
        return Err(bad);
    }
    Ok(InitialResponse {
        mechanism,
        data: Some(data),
    })
}

/// `s` up to the first `sep` and the rest after it (`None`: no `sep`).
fn cut(s: &[u8], sep: u8) -> Option<(&[u8], &[u8])> {
    let at = s.iter().position(|&b| b == sep)?;
    let (head, tail) = s.split_at_checked(at)?;
    Some((head, tail.get(1..)?))
}

/// The value of attribute `name` at the start of `field`.
fn attr(field: &[u8], name: u8) -> Option<&[u8]> {
    field.strip_prefix(&[name, b'='])
}

/// Whether `field` is `letter=value`.
fn is_attr(field: &[u8]) -> bool {
    matches!(field, [l, b'=', ..] if l.is_ascii_alphabetic())
}

/// Whether `s` is a valid nonce: printable ASCII other than `,`, at
/// least one byte.
fn nonce_ok(s: &[u8]) -> Result<(), ScramRefusal> {
    if s.is_empty() {
        return Err(ScramRefusal::MissingNonce);
    }
    if s.iter().all(|&b| (0x21..=0x7e).contains(&b) && b != b',') {
        Ok(())
    } else {
        Err(ScramRefusal::BadNonce)
    }
}

/// Whether `s` is base64 text: the alphabet, `=` padding only at the
/// end (at most two), a length a multiple of four.
#[must_use]
pub fn is_base64(s: &[u8]) -> bool {
    let body = s
        .strip_suffix(b"==")
        .or_else(|| s.strip_suffix(b"="))
        .unwrap_or(s);
    s.len().is_multiple_of(4)
        && body
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// Checks the attributes after the nonce: each `letter=value`.
fn extensions_ok<'a>(rest: impl Iterator<Item = &'a [u8]>) -> Result<(), ScramRefusal> {
    for field in rest {
        if !is_attr(field) {
            return Err(ScramRefusal::BadAttribute);
        }
    }
    Ok(())
}

/// The comma-separated fields of `s` (empty ones too).
fn fields(s: &[u8]) -> impl Iterator<Item = &[u8]> {
    s.split(|&b| b == b',')
}

/// Reads a client-first message.
///
/// # Errors
/// A [`ScramRefusal`] naming the first rule the message breaks.
pub fn client_first(msg: &[u8]) -> Result<ClientFirst<'_>, ScramRefusal> {
    let (flag, after_flag) = cut(msg, b',').ok_or(ScramRefusal::BadBindingFlag)?;
    let binding = match flag {
        b"n" => Binding::NotSupported,
        b"y" => Binding::NotUsed,
        _ => match attr(flag, b'p') {
            Some(name) if !name.is_empty() => Binding::Required(name),
            _ => return Err(ScramRefusal::BadBindingFlag),
        },
    };
    let (authzid, bare) = cut(after_flag, b',').ok_or(ScramRefusal::BadBindingFlag)?;
    if !authzid.is_empty() {
        return Err(if attr(authzid, b'a').is_some() {
            ScramRefusal::Authzid
        } else {
            ScramRefusal::BadBindingFlag
        });
    }
    let header_len = msg
        .len()
        .checked_sub(bare.len())
        .ok_or(ScramRefusal::BadBindingFlag)?;
    let gs2_header = msg.get(..header_len).ok_or(ScramRefusal::BadBindingFlag)?;
    if attr(bare, b'm').is_some() {
        return Err(ScramRefusal::MandatoryExtension);
    }
    let mut parts = fields(bare);
    let user = parts
        .next()
        .and_then(|f| attr(f, b'n'))
        .ok_or(ScramRefusal::MissingUser)?;
    let nonce = parts
        .next()
        .and_then(|f| attr(f, b'r'))
        .ok_or(ScramRefusal::MissingNonce)?;
    nonce_ok(nonce)?;
    extensions_ok(parts)?;
    Ok(ClientFirst {
        binding,
        gs2_header,
        bare,
        user,
        nonce,
    })
}

/// Reads a client-final message.
///
/// # Errors
/// A [`ScramRefusal`] naming the first rule the message breaks.
pub fn client_final(msg: &[u8]) -> Result<ClientFinal<'_>, ScramRefusal> {
    // the proof is the last attribute
    let at = msg
        .windows(3)
        .rposition(|w| w == b",p=")
        .ok_or(ScramRefusal::MissingProof)?;
    let (without_proof, proof_field) =
        msg.split_at_checked(at).ok_or(ScramRefusal::MissingProof)?;
    let proof = proof_field.get(3..).ok_or(ScramRefusal::MissingProof)?;
    if proof.is_empty() || !is_base64(proof) {
        return Err(ScramRefusal::BadBase64);
    }
    let mut parts = fields(without_proof);
    let binding = parts
        .next()
        .and_then(|f| attr(f, b'c'))
        .ok_or(ScramRefusal::MissingBinding)?;
    if !is_base64(binding) {
        return Err(ScramRefusal::BadBase64);
    }
    let nonce = parts
        .next()
        .and_then(|f| attr(f, b'r'))
        .ok_or(ScramRefusal::MissingNonce)?;
    nonce_ok(nonce)?;
    extensions_ok(parts)?;
    Ok(ClientFinal {
        without_proof,
        binding,
        nonce,
        proof,
    })
}

/// Reads a stored verifier, `SCRAM-SHA-256$ITERATIONS:SALT$STOREDKEY:SERVERKEY`.
///
/// # Errors
/// [`ScramRefusal::BadVerifier`] for any other text, a zero or
/// non-decimal iteration count, or a part that is not base64.
pub fn verifier(text: &[u8]) -> Result<Verifier<'_>, ScramRefusal> {
    let bad = ScramRefusal::BadVerifier;
    let rest = text.strip_prefix(b"SCRAM-SHA-256$").ok_or(bad)?;
    let (iter_salt, keys) = cut(rest, b'$').ok_or(bad)?;
    let (iter_text, salt) = cut(iter_salt, b':').ok_or(bad)?;
    let (stored_key, server_key) = cut(keys, b':').ok_or(bad)?;
    if iter_text.is_empty() || iter_text.len() > 9 {
        return Err(bad);
    }
    let mut iterations: u32 = 0;
    for &d in iter_text {
        if !d.is_ascii_digit() {
            return Err(bad);
        }
        iterations = iterations
            .checked_mul(10)
            .and_then(|n| n.checked_add(u32::from(d.wrapping_sub(b'0'))))
            .ok_or(bad)?;
    }
    if iterations == 0 {
        return Err(bad);
    }
    for part in [salt, stored_key, server_key] {
        if part.is_empty() || !is_base64(part) {
            return Err(bad);
        }
    }
    Ok(Verifier {
        iterations,
        salt,
        stored_key,
        server_key,
    })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use std::format;
    use std::string::{String, ToString};
    use std::vec::Vec;

    // RFC 7677 §3, the SCRAM-SHA-256 example exchange (user "user",
    // password "pencil").
    const FIRST: &[u8] = b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    const FINAL: &[u8] = b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";

    #[test]
    fn rfc_7677_example_messages() {
        let f = client_first(FIRST).unwrap();
        assert_eq!(f.binding, Binding::NotSupported);
        assert_eq!(f.gs2_header, b"n,,");
        assert_eq!(f.bare, b"n=user,r=rOprNGfwEbeRWgbNEkqO");
        assert_eq!(f.user, b"user");
        assert_eq!(f.nonce, b"rOprNGfwEbeRWgbNEkqO");
        let c = client_final(FINAL).unwrap();
        assert_eq!(c.binding, b"biws");
        assert_eq!(
            c.nonce,
            b"rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
        );
        assert_eq!(c.proof, b"dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
        assert_eq!(
            c.without_proof,
            b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
        );
    }

    #[test]
    fn libpq_forms() {
        // libpq sends an empty user (the startup message names it)
        let f = client_first(b"n,,n=,r=abc").unwrap();
        assert_eq!(f.user, b"");
        let y = client_first(b"y,,n=,r=abc").unwrap();
        assert_eq!(y.binding, Binding::NotUsed);
        assert_eq!(y.gs2_header, b"y,,");
        let p = client_first(b"p=tls-server-end-point,,n=,r=abc").unwrap();
        assert_eq!(p.binding, Binding::Required(b"tls-server-end-point"));
        assert_eq!(p.gs2_header, b"p=tls-server-end-point,,");
        let ext = client_first(b"n,,n=u,r=abc,x=1").unwrap();
        assert_eq!(ext.nonce, b"abc");
    }

    #[test]
    fn refusals() {
        use ScramRefusal as R;
        for (msg, why) in [
            (&b""[..], R::BadBindingFlag),
            (b"q,,n=,r=a", R::BadBindingFlag),
            (b"p=,,n=,r=a", R::BadBindingFlag),
            (b"n,a=bob,n=,r=a", R::Authzid),
            (b"n,x,n=,r=a", R::BadBindingFlag),
            (b"n,,m=x,n=,r=a", R::MandatoryExtension),
            (b"n,,r=a", R::MissingUser),
            (b"n,,n=u", R::MissingNonce),
            (b"n,,n=u,r=", R::MissingNonce),
            (b"n,,n=u,r=a\x01", R::BadNonce),
            (b"n,,n=u,r=a,junk", R::BadAttribute),
            (b"n,", R::BadBindingFlag),
        ] {
            assert_eq!(
                client_first(msg),
                Err(why),
                "{:?}",
                String::from_utf8_lossy(msg)
            );
        }
        for (msg, why) in [
            (&b""[..], R::MissingProof),
            (b"c=biws,r=a", R::MissingProof),
            (b"c=biws,r=a,p=", R::BadBase64),
            (b"c=biws,r=a,p=abc", R::BadBase64),
            (b"c=bi*s,r=a,p=abcd", R::BadBase64),
            (b"x=biws,r=a,p=abcd", R::MissingBinding),
            (b"c=biws,p=abcd", R::MissingNonce),
            (b"c=biws,r=\x7f,p=abcd", R::BadNonce),
            (b"c=biws,r=a,,p=abcd", R::BadAttribute),
        ] {
            assert_eq!(
                client_final(msg),
                Err(why),
                "{:?}",
                String::from_utf8_lossy(msg)
            );
        }
    }

    #[test]
    fn verifiers() {
        // a verifier PostgreSQL 15 wrote (CREATE ROLE … PASSWORD 'pencil')
        let v = verifier(b"SCRAM-SHA-256$4096:XmJObPbN8+Rf8odo87ls1w==$59gOmdMukbtEp9Hpj052ZYmvMsmfbPpRR4+E6RUwRS4=:Rwvu6YmvPWQvvqPNFS42zypwzDBGSPL9VXQm7d0Jynk=").unwrap();
        assert_eq!(v.iterations, 4096);
        assert_eq!(v.salt, b"XmJObPbN8+Rf8odo87ls1w==");
        assert_eq!(
            v.stored_key,
            b"59gOmdMukbtEp9Hpj052ZYmvMsmfbPpRR4+E6RUwRS4="
        );
        assert_eq!(
            v.server_key,
            b"Rwvu6YmvPWQvvqPNFS42zypwzDBGSPL9VXQm7d0Jynk="
        );
        for bad in [
            &b"md5abcdef"[..],
            b"SCRAM-SHA-256$0:AAAA$AAAA:AAAA",
            b"SCRAM-SHA-256$x:AAAA$AAAA:AAAA",
            b"SCRAM-SHA-256$4096:AAAA$AAAA",
            b"SCRAM-SHA-256$4096:AA$AAAA:AAAA",
            b"SCRAM-SHA-256$4096:AAAA$:AAAA",
            b"SCRAM-SHA-256$99999999999:AAAA$AAAA:AAAA",
            b"SCRAM-SHA-1$4096:AAAA$AAAA:AAAA",
        ] {
            assert_eq!(verifier(bad), Err(ScramRefusal::BadVerifier));
        }
    }

    #[test]
    fn initial_responses() {
        let ok = initial_response(b"SCRAM-SHA-256\0\0\0\0\x03abc").unwrap();
        assert_eq!(ok.mechanism, b"SCRAM-SHA-256");
        assert_eq!(ok.data, Some(&b"abc"[..]));
        let none = initial_response(b"X\0\xff\xff\xff\xff").unwrap();
        assert_eq!(none.data, None);
        for bad in [
            &b""[..],
            b"SCRAM-SHA-256",
            b"SCRAM-SHA-256\0\0\0",
            b"SCRAM-SHA-256\0\0\0\0\x04abc",
            b"SCRAM-SHA-256\0\0\0\0\x02abc",
            b"SCRAM-SHA-256\0\xff\xff\xff\xfe",
            b"X\0\xff\xff\xff\xffa",
        ] {
            assert_eq!(initial_response(bad), Err(ScramRefusal::BadInitialResponse));
        }
    }

    /// The naive reading of a client-final message: split on commas.
    fn oracle_final(msg: &str) -> Option<(String, String, String)> {
        let parts: Vec<&str> = msg.split(',').collect();
        let (last, init) = parts.split_last()?;
        let proof = last.strip_prefix("p=")?;
        let c = init.first()?.strip_prefix("c=")?;
        let r = init.get(1)?.strip_prefix("r=")?;
        Some((c.to_string(), r.to_string(), proof.to_string()))
    }

    proptest! {
        #[test]
        fn any_bytes_are_answered(b in proptest::collection::vec(any::<u8>(), 0..80)) {
            let _ = client_first(&b);
            let _ = client_final(&b);
            let _ = verifier(&b);
            let _ = is_base64(&b);
            if let Ok(r) = initial_response(&b) {
                // the parts and the header account for every byte
                let data = r.data.map_or(0, <[u8]>::len);
                prop_assert_eq!(r.mechanism.len() + 5 + data, b.len());
            }
        }

        #[test]
        fn built_messages_read_back(
            nonce in "[!-+\\--~]{1,30}",
            user in "[a-z]{0,8}",
            binding in "(biws|eSws)",
            proof in "([A-Za-z0-9+/]{4}){1,11}",
        ) {
            let first = format!("n,,n={user},r={nonce}");
            let f = client_first(first.as_bytes()).unwrap();
            prop_assert_eq!(f.nonce, nonce.as_bytes());
            prop_assert_eq!(f.user, user.as_bytes());
            let fin = format!("c={binding},r={nonce},p={proof}");
            let c = client_final(fin.as_bytes()).unwrap();
            let (oc, or, op) = oracle_final(&fin).unwrap();
            prop_assert_eq!(c.binding, oc.as_bytes());
            prop_assert_eq!(c.nonce, or.as_bytes());
            prop_assert_eq!(c.proof, op.as_bytes());
            let without = format!("c={binding},r={nonce}");
            prop_assert_eq!(c.without_proof, without.as_bytes());
        }
    }
}
