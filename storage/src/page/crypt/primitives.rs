//! The cryptographic primitives the page ciphers are built from, chosen at
//! run time from what a file's header names: hashes (MD5, SHA-1, SHA-2),
//! AES in ECB or CBC mode with a 128/192/256-bit key, and RC4 with a key of
//! 1 to 32 bytes. Each is a thin dispatch over the RustCrypto crates; none
//! is implemented here.

use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyInit, KeyIvInit};
use sha2::Digest;

use crate::format::HashAlgorithm;

impl HashAlgorithm {
    /// The algorithm an Agile descriptor names (`SHA1`, `SHA512`, …); `None`
    /// for a name this reader does not implement.
    pub fn from_agile_name(name: &str) -> Option<HashAlgorithm> {
        Some(match name {
            "SHA1" | "SHA-1" => HashAlgorithm::Sha1,
            "SHA256" | "SHA-256" => HashAlgorithm::Sha256,
            "SHA384" | "SHA-384" => HashAlgorithm::Sha384,
            "SHA512" | "SHA-512" => HashAlgorithm::Sha512,
            "MD5" => HashAlgorithm::Md5,
            _ => return None,
        })
    }

    /// Length of a digest in bytes.
    pub fn digest_len(self) -> usize {
        match self {
            HashAlgorithm::Md5 => 16,
            HashAlgorithm::Sha1 => 20,
            HashAlgorithm::Sha256 => 32,
            HashAlgorithm::Sha384 => 48,
            HashAlgorithm::Sha512 => 64,
        }
    }

    /// The digest of the concatenation of `parts`.
    pub fn digest(self, parts: &[&[u8]]) -> Vec<u8> {
        fn run<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
            let mut d = D::new();
            for p in parts {
                d.update(p);
            }
            d.finalize().to_vec()
        }
        match self {
            HashAlgorithm::Md5 => run::<md5::Md5>(parts),
            HashAlgorithm::Sha1 => run::<sha1::Sha1>(parts),
            HashAlgorithm::Sha256 => run::<sha2::Sha256>(parts),
            HashAlgorithm::Sha384 => run::<sha2::Sha384>(parts),
            HashAlgorithm::Sha512 => run::<sha2::Sha512>(parts),
        }
    }

    /// `H_n` of [MS-OFFCRYPTO] 2.3.4.7 / 2.3.4.11: starting from `h0`,
    /// `iterations` times `H_{i+1} = H(le32(i) + H_i)`.
    pub fn iterate(self, h0: Vec<u8>, iterations: u32) -> Vec<u8> {
        fn run<D: Digest>(h0: Vec<u8>, iterations: u32) -> Vec<u8> {
            if iterations == 0 {
                return h0;
            }
            // the running hash stays on the stack: no allocation per round
            let mut h = D::new()
                .chain_update(0u32.to_le_bytes())
                .chain_update(&h0)
                .finalize();
            for i in 1..iterations {
                h = D::new()
                    .chain_update(i.to_le_bytes())
                    .chain_update(&h)
                    .finalize();
            }
            h.to_vec()
        }
        match self {
            HashAlgorithm::Md5 => run::<md5::Md5>(h0, iterations),
            HashAlgorithm::Sha1 => run::<sha1::Sha1>(h0, iterations),
            HashAlgorithm::Sha256 => run::<sha2::Sha256>(h0, iterations),
            HashAlgorithm::Sha384 => run::<sha2::Sha384>(h0, iterations),
            HashAlgorithm::Sha512 => run::<sha2::Sha512>(h0, iterations),
        }
    }
}

/// `bytes` cut or padded with `pad` to exactly `len` bytes.
pub fn fix_len(mut bytes: Vec<u8>, len: usize, pad: u8) -> Vec<u8> {
    bytes.resize(len, pad);
    bytes
}

/// Why an AES call was refused: a key that is not 16, 24 or 32 bytes, or
/// data that is not whole 16-byte blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadAesInput;

/// AES block size in bytes.
pub const AES_BLOCK: usize = 16;

