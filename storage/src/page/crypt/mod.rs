//! Encrypted and password-protected databases: which protection page 0
//! announces, checking the password before any page is decoded, and the
//! page cipher layer under the page sources.
//!
//! Exports: modules [`agile`], [`info`] and [`rc4_cryptoapi`]; [`Password`],
//! [`PageCipher`], [`CipherPageSource`], [`Unlocked`], [`HeaderFacts`] and
//! [`unlock`]. The other schemes (`msisam.rs`, `standard.rs`,
//! `jet_password.rs`) and `primitives.rs` are the crate's own.
//!
//! Schemes (see the submodules): Jet3/Jet4 RC4 *encoding* (no password)
//! and the Jet database password (a masked header field, not a cipher: it
//! is checked when one is given, and reported by [`Protection::password`],
//! but a file opens without it);
//! Microsoft Money (MSISAM) old and new schemes; for ACCDB, Office Agile
//! encryption (AES-CBC, SHA-1…SHA-512 with a spin count), Standard
//! encryption (AES-ECB, SHA-1, 50,000 iterations) and Access's
//! non-standard variant of it (no iterations), RC4 CryptoAPI (40–128-bit)
//! and Office binary RC4. Page 0 is never encrypted.

pub mod agile;
pub mod info;
pub(crate) mod jet_password;
mod msisam;
mod primitives;
pub mod rc4_cryptoapi;
mod standard;

use crate::error::{CryptError, FormatError};
use crate::format::{CipherAlgorithm, HashAlgorithm, JetVersion, Protection, Scheme};
use crate::page::{Page, PageSource};
use std::sync::Arc;

/// A password given to open a database. Its `Debug` output never shows
/// it, and its bytes are overwritten when it is dropped.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Password(String);

impl Password {
    /// Wraps `text`.
    pub fn new(text: impl Into<String>) -> Password {
        Password(text.into())
    }

    /// The password's text, for the key derivations of this module only.
    pub(crate) fn reveal(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Password {
    fn from(s: &str) -> Password {
        Password::new(s)
    }
}

impl From<String> for Password {
    fn from(s: String) -> Password {
        Password(s)
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(<hidden>)")
    }
}

impl Drop for Password {
    fn drop(&mut self) {
        primitives::wipe(&mut std::mem::take(&mut self.0).into_bytes());
    }
}

impl Protection {
    fn plain(password: bool) -> Protection {
        Protection {
            scheme: Scheme::Plain,
            cipher: None,
            key_bits: None,
            hash: None,
            spin_count: None,
            password,
        }
    }

    fn rc4(
        scheme: Scheme,
        key_bits: u32,
        hash: Option<HashAlgorithm>,
        password: bool,
    ) -> Protection {
        Protection {
            scheme,
            cipher: Some(CipherAlgorithm::Rc4),
            key_bits: Some(key_bits),
            hash,
            spin_count: None,
            password,
        }
    }
}

/// A page cipher whose password was verified; holds its keys (overwritten
/// with zeros when dropped), never printed.
pub struct PageCipher(Kind);

enum Kind {
    /// RC4 with `key XOR n` for pages 1 to `last`.
    JetRc4 {
        key: u32,
        last: u32,
    },
    Msisam(msisam::NewScheme),
    Rc4(rc4_cryptoapi::Rc4Office),
    AesEcb(standard::AesEcb),
    Agile(agile::Agile),
}

impl std::fmt::Debug for PageCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PageCipher(<keys hidden>)")
    }
}

impl PageCipher {
    fn run(&self, n: u32, page: &mut [u8], encrypt: bool) -> Result<(), FormatError> {
        if n == 0 {
            return Ok(());
        }
        let ok = match &self.0 {
            Kind::JetRc4 { key, last } => {
                n > *last || primitives::rc4_keystream(&(key ^ n).to_le_bytes(), page)
            }
            Kind::Msisam(c) => c.apply(n, page),
            Kind::Rc4(c) => c.apply(n, page),
            Kind::AesEcb(c) if encrypt => c.encrypt(n, page),
            Kind::AesEcb(c) => c.decrypt(n, page),
            Kind::Agile(c) if encrypt => c.encrypt(n, page),
            Kind::Agile(c) => c.decrypt(n, page),
        };
        if ok {
            Ok(())
        } else {
            Err(FormatError::Encrypted(
                "a page is not a whole number of cipher blocks",
            ))
        }
    }

