//! Agile encryption ([MS-OFFCRYPTO] 2.3.4.10–2.3.4.13): an XML descriptor
//! in page 0 names the hash (SHA-1 … SHA-512), the spin count, the salts
//! and the encrypted verifier and key. The password's key decrypts the
//! intermediate key; page `n` is AES-CBC encrypted with that key and the
//! IV `hash(keyData salt + le32(encoding_key XOR n))`.
//!
//! [`Descriptor::parse`] is pure and total: any bytes give a descriptor
//! whose every length and count is within bounds, or an [`InfoError`].

use super::info::{InfoError, MAX_SPIN_COUNT};
use super::primitives::{AES_BLOCK, aes_cbc_decrypt, aes_cbc_encrypt, fix_len, same_bytes};
use crate::format::HashAlgorithm;
use base64::Engine as _;

/// The URI of the password key encryptor.
const PASSWORD_URI: &str = "http://schemas.microsoft.com/office/2006/keyEncryptor/password";
/// Block keys of [MS-OFFCRYPTO] 2.3.4.13.
const VERIFIER_INPUT_BLOCK: [u8; 8] = [0xfe, 0xa7, 0xd2, 0x76, 0x3b, 0x4b, 0x9e, 0x79];
const VERIFIER_VALUE_BLOCK: [u8; 8] = [0xd7, 0xaa, 0x0f, 0x6d, 0x30, 0x61, 0x34, 0x4e];
const KEY_VALUE_BLOCK: [u8; 8] = [0x14, 0x6e, 0x0b, 0xe7, 0xab, 0xac, 0xd0, 0xd6];
/// The longest salt accepted (Office writes 16 bytes).
const MAX_SALT: usize = 64;

/// Cipher parameters shared by `keyData` and the password encryptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyParams {
    /// The salt (1 to 64 bytes).
    pub salt: Vec<u8>,
    /// Key length in bits: 128, 192 or 256 (AES).
    pub key_bits: u32,
    /// The hash algorithm.
    pub hash: HashAlgorithm,
}

/// The password key encryptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasswordEncryptor {
    /// Its cipher parameters.
    pub params: KeyParams,
    /// Hash iterations, at most [`MAX_SPIN_COUNT`].
    pub spin_count: u32,
    /// The encrypted verifier hash input (whole AES blocks).
    pub verifier_input: Vec<u8>,
    /// The encrypted verifier hash value (whole AES blocks, at least a digest).
    pub verifier_value: Vec<u8>,
    /// The encrypted intermediate key (whole AES blocks, at least a key).
    pub key_value: Vec<u8>,
}

/// A parsed and bounds-checked Agile descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptor {
    /// How pages are encrypted.
    pub key_data: KeyParams,
    /// How the password protects the intermediate key.
    pub password: PasswordEncryptor,
}

/// Attributes of one element, raw (values are numbers, names and base64,
/// which need no unescaping).
type Attrs = Vec<(String, String)>;

fn attr<'a>(attrs: &'a Attrs, name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

