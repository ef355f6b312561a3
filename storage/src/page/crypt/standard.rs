//! Standard encryption ([MS-OFFCRYPTO] 2.3.4.5–2.3.4.9: AES-ECB, SHA-1,
//! 50,000 hash iterations) and Access's non-standard variant of it (the
//! same derivation without iterations, announced by CryptoAPI flags without
//! the AES flag). Page `n` is encrypted with the key derived for the block
//! number `encoding_key XOR n`.

use super::info::BinaryInfo;
use super::primitives::{aes_ecb_decrypt, aes_ecb_encrypt, same_bytes};
use crate::format::HashAlgorithm;

/// An AES-ECB page cipher whose password was verified.
pub struct AesEcb {
    /// `H_n`: the salted password hash after the iterations; every page key
    /// derives from it with two more rounds of SHA-1.
    iterated: Vec<u8>,
    key_len: usize,
    encoding_key: u32,
}

impl Drop for AesEcb {
    fn drop(&mut self) {
        super::primitives::wipe(&mut self.iterated);
    }
}

impl std::fmt::Debug for AesEcb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AesEcb")
            .field("key_len", &self.key_len)
            .finish_non_exhaustive()
    }
}

impl AesEcb {
    /// Derives the key of `password` (UTF-16LE bytes) with `iterations`
    /// and checks it against the verifier of `info`; `None` when the
    /// password is wrong.
    pub fn open(
        info: &BinaryInfo,
        iterations: u32,
        password: &[u8],
        encoding_key: u32,
    ) -> Option<AesEcb> {
        let h = HashAlgorithm::Sha1;
        let c = AesEcb::derive(
            &info.salt,
            iterations,
            password,
            info.key_bits,
            encoding_key,
        );
        // [MS-OFFCRYPTO] 2.3.4.9: the verifier is checked with block 0
        let key = c.key(0);
        let mut verifier = info.verifier;
        let mut hash = info.verifier_hash.clone();
        aes_ecb_decrypt(&key, &mut verifier).ok()?;
        aes_ecb_decrypt(&key, &mut hash).ok()?;
        let n = info.verifier_hash_size;
        let expect = h.digest(&[&verifier]);
        same_bytes(&hash[..n], &expect[..n]).then_some(c)
    }

    /// The salted, iterated password hash every page key derives from.
    fn derive(
        salt: &[u8],
        iterations: u32,
        password: &[u8],
        key_bits: u32,
        encoding_key: u32,
    ) -> AesEcb {
        let h = HashAlgorithm::Sha1;
        AesEcb {
            iterated: h.iterate(h.digest(&[salt, password]), iterations),
            key_len: key_bits as usize / 8,
            encoding_key,
        }
    }

    /// The key of block number `block` ([MS-OFFCRYPTO] 2.3.4.7).
    fn key(&self, block: u32) -> Vec<u8> {
        let h = HashAlgorithm::Sha1;
        let fin = h.digest(&[&self.iterated, &block.to_le_bytes()]);
        let pad = |code: u8| {
            let mut x = [code; 64];
            for (x, f) in x.iter_mut().zip(&fin) {
                *x ^= f;
            }
            h.digest(&[&x])
        };
        let mut key = pad(0x36);
        key.extend(pad(0x5c));
        key.truncate(self.key_len);
        key
    }

    /// Decrypts page `n` in place; `false` when the page is not whole AES
    /// blocks.
    pub fn decrypt(&self, n: u32, page: &mut [u8]) -> bool {
        aes_ecb_decrypt(&self.key(self.encoding_key ^ n), page).is_ok()
    }

    /// Encrypts page `n` in place; `false` when the page is not whole AES
    /// blocks.
    pub fn encrypt(&self, n: u32, page: &mut [u8]) -> bool {
        aes_ecb_encrypt(&self.key(self.encoding_key ^ n), page).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::crypt::info::{BinaryKind, STANDARD_ITERATIONS};

    /// A Standard header as [MS-OFFCRYPTO] 2.3.4.8 describes its writing:
    /// a random verifier and its SHA-1, encrypted with the key of block 0.
    fn header(password: &[u8], iterations: u32, key_bits: u32) -> BinaryInfo {
        let salt = [0x5a; 16];
        let c = AesEcb::derive(&salt, iterations, password, key_bits, 0);
        let key = c.key(0);
        let mut verifier = [0x17u8; 16];
        let mut hash = HashAlgorithm::Sha1.digest(&[&verifier]);
        hash.resize(32, 0);
        aes_ecb_encrypt(&key, &mut verifier).unwrap();
        aes_ecb_encrypt(&key, &mut hash).unwrap();
        BinaryInfo {
            kind: BinaryKind::Standard,
            key_bits,
            salt,
            verifier,
            verifier_hash_size: 20,
            verifier_hash: hash,
        }
    }

    #[test]
    fn the_verifier_accepts_only_the_password_and_iterations_it_was_made_with() {
        let pw: Vec<u8> = "Test123"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        for bits in [128, 192, 256] {
            let info = header(&pw, STANDARD_ITERATIONS, bits);
            let c = AesEcb::open(&info, STANDARD_ITERATIONS, &pw, 7).unwrap();
            assert_eq!(c.key(1).len(), bits as usize / 8);
            assert!(AesEcb::open(&info, STANDARD_ITERATIONS, b"T\0", 7).is_none());
            // the non-standard variant derives other keys from the same password
            assert!(AesEcb::open(&info, 0, &pw, 7).is_none());
        }
    }

    #[test]
    fn pages_round_trip_and_keys_differ_per_page() {
        let c = AesEcb::derive(&[1; 16], 10, b"p\0", 128, 0xdead_beef);
        assert_ne!(c.key(1), c.key(2));
        let mut page = vec![3u8; 4096];
        assert!(c.encrypt(9, &mut page));
        assert_ne!(page, vec![3u8; 4096]);
        assert!(c.decrypt(9, &mut page));
        assert_eq!(page, vec![3u8; 4096]);
        assert!(!c.decrypt(9, &mut [0u8; 15]));
    }
}
