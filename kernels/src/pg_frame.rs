//! PostgreSQL frontend messages after startup, metered as bytes arrive.
//!
//! Every message is a type byte, a big-endian `i32` length that counts
//! itself and the body (so at least 4), then the body. A server that
//! buffers a whole message before decoding it (as `jetsql serve`'s
//! protocol crate does, up to 1 GiB) must refuse a declared length over
//! its own limit before the body arrives: the [`Meter`] follows message
//! boundaries over any split of the stream into reads and refuses the
//! first header whose length is below 4 or above the limit. Total: any
//! bytes, in any chunks, give `Ok` or a [`FrameRefusal`], in bounded
//! time and no memory.

/// Why a message header was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameRefusal {
    /// A length below 4 (it must count its own four bytes).
    TooShort {
        /// The message type byte.
        kind: u8,
        /// The declared length.
        length: i64,
    },
    /// A length over the limit.
    TooLong {
        /// The message type byte.
        kind: u8,
        /// The declared length.
        length: i64,
    },
}

/// Where the meter is in the stream of messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meter {
    /// Largest accepted length (counting the four length bytes).
    limit: u32,
    /// The header bytes of the next message read so far.
    head: [u8; 5],
    /// How many of `head` are read (0‥5).
    have: u8,
    /// Body bytes of the current message still to come.
    left: u32,
    /// The first refusal, kept: a refused stream stays refused.
    refused: Option<FrameRefusal>,
}

impl Meter {
    /// A meter at a message boundary that accepts lengths up to `limit`
    /// (at least 4).
    #[must_use]
    pub const fn new(limit: u32) -> Meter {
        Meter {
            limit: if limit < 4 { 4 } else { limit },
            head: [0; 5],
            have: 0,
            left: 0,
            refused: None,
        }
    }

    /// Follows `bytes`, the next bytes of the stream. `Err` at the first
    /// header out of bounds (and for every call after it).
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), FrameRefusal> {
        if let Some(r) = self.refused {
            return Err(r);
        }
        let mut rest = bytes;
        while !rest.is_empty() {
            if self.left > 0 {
                let take =
                    core::cmp::min(usize::try_from(self.left).unwrap_or(usize::MAX), rest.len());
                // `take` ≤ `left`, a u32
                self.left = self
                    .left
                    .saturating_sub(u32::try_from(take).unwrap_or(u32::MAX));
                rest = rest.get(take..).unwrap_or(&[]);
                continue;
            }
            let Some((&b, tail)) = rest.split_first() else {
                break;
            };
            rest = tail;
            if let Some(slot) = self.head.get_mut(usize::from(self.have)) {
                *slot = b;
            }
            self.have = self.have.saturating_add(1);
            if self.have < 5 {
                continue;
            }
            self.have = 0;
            let [kind, l0, l1, l2, l3] = self.head;
            let length = i32::from_be_bytes([l0, l1, l2, l3]);
            let wide = i64::from(length);
            if length < 4 {
                let r = FrameRefusal::TooShort { kind, length: wide };
                self.refused = Some(r);
                return Err(r);
            }
            // length ≥ 4 here
            let length = length.unsigned_abs();
            if length > self.limit {
                let r = FrameRefusal::TooLong { kind, length: wide };
                self.refused = Some(r);
                return Err(r);
            }
            self.left = length.saturating_sub(4);
        }
        Ok(())
    }

    /// Whether the meter stands at a message boundary.
    #[must_use]
    pub const fn at_boundary(&self) -> bool {
        self.have == 0 && self.left == 0
    }
}

/// Reads a NUL-terminated string at the front of `b`: the rest after it.
fn cstring(b: &[u8]) -> Option<&[u8]> {
    let end = b.iter().position(|&c| c == 0)?;
    b.get(end.checked_add(1)?..)
}

/// Reads `n` bytes at the front of `b`: them and the rest.
fn take(b: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    if b.len() < n {
        return None;
    }
    Some(b.split_at(n))
}

fn u16_front(b: &[u8]) -> Option<(u16, &[u8])> {
    let (h, rest) = take(b, 2)?;
    Some((u16::from_be_bytes([*h.first()?, *h.get(1)?]), rest))
}

fn i32_front(b: &[u8]) -> Option<(i32, &[u8])> {
    let (h, rest) = take(b, 4)?;
    let mut w = [0u8; 4];
    w.copy_from_slice(h);
    Some((i32::from_be_bytes(w), rest))
}

/// `count` items of `size` bytes at the front of `b`: the rest.
fn items(b: &[u8], count: u16, size: usize) -> Option<&[u8]> {
    let (_, rest) = take(b, usize::from(count).checked_mul(size)?)?;
    Some(rest)
}