impl Descriptor {
    /// Parses the XML descriptor `xml`, found at `offset` in page 0 (for
    /// error messages).
    pub fn parse(xml: &[u8], offset: usize) -> Result<Descriptor, InfoError> {
        let damaged = |at: usize, what| InfoError::Damaged {
            offset: offset + at,
            what,
        };
        let text = std::str::from_utf8(xml)
            .map_err(|e| damaged(e.valid_up_to(), "the Agile descriptor is not UTF-8 text"))?
            .trim_end_matches(['\0', ' ', '\r', '\n']);
        let mut reader = quick_xml::Reader::from_str(text);
        let mut key_data: Option<(usize, Attrs)> = None;
        let mut encryptor: Option<(usize, Attrs)> = None;
        let mut in_password_encryptor = false;
        let mut other_encryptors = 0usize;
        let mut saw_root = false;
        loop {
            let at = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let event = reader
                .read_event()
                .map_err(|_| damaged(at, "the Agile descriptor is not well-formed XML"))?;
            let element = match &event {
                quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => e,
                quick_xml::events::Event::End(e) => {
                    if e.local_name().as_ref() == "keyEncryptor" {
                        in_password_encryptor = false;
                    }
                    continue;
                }
                quick_xml::events::Event::Eof => break,
                _ => continue,
            };
            let mut attrs = Attrs::new();
            for a in element.attributes() {
                let a = a.map_err(|_| damaged(at, "an Agile descriptor attribute is malformed"))?;
                attrs.push((a.key.local_name().as_ref().to_string(), a.value.to_string()));
            }
            match element.local_name().as_ref() {
                "encryption" => saw_root = true,
                "keyData" if key_data.is_none() => key_data = Some((at, attrs)),
                "keyData" => {
                    return Err(damaged(at, "the Agile descriptor has two keyData elements"));
                }
                "keyEncryptor" => {
                    in_password_encryptor = attr(&attrs, "uri") == Some(PASSWORD_URI);
                    if !in_password_encryptor {
                        other_encryptors += 1;
                    }
                }
                "encryptedKey" if in_password_encryptor => {
                    if encryptor.is_some() {
                        return Err(damaged(
                            at,
                            "the Agile descriptor has two password key encryptors",
                        ));
                    }
                    encryptor = Some((at, attrs));
                }
                _ => {}
            }
        }
        if !saw_root {
            return Err(damaged(0, "the Agile descriptor has no encryption element"));
        }
        let (kd_at, kd) =
            key_data.ok_or_else(|| damaged(0, "the Agile descriptor has no keyData"))?;
        let Some((pe_at, pe)) = encryptor else {
            return Err(if other_encryptors > 0 {
                InfoError::Unsupported(
                    "Agile encryption by certificate (no password key encryptor)".into(),
                )
            } else {
                damaged(0, "the Agile descriptor has no key encryptor")
            });
        };
        let key_data = key_params(&kd, &|what| damaged(kd_at, what))?;
        let bad = |what| damaged(pe_at, what);
        let params = key_params(&pe, &bad)?;
        let spin_count: u32 = attr(&pe, "spinCount")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| bad("the spin count is missing or not a number"))?;
        if spin_count > MAX_SPIN_COUNT {
            return Err(bad("the spin count is above 10,000,000"));
        }
        let blocks = |name, min: usize, what| -> Result<Vec<u8>, InfoError> {
            let v = base64_attr(&pe, name).ok_or_else(|| bad(what))?;
            if v.is_empty() || !v.len().is_multiple_of(AES_BLOCK) || v.len() < min {
                return Err(bad(what));
            }
            Ok(v)
        };
        let verifier_input = blocks(
            "encryptedVerifierHashInput",
            params.salt.len(),
            "the encrypted verifier input is missing or not whole AES blocks",
        )?;
        let verifier_value = blocks(
            "encryptedVerifierHashValue",
            params.hash.digest_len(),
            "the encrypted verifier hash is missing, too short or not whole AES blocks",
        )?;
        let key_value = blocks(
            "encryptedKeyValue",
            key_data.key_bits as usize / 8,
            "the encrypted key is missing, too short or not whole AES blocks",
        )?;
        Ok(Descriptor {
            key_data,
            password: PasswordEncryptor {
                params,
                spin_count,
                verifier_input,
                verifier_value,
                key_value,
            },
        })
    }
}

fn base64_attr(attrs: &Attrs, name: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(attr(attrs, name)?.trim())
        .ok()
}

