//! The two RC4 schemes of encrypted ACCDB files: RC4 CryptoAPI
//! ([MS-OFFCRYPTO] 2.3.5: SHA-1, 40 to 128-bit keys) and Office binary
//! document RC4 ([MS-OFFCRYPTO] 2.3.6: MD5, 128-bit keys). Page `n` is
//! encrypted with the key derived for the block number
//! `encoding_key XOR n`; the verifier is checked with block 0.

use super::info::BinaryInfo;
use super::primitives::{rc4_keystream, same_bytes};
use crate::format::HashAlgorithm;

/// Which of the two RC4 schemes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// SHA-1 keys of `key_bits` (a 40-bit key is zero-extended to 128 bits).
    CryptoApi {
        /// Key length in bits.
        key_bits: u32,
    },
    /// MD5 keys of 128 bits.
    BinaryDoc,
}

/// An RC4 page cipher whose password was verified.
pub struct Rc4Office {
    flavor: Flavor,
    base: Vec<u8>,
    encoding_key: u32,
}

impl Drop for Rc4Office {
    fn drop(&mut self) {
        super::primitives::wipe(&mut self.base);
    }
}

impl std::fmt::Debug for Rc4Office {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rc4Office")
            .field("flavor", &self.flavor)
            .finish_non_exhaustive()
    }
}

impl Rc4Office {
    /// RC4 CryptoAPI: checks `password` (UTF-16LE bytes) against `info`;
    /// `None` when it is wrong.
    pub fn cryptoapi(info: &BinaryInfo, password: &[u8], encoding_key: u32) -> Option<Rc4Office> {
        let c = Rc4Office {
            flavor: Flavor::CryptoApi {
                key_bits: info.key_bits,
            },
            base: HashAlgorithm::Sha1.digest(&[&info.salt, password]),
            encoding_key,
        };
        // verifier and its hash are one RC4 stream
        let mut buf = info.verifier.to_vec();
        buf.extend_from_slice(&info.verifier_hash);
        if !rc4_keystream(&c.key(0), &mut buf) {
            return None;
        }
        let (verifier, hash) = buf.split_at(16);
        let n = info.verifier_hash_size;
        let expect = HashAlgorithm::Sha1.digest(&[verifier]);
        same_bytes(&hash[..n], &expect[..n]).then_some(c)
    }

    /// Office binary document RC4 (EncryptionInfo version 1.1): checks
    /// `password` (UTF-16LE bytes); `None` when it is wrong.
    pub fn binary_doc(
        salt: &[u8; 16],
        verifier: &[u8; 16],
        verifier_hash: &[u8; 16],
        password: &[u8],
        encoding_key: u32,
    ) -> Option<Rc4Office> {
        // [MS-OFFCRYPTO] 2.3.6.2: 16 copies of the truncated password hash
        // and the salt, hashed and truncated again
        let h = HashAlgorithm::Md5;
        let mut unit = h.digest(&[password]);
        unit.truncate(5);
        unit.extend_from_slice(salt);
        let repeated = unit.repeat(16);
        let mut base = h.digest(&[&repeated]);
        base.truncate(5);
        let c = Rc4Office {
            flavor: Flavor::BinaryDoc,
            base,
            encoding_key,
        };
        let mut buf = verifier.to_vec();
        buf.extend_from_slice(verifier_hash);
        if !rc4_keystream(&c.key(0), &mut buf) {
            return None;
        }
        let (v, hv) = buf.split_at(16);
        same_bytes(hv, &h.digest(&[v])).then_some(c)
    }

    /// Key length in bits.
    pub fn key_bits(&self) -> u32 {
        match self.flavor {
            Flavor::CryptoApi { key_bits } => key_bits,
            Flavor::BinaryDoc => 128,
        }
    }

    /// The RC4 key of block number `block`.
    fn key(&self, block: u32) -> Vec<u8> {
        match self.flavor {
            Flavor::CryptoApi { key_bits } => {
                let mut k = HashAlgorithm::Sha1.digest(&[&self.base, &block.to_le_bytes()]);
                k.truncate(key_bits as usize / 8);
                if key_bits == 40 {
                    // CryptoAPI pads a 40-bit key with zeros to 128 bits
                    k.resize(16, 0);
                }
                k
            }
            Flavor::BinaryDoc => HashAlgorithm::Md5.digest(&[&self.base, &block.to_le_bytes()]),
        }
    }

    /// Decrypts (or, RC4 being symmetric, encrypts) page `n` in place.
    pub fn apply(&self, n: u32, page: &mut [u8]) -> bool {
        rc4_keystream(&self.key(self.encoding_key ^ n), page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Office binary RC4 header written as [MS-OFFCRYPTO] 2.3.6.4 says:
    /// a verifier and its MD5 encrypted in one RC4 stream with block 0's key.
    #[test]
    fn binary_doc_rc4_accepts_only_its_password() {
        let pw: Vec<u8> = "Secret".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let salt = [0x42u8; 16];
        let writer = Rc4Office::binary_doc(&salt, &[0; 16], &[0; 16], &pw, 0);
        assert!(writer.is_none(), "zero bytes are no valid verifier");
        // derive block 0's key the way `binary_doc` does, through a cipher
        // opened on a verifier made with it
        let mut unit = HashAlgorithm::Md5.digest(&[&pw]);
        unit.truncate(5);
        unit.extend_from_slice(&salt);
        let mut base = HashAlgorithm::Md5.digest(&[&unit.repeat(16)]);
        base.truncate(5);
        let key0 = HashAlgorithm::Md5.digest(&[&base, &0u32.to_le_bytes()]);
        let verifier = [9u8; 16];
        let mut stream = verifier.to_vec();
        stream.extend(HashAlgorithm::Md5.digest(&[&verifier]));
        assert!(rc4_keystream(&key0, &mut stream));
        let (v, h) = stream.split_at(16);
        let (v, h): (&[u8; 16], &[u8; 16]) = (v.try_into().unwrap(), h.try_into().unwrap());
        let c = Rc4Office::binary_doc(&salt, v, h, &pw, 0x0102_0304).unwrap();
        assert_eq!(c.key_bits(), 128);
        assert!(Rc4Office::binary_doc(&salt, v, h, b"s\0", 0x0102_0304).is_none());
        let mut page = vec![1u8; 64];
        assert!(c.apply(3, &mut page));
        assert_ne!(page, vec![1u8; 64]);
        assert!(c.apply(3, &mut page));
        assert_eq!(page, vec![1u8; 64]);
    }
}