    /// Decrypts page `n` (as stored) in place; page 0 is left as it is.
    pub fn decrypt(&self, n: u32, page: &mut [u8]) -> Result<(), FormatError> {
        self.run(n, page, false)
    }

    /// Encrypts page `n` (as decoded) in place, so that [`Self::decrypt`]
    /// gives it back; page 0 is left as it is.
    pub fn encrypt(&self, n: u32, page: &mut [u8]) -> Result<(), FormatError> {
        self.run(n, page, true)
    }
}

/// Decrypts the pages of `inner` with a verified [`PageCipher`].
pub struct CipherPageSource<S> {
    inner: S,
    cipher: Arc<PageCipher>,
}

impl<S: PageSource> CipherPageSource<S> {
    /// Layers `cipher` over `inner`.
    pub fn new(inner: S, cipher: Arc<PageCipher>) -> Self {
        CipherPageSource { inner, cipher }
    }

    fn decode(&self, n: u32, p: Page) -> Result<Page, FormatError> {
        if n == 0 {
            return Ok(p);
        }
        let mut buf = p.to_vec();
        self.cipher.decrypt(n, &mut buf)?;
        Ok(Arc::from(buf))
    }
}

impl<S: PageSource> PageSource for CipherPageSource<S> {
    fn page_size(&self) -> usize {
        self.inner.page_size()
    }
    fn page_count(&self) -> u32 {
        self.inner.page_count()
    }
    fn read_page(&self, n: u32) -> Result<Page, FormatError> {
        let p = self.inner.read_page(n)?;
        self.decode(n, p)
    }
    fn pages_read(&self) -> u64 {
        self.inner.pages_read()
    }
    fn read_page_streaming(&self, n: u32) -> Result<Page, FormatError> {
        let p = self.inner.read_page_streaming(n)?;
        self.decode(n, p)
    }
}

/// What page 0 says about a file's protection, its password checked.
#[derive(Debug, Clone)]
pub struct Unlocked {
    /// The page cipher (`None` for plain pages).
    pub cipher: Option<Arc<PageCipher>>,
    /// The protection, for [`crate::Database::protection`].
    pub protection: Protection,
}

/// The facts of page 0 the protection depends on.
pub struct HeaderFacts<'a> {
    /// Page 0 as stored.
    pub raw: &'a [u8],
    /// Page 0 with its masked header region decoded.
    pub unmasked: &'a [u8],
    /// Engine version.
    pub version: JetVersion,
    /// Whether the signature is MSISAM's.
    pub msisam: bool,
    /// The database key (0x3E of the decoded header).
    pub db_key: u32,
    /// Encoding of Jet3 header text.
    pub encoding: &'static encoding_rs::Encoding,
}

/// Decides the protection of a file from page 0 and checks `password`
/// against it before any other page is read: a wrong or missing password,
/// a damaged or unsupported encryption header each give their
/// [`CryptError`].
pub fn unlock(h: &HeaderFacts<'_>, password: Option<&Password>) -> Result<Unlocked, CryptError> {
    let given = password.map(Password::reveal);
    if h.msisam {
        return unlock_msisam(h, given);
    }
    if h.version.is_ace() {
        if h.db_key == 0 {
            return Ok(Unlocked {
                cipher: None,
                protection: Protection::plain(false),
            });
        }
        return unlock_office(h, given);
    }
    let stored = jet_password::stored_password(h.unmasked, h.version, h.encoding);
    let has_password = stored.is_some();
    let protection = if h.db_key == 0 {
        Protection::plain(has_password)
    } else {
        Protection::rc4(Scheme::JetEncoding, 32, None, has_password)
    };
    // the Jet password protects no page: it is checked when given, and a
    // file opens without it (as other readers open it)
    if given.is_some() {
        check_stored(stored.as_deref(), given, false, &protection)?;
    }
    let cipher = (h.db_key != 0).then(|| {
        Arc::new(PageCipher(Kind::JetRc4 {
            key: h.db_key,
            last: u32::MAX,
        }))
    });
    Ok(Unlocked { cipher, protection })
}