fn check_blocks(data: &[u8]) -> Result<(), BadAesInput> {
    if data.len().is_multiple_of(AES_BLOCK) {
        Ok(())
    } else {
        Err(BadAesInput)
    }
}

macro_rules! by_key_len {
    ($key:expr, $run:ident, $($arg:expr),*) => {
        match $key.len() {
            16 => $run::<aes::Aes128>($key, $($arg),*),
            24 => $run::<aes::Aes192>($key, $($arg),*),
            32 => $run::<aes::Aes256>($key, $($arg),*),
            _ => Err(BadAesInput),
        }
    };
}

/// Decrypts `data` in place with AES-ECB under `key`.
pub fn aes_ecb_decrypt(key: &[u8], data: &mut [u8]) -> Result<(), BadAesInput> {
    fn run<C>(key: &[u8], data: &mut [u8]) -> Result<(), BadAesInput>
    where
        C: aes::cipher::BlockCipher + aes::cipher::BlockDecrypt + KeyInit,
    {
        let mut c = ecb::Decryptor::<C>::new_from_slice(key).map_err(|_| BadAesInput)?;
        for block in data.chunks_exact_mut(AES_BLOCK) {
            c.decrypt_block_mut(block.into());
        }
        Ok(())
    }
    check_blocks(data)?;
    by_key_len!(key, run, data)
}

/// Encrypts `data` in place with AES-ECB under `key`.
pub fn aes_ecb_encrypt(key: &[u8], data: &mut [u8]) -> Result<(), BadAesInput> {
    fn run<C>(key: &[u8], data: &mut [u8]) -> Result<(), BadAesInput>
    where
        C: aes::cipher::BlockCipher + aes::cipher::BlockEncrypt + KeyInit,
    {
        let mut c = ecb::Encryptor::<C>::new_from_slice(key).map_err(|_| BadAesInput)?;
        for block in data.chunks_exact_mut(AES_BLOCK) {
            c.encrypt_block_mut(block.into());
        }
        Ok(())
    }
    check_blocks(data)?;
    by_key_len!(key, run, data)
}

/// Decrypts `data` in place with AES-CBC under `key` and the 16-byte `iv`.
pub fn aes_cbc_decrypt(key: &[u8], iv: &[u8], data: &mut [u8]) -> Result<(), BadAesInput> {
    fn run<C>(key: &[u8], iv: &[u8], data: &mut [u8]) -> Result<(), BadAesInput>
    where
        C: aes::cipher::BlockCipher
            + aes::cipher::BlockDecrypt
            + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>
            + KeyInit,
    {
        let mut c = cbc::Decryptor::<C>::new_from_slices(key, iv).map_err(|_| BadAesInput)?;
        for block in data.chunks_exact_mut(AES_BLOCK) {
            c.decrypt_block_mut(block.into());
        }
        Ok(())
    }
    check_blocks(data)?;
    by_key_len!(key, run, iv, data)
}

/// Encrypts `data` in place with AES-CBC under `key` and the 16-byte `iv`.
pub fn aes_cbc_encrypt(key: &[u8], iv: &[u8], data: &mut [u8]) -> Result<(), BadAesInput> {
    fn run<C>(key: &[u8], iv: &[u8], data: &mut [u8]) -> Result<(), BadAesInput>
    where
        C: aes::cipher::BlockCipher
            + aes::cipher::BlockEncrypt
            + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>
            + KeyInit,
    {
        let mut c = cbc::Encryptor::<C>::new_from_slices(key, iv).map_err(|_| BadAesInput)?;
        for block in data.chunks_exact_mut(AES_BLOCK) {
            c.encrypt_block_mut(block.into());
        }
        Ok(())
    }
    check_blocks(data)?;
    by_key_len!(key, run, iv, data)
}

