//! Standard encryption ([MS-OFFCRYPTO] 2.3.4.5–2.3.4.9: AES-ECB, SHA-1,
//! 50,000 hash iterations) and Access's non-standard variant of it (the
//! same derivation without iterations, announced by CryptoAPI flags without
//! the AES flag). Page `n` is encrypted with the key derived for the block
//! number `encoding_key XOR n`.

use super::info::BinaryInfo;
use super::primitives::{HashAlgorithm, aes_ecb_decrypt, aes_ecb_encrypt, same_bytes};

/// An AES-ECB page cipher whose password was verified.
pub struct AesEcb {
    /// `H_n`: the salted password hash after the iterations; every page key
    /// derives from it with two more rounds of SHA-1.
    iterated: Vec<u8>,
    key_len: usize,
    encoding_key: u32,
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
        let iterated = h.iterate(h.digest(&[&info.salt, password]), iterations);
        let c = AesEcb {
            iterated,
            key_len: info.key_bits as usize / 8,
            encoding_key,
        };
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