/// The cipher parameters of `keyData` or `encryptedKey`: AES-CBC with
/// 16-byte blocks, a known hash whose size matches, a salt of the stated size.
fn key_params(
    attrs: &Attrs,
    bad: &dyn Fn(&'static str) -> InfoError,
) -> Result<KeyParams, InfoError> {
    let number = |name, what| -> Result<u32, InfoError> {
        attr(attrs, name)
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| bad(what))
    };
    let cipher =
        attr(attrs, "cipherAlgorithm").ok_or_else(|| bad("the cipher algorithm is missing"))?;
    if cipher != "AES" {
        return Err(InfoError::Unsupported(format!(
            "Agile encryption with cipher {}",
            crate::error::printable(cipher)
        )));
    }
    let chaining =
        attr(attrs, "cipherChaining").ok_or_else(|| bad("the cipher chaining is missing"))?;
    if chaining != "ChainingModeCBC" {
        return Err(InfoError::Unsupported(format!(
            "Agile encryption with chaining {}",
            crate::error::printable(chaining)
        )));
    }
    let hash_name =
        attr(attrs, "hashAlgorithm").ok_or_else(|| bad("the hash algorithm is missing"))?;
    let hash = HashAlgorithm::from_agile_name(hash_name).ok_or_else(|| {
        InfoError::Unsupported(format!(
            "Agile encryption with hash {}",
            crate::error::printable(hash_name)
        ))
    })?;
    if number("blockSize", "the block size is missing or not a number")? != AES_BLOCK as u32 {
        return Err(bad("the block size is not AES's 16 bytes"));
    }
    let key_bits = number("keyBits", "the key size is missing or not a number")?;
    if ![128, 192, 256].contains(&key_bits) {
        return Err(bad("the key size is not 128, 192 or 256 bits"));
    }
    if number("hashSize", "the hash size is missing or not a number")? as usize != hash.digest_len()
    {
        return Err(bad("the hash size does not match the hash algorithm"));
    }
    let salt =
        base64_attr(attrs, "saltValue").ok_or_else(|| bad("the salt is missing or not base64"))?;
    if salt.is_empty() || salt.len() > MAX_SALT {
        return Err(bad("the salt is not 1 to 64 bytes"));
    }
    if number("saltSize", "the salt size is missing or not a number")? as usize != salt.len() {
        return Err(bad("the salt size does not match the salt"));
    }
    Ok(KeyParams {
        salt,
        key_bits,
        hash,
    })
}

/// An Agile page cipher whose password was verified.
pub struct Agile {
    key: Vec<u8>,
    salt: Vec<u8>,
    hash: HashAlgorithm,
    encoding_key: u32,
}

impl Drop for Agile {
    fn drop(&mut self) {
        super::primitives::wipe(&mut self.key);
    }
}

impl std::fmt::Debug for Agile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agile")
            .field("hash", &self.hash)
            .finish_non_exhaustive()
    }
}

impl Agile {
    /// Derives the keys of `password` (UTF-16LE bytes), checks the verifier
    /// and decrypts the intermediate key; `None` when the password is wrong.
    pub fn open(d: &Descriptor, password: &[u8], encoding_key: u32) -> Option<Agile> {
        let p = &d.password;
        let h = p.params.hash;
        // the iterated hash is shared by the three keys of 2.3.4.13
        let iterated = h.iterate(h.digest(&[&p.params.salt, password]), p.spin_count);
        let key_len = p.params.key_bits as usize / 8;
        let iv = fix_len(p.params.salt.clone(), AES_BLOCK, 0x36);
        let decrypt = |block: &[u8; 8], data: &[u8]| -> Option<Vec<u8>> {
            let key = fix_len(h.digest(&[&iterated, block]), key_len, 0x36);
            let mut out = data.to_vec();
            aes_cbc_decrypt(&key, &iv, &mut out).ok()?;
            Some(out)
        };
        let input = decrypt(&VERIFIER_INPUT_BLOCK, &p.verifier_input)?;
        let value = decrypt(&VERIFIER_VALUE_BLOCK, &p.verifier_value)?;
        let expect = h.digest(&[&input[..p.params.salt.len()]]);
        if !same_bytes(&value[..expect.len()], &expect) {
            return None;
        }
        let mut key = decrypt(&KEY_VALUE_BLOCK, &p.key_value)?;
        key.truncate(d.key_data.key_bits as usize / 8);
        Some(Agile {
            key,
            salt: d.key_data.salt.clone(),
            hash: d.key_data.hash,
            encoding_key,
        })
    }