/// Whether `body` is a whole, well-formed body of a message of type
/// `kind` after startup, every field inside it and nothing after the
/// last: Query, Parse, Bind, Execute, Describe, Close, Sync, Flush,
/// Terminate, CopyData, CopyDone, CopyFail, and the password / SASL
/// responses (opaque bytes). Any other type (the function-call fast path
/// among them) is refused.
#[must_use]
pub fn well_formed(kind: u8, body: &[u8]) -> bool {
    let rest: Option<&[u8]> = match kind {
        // Query: the text
        b'Q' => cstring(body),
        // Parse: name, text, parameter type OIDs
        b'P' => (|| {
            let b = cstring(cstring(body)?)?;
            let (n, b) = u16_front(b)?;
            items(b, n, 4)
        })(),
        // Bind: portal, statement, formats, values, result formats
        b'B' => (|| {
            let b = cstring(cstring(body)?)?;
            let (n, b) = u16_front(b)?;
            let mut b = items(b, n, 2)?;
            let (values, rest) = u16_front(b)?;
            b = rest;
            for _ in 0..values {
                let (len, rest) = i32_front(b)?;
                b = if len < 0 {
                    rest
                } else {
                    take(rest, usize::try_from(len).ok()?)?.1
                };
            }
            let (n, b) = u16_front(b)?;
            items(b, n, 2)
        })(),
        // Execute: portal, row limit
        b'E' => (|| Some(i32_front(cstring(body)?)?.1))(),
        // Describe, Close: 'S' or 'P', then a name
        b'D' | b'C' => match body.split_first() {
            Some((b'S' | b'P', name)) => cstring(name),
            _ => None,
        },
        // Sync, Flush, Terminate, CopyDone: nothing
        b'S' | b'H' | b'X' | b'c' => Some(body),
        // CopyData, password and SASL messages: opaque
        b'd' | b'p' => Some(&[][..]),
        // CopyFail: a message
        b'f' => cstring(body),
        _ => None,
    };
    rest.is_some_and(<[u8]>::is_empty)
}

/// The request codes of the startup phase.
pub const SSL_REQUEST: i32 = 80_877_103;
/// GSSAPI encryption request.
pub const GSSENC_REQUEST: i32 = 80_877_104;
/// Cancel request.
pub const CANCEL_REQUEST: i32 = 80_877_102;

