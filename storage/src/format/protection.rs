//! What protects a database, as page 0 announces it: [`Protection`] and
//! the enums it is made of ([`Scheme`], [`CipherAlgorithm`],
//! [`HashAlgorithm`]), with the text their `Display` gives in messages. The
//! ciphers and key derivations themselves are in `page::crypt`.

/// How a file's pages are transformed on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Pages are stored as they are.
    Plain,
    /// Jet3/Jet4 RC4 encoding with the header's key (no password).
    JetEncoding,
    /// Microsoft Money, old scheme: RC4 with a key from the header.
    MsisamOld,
    /// Microsoft Money, new scheme: RC4 keyed by the password's hash.
    MsisamNew,
    /// ACCDB Agile encryption.
    OfficeAgile,
    /// ACCDB Standard encryption.
    OfficeStandard,
    /// ACCDB non-standard AES encryption (Standard without iterations).
    OfficeNonStandard,
    /// ACCDB RC4 CryptoAPI encryption.
    OfficeRc4CryptoApi,
    /// ACCDB Office binary document RC4 encryption.
    OfficeBinaryRc4,
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scheme::Plain => "no encryption",
            Scheme::JetEncoding => "Jet RC4 encoding",
            Scheme::MsisamOld => "Microsoft Money encryption (old scheme)",
            Scheme::MsisamNew => "Microsoft Money encryption (new scheme)",
            Scheme::OfficeAgile => "Office Agile encryption",
            Scheme::OfficeStandard => "Office Standard encryption",
            Scheme::OfficeNonStandard => "Office non-standard AES encryption",
            Scheme::OfficeRc4CryptoApi => "Office RC4 CryptoAPI encryption",
            Scheme::OfficeBinaryRc4 => "Office binary RC4 encryption",
        })
    }
}

/// The block or stream cipher of a scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CipherAlgorithm {
    /// RC4.
    Rc4,
    /// AES in ECB mode.
    AesEcb,
    /// AES in CBC mode.
    AesCbc,
}

impl std::fmt::Display for CipherAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CipherAlgorithm::Rc4 => "RC4",
            CipherAlgorithm::AesEcb => "AES-ECB",
            CipherAlgorithm::AesCbc => "AES-CBC",
        })
    }
}

/// What protects a database: its page scheme, the cipher's parameters,
/// whether opening it takes a password. Never holds a password or key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protection {
    /// How pages are transformed.
    pub scheme: Scheme,
    /// The cipher (`None` for plain pages).
    pub cipher: Option<CipherAlgorithm>,
    /// Key length in bits (`None` for plain pages).
    pub key_bits: Option<u32>,
    /// The hash the key derives with (`None` where no hash is involved).
    pub hash: Option<HashAlgorithm>,
    /// Hash iterations of the password key derivation (`None` where the
    /// scheme has none).
    pub spin_count: Option<u32>,
    /// Whether the file has a password (an encryption password or a Jet /
    /// Money database password).
    pub password: bool,
}

impl std::fmt::Display for Protection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.scheme)?;
        let mut parts = Vec::new();
        if let (Some(c), Some(bits)) = (self.cipher, self.key_bits) {
            parts.push(format!("{c} {bits}-bit"));
        }
        if let Some(h) = self.hash {
            parts.push(h.to_string());
        }
        if let Some(n) = self.spin_count {
            parts.push(format!("{n} iterations"));
        }
        if !parts.is_empty() {
            write!(f, " ({})", parts.join(", "))?;
        }
        match (self.password, self.scheme) {
            (true, Scheme::Plain | Scheme::JetEncoding | Scheme::MsisamOld) => {
                f.write_str(", database password")
            }
            (true, _) => f.write_str(", password"),
            (false, _) => Ok(()),
        }
    }
}

/// A hash algorithm a file's encryption header can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashAlgorithm {
    /// MD5 (Office binary RC4, MSISAM).
    Md5,
    /// SHA-1 (Standard, RC4 CryptoAPI, Agile, MSISAM).
    Sha1,
    /// SHA-256 (Agile).
    Sha256,
    /// SHA-384 (Agile).
    Sha384,
    /// SHA-512 (Agile, what Office 2013 and later write).
    Sha512,
}

impl std::fmt::Display for HashAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HashAlgorithm::Md5 => "MD5",
            HashAlgorithm::Sha1 => "SHA-1",
            HashAlgorithm::Sha256 => "SHA-256",
            HashAlgorithm::Sha384 => "SHA-384",
            HashAlgorithm::Sha512 => "SHA-512",
        })
    }
}
