//! Encrypted and password-protected corpus files open with their password,
//! and refuse a missing or wrong password, a damaged or unknown encryption
//! header with their own typed errors.
//!
//! Scheme of each file (read from its page 0, see `storage/src/page/crypt`):
//!
//! | file | scheme |
//! | --- | --- |
//! | jackcess-encrypt/db2007-enc.accdb | Office Agile: AES-128-CBC, SHA-1, 100,000 spins |
//! | jackcess-encrypt/db2007-oldenc.accdb | Office RC4 CryptoAPI, 40-bit, SHA-1 |
//! | jackcess-encrypt/db-nonstandard.accdb | Office non-standard AES: AES-256-ECB, SHA-1, no iterations |
//! | jackcess-encrypt/money2001.mny | Money old scheme, no password |
//! | jackcess-encrypt/money2001-pwd.mny | Money old scheme, with a password |
//! | jackcess-encrypt/money2002.mny | Money new scheme (MD5), no password |
//! | ucanaccess/password.mdb | Jet4 database password (checked when given), pages plain |
//! | jackcess-encrypt/db-enc.mdb, db97-enc.mdb | Jet4 / Jet3 RC4 encoding, no password |
//!
//! Expected values come from independent readers: mdb-reader 3.2.0 (node,
//! `tests/oracle-js/dump.mjs`) where it reads the file, else the unit
//! tests of Jackcess Encrypt 4.0.3
//! (`src/test/java/com/healthmarketscience/jackcess/crypt/CryptCodecProviderTest.java`,
//! cited per test). Without the corpus, node or mdb-reader (`npm ci` in
//! `tests/oracle-js`) the tests skip, except under `CI=true`, where they fail.

use crate::support::oracle;
use crate::support::queries as support;

use jet_storage::format::{CipherAlgorithm, HashAlgorithm};
use jet_storage::{CryptError, Database, Error, OpenOptions, Password, ProtectionScheme};
use oracle::{assert_matches_mdb_reader, mdb_reader, oracle_dump, rows, stream_all};
use std::path::Path;
use support::corpus_file;

fn with_password(p: Option<&str>) -> OpenOptions {
    OpenOptions {
        password: p.map(Password::from),
        ..Default::default()
    }
}

fn open(path: &Path, password: Option<&str>) -> Database {
    Database::open(path, with_password(password))
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()))
}

// ------------------------------------------------------------------ tests

/// Files mdb-reader reads: the Jet4 database password file and the two
/// RC4-encoded files open, and every table and value equals mdb-reader's.
#[test]
fn jet_files_match_mdb_reader() {
    let Some(script) = mdb_reader() else { return };
    for (rel, password, scheme, has_password) in [
        (
            "ucanaccess/password.mdb",
            Some("ucanaccess"),
            ProtectionScheme::Plain,
            true,
        ),
        (
            "jackcess-encrypt/db-enc.mdb",
            None,
            ProtectionScheme::JetEncoding,
            false,
        ),
        (
            "jackcess-encrypt/db97-enc.mdb",
            None,
            ProtectionScheme::JetEncoding,
            false,
        ),
    ] {
        let Some(path) = corpus_file(rel) else { return };
        let db = open(&path, password);
        assert_eq!(db.protection().scheme, scheme, "{rel}");
        assert_eq!(db.protection().password, has_password, "{rel}");
        let oracle = oracle_dump(&script, &path, password);
        assert_matches_mdb_reader(&db, &oracle, rel);
        stream_all(&db);
    }
}

