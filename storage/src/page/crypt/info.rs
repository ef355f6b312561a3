//! The binary part of an encrypted ACCDB's EncryptionInfo: where it lies in
//! page 0, which scheme its version and flags name, and the bounds of its
//! fields ([MS-OFFCRYPTO] 2.3.2–2.3.6). [`parse`] is pure and total: any
//! bytes give a parsed header or an [`InfoError`], never a panic, and it
//! allocates nothing larger than page 0.

/// Offset in page 0 of the 2-byte length of the EncryptionInfo, which
/// follows it.
pub const INFO_LEN_OFFSET: usize = 0x299;
/// Offset in page 0 of the EncryptionInfo itself.
pub const INFO_OFFSET: usize = INFO_LEN_OFFSET + 2;

/// The largest spin count (password hash iterations) accepted from a
/// header: 100 times the 100,000 Office writes, so that a hostile header
/// costs at most a few seconds of hashing at open, not minutes (measured
/// in a release build: about 1 s with SHA-1, 3.5 s with SHA-512). The
/// three keys of a password are derived from one iteration run.
pub const MAX_SPIN_COUNT: u32 = 10_000_000;

/// Hash iterations of Standard encryption ([MS-OFFCRYPTO] 2.3.4.7).
pub const STANDARD_ITERATIONS: u32 = 50_000;

/// EncryptionHeader flag: CryptoAPI encryption.
const F_CRYPTOAPI: u32 = 0x04;
/// EncryptionHeader flag: an external (extensible) provider.
const F_EXTERNAL: u32 = 0x10;
/// EncryptionHeader flag: AES.
const F_AES: u32 = 0x20;

const ALG_RC4: u32 = 0x6801;
const ALG_AES128: u32 = 0x660E;
const ALG_AES192: u32 = 0x660F;
const ALG_AES256: u32 = 0x6610;
const HASH_SHA1: u32 = 0x8004;

/// Why the EncryptionInfo was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InfoError {
    /// A field is out of bounds or inconsistent: at which page-0 offset
    /// and what.
    Damaged {
        /// Byte offset in page 0.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A well-formed header naming a scheme this reader does not decrypt.
    Unsupported(String),
}

fn damaged(offset: usize, what: &'static str) -> InfoError {
    InfoError::Damaged { offset, what }
}

/// Which binary (non-XML) scheme an EncryptionInfo names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryKind {
    /// Standard encryption: AES-ECB, SHA-1, 50,000 iterations (flags
    /// CryptoAPI + AES).
    Standard,
    /// Access's non-standard variant: flags say CryptoAPI without AES, the
    /// algorithm says AES; keys derive as Standard's without iterations.
    NonStandard,
    /// RC4 CryptoAPI encryption, SHA-1 ([MS-OFFCRYPTO] 2.3.5).
    Rc4CryptoApi,
}

/// A parsed Standard / non-standard / RC4 CryptoAPI EncryptionInfo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryInfo {
    /// The scheme.
    pub kind: BinaryKind,
    /// Key length in bits (40–128 in steps of 8 for RC4; 128, 192 or 256
    /// for AES).
    pub key_bits: u32,
    /// The password salt.
    pub salt: [u8; 16],
    /// The encrypted verifier.
    pub verifier: [u8; 16],
    /// Bytes of the verifier hash that are compared (1–20).
    pub verifier_hash_size: usize,
    /// The encrypted verifier hash (20 bytes for RC4, 32 for AES).
    pub verifier_hash: Vec<u8>,
}

/// What page 0's EncryptionInfo holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OfficeInfo<'a> {
    /// Agile encryption (version 4.4): the XML descriptor and its offset in
    /// page 0.
    Agile {
        /// The descriptor's bytes.
        xml: &'a [u8],
        /// Where they start in page 0.
        offset: usize,
    },
    /// Standard, non-standard or RC4 CryptoAPI encryption.
    Binary(BinaryInfo),
    /// Office binary document RC4 (version 1.1, MD5).
    BinaryRc4 {
        /// The password salt.
        salt: [u8; 16],
        /// The encrypted verifier.
        verifier: [u8; 16],
        /// The encrypted MD5 of the verifier.
        verifier_hash: [u8; 16],
    },
}

/// A bounds-checked little-endian reader over page 0.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], InfoError> {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.end => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            _ => Err(damaged(self.pos, what)),
        }
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, InfoError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, InfoError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn array16(&mut self, what: &'static str) -> Result<[u8; 16], InfoError> {
        let mut a = [0u8; 16];
        a.copy_from_slice(self.take(16, what)?);
        Ok(a)
    }
}

