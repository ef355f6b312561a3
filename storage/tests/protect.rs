//! Giving a database a password and removing it
//! (`jet_storage::write::{encrypt_file, decrypt_file}`): whole-file
//! rewrites that either happen completely or not at all.
//!
//! - A generated ACCDB encrypted in place opens only with its password,
//!   reports Agile AES-256 / SHA-512, reads the same rows and passes the
//!   index/scan consistency check; decrypting it again gives back the
//!   original bytes exactly (the conversion touches nothing but the pages'
//!   cipher, the database key and the encryption header).
//! - A Jet4 database password (`ucanaccess/password.mdb`, password
//!   `ucanaccess` per the corpus README) is removed only when given; the
//!   file then opens with no password and reads the same rows.
//! - Every refusal (no password, a wrong one, an empty one, a file already
//!   encrypted, an MDB asked for Agile encryption) is typed and leaves the
//!   file byte-identical.

use crate::support::check;
use crate::support::oracle;

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::write::{
    ColumnSpec, Destination, IndexSpec, TableSpec, decrypt_file, encrypt_file, new_database,
};
use jet_storage::{
    CryptError, Database, Error, JetType, JetVersion, MemImage, OpenOptions, Password,
    ProtectionScheme, Writer,
};
use std::sync::Arc;

fn opts(password: Option<&str>) -> OpenOptions {
    OpenOptions {
        password: password.map(Password::from),
        ..Default::default()
    }
}

/// An ACE 12 database with 600 people (ID primary key, Name indexed).
fn people() -> Vec<u8> {
    let mut w = Writer::new(MemImage {
        bytes: new_database(JetVersion::Ace12, 0).unwrap(),
    })
    .unwrap();
    let spec = TableSpec::new(
        "People",
        vec![
            ColumnSpec::new("ID", JetType::Long),
            ColumnSpec::text("Name", 60),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["ID"]))
    .index(IndexSpec::new("Name", &["Name"]));
    let ids: Vec<i32> = (1..=600).collect();
    let names: Vec<String> = ids.iter().map(|i| format!("person {i:04} ü")).collect();
    let batch = RecordBatch::try_from_iter([
        ("ID", Arc::new(Int32Array::from(ids)) as ArrayRef),
        ("Name", Arc::new(StringArray::from(names)) as ArrayRef),
    ])
    .unwrap();
    w.transaction(|tx| {
        tx.create_table(&spec)?;
        tx.insert("People", &batch)?;
        Ok(())
    })
    .unwrap();
    w.into_target().bytes
}

fn is_crypt(e: &Error, want: fn(&CryptError) -> bool) -> bool {
    matches!(e, Error::Crypt(c) if want(c))
}

#[test]
fn an_encrypted_copy_needs_its_password_and_decrypts_to_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("people.accdb");
    let plain = people();
    std::fs::write(&path, &plain).unwrap();
    let want = oracle::rows(&Database::open(&path, opts(None)).unwrap(), "People");
    assert_eq!(want.len(), 600);

    // an empty password protects nothing: refused, file unchanged
    let e = encrypt_file(&path, &Password::from(""), Destination::InPlace).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::NotConvertible { .. })),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), plain);

    let pw = Password::from("Tr0ub4dor&3");
    encrypt_file(&path, &pw, Destination::InPlace).unwrap();
    let encrypted = std::fs::read(&path).unwrap();
    assert_eq!(encrypted.len(), plain.len());
    assert!(
        !encrypted
            .windows(b"person 0001".len())
            .any(|w| w == b"person 0001")
            && !encrypted.windows(4).any(|w| w == b"p\0e\0"),
        "row text in the clear"
    );
    let e = Database::open(&path, opts(None)).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::PasswordRequired { .. })),
        "{e}"
    );
    let e = Database::open(&path, opts(Some("tr0ub4dor&3"))).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::WrongPassword { .. })),
        "{e}"
    );
    let db = Database::open(&path, opts(Some("Tr0ub4dor&3"))).unwrap();
    let p = db.protection();
    assert_eq!(p.scheme, ProtectionScheme::OfficeAgile);
    assert_eq!(p.key_bits, Some(256));
    assert!(format!("{p}").contains("SHA-512"), "{p}");
    assert_eq!(oracle::rows(&db, "People"), want);
    assert!(check::consistency(&db, "encrypted") > 0);
    drop(db);

    // encrypting twice is refused, the file unchanged
    let e = encrypt_file(&path, &pw, Destination::InPlace).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::NotConvertible { .. })),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), encrypted);

    // a wrong password decrypts nothing
    let e = decrypt_file(&path, Some(&Password::from("nope")), Destination::InPlace).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::WrongPassword { .. })),
        "{e}"
    );
    let e = decrypt_file(&path, None, Destination::InPlace).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::PasswordRequired { .. })),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), encrypted);

    // to a new file: the original stays encrypted
    let out = dir.path().join("plain-again.accdb");
    decrypt_file(&path, Some(&pw), Destination::NewFile(&out)).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), encrypted);
    assert_eq!(std::fs::read(&out).unwrap(), plain);
    // in place
    decrypt_file(&path, Some(&pw), Destination::InPlace).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), plain);
}

#[test]
fn a_jet4_database_password_is_removed_only_when_given() {
    let Some(root) = check::corpus_root() else {
        return;
    };
    let scratch = check::Scratch::new("protect-jet4");
    let path = scratch.copy(&root.join("ucanaccess/password.mdb"));
    let original = std::fs::read(&path).unwrap();
    let before = Database::open(&path, opts(Some("ucanaccess"))).unwrap();
    assert!(before.protection().password);
    // it holds no user table: compare the system tables
    let mut names = before.table_names();
    names.extend(before.system_table_names());
    assert!(!names.is_empty());
    let want: Vec<_> = names.iter().map(|n| oracle::rows(&before, n)).collect();
    drop(before);

    let e = decrypt_file(&path, None, Destination::InPlace).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::PasswordRequired { .. })),
        "{e}"
    );
    let e = decrypt_file(&path, Some(&Password::from("wrong")), Destination::InPlace).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::WrongPassword { .. })),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), original);
    // Agile encryption is for ACCDB files
    let e = encrypt_file(&path, &Password::from("x"), Destination::InPlace).unwrap_err();
    assert!(
        is_crypt(&e, |c| matches!(c, CryptError::NotConvertible { .. })),
        "{e}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), original);

    decrypt_file(
        &path,
        Some(&Password::from("ucanaccess")),
        Destination::InPlace,
    )
    .unwrap();
    let after = Database::open(&path, opts(None)).unwrap();
    assert!(!after.protection().password);
    let got: Vec<_> = names.iter().map(|n| oracle::rows(&after, n)).collect();
    assert_eq!(got, want);
    // only the password field changed, all on page 0
    let now = std::fs::read(&path).unwrap();
    assert_eq!(now.len(), original.len());
    let differ: Vec<usize> = (0..now.len()).filter(|&i| now[i] != original[i]).collect();
    assert!(!differ.is_empty());
    assert!(
        differ.iter().all(|&i| (0x42..0x42 + 40).contains(&i)),
        "{differ:?}"
    );
}
