//! Whole-image conversions, checked by mdb-reader 3.2.0: every encrypted
//! ACCDB of the corpus decrypted with its password is a plain file
//! mdb-reader reads, holding every value jetsql reads from the encrypted
//! file; a plain ACCDB encrypted with Agile AES-256 / SHA-512 is read by
//! mdb-reader with the password exactly as it reads the original.

use crate::support::oracle;
use crate::support::queries as support;

use jet_storage::format::{CipherAlgorithm, HashAlgorithm};
use jet_storage::write::convert::{decrypt, encrypt_agile};
use jet_storage::{CryptError, Database, Error, OpenOptions, Password, ProtectionScheme};
use oracle::{assert_matches_mdb_reader, mdb_reader, oracle_dump};
use support::corpus_file;

fn write_temp(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn decrypted_files_are_read_by_mdb_reader() {
    let Some(script) = mdb_reader() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (rel, password) in [
        ("jackcess-encrypt/db2007-enc.accdb", Some("Test123")),
        ("jackcess-encrypt/db2007-oldenc.accdb", Some("Test123")),
        ("jackcess-encrypt/db-nonstandard.accdb", Some("password")),
        ("jackcess-encrypt/db-enc.mdb", None),
        ("jackcess-encrypt/db97-enc.mdb", None),
    ] {
        let Some(path) = corpus_file(rel) else { return };
        let pw = password.map(Password::from);
        let encrypted = Database::open(
            &path,
            OpenOptions {
                password: pw.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        let plain = decrypt(&std::fs::read(&path).unwrap(), pw.as_ref()).unwrap();
        let out = write_temp(&dir, "plain", &plain);
        let reopened = Database::open(&out, OpenOptions::default()).unwrap();
        assert_eq!(
            reopened.protection().scheme,
            ProtectionScheme::Plain,
            "{rel}"
        );
        let theirs = oracle_dump(&script, &out, None);
        assert!(!theirs.is_empty(), "{rel}: mdb-reader lists no table");
        // the encrypted file as jetsql reads it, the plain one as mdb-reader does
        assert_matches_mdb_reader(&encrypted, &theirs, rel);
    }
    let Some(path) = corpus_file("jackcess-encrypt/db2007-enc.accdb") else {
        return;
    };
    let e = decrypt(
        &std::fs::read(&path).unwrap(),
        Some(&Password::from("nope")),
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::Crypt(CryptError::WrongPassword { .. })),
        "{e}"
    );
}

#[test]
fn agile_encrypted_files_are_read_by_mdb_reader() {
    let Some(script) = mdb_reader() else { return };
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "jackcess/V2010/testV2010.accdb",
        "jackcess/V2007/testV2007.accdb",
    ] {
        let Some(path) = corpus_file(rel) else { return };
        let plain = std::fs::read(&path).unwrap();
        let pw = Password::from("s3cret Ünïcode");
        let enc = encrypt_agile(&plain, &pw).unwrap();
        assert_eq!(enc.len(), plain.len());
        let out = write_temp(&dir, "enc.accdb", &enc);
        let before = oracle_dump(&script, &path, None);
        let after = oracle_dump(&script, &out, Some("s3cret Ünïcode"));
        assert!(!before.is_empty(), "{rel}");
        assert_eq!(
            after, before,
            "{rel}: mdb-reader reads the encrypted file differently"
        );
        let opts = |p: Option<&str>| OpenOptions {
            password: p.map(Password::from),
            ..Default::default()
        };
        let db = Database::open(&out, opts(Some("s3cret Ünïcode"))).unwrap();
        let p = db.protection();
        assert_eq!(
            (p.scheme, p.cipher, p.key_bits, p.hash, p.spin_count),
            (
                ProtectionScheme::OfficeAgile,
                Some(CipherAlgorithm::AesCbc),
                Some(256),
                Some(HashAlgorithm::Sha512),
                Some(100_000)
            )
        );
        assert_matches_mdb_reader(&db, &before, rel);
        assert!(matches!(
            Database::open(&out, opts(Some("s3cret unicode"))),
            Err(Error::Crypt(CryptError::WrongPassword { .. }))
        ));
        // and back: decrypting gives the original bytes
        assert_eq!(decrypt(&enc, Some(&pw)).unwrap(), plain, "{rel}");
        assert!(matches!(
            encrypt_agile(&enc, &pw),
            Err(Error::Crypt(CryptError::NotConvertible { .. }))
        ));
    }
}