/// Applies the RC4 keystream of `key` (1 to 32 bytes) to `data` in place;
/// `false` (data untouched) for a key of another length.
pub fn rc4_keystream(key: &[u8], data: &mut [u8]) -> bool {
    use rc4::consts::*;
    use rc4::{KeyInit as _, StreamCipher};
    macro_rules! arms {
        ($($n:literal => $t:ty),*) => {
            match key.len() {
                $($n => {
                    let mut c = rc4::Rc4::<$t>::new(key.into());
                    c.apply_keystream(data);
                    true
                })*
                _ => false,
            }
        };
    }
    arms!(
        1 => U1, 2 => U2, 3 => U3, 4 => U4, 5 => U5, 6 => U6, 7 => U7, 8 => U8,
        9 => U9, 10 => U10, 11 => U11, 12 => U12, 13 => U13, 14 => U14, 15 => U15,
        16 => U16, 17 => U17, 18 => U18, 19 => U19, 20 => U20, 21 => U21, 22 => U22,
        23 => U23, 24 => U24, 25 => U25, 26 => U26, 27 => U27, 28 => U28, 29 => U29,
        30 => U30, 31 => U31, 32 => U32
    )
}

/// Overwrites key material with zeros before its memory is freed.
pub fn wipe(bytes: &mut [u8]) {
    bytes.fill(0);
    std::hint::black_box(bytes);
}

/// `a == b` in time that does not depend on where they first differ.
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FIPS 180 / RFC 1321 test vectors for "abc".
    #[test]
    fn hashes_match_published_vectors() {
        let hex = |v: Vec<u8>| v.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(HashAlgorithm::Md5.digest(&[b"a", b"bc"])),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex(HashAlgorithm::Sha1.digest(&[b"abc"])),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(HashAlgorithm::Sha512.digest(&[b"abc"]).len(), 64);
    }

    /// `iterate` is the loop of [MS-OFFCRYPTO] 2.3.4.7 written out.
    #[test]
    fn iterate_is_the_spec_loop() {
        for h in [HashAlgorithm::Sha1, HashAlgorithm::Sha512] {
            let h0 = h.digest(&[b"salt", b"pw"]);
            let mut want = h0.clone();
            for i in 0u32..5 {
                want = h.digest(&[&i.to_le_bytes(), &want]);
            }
            assert_eq!(h.iterate(h0.clone(), 5), want);
            assert_eq!(h.iterate(h0.clone(), 0), h0);
        }
    }

    /// FIPS 197 appendix C.1: AES-128 of 00112233…ff under 000102…0f.
    #[test]
    fn aes_matches_fips_197() {
        let key: Vec<u8> = (0u8..16).collect();
        let mut block: Vec<u8> = (0u8..16).map(|i| i * 0x11).collect();
        aes_ecb_encrypt(&key, &mut block).unwrap();
        assert_eq!(
            block,
            [
                0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
                0xc5, 0x5a
            ]
        );
        aes_ecb_decrypt(&key, &mut block).unwrap();
        assert_eq!(block, (0u8..16).map(|i| i * 0x11).collect::<Vec<_>>());
        let iv = [7u8; 16];
        let mut data = vec![1u8; 48];
        aes_cbc_encrypt(&key, &iv, &mut data).unwrap();
        assert_ne!(data, vec![1u8; 48]);
        aes_cbc_decrypt(&key, &iv, &mut data).unwrap();
        assert_eq!(data, vec![1u8; 48]);
        assert_eq!(aes_ecb_decrypt(&key[..15], &mut block), Err(BadAesInput));
        assert_eq!(aes_cbc_decrypt(&key, &iv, &mut [0u8; 15]), Err(BadAesInput));
    }

    /// RFC 6229: the first keystream bytes of the 40-bit key 0102030405.
    #[test]
    fn rc4_matches_rfc_6229() {
        let mut z = [0u8; 4];
        assert!(rc4_keystream(&[1, 2, 3, 4, 5], &mut z));
        assert_eq!(z, [0xb2, 0x39, 0x63, 0x05]);
        assert!(!rc4_keystream(&[0u8; 33], &mut z));
        assert!(!rc4_keystream(&[], &mut z));
    }
}
