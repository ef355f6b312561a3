//! Microsoft Money (MSISAM) files: Jet4 pages with only pages 1 to 14
//! encrypted, in one of two schemes chosen by the flags byte at 0x298.
//!
//! * Old scheme (neither flag bit 0x02 nor 0x04 set): RC4 with a 4-byte
//!   key hashed from the header's salt (0x72), its masked password field
//!   and the engine name; page `n` uses `key XOR n` as Jet's encoding does.
//!   The password itself sits masked in the header, as Jet4's does.
//! * New scheme: RC4 keyed by the MD5 (or SHA-1 when flag 0x20 is set) of
//!   the upper-cased password, truncated to 16 bytes, followed by the
//!   salt's first 4 bytes XOR `n`. Four bytes at `0x2E9 + salt[0]` hold the
//!   salt encrypted with the password's key: all zero, or the check of the
//!   empty password, when there is no password.
//!
//! Offsets are in page 0 with its masked region decoded.

use super::jet_password::{CREATION_DATE_OFFSET, PASSWORD_OFFSET, date_mask};
use super::primitives::{rc4_keystream, same_bytes};
use crate::format::HashAlgorithm;

/// The last encrypted page of an MSISAM file.
pub const LAST_ENCRYPTED_PAGE: u32 = 14;
/// Offset of the encryption flags byte.
const FLAGS_OFFSET: usize = 0x298;
/// Flag bits of the new scheme.
const NEW_SCHEME: u8 = 0x06;
/// Flag bit: SHA-1 rather than MD5.
const USE_SHA1: u8 = 0x20;
/// Start of the area holding the encrypted password check.
const CHECK_START: usize = 0x2E9;
/// Offset of the salt (the creation date's bytes).
const SALT_OFFSET: usize = CREATION_DATE_OFFSET;
/// Offset and length of the engine name hashed into the old key.
const ENGINE_NAME: std::ops::Range<usize> = 4..4 + 15;

/// Which MSISAM scheme a header announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// The old, password-independent key.
    Old,
    /// The password-derived key, hashed with MD5 or SHA-1.
    New(HashAlgorithm),
}

/// The scheme of `header`; `None` when page 0 is too short for its flags.
pub fn scheme(header: &[u8]) -> Option<Scheme> {
    let flags = *header.get(FLAGS_OFFSET)?;
    Some(if flags & NEW_SCHEME == 0 {
        Scheme::Old
    } else if flags & USE_SHA1 != 0 {
        Scheme::New(HashAlgorithm::Sha1)
    } else {
        Scheme::New(HashAlgorithm::Md5)
    })
}

/// The 4-byte RC4 key of the old scheme; `None` when page 0 is too short.
pub fn old_key(header: &[u8]) -> Option<u32> {
    let salt = header.get(SALT_OFFSET..SALT_OFFSET + 4)?;
    let mut key = u32::from_le_bytes([salt[0], salt[1], salt[2], salt[3]]);
    // the password field read as 80 bytes, its first 40 and last 20 bytes
    // unmasked with the creation date, every second byte hashed
    let mut field = header.get(PASSWORD_OFFSET..PASSWORD_OFFSET + 80)?.to_vec();
    let mask = date_mask(header.get(CREATION_DATE_OFFSET..CREATION_DATE_OFFSET + 8)?);
    for i in 0..40 {
        field[i] ^= mask[i % 4];
    }
    for i in 0..20 {
        field[60 + i] ^= mask[i % 4];
    }
    let spread = |key: &mut u32, bytes: &mut dyn Iterator<Item = u8>| {
        for (pos, b) in bytes.enumerate() {
            *key ^= u32::from(b) << (pos % 24);
        }
    };
    spread(&mut key, &mut field.iter().step_by(2).copied());
    spread(&mut key, &mut header.get(ENGINE_NAME)?.iter().copied());
    Some(key)
}

/// A new-scheme page cipher whose password was verified.
pub struct NewScheme {
    /// The truncated password digest and the salt's first 4 bytes.
    base: [u8; 20],
}

impl Drop for NewScheme {
    fn drop(&mut self) {
        super::primitives::wipe(&mut self.base);
    }
}

impl std::fmt::Debug for NewScheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewScheme").finish_non_exhaustive()
    }
}

/// Why a new-scheme file did not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewSchemeRefusal {
    /// The file has a password and none was given.
    Missing,
    /// The password given is not the file's.
    Wrong,
    /// Page 0 is too short for the salt or the password check.
    Short,
}

impl NewScheme {
    /// Whether the file has a password: its check bytes are neither all
    /// zero nor the check of the empty password (Money writes either for a
    /// file without one). `None` when page 0 is too short.
    pub fn has_password(header: &[u8], hash: HashAlgorithm) -> Option<bool> {
        match NewScheme::attempt(header, hash, "") {
            Ok(found) => Some(found.is_none()),
            Err(_) => None,
        }
    }

    /// Verifies `password` and derives the page key base. A file without a
    /// password opens whatever is given (the password is then ignored).
    pub fn open(
        header: &[u8],
        hash: HashAlgorithm,
        password: Option<&str>,
    ) -> Result<NewScheme, NewSchemeRefusal> {
        if let Some(c) = NewScheme::attempt(header, hash, "")? {
            return Ok(c);
        }
        let given = password.ok_or(NewSchemeRefusal::Missing)?;
        NewScheme::attempt(header, hash, given)?.ok_or(NewSchemeRefusal::Wrong)
    }