/// Compares a password stored in the header with the one given
/// (`fold_case`: Money upper-cases passwords).
fn check_stored(
    stored: Option<&str>,
    given: Option<&str>,
    fold_case: bool,
    protection: &Protection,
) -> Result<(), CryptError> {
    let Some(stored) = stored else { return Ok(()) };
    let Some(given) = given else {
        return Err(CryptError::PasswordRequired {
            protection: protection.clone(),
        });
    };
    let matches = if fold_case {
        primitives::same_bytes(
            stored.to_uppercase().as_bytes(),
            given.to_uppercase().as_bytes(),
        )
    } else {
        primitives::same_bytes(stored.as_bytes(), given.as_bytes())
    };
    if matches {
        Ok(())
    } else {
        Err(CryptError::WrongPassword {
            protection: protection.clone(),
        })
    }
}

fn short_header() -> CryptError {
    CryptError::DamagedHeader {
        offset: 0,
        what: "page 0 is too short for the encryption fields",
    }
}

fn unlock_msisam(h: &HeaderFacts<'_>, given: Option<&str>) -> Result<Unlocked, CryptError> {
    match msisam::scheme(h.unmasked).ok_or_else(short_header)? {
        msisam::Scheme::Old => {
            let key = msisam::old_key(h.unmasked).ok_or_else(short_header)?;
            let stored = jet_password::stored_password(h.unmasked, JetVersion::Jet4, h.encoding);
            let protection = Protection::rc4(Scheme::MsisamOld, 32, None, stored.is_some());
            // Money asks for the password the header holds: it is required
            check_stored(stored.as_deref(), given, true, &protection)?;
            Ok(Unlocked {
                cipher: Some(Arc::new(PageCipher(Kind::JetRc4 {
                    key,
                    last: msisam::LAST_ENCRYPTED_PAGE,
                }))),
                protection,
            })
        }
        msisam::Scheme::New(hash) => {
            let has = msisam::NewScheme::has_password(h.unmasked, hash).ok_or_else(short_header)?;
            let protection = Protection::rc4(Scheme::MsisamNew, 160, Some(hash), has);
            let c = msisam::NewScheme::open(h.unmasked, hash, given).map_err(|r| match r {
                msisam::NewSchemeRefusal::Missing => CryptError::PasswordRequired {
                    protection: protection.clone(),
                },
                msisam::NewSchemeRefusal::Wrong => CryptError::WrongPassword {
                    protection: protection.clone(),
                },
                msisam::NewSchemeRefusal::Short => short_header(),
            })?;
            Ok(Unlocked {
                cipher: Some(Arc::new(PageCipher(Kind::Msisam(c)))),
                protection,
            })
        }
    }
}

/// The password as Office hashes it: UTF-16LE of its first 255 code units.
pub(crate) fn office_password_bytes(given: &str) -> Vec<u8> {
    given
        .encode_utf16()
        .take(255)
        .flat_map(u16::to_le_bytes)
        .collect()
}

/// Checks a password (UTF-16LE bytes) against a parsed header, giving the
/// page cipher it unlocks.
type Verify = Box<dyn Fn(&[u8]) -> Option<Kind>>;