/// Parses the EncryptionInfo of an encrypted ACCDB's page 0 (the whole
/// page, as stored). Total: every input gives a value or an error.
pub fn parse(page0: &[u8]) -> Result<OfficeInfo<'_>, InfoError> {
    let mut c = Cursor {
        bytes: page0,
        pos: INFO_LEN_OFFSET,
        end: page0.len(),
    };
    let len = usize::from(c.u16("the EncryptionInfo length lies past the end of page 0")?);
    if INFO_OFFSET + len > page0.len() {
        return Err(damaged(
            INFO_LEN_OFFSET,
            "the EncryptionInfo length runs past the end of page 0",
        ));
    }
    c.end = INFO_OFFSET + len;
    let major = c.u16("the EncryptionInfo is too short for its version")?;
    let minor = c.u16("the EncryptionInfo is too short for its version")?;
    match (major, minor) {
        (4, 4) => {
            let at = c.pos;
            if c.u32("the Agile EncryptionInfo is too short")? != 0x40 {
                return Err(damaged(at, "the Agile reserved field is not 0x40"));
            }
            let offset = c.pos;
            Ok(OfficeInfo::Agile {
                xml: &page0[offset..c.end],
                offset,
            })
        }
        (1, 1) => Ok(OfficeInfo::BinaryRc4 {
            salt: c.array16("the RC4 EncryptionInfo is too short for its salt")?,
            verifier: c.array16("the RC4 EncryptionInfo is too short for its verifier")?,
            verifier_hash: c
                .array16("the RC4 EncryptionInfo is too short for its verifier hash")?,
        }),
        (3 | 4, 3) => Err(InfoError::Unsupported(
            "Office extensible encryption (an external provider)".into(),
        )),
        (2..=4, 2) => binary(&mut c).map(OfficeInfo::Binary),
        (major, minor) => Err(InfoError::Unsupported(format!(
            "Office encryption version {major}.{minor}"
        ))),
    }
}