    /// The IV of page `n` ([MS-OFFCRYPTO] 2.3.4.12).
    fn iv(&self, n: u32) -> Vec<u8> {
        let block = (self.encoding_key ^ n).to_le_bytes();
        fix_len(self.hash.digest(&[&self.salt, &block]), AES_BLOCK, 0x36)
    }

    /// Decrypts page `n` in place; `false` when it is not whole AES blocks.
    pub fn decrypt(&self, n: u32, page: &mut [u8]) -> bool {
        aes_cbc_decrypt(&self.key, &self.iv(n), page).is_ok()
    }

    /// Encrypts page `n` in place; `false` when it is not whole AES blocks.
    pub fn encrypt(&self, n: u32, page: &mut [u8]) -> bool {
        aes_cbc_encrypt(&self.key, &self.iv(n), page).is_ok()
    }
}

/// The random values of a new Agile header.
pub struct NewKeys {
    /// Salt of `keyData` (the page IVs).
    pub key_salt: [u8; 16],
    /// Salt of the password key encryptor.
    pub password_salt: [u8; 16],
    /// The verifier hash input.
    pub verifier: [u8; 16],
    /// The intermediate key pages are encrypted with.
    pub key: [u8; 32],
}

/// Agile encryption as Office 2013 and later write it: AES-256-CBC and
/// SHA-512 for both the password and the pages, with `spin_count`
/// iterations. Gives the page cipher and the XML descriptor.
pub fn create(
    new: &NewKeys,
    password: &[u8],
    spin_count: u32,
    encoding_key: u32,
) -> (Agile, String) {
    let h = HashAlgorithm::Sha512;
    let iterated = h.iterate(h.digest(&[&new.password_salt, password]), spin_count);
    let encrypt = |block: &[u8; 8], data: &[u8]| -> String {
        let key = fix_len(h.digest(&[&iterated, block]), 32, 0x36);
        let mut out = data.to_vec();
        // whole blocks and a 32-byte key by construction
        let _ = aes_cbc_encrypt(&key, &new.password_salt, &mut out);
        base64::engine::general_purpose::STANDARD.encode(out)
    };
    let input = encrypt(&VERIFIER_INPUT_BLOCK, &new.verifier);
    let value = encrypt(&VERIFIER_VALUE_BLOCK, &h.digest(&[&new.verifier]));
    let key = encrypt(&KEY_VALUE_BLOCK, &new.key);
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    let params = |salt: &[u8]| {
        format!(
            "saltSize=\"16\" blockSize=\"16\" keyBits=\"256\" hashSize=\"64\" cipherAlgorithm=\"AES\" \
             cipherChaining=\"ChainingModeCBC\" hashAlgorithm=\"SHA512\" saltValue=\"{}\"",
            b64(salt)
        )
    };
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\r\n\
         <encryption xmlns=\"http://schemas.microsoft.com/office/2006/encryption\" \
         xmlns:p=\"{PASSWORD_URI}\"><keyData {}/><keyEncryptors><keyEncryptor uri=\"{PASSWORD_URI}\">\
         <p:encryptedKey spinCount=\"{spin_count}\" {} encryptedVerifierHashInput=\"{input}\" \
         encryptedVerifierHashValue=\"{value}\" encryptedKeyValue=\"{key}\"/></keyEncryptor>\
         </keyEncryptors></encryption>",
        params(&new.key_salt),
        params(&new.password_salt),
    );
    let cipher = Agile {
        key: new.key.to_vec(),
        salt: new.key_salt.to_vec(),
        hash: h,
        encoding_key,
    };
    (cipher, xml)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const XML: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<encryption xmlns="http://schemas.microsoft.com/office/2006/encryption" xmlns:p="http://schemas.microsoft.com/office/2006/keyEncryptor/password"><keyData saltSize="16" blockSize="16" keyBits="128" hashSize="20" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA1" saltValue="DpYj4WNbM6JWXkuaGykRtA=="/><keyEncryptors><keyEncryptor uri="http://schemas.microsoft.com/office/2006/keyEncryptor/password"><p:encryptedKey spinCount="100000" saltSize="16" blockSize="16" keyBits="128" hashSize="20" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA1" saltValue="x8auqBWNRtGDHQwze+aBVg==" encryptedVerifierHashInput="VPXJzdncGO4XhFrLmdoILA==" encryptedVerifierHashValue="4SEcXpKVsp0g39RV9on+EcJ9/J7+9cpByDyoj7sd9VQ=" encryptedKeyValue="o0cj94OxoyHGQ6CDwqTdBg=="/></keyEncryptor></keyEncryptors></encryption>"#;

    #[test]
    fn parses_the_descriptor_access_writes() {
        let d = Descriptor::parse(XML.as_bytes(), 0).unwrap();
        assert_eq!(d.key_data.hash, HashAlgorithm::Sha1);
        assert_eq!(d.password.spin_count, 100_000);
        assert_eq!(d.password.verifier_value.len(), 32);
    }

    #[test]
    fn bounds_are_enforced() {
        let spin = XML.replace("spinCount=\"100000\"", "spinCount=\"4000000000\"");
        assert!(matches!(
            Descriptor::parse(spin.as_bytes(), 0),
            Err(InfoError::Damaged { what, .. }) if what.contains("spin count")
        ));
        let hash = XML.replace("hashSize=\"20\" cipherAlgorithm=\"AES\" cipherChaining=\"ChainingModeCBC\" hashAlgorithm=\"SHA1\" saltValue=\"x8", "hashSize=\"64\" cipherAlgorithm=\"AES\" cipherChaining=\"ChainingModeCBC\" hashAlgorithm=\"SHA1\" saltValue=\"x8");
        assert!(matches!(
            Descriptor::parse(hash.as_bytes(), 0),
            Err(InfoError::Damaged { .. })
        ));
        let cfb = XML.replacen("ChainingModeCBC", "ChainingModeCFB", 1);
        assert!(matches!(
            Descriptor::parse(cfb.as_bytes(), 0),
            Err(InfoError::Unsupported(_))
        ));
        let cert = XML.replace(
            PASSWORD_URI,
            "http://schemas.microsoft.com/office/2006/keyEncryptor/certificate",
        );
        assert!(matches!(
            Descriptor::parse(cert.as_bytes(), 0),
            Err(InfoError::Unsupported(_))
        ));
        for cut in [0, 10, 300, XML.len() - 20] {
            assert!(
                Descriptor::parse(&XML.as_bytes()[..cut], 0).is_err(),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn created_descriptors_parse_and_open_with_their_password_only() {
        let new = NewKeys {
            key_salt: [1; 16],
            password_salt: [2; 16],
            verifier: [3; 16],
            key: [4; 32],
        };
        let pw: Vec<u8> = "pässwörd"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let (c, xml) = create(&new, &pw, 1000, 0x1234_5678);
        let d = Descriptor::parse(xml.as_bytes(), 0).unwrap();
        assert_eq!(d.key_data.hash, HashAlgorithm::Sha512);
        assert_eq!((d.key_data.key_bits, d.password.spin_count), (256, 1000));
        let opened = Agile::open(&d, &pw, 0x1234_5678).unwrap();
        assert_eq!(opened.key, c.key);
        assert!(Agile::open(&d, b"x\0", 0x1234_5678).is_none());
        let mut page = vec![9u8; 4096];
        assert!(c.encrypt(5, &mut page));
        assert_ne!(page, vec![9u8; 4096]);
        assert!(opened.decrypt(5, &mut page));
        assert_eq!(page, vec![9u8; 4096]);
    }

    proptest! {
        /// Never panics on arbitrary bytes.
        #[test]
        fn parse_is_total_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let _ = Descriptor::parse(&bytes, 0);
        }

        /// Never panics on the real descriptor with one byte changed.
        #[test]
        fn parse_is_total_on_mutations(at in 0usize..2000, val in any::<u8>()) {
            let mut v = XML.as_bytes().to_vec();
            let at = at % v.len();
            v[at] = val;
            let _ = Descriptor::parse(&v, 0);
        }
    }
}