fn unlock_office(h: &HeaderFacts<'_>, given: Option<&str>) -> Result<Unlocked, CryptError> {
    let from_info = |e: info::InfoError| match e {
        info::InfoError::Damaged { offset, what } => CryptError::DamagedHeader { offset, what },
        info::InfoError::Unsupported(scheme) => CryptError::Unsupported { scheme },
    };
    let parsed = info::parse(h.raw).map_err(from_info)?;
    // every header is parsed and its protection known before the password
    // is looked at, so a damaged header is reported as such
    let (protection, verify): (Protection, Verify) = match parsed {
        info::OfficeInfo::Agile { xml, offset } => {
            let d = agile::Descriptor::parse(xml, offset).map_err(from_info)?;
            let protection = Protection {
                scheme: Scheme::OfficeAgile,
                cipher: Some(CipherAlgorithm::AesCbc),
                key_bits: Some(d.key_data.key_bits),
                hash: Some(d.password.params.hash),
                spin_count: Some(d.password.spin_count),
                password: true,
            };
            let key = h.db_key;
            (
                protection,
                Box::new(move |pw| agile::Agile::open(&d, pw, key).map(Kind::Agile)),
            )
        }
        info::OfficeInfo::Binary(b) => {
            let key = h.db_key;
            let (scheme, cipher, spins) = match b.kind {
                info::BinaryKind::Standard => (
                    Scheme::OfficeStandard,
                    CipherAlgorithm::AesEcb,
                    Some(info::STANDARD_ITERATIONS),
                ),
                info::BinaryKind::NonStandard => {
                    (Scheme::OfficeNonStandard, CipherAlgorithm::AesEcb, None)
                }
                info::BinaryKind::Rc4CryptoApi => {
                    (Scheme::OfficeRc4CryptoApi, CipherAlgorithm::Rc4, None)
                }
            };
            let protection = Protection {
                scheme,
                cipher: Some(cipher),
                key_bits: Some(b.key_bits),
                hash: Some(HashAlgorithm::Sha1),
                spin_count: spins,
                password: true,
            };
            (
                protection,
                Box::new(move |pw| match b.kind {
                    info::BinaryKind::Rc4CryptoApi => {
                        rc4_cryptoapi::Rc4Office::cryptoapi(&b, pw, key).map(Kind::Rc4)
                    }
                    info::BinaryKind::Standard => {
                        standard::AesEcb::open(&b, info::STANDARD_ITERATIONS, pw, key)
                            .map(Kind::AesEcb)
                    }
                    info::BinaryKind::NonStandard => {
                        standard::AesEcb::open(&b, 0, pw, key).map(Kind::AesEcb)
                    }
                }),
            )
        }
        info::OfficeInfo::BinaryRc4 {
            salt,
            verifier,
            verifier_hash,
        } => {
            let key = h.db_key;
            (
                Protection::rc4(Scheme::OfficeBinaryRc4, 128, Some(HashAlgorithm::Md5), true),
                Box::new(move |pw| {
                    rc4_cryptoapi::Rc4Office::binary_doc(&salt, &verifier, &verifier_hash, pw, key)
                        .map(Kind::Rc4)
                }),
            )
        }
    };
    let Some(given) = given else {
        return Err(CryptError::PasswordRequired { protection });
    };
    match verify(&office_password_bytes(given)) {
        Some(kind) => Ok(Unlocked {
            cipher: Some(Arc::new(PageCipher(kind))),
            protection,
        }),
        None => Err(CryptError::WrongPassword { protection }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Deciding the protection never panics and never takes long,
        /// whatever page 0 holds (version, flags, keys, EncryptionInfo).
        #[test]
        fn unlock_is_total(
            head in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..0x300),
            info in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..1200),
            version in 0u8..8,
            msisam in proptest::prelude::any::<bool>(),
            db_key in proptest::prelude::any::<u32>(),
            given in proptest::option::of("[a-zA-Z0-9]{0,12}"),
        ) {
            let mut page = vec![0u8; 4096];
            page[..head.len()].copy_from_slice(&head);
            let at = info::INFO_LEN_OFFSET;
            page[at..at + info.len()].copy_from_slice(&info);
            let version = JetVersion::from_byte(version).unwrap_or(JetVersion::Ace14);
            let password = given.map(Password::from);
            let _ = unlock(
                &HeaderFacts {
                    raw: &page,
                    unmasked: &page,
                    version,
                    msisam,
                    db_key,
                    encoding: encoding_rs::WINDOWS_1252,
                },
                password.as_ref(),
            );
        }
    }

    #[test]
    fn passwords_do_not_print() {
        let p = Password::from("hunter2");
        assert_eq!(format!("{p:?}"), "Password(<hidden>)");
        assert_eq!(p.reveal(), "hunter2");
    }

    #[test]
    fn protection_reads_as_a_sentence() {
        let p = Protection {
            scheme: Scheme::OfficeAgile,
            cipher: Some(CipherAlgorithm::AesCbc),
            key_bits: Some(256),
            hash: Some(HashAlgorithm::Sha512),
            spin_count: Some(100_000),
            password: true,
        };
        assert_eq!(
            p.to_string(),
            "Office Agile encryption (AES-CBC 256-bit, SHA-512, 100000 iterations), password"
        );
        assert_eq!(
            Protection::plain(true).to_string(),
            "no encryption, database password"
        );
    }
}