    /// The cipher of `password` when the header's check accepts it (all
    /// zero check bytes accept only the empty password, unchecked).
    fn attempt(
        header: &[u8],
        hash: HashAlgorithm,
        password: &str,
    ) -> Result<Option<NewScheme>, NewSchemeRefusal> {
        let salt = header
            .get(SALT_OFFSET..SALT_OFFSET + 8)
            .ok_or(NewSchemeRefusal::Short)?;
        let check = check_bytes(header).ok_or(NewSchemeRefusal::Short)?;
        // 40 bytes: the upper-cased password as UTF-16LE, zero-padded
        let mut buf = [0u8; 40];
        for (i, b) in password
            .to_uppercase()
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .take(40)
            .enumerate()
        {
            buf[i] = b;
        }
        let digest = hash.digest(&[&buf]);
        let mut base = [0u8; 20];
        base[..16].copy_from_slice(&digest[..16]);
        base[16..].copy_from_slice(&salt[..4]);
        let accepted = if check.iter().all(|&b| b == 0) {
            password.is_empty()
        } else {
            let mut key = base[..16].to_vec();
            key.extend_from_slice(salt);
            let mut c = check.to_vec();
            rc4_keystream(&key, &mut c) && same_bytes(&c, &salt[..4])
        };
        Ok(accepted.then_some(NewScheme { base }))
    }

    /// Decrypts (or encrypts) page `n` in place; pages past
    /// [`LAST_ENCRYPTED_PAGE`] and page 0 are left as they are.
    pub fn apply(&self, n: u32, page: &mut [u8]) -> bool {
        if n == 0 || n > LAST_ENCRYPTED_PAGE {
            return true;
        }
        let mut key = self.base;
        for (k, p) in key[16..].iter_mut().zip(n.to_le_bytes()) {
            *k ^= p;
        }
        rc4_keystream(&key, page)
    }
}

/// The 4 encrypted check bytes.
fn check_bytes(header: &[u8]) -> Option<&[u8]> {
    let at = CHECK_START + usize::from(*header.get(SALT_OFFSET)?);
    header.get(at..at + 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_headers_are_refused_not_read_past() {
        assert_eq!(scheme(&[0u8; 100]), None);
        assert_eq!(old_key(&[0u8; 100]), None);
        assert_eq!(
            NewScheme::open(&[0u8; 100], HashAlgorithm::Md5, None).err(),
            Some(NewSchemeRefusal::Short)
        );
    }

    /// Writes the password check of `password` as Money writes it.
    fn write_check(h: &mut [u8], password: &str) {
        let mut buf = [0u8; 40];
        for (i, b) in password
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .enumerate()
        {
            buf[i] = b;
        }
        let mut key = HashAlgorithm::Md5.digest(&[&buf]);
        key.truncate(16);
        key.extend_from_slice(&h[SALT_OFFSET..SALT_OFFSET + 8]);
        let mut check = h[SALT_OFFSET..SALT_OFFSET + 4].to_vec();
        assert!(rc4_keystream(&key, &mut check));
        let at = CHECK_START + usize::from(h[SALT_OFFSET]);
        h[at..at + 4].copy_from_slice(&check);
    }

    #[test]
    fn the_password_check_round_trips() {
        let mut h = vec![0u8; 4096];
        h[SALT_OFFSET..SALT_OFFSET + 8].copy_from_slice(&[9, 8, 7, 6, 5, 4, 3, 2]);
        assert_eq!(NewScheme::has_password(&h, HashAlgorithm::Md5), Some(false));
        write_check(&mut h, "ABC");
        assert_eq!(NewScheme::has_password(&h, HashAlgorithm::Md5), Some(true));
        assert!(NewScheme::open(&h, HashAlgorithm::Md5, Some("abc")).is_ok());
        assert_eq!(
            NewScheme::open(&h, HashAlgorithm::Md5, Some("abd")).err(),
            Some(NewSchemeRefusal::Wrong)
        );
        assert_eq!(
            NewScheme::open(&h, HashAlgorithm::Md5, None).err(),
            Some(NewSchemeRefusal::Missing)
        );
    }

    /// Money 2008 writes the check of the empty password into files
    /// without one (Jackcess Encrypt opens its money2008.mny without a
    /// password): such a file has no password and opens without one.
    #[test]
    fn the_empty_password_check_means_no_password() {
        let mut h = vec![0u8; 4096];
        h[SALT_OFFSET..SALT_OFFSET + 8].copy_from_slice(&[3, 1, 4, 1, 5, 9, 2, 6]);
        write_check(&mut h, "");
        assert_ne!(&h[CHECK_START + 3..CHECK_START + 7], &[0u8; 4]);
        assert_eq!(NewScheme::has_password(&h, HashAlgorithm::Md5), Some(false));
        assert!(NewScheme::open(&h, HashAlgorithm::Md5, None).is_ok());
        assert!(NewScheme::open(&h, HashAlgorithm::Md5, Some("ignored")).is_ok());
    }
}