/// Jackcess Encrypt's `doCheckOfficeDb`: Table1 of db2007-enc.accdb and
/// db2007-oldenc.accdb (password `Test123`) holds one row, ID 1, Field1
/// "foo"; its `testReadOfficeEnc` opens MSysQueries too. mdb-reader 3.2.0
/// cannot read either file (Agile with SHA-1: "end out of range"; RC4
/// CryptoAPI: "Not implemented yet").
#[test]
fn office_files_match_jackcess_encrypt() {
    for (rel, scheme, cipher, bits, spins) in [
        (
            "jackcess-encrypt/db2007-enc.accdb",
            ProtectionScheme::OfficeAgile,
            CipherAlgorithm::AesCbc,
            128,
            Some(100_000),
        ),
        (
            "jackcess-encrypt/db2007-oldenc.accdb",
            ProtectionScheme::OfficeRc4CryptoApi,
            CipherAlgorithm::Rc4,
            40,
            None,
        ),
    ] {
        let Some(path) = corpus_file(rel) else { return };
        let db = open(&path, Some("Test123"));
        let p = db.protection();
        assert_eq!(
            (
                p.scheme,
                p.cipher,
                p.key_bits,
                p.hash,
                p.spin_count,
                p.password
            ),
            (
                scheme,
                Some(cipher),
                Some(bits),
                Some(HashAlgorithm::Sha1),
                spins,
                true
            ),
            "{rel}"
        );
        let t = db.table("Table1").unwrap();
        let names: Vec<_> = t
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        assert_eq!(names, ["ID", "Field1"], "{rel}");
        assert_eq!(
            rows(&db, "Table1"),
            [[Some("1".to_string()), Some("foo".to_string())]],
            "{rel}"
        );
        assert!(
            db.system_table_names().iter().any(|n| n == "MSysQueries"),
            "{rel}"
        );
        rows(&db, "MSysQueries");
        stream_all(&db);
    }
}

/// Jackcess Encrypt's `testNonStandardProvider`: db-nonstandard.accdb opens
/// with `password`, has MSysQueries and a table Table_One with a column ID.
#[test]
fn nonstandard_file_matches_jackcess_encrypt() {
    let Some(path) = corpus_file("jackcess-encrypt/db-nonstandard.accdb") else {
        return;
    };
    let db = open(&path, Some("password"));
    let p = db.protection();
    assert_eq!(
        (p.scheme, p.cipher, p.key_bits, p.hash, p.spin_count),
        (
            ProtectionScheme::OfficeNonStandard,
            Some(CipherAlgorithm::AesEcb),
            Some(256),
            Some(HashAlgorithm::Sha1),
            None
        )
    );
    let t = db.table("Table_One").unwrap();
    assert!(t.schema().fields().iter().any(|f| f.name() == "ID"));
    rows(&db, "MSysQueries");
    stream_all(&db);
}

/// Table names of Jackcess Encrypt's `doCheckMSISAM2001Db`.
const MONEY_2001_TABLES: &[&str] = &[
    "ACCT",
    "ADDR",
    "ADV",
    "ADV_SUM",
    "Advisor Important Dates Custom Pool",
    "Asset Allocation Custom Pool",
    "AUTO",
    "AWD",
    "BGT",
    "BGT_BKT",
    "BGT_ITM",
    "CAT",
    "CESRC",
    "CLI",
    "CLI_DAT",
    "CNTRY",
    "CRIT",
    "CRNC",
    "CRNC_EXCHG",
    "CT",
    "DHD",
    "FI",
    "Goal Custom Pool",
    "Inventory Custom Pool",
    "ITM",
    "IVTY",
    "LOT",
    "LSTEP",
    "MAIL",
    "MCSRC",
    "PAY",
    "PGM",
    "PMT",
    "PORT_REC",
    "Portfolio View Custom Pool",
    "POS_STMT",
    "PRODUCT",
    "PROJ",
    "PROV_FI",
    "PROV_FI_PAY",
    "Report Custom Pool",
    "SAV_GOAL",
    "SEC",
    "SEC_SPLIT",
    "SIC",
    "SOQ",
    "SP",
    "STMT",
    "SVC",
    "Tax Rate Custom Pool",
    "TAXLINE",
    "TMI",
    "TRIP",
    "TRN",
    "TRN_INV",
    "TRN_INVOICE",
    "TRN_OL",
    "TRN_SPLIT",
    "TRN_XFER",
    "TXSRC",
    "VIEW",
    "Worksheet Custom Pool",
    "XACCT",
    "XMAPACCT",
    "XMAPSAT",
    "XPAY",
];