/// The CryptoAPI EncryptionHeader and EncryptionVerifier after the
/// version ([MS-OFFCRYPTO] 2.3.4.5, 2.3.5.1).
fn binary(c: &mut Cursor<'_>) -> Result<BinaryInfo, InfoError> {
    let flags_at = c.pos;
    let flags = c.u32("the EncryptionInfo is too short for its flags")?;
    if flags & F_EXTERNAL != 0 {
        return Err(InfoError::Unsupported(
            "Office encryption by an external provider".into(),
        ));
    }
    if flags & F_CRYPTOAPI == 0 {
        return Err(InfoError::Unsupported(format!(
            "Office encryption with flags {flags:#x} (neither CryptoAPI nor Agile)"
        )));
    }
    let header_len_at = c.pos;
    let header_len = c.u32("the EncryptionInfo is too short for its header length")? as usize;
    let header_start = c.pos;
    let header = c.take(
        header_len,
        "the EncryptionHeader runs past the EncryptionInfo",
    )?;
    if header.len() < 32 {
        return Err(damaged(
            header_len_at,
            "the EncryptionHeader is shorter than 32 bytes",
        ));
    }
    let field =
        |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
    let (header_flags, alg, hash, key_size) = (field(0), field(8), field(12), field(16));
    if header_flags != flags {
        return Err(damaged(
            flags_at,
            "the flags before the EncryptionHeader differ from its own",
        ));
    }
    if hash != 0 && hash != HASH_SHA1 {
        return Err(InfoError::Unsupported(format!(
            "Office CryptoAPI encryption with hash algorithm {hash:#x}"
        )));
    }
    let aes_bits = match alg {
        ALG_AES128 => Some(128),
        ALG_AES192 => Some(192),
        ALG_AES256 => Some(256),
        0 if flags & F_AES != 0 => Some(128),
        ALG_RC4 | 0 => None,
        other => {
            return Err(InfoError::Unsupported(format!(
                "Office CryptoAPI encryption with algorithm {other:#x}"
            )));
        }
    };
    let kind = match (flags & F_AES != 0, aes_bits.is_some()) {
        (true, true) => BinaryKind::Standard,
        (true, false) => {
            return Err(damaged(
                header_start + 8,
                "the AES flag is set but the algorithm is RC4",
            ));
        }
        (false, true) => BinaryKind::NonStandard,
        (false, false) => BinaryKind::Rc4CryptoApi,
    };
    let key_bits = match (aes_bits, key_size) {
        (Some(bits), 0) => bits,
        (Some(bits), k) if k == bits => bits,
        (Some(_), _) => {
            return Err(damaged(
                header_start + 16,
                "the AES key size does not match the algorithm",
            ));
        }
        (None, 0) => {
            // the default RC4 key length depends on the provider: 40 bits
            // for a "base" provider (or none named), else 128
            let csp: Vec<u16> = header[32..]
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .take_while(|&u| u != 0)
                .collect();
            let csp = String::from_utf16_lossy(&csp).to_lowercase();
            if csp.trim().is_empty() || csp.contains(" base ") {
                40
            } else {
                128
            }
        }
        (None, k) if (40..=128).contains(&k) && k % 8 == 0 => k,
        (None, _) => {
            return Err(damaged(
                header_start + 16,
                "the RC4 key size is not 40 to 128 bits in steps of 8",
            ));
        }
    };
    let salt_size_at = c.pos;
    if c.u32("the EncryptionVerifier is missing")? != 16 {
        return Err(damaged(salt_size_at, "the verifier salt size is not 16"));
    }
    let salt = c.array16("the EncryptionVerifier is too short for its salt")?;
    let verifier = c.array16("the EncryptionVerifier is too short for its verifier")?;
    let hash_size_at = c.pos;
    let verifier_hash_size =
        c.u32("the EncryptionVerifier is too short for its hash size")? as usize;
    if !(1..=20).contains(&verifier_hash_size) {
        return Err(damaged(
            hash_size_at,
            "the verifier hash size is not 1 to 20 bytes",
        ));
    }
    let stored = if aes_bits.is_some() { 32 } else { 20 };
    let verifier_hash = c
        .take(
            stored,
            "the EncryptionVerifier is too short for its verifier hash",
        )?
        .to_vec();
    Ok(BinaryInfo {
        kind,
        key_bits,
        salt,
        verifier,
        verifier_hash_size,
        verifier_hash,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn page_with(info: &[u8]) -> Vec<u8> {
        let mut p = vec![0u8; 4096];
        p[INFO_LEN_OFFSET..INFO_OFFSET].copy_from_slice(&(info.len() as u16).to_le_bytes());
        p[INFO_OFFSET..INFO_OFFSET + info.len()].copy_from_slice(info);
        p
    }

    fn cryptoapi(flags: u32, alg: u32, key_bits: u32, hash_len: usize) -> Vec<u8> {
        let mut v = vec![4, 0, 2, 0];
        v.extend(flags.to_le_bytes());
        let mut header = Vec::new();
        for f in [flags, 0, alg, HASH_SHA1, key_bits, 1, 0, 0] {
            header.extend(f.to_le_bytes());
        }
        header.extend([0, 0]);
        v.extend((header.len() as u32).to_le_bytes());
        v.extend(header);
        v.extend(16u32.to_le_bytes());
        v.extend([1u8; 32]);
        v.extend(20u32.to_le_bytes());
        v.extend(vec![2u8; hash_len]);
        v
    }

    #[test]
    fn schemes_are_told_apart_by_version_flags_and_algorithm() {
        let rc4 = page_with(&cryptoapi(F_CRYPTOAPI, ALG_RC4, 40, 20));
        let Ok(OfficeInfo::Binary(b)) = parse(&rc4) else {
            panic!()
        };
        assert_eq!((b.kind, b.key_bits), (BinaryKind::Rc4CryptoApi, 40));
        let std = page_with(&cryptoapi(F_CRYPTOAPI | F_AES, ALG_AES256, 256, 32));
        let Ok(OfficeInfo::Binary(b)) = parse(&std) else {
            panic!()
        };
        assert_eq!((b.kind, b.key_bits), (BinaryKind::Standard, 256));
        let ns = page_with(&cryptoapi(F_CRYPTOAPI | 0x08, ALG_AES256, 256, 32));
        let Ok(OfficeInfo::Binary(b)) = parse(&ns) else {
            panic!()
        };
        assert_eq!(b.kind, BinaryKind::NonStandard);
        assert!(matches!(
            parse(&page_with(&[4, 0, 3, 0])),
            Err(InfoError::Unsupported(_))
        ));
        assert!(matches!(
            parse(&page_with(&[9, 0, 9, 0])),
            Err(InfoError::Unsupported(_))
        ));
    }

    #[test]
    fn truncated_and_inconsistent_headers_are_damaged() {
        let full = cryptoapi(F_CRYPTOAPI, ALG_RC4, 40, 20);
        for cut in 0..full.len() {
            let page = page_with(&full[..cut]);
            let r = parse(&page);
            assert!(
                matches!(r, Err(InfoError::Damaged { .. })),
                "cut {cut}: {r:?}"
            );
        }
        let mut bad = full.clone();
        bad[8] = 0xff; // the header length
        assert!(matches!(
            parse(&page_with(&bad)),
            Err(InfoError::Damaged { .. })
        ));
        let mut p = page_with(&full);
        p[INFO_LEN_OFFSET] = 0xff;
        p[INFO_LEN_OFFSET + 1] = 0xff;
        assert!(matches!(parse(&p), Err(InfoError::Damaged { .. })));
        assert!(matches!(parse(&[]), Err(InfoError::Damaged { .. })));
    }

    proptest! {
        /// Never panics, whatever page 0 holds.
        #[test]
        fn parse_is_total(bytes in proptest::collection::vec(any::<u8>(), 0..1200)) {
            let _ = parse(&bytes);
            let _ = parse(&page_with(&bytes[..bytes.len().min(1000)]));
        }

        /// Never panics on a valid header with any bytes changed.
        #[test]
        fn mutated_headers_do_not_panic(
            at in 0usize..120, val in any::<u8>(), aes in any::<bool>()
        ) {
            let mut v = if aes {
                cryptoapi(F_CRYPTOAPI | F_AES, ALG_AES128, 128, 32)
            } else {
                cryptoapi(F_CRYPTOAPI, ALG_RC4, 128, 20)
            };
            let at = at % v.len();
            v[at] = val;
            let _ = parse(&page_with(&v));
        }
    }
}