/// Whether `body` (after the length) is a well-formed startup-phase
/// message other than an encryption request: a startup message of
/// protocol 3.x (code, then name/value strings, then a NUL) or a cancel
/// request (code, process id, key of 4 to 256 bytes).
#[must_use]
pub fn startup_well_formed(body: &[u8]) -> bool {
    let Some((code, rest)) = i32_front(body) else {
        return false;
    };
    if code == CANCEL_REQUEST {
        return (8..=260).contains(&rest.len());
    }
    if code >> 16 != 3 {
        return false;
    }
    let mut b = rest;
    loop {
        match b.split_first() {
            Some((0, tail)) => return tail.is_empty(),
            Some(_) => match cstring(b).and_then(cstring) {
                Some(tail) => b = tail,
                None => return false,
            },
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// The oracle: the whole stream at once, message by message.
    fn oracle(stream: &[u8], limit: u32) -> Result<bool, FrameRefusal> {
        let mut i = 0;
        while i < stream.len() {
            if stream.len() - i < 5 {
                return Ok(false);
            }
            let kind = stream[i];
            let length = i32::from_be_bytes(stream[i + 1..i + 5].try_into().unwrap());
            if length < 4 {
                return Err(FrameRefusal::TooShort {
                    kind,
                    length: length.into(),
                });
            }
            if length as u32 > limit.max(4) {
                return Err(FrameRefusal::TooLong {
                    kind,
                    length: length.into(),
                });
            }
            let end = i + 1 + length as usize;
            if end > stream.len() {
                return Ok(false);
            }
            i = end;
        }
        Ok(true)
    }

    fn message(kind: u8, body: &[u8]) -> Vec<u8> {
        let mut m = std::vec![kind];
        m.extend_from_slice(&(body.len() as i32 + 4).to_be_bytes());
        m.extend_from_slice(body);
        m
    }

    #[test]
    fn refuses_short_and_long_headers() {
        let mut m = Meter::new(100);
        assert_eq!(m.feed(&message(b'Q', b"SELECT 1\0")), Ok(()));
        assert!(m.at_boundary());
        let mut huge = std::vec![b'Q'];
        huge.extend_from_slice(&0x3fff_fffei32.to_be_bytes());
        assert_eq!(
            m.feed(&huge),
            Err(FrameRefusal::TooLong {
                kind: b'Q',
                length: 0x3fff_fffe
            })
        );
        // refused for good
        assert!(m.feed(b"").is_err());
        let mut m = Meter::new(100);
        assert_eq!(
            m.feed(&[b'P', 0xff, 0xff, 0xff, 0xff]),
            Err(FrameRefusal::TooShort {
                kind: b'P',
                length: -1
            })
        );
    }

    #[test]
    fn well_formed_messages() {
        assert!(well_formed(b'Q', b"SELECT 1\0"));
        assert!(!well_formed(b'Q', b"SELECT 1"));
        assert!(!well_formed(b'Q', b"SELECT 1\0x"));
        // Parse "" "SELECT $1" with one type
        assert!(well_formed(b'P', b"\0SELECT $1\0\0\x01\0\0\0\x17"));
        assert!(!well_formed(b'P', b"\0SELECT $1\0\0\x02\0\0\0\x17"));
        // Bind "" "" no formats, one value of 2 bytes, one result format
        assert!(well_formed(b'B', b"\0\0\0\0\0\x01\0\0\0\x0242\0\x01\0\0"));
        assert!(!well_formed(b'B', b"\0\0\0\0\0\x01\0\0\0\x0942\0\x01\0\0"));
        assert!(well_formed(b'B', b"\0\0\0\0\0\x01\xff\xff\xff\xff\0\0"));
        assert!(!well_formed(b'B', &[0, 0]));
        assert!(well_formed(b'E', b"\0\0\0\0\0"));
        assert!(well_formed(b'D', b"Sname\0"));
        assert!(!well_formed(b'D', b"Xname\0"));
        assert!(well_formed(b'S', b""));
        assert!(!well_formed(b'S', b"x"));
        assert!(!well_formed(b'F', b""));
        let mut startup = 196_608i32.to_be_bytes().to_vec();
        startup.extend_from_slice(b"user\0me\0\0");
        assert!(startup_well_formed(&startup));
        startup.pop();
        assert!(!startup_well_formed(&startup));
        assert!(!startup_well_formed(&SSL_REQUEST.to_be_bytes()));
    }

    /// A naive reading of a Bind body, for the oracle.
    fn bind_oracle(b: &[u8]) -> bool {
        let mut i = 0;
        for _ in 0..2 {
            match b[i..].iter().position(|&c| c == 0) {
                Some(p) => i += p + 1,
                None => return false,
            }
        }
        let rd16 = |i: usize| -> Option<usize> {
            (i + 2 <= b.len()).then(|| u16::from_be_bytes([b[i], b[i + 1]]) as usize)
        };
        let Some(nf) = rd16(i) else { return false };
        i += 2 + 2 * nf;
        let Some(nv) = rd16(i) else { return false };
        i += 2;
        for _ in 0..nv {
            if i + 4 > b.len() {
                return false;
            }
            let l = i32::from_be_bytes(b[i..i + 4].try_into().unwrap());
            i += 4;
            if l > 0 {
                i += l as usize;
            }
        }
        let Some(nr) = rd16(i) else { return false };
        i + 2 + 2 * nr == b.len()
    }

    proptest! {
        #[test]
        fn bind_matches_oracle(
            names in proptest::collection::vec(1u8..255, 0..3),
            formats in proptest::collection::vec(any::<i16>(), 0..3),
            values in proptest::collection::vec(proptest::option::of(proptest::collection::vec(any::<u8>(), 0..6)), 0..3),
            results in proptest::collection::vec(any::<i16>(), 0..3),
            cut in 0usize..64,
            flip in proptest::option::of((0usize..64, 0u8..8)),
        ) {
            let mut b = names.clone(); b.push(0); b.push(0);
            b.extend_from_slice(&(formats.len() as u16).to_be_bytes());
            for f in &formats { b.extend_from_slice(&f.to_be_bytes()); }
            b.extend_from_slice(&(values.len() as u16).to_be_bytes());
            for v in &values {
                match v {
                    None => b.extend_from_slice(&(-1i32).to_be_bytes()),
                    Some(v) => { b.extend_from_slice(&(v.len() as i32).to_be_bytes()); b.extend_from_slice(v); }
                }
            }
            b.extend_from_slice(&(results.len() as u16).to_be_bytes());
            for r in &results { b.extend_from_slice(&r.to_be_bytes()); }
            prop_assert!(well_formed(b'B', &b));
            if let Some((i, bit)) = flip
                && i < b.len()
            {
                b[i] ^= 1 << bit;
            }
            let cut = cut.min(b.len());
            let b = &b[..b.len() - cut];
            prop_assert_eq!(well_formed(b'B', b), bind_oracle(b));
        }
    }

    proptest! {
        /// Any split of any stream meters as the whole stream does.
        #[test]
        fn chunks_meter_as_the_whole(
            messages in proptest::collection::vec((any::<u8>(), proptest::collection::vec(any::<u8>(), 0..40)), 0..8),
            noise in proptest::collection::vec(any::<u8>(), 0..12),
            cuts in proptest::collection::vec(0usize..200, 0..6),
            limit in 0u32..60,
        ) {
            let mut stream: Vec<u8> = messages.iter().flat_map(|(k, b)| message(*k, b)).collect();
            stream.extend_from_slice(&noise);
            let want = oracle(&stream, limit);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(stream.len())).collect();
            cuts.sort_unstable();
            let mut m = Meter::new(limit);
            let mut got = Ok(());
            let mut at = 0;
            for c in cuts.into_iter().chain(std::iter::once(stream.len())) {
                got = m.feed(&stream[at..c]);
                at = c;
                if got.is_err() { break; }
            }
            match want {
                Err(r) => prop_assert_eq!(got, Err(r)),
                Ok(complete) => {
                    prop_assert_eq!(got, Ok(()));
                    prop_assert_eq!(m.at_boundary(), complete);
                }
            }
        }
    }
}