/// Table names of Jackcess Encrypt's `doCheckMSISAM2002Db`.
const MONEY_2002_TABLES: &[&str] = &[
    "ACCT",
    "ADDR",
    "ADV",
    "ADV_SUM",
    "Advisor Important Dates Custom Pool",
    "Asset Allocation Custom Pool",
    "AUTO",
    "AWD",
    "BGT",
    "BGT_BKT",
    "BGT_ITM",
    "BILL",
    "BILL_FLD",
    "CAT",
    "CESRC",
    "CLI",
    "CLI_DAT",
    "CNTRY",
    "CRIT",
    "CRNC",
    "CRNC_EXCHG",
    "CT",
    "DHD",
    "FI",
    "Goal Custom Pool",
    "Inventory Custom Pool",
    "ITM",
    "IVTY",
    "LOT",
    "LSTEP",
    "MAIL",
    "MCSRC",
    "PAY",
    "PGM",
    "PMT",
    "PORT_REC",
    "Portfolio View Custom Pool",
    "POS_STMT",
    "PRODUCT",
    "PROJ",
    "PROV_FI",
    "PROV_FI_PAY",
    "Report Custom Pool",
    "SAV_GOAL",
    "SEC",
    "SEC_SPLIT",
    "SIC",
    "SOQ",
    "SP",
    "STMT",
    "SVC",
    "Tax Rate Custom Pool",
    "TAXLINE",
    "TMI",
    "TRIP",
    "TRN",
    "TRN_INV",
    "TRN_INVOICE",
    "TRN_OL",
    "TRN_SPLIT",
    "TRN_XFER",
    "TXSRC",
    "UIE",
    "UKSavings",
    "UKWiz",
    "UKWizAddress",
    "UKWizCompanyCar",
    "UKWizLoan",
    "UKWizMortgage",
    "UKWizPenScheme",
    "UKWizPension",
    "UKWizWillExecutor",
    "UKWizWillGift",
    "UKWizWillGuardian",
    "UKWizWillLovedOne",
    "UKWizWillMaker",
    "UKWizWillPerson",
    "UKWizWillResidue",
    "UNOTE",
    "VIEW",
    "Worksheet Custom Pool",
    "XACCT",
    "XBAG",
    "XMAPACCT",
    "XMAPSAT",
    "XPAY",
];

/// Money files (no password): Jackcess Encrypt's `doCheckMSISAM2001Db` /
/// `doCheckMSISAM2002Db` table lists (case-insensitive order, as Jackcess
/// lists them) and the first four CRNC rows (hcrnc, szName, lcid,
/// szIsoCode, szSymbol). mdb-reader 3.2.0 does not read MSISAM files.
#[test]
fn money_files_match_jackcess_encrypt() {
    let row = |h: &str, name: &str, lcid: &str, iso: &str, sym: &str| {
        [h, name, lcid, iso, sym]
            .map(|s| Some(s.to_string()))
            .to_vec()
    };
    for (rel, scheme, tables, argentina, belgium) in [
        (
            "jackcess-encrypt/money2001.mny",
            ProtectionScheme::MsisamOld,
            MONEY_2001_TABLES,
            "Argentinean peso",
            "/BECUS",
        ),
        (
            "jackcess-encrypt/money2002.mny",
            ProtectionScheme::MsisamNew,
            MONEY_2002_TABLES,
            "Argentinian peso",
            "/BECUS",
        ),
    ] {
        let Some(path) = corpus_file(rel) else { return };
        let db = open(&path, None);
        assert_eq!(db.protection().scheme, scheme, "{rel}");
        assert!(!db.protection().password, "{rel}");
        let mut names = db.table_names();
        names.sort_by_key(|n| n.to_lowercase());
        assert_eq!(names, tables, "{rel}");
        let t = db.table("CRNC").unwrap();
        let cols: Vec<String> = t
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        let pick = ["hcrnc", "szName", "lcid", "szIsoCode", "szSymbol"].map(|c| {
            cols.iter()
                .position(|n| n == c)
                .unwrap_or_else(|| panic!("{rel}: {c}"))
        });
        let first: Vec<Vec<Option<String>>> = rows(&db, "CRNC")
            .into_iter()
            .take(4)
            .map(|r| pick.iter().map(|&i| r[i].clone()).collect())
            .collect();
        assert_eq!(
            first,
            [
                row("1", argentina, "11274", "ARS", "/ARSUS"),
                row("2", "Australian dollar", "3081", "AUD", "/AUDUS"),
                row("3", "Austrian schilling", "3079", "ATS", "/ATSUS"),
                row("4", "Belgian franc", "2060", "BEF", belgium),
            ],
            "{rel}"
        );
        stream_all(&db);
        // a password given to a file without one is not needed, and ignored
        open(&path, Some("anything"));
    }
}

fn open_err(path: &Path, password: Option<&str>) -> Error {
    match Database::open(path, with_password(password)) {
        Ok(_) => panic!("{} opened with {password:?}", path.display()),
        Err(e) => e,
    }
}

/// A missing and a wrong password each have their own error, for every
/// scheme with a password; the messages never contain the password.
#[test]
fn missing_and_wrong_passwords_are_refused() {
    for rel in [
        "jackcess-encrypt/db2007-enc.accdb",
        "jackcess-encrypt/db2007-oldenc.accdb",
        "jackcess-encrypt/db-nonstandard.accdb",
        "jackcess-encrypt/money2001-pwd.mny",
    ] {
        let Some(path) = corpus_file(rel) else { return };
        let e = open_err(&path, None);
        assert!(
            matches!(e, Error::Crypt(CryptError::PasswordRequired { .. })),
            "{rel}: {e}"
        );
        let wrong = "WrongPassword-7f3a";
        let e = open_err(&path, Some(wrong));
        assert!(
            matches!(e, Error::Crypt(CryptError::WrongPassword { .. })),
            "{rel}: {e}"
        );
        let msg = e.to_string();
        assert!(!msg.contains(wrong), "{rel}: {msg}");
        assert_eq!(msg.lines().count(), 1, "{rel}: {msg}");
    }
}

/// A Jet database password protects no page: the file opens without it,
/// reporting that it has one; a password given is checked.
#[test]
fn jet_database_password_is_checked_when_given() {
    let Some(path) = corpus_file("ucanaccess/password.mdb") else {
        return;
    };
    let db = open(&path, None);
    assert_eq!(db.protection().scheme, ProtectionScheme::Plain);
    assert!(db.protection().password);
    assert_eq!(
        db.protection().to_string(),
        "no encryption, database password"
    );
    let e = open_err(&path, Some("not-ucanaccess"));
    assert!(
        matches!(e, Error::Crypt(CryptError::WrongPassword { .. })),
        "{e}"
    );
    assert!(!e.to_string().contains("not-ucanaccess"), "{e}");
    // files without a database password report none
    let Some(plain) = corpus_file("jackcess-encrypt/db-enc.mdb") else {
        return;
    };
    assert!(!open(&plain, None).protection().password);
}

/// Office passwords and Jet database passwords are case-sensitive.
#[test]
fn passwords_are_case_sensitive_where_access_says_so() {
    for (rel, wrong_case) in [
        ("jackcess-encrypt/db2007-oldenc.accdb", "test123"),
        ("ucanaccess/password.mdb", "UCANACCESS"),
    ] {
        let Some(path) = corpus_file(rel) else { return };
        let e = open_err(&path, Some(wrong_case));
        assert!(
            matches!(e, Error::Crypt(CryptError::WrongPassword { .. })),
            "{rel}: {e}"
        );
    }
}

fn corpus_bytes(rel: &str) -> Option<Vec<u8>> {
    corpus_file(rel).map(|p| std::fs::read(p).unwrap())
}

/// Damaged EncryptionInfo (bytes changed in a copy in memory) is refused
/// as damaged, naming where; never a panic.
#[test]
fn damaged_encryption_headers_are_refused() {
    let pw = Password::from("Test123");
    let Some(agile) = corpus_bytes("jackcess-encrypt/db2007-enc.accdb") else {
        return;
    };
    // the Agile reserved field (0x29B + 4)
    let mut b = agile.clone();
    b[0x29f] ^= 0xff;
    assert!(matches!(
        Database::from_bytes_with_password(b, Some(&pw)),
        Err(Error::Crypt(CryptError::DamagedHeader {
            offset: 0x29f,
            ..
        }))
    ));
    // a length running past page 0
    let mut b = agile.clone();
    b[0x29a] = 0x7f;
    assert!(matches!(
        Database::from_bytes_with_password(b, Some(&pw)),
        Err(Error::Crypt(CryptError::DamagedHeader {
            offset: 0x299,
            ..
        }))
    ));
    // the spin count raised far above the limit
    let mut b = agile.clone();
    edit_agile_xml(&mut b, "spinCount=\"100000\"", "spinCount=\"4000000000\"");
    let e = Database::from_bytes_with_password(b, Some(&pw)).unwrap_err();
    assert!(
        matches!(&e, Error::Crypt(CryptError::DamagedHeader { what, .. }) if what.contains("spin count")),
        "{e}"
    );
    // a hash size that does not match the hash
    let mut b = agile.clone();
    edit_agile_xml(&mut b, "hashSize=\"20\"", "hashSize=\"64\"");
    assert!(matches!(
        Database::from_bytes_with_password(b, Some(&pw)),
        Err(Error::Crypt(CryptError::DamagedHeader { .. }))
    ));
    // bytes of the XML changed one at a time: whatever the result (a typed
    // error, or for bytes that do not matter an open), never a panic
    let start = 0x29b + 8;
    for at in (start..start + 900).step_by(13) {
        let mut b = agile.clone();
        b[at] ^= 0x55;
        let _ = Database::from_bytes_with_password(b, Some(&pw)).map(|db| stream_all(&db));
    }
    let Some(rc4) = corpus_bytes("jackcess-encrypt/db2007-oldenc.accdb") else {
        return;
    };
    // the salt size of the EncryptionVerifier
    let mut b = rc4.clone();
    let salt_size = 0x29b + 12 + 118;
    b[salt_size] = 17;
    assert!(matches!(
        Database::from_bytes_with_password(b, Some(&pw)),
        Err(Error::Crypt(CryptError::DamagedHeader { .. }))
    ));
}

/// Replaces `from` by `to` in the Agile XML of `page0`, keeping its length:
/// the XML declaration's `standalone` attribute makes room, spaces pad.
fn edit_agile_xml(file: &mut [u8], from: &str, to: &str) {
    let len = u16::from_le_bytes([file[0x299], file[0x29a]]) as usize;
    let region = 0x29b + 8..0x29b + len;
    let old = String::from_utf8(file[region.clone()].to_vec()).unwrap();
    assert!(old.contains(from), "{from}");
    let mut new = old.replace(" standalone=\"yes\"", "").replacen(from, to, 1);
    assert!(new.len() <= old.len());
    while new.len() < old.len() {
        new.push(' ');
    }
    file[region].copy_from_slice(new.as_bytes());
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// An EncryptionInfo version this reader does not know, and Office's
/// extensible encryption, are refused as unsupported, naming the scheme.
#[test]
fn unknown_schemes_are_refused() {
    let Some(agile) = corpus_bytes("jackcess-encrypt/db2007-enc.accdb") else {
        return;
    };
    for (major, minor, says) in [(9u8, 9u8, "9.9"), (4, 3, "extensible")] {
        let mut b = agile.clone();
        b[0x29b] = major;
        b[0x29d] = minor;
        match Database::from_bytes_with_password(b, Some(&Password::from("Test123"))) {
            Err(Error::Crypt(e @ CryptError::Unsupported { .. })) => {
                assert!(e.to_string().contains(says), "{e}");
            }
            other => panic!("{major}.{minor}: {other:?}"),
        }
    }
    let mut b = agile.clone();
    let at = find(&b[..4096], b"ChainingModeCBC").unwrap();
    b[at + 12..at + 15].copy_from_slice(b"CFB");
    assert!(matches!(
        Database::from_bytes_with_password(b, Some(&Password::from("Test123"))),
        Err(Error::Crypt(CryptError::Unsupported { .. }))
    ));
}

/// The protection reads as one line without secrets.
#[test]
fn protection_is_shown_without_secrets() {
    let Some(path) = corpus_file("jackcess-encrypt/db2007-enc.accdb") else {
        return;
    };
    let db = open(&path, Some("Test123"));
    let shown = db.protection().to_string();
    assert_eq!(
        shown,
        "Office Agile encryption (AES-CBC 128-bit, SHA-1, 100000 iterations), password"
    );
    let debug = format!(
        "{:?} {:?}",
        with_password(Some("Test123")),
        db.page_cipher()
    );
    assert!(!debug.contains("Test123"), "{debug}");
}
