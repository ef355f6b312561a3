//! Writing encrypted files: a copy of an encrypted corpus file is opened
//! writable with its password; rows are inserted, updated and deleted; the
//! file reopened with the password reads them back, still needs its
//! password, and holds none of the new text in the clear. mdb-reader 3.2.0
//! reads the written files: the RC4-encoded Jet4 one and an Agile AES-256 /
//! SHA-512 one directly, the Agile SHA-1 and RC4 CryptoAPI ones (which it
//! cannot decrypt, see `encrypted.rs`) after `convert::decrypt`. A crash
//! at any step of a commit recovers the exact old or new encrypted image.
//!
//! The original rows are Jackcess Encrypt's expectations
//! (`CryptCodecProviderTest.doCheckOfficeDb`: Table1 holds ID 1, Field1
//! "foo"; `doCheckJetDb`: Table1 holds (1, "hello", 0) and (2, "world", 42)).

use crate::support::check;
use crate::support::oracle;
use crate::support::queries as support;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use jet_storage::write::row::Cell;
use jet_storage::{CryptError, Database, Error, OpenOptions, Password, ScanOptions};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use support::corpus_file;

/// `(ID, text column)` of every row of Table1.
fn table1(db: &Database, text_col: &str) -> Vec<(i32, Option<String>)> {
    let t = db.table("Table1").unwrap();
    let mut out = Vec::new();
    for b in t.scan(ScanOptions::default()).unwrap() {
        let b = b.unwrap();
        let ids = b
            .column_by_name("ID")
            .unwrap()
            .as_primitive::<Int32Type>()
            .clone();
        let text = b
            .column_by_name(text_col)
            .unwrap()
            .as_string::<i32>()
            .clone();
        for r in 0..b.num_rows() {
            let v = (!text.is_null(r)).then(|| text.value(r).to_string());
            out.push((ids.value(r), v));
        }
    }
    out
}

fn opts(password: Option<&str>) -> OpenOptions {
    OpenOptions {
        password: password.map(Password::from),
        ..Default::default()
    }
}

/// Copies `rel` into a fresh directory.
fn copy_of(rel: &str) -> Option<(tempfile::TempDir, std::path::PathBuf)> {
    let src = corpus_file(rel)?;
    let dir = tempfile::tempdir().unwrap();
    let dst = dir.path().join(src.file_name().unwrap());
    std::fs::copy(&src, &dst).unwrap();
    // corpus files are read-only; the copy must be writable
    let mut perm = std::fs::metadata(&dst).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perm.set_readonly(false);
    std::fs::set_permissions(&dst, perm).unwrap();
    Some((dir, dst))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// Inserts three rows, updates the first original row and deletes the
/// second inserted one, in one transaction; returns the texts written.
fn edit(path: &Path, password: Option<&str>, text_col: &str) {
    let pw = password.map(Password::from);
    let mut w = Database::open_writable_with_password(path, pw.as_ref()).unwrap();
    w.transaction(|tx| {
        let first = tx.bookmarks("Table1")?[0];
        let mut added = Vec::new();
        for i in 0..3 {
            added.push(tx.insert_named(
                "Table1",
                vec![(text_col, Cell::Text(format!("secret row {i} zqxj")))],
            )?);
        }
        let change = RecordBatch::try_from_iter([(
            text_col,
            Arc::new(StringArray::from(vec!["updated zqxj"])) as ArrayRef,
        )])
        .unwrap();
        tx.update("Table1", &[first], &change)?;
        tx.delete("Table1", &[added[1]])?;
        Ok(())
    })
    .unwrap();
}

fn expected_after_edit(original: &[(i32, &str)]) -> Vec<(i32, Option<String>)> {
    let mut rows: Vec<(i32, Option<String>)> = original
        .iter()
        .map(|&(id, t)| (id, Some(t.to_string())))
        .collect();
    rows[0].1 = Some("updated zqxj".into());
    let next = original.len() as i32 + 1;
    rows.push((next, Some("secret row 0 zqxj".into())));
    rows.push((next + 2, Some("secret row 2 zqxj".into())));
    rows
}

/// Agile and RC4 CryptoAPI files: written with the
/// password, reread with it; refused without it; no new text in the clear.
#[test]
fn encrypted_accdb_files_take_writes() {
    for (rel, password) in [
        ("jackcess-encrypt/db2007-enc.accdb", "Test123"),
        ("jackcess-encrypt/db2007-oldenc.accdb", "Test123"),
    ] {
        let Some((_dir, path)) = copy_of(rel) else {
            return;
        };
        let before = Database::open(&path, opts(Some(password))).unwrap();
        assert_eq!(
            table1(&before, "Field1"),
            [(1, Some("foo".to_string()))],
            "{rel}"
        );
        drop(before);
        edit(&path, Some(password), "Field1");
        let db = Database::open(&path, opts(Some(password))).unwrap();
        assert_eq!(
            table1(&db, "Field1"),
            expected_after_edit(&[(1, "foo")]),
            "{rel}"
        );
        drop(db);
        assert!(matches!(
            Database::open(&path, opts(None)),
            Err(Error::Crypt(CryptError::PasswordRequired { .. }))
        ));
        let raw = std::fs::read(&path).unwrap();
        let utf16: Vec<u8> = "zqxj".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(
            !contains(&raw, b"zqxj") && !contains(&raw, &utf16),
            "{rel}: plaintext on disk"
        );
        assert!(!path.with_extension("jetjournal").exists());
    }
}

/// A wrong password does not open a file for writing, and leaves it as it
/// was.
#[test]
fn wrong_password_does_not_open_for_writing() {
    let Some((_dir, path)) = copy_of("jackcess-encrypt/db2007-enc.accdb") else {
        return;
    };
    let before = std::fs::read(&path).unwrap();
    for pw in [None, Some("nope")] {
        let p = pw.map(Password::from);
        match Database::open_writable_with_password(&path, p.as_ref()) {
            Err(Error::Crypt(
                CryptError::PasswordRequired { .. } | CryptError::WrongPassword { .. },
            )) => {}
            Err(e) => panic!("{pw:?}: {e}"),
            Ok(_) => panic!("{pw:?}: opened for writing"),
        }
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// The RC4-encoded Jet4 file takes writes (no password) and mdb-reader
/// reads the result: the same rows as jetsql.
#[test]
fn encoded_jet4_file_takes_writes_and_mdb_reader_reads_them() {
    let Some((_dir, path)) = copy_of("jackcess-encrypt/db-enc.mdb") else {
        return;
    };
    edit(&path, None, "col1");
    let db = Database::open(&path, opts(None)).unwrap();
    let ours = table1(&db, "col1");
    assert_eq!(ours, expected_after_edit(&[(1, "hello"), (2, "world")]));
    let raw = std::fs::read(&path).unwrap();
    let utf16: Vec<u8> = "zqxj".encode_utf16().flat_map(u16::to_le_bytes).collect();
    assert!(
        !contains(&raw, b"zqxj") && !contains(&raw, &utf16),
        "plaintext on disk"
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/oracle-js");
    let ready = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        && dir.join("node_modules/mdb-reader/package.json").is_file();
    if !ready {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!(
                "node or mdb-reader is missing under CI (npm ci in {})",
                dir.display()
            );
        }
        eprintln!("skipping the mdb-reader check: node or mdb-reader not found");
        return;
    }
    let out = Command::new("node")
        .env("TZ", "UTC")
        .arg(dir.join("dump.mjs"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    // dump.mjs prints each row as {"row":[ID, col1, col2]} of JSON strings
    let theirs: Vec<(i32, Option<String>)> = text
        .lines()
        .filter_map(|l| {
            l.strip_prefix("{\"row\":[\"")?
                .strip_suffix("]}")
                .map(str::to_string)
        })
        .map(|l| {
            let (id, rest) = l.split_once("\",").unwrap();
            let text = rest
                .strip_prefix('"')
                .and_then(|r| r.split_once('"'))
                .map(|(t, _)| t.to_string());
            (id.parse().unwrap(), text)
        })
        .collect();
    assert_eq!(theirs, ours);
}

/// A transaction on an encrypted file crashed before each I/O step of its
/// commit in turn (simulated disk, random persistence of unsynced writes)
/// recovers to exactly the old or the new encrypted image, byte for byte;
/// the new image opens with the password and holds the change.
#[test]
fn crashed_transactions_on_encrypted_files_recover_to_old_or_new() {
    use jet_storage::journal::JournaledFile;
    use jet_storage::journal::sim::SimStorage;
    let Some(src) = corpus_file("jackcess-encrypt/db2007-enc.accdb") else {
        return;
    };
    let old = std::fs::read(src).unwrap();
    let pw = Password::from("Test123");
    let run = |crash_at: Option<u64>| {
        let mut s = SimStorage::new("enc.accdb", old.clone());
        s.crash_after(crash_at);
        let f = JournaledFile::with_storage(s).unwrap();
        let mut w = jet_storage::Writer::with_password(f, Some(&pw)).unwrap();
        w.set_now(Some(981_173_106_000_000));
        let result = w.transaction(|tx| {
            tx.insert_named("Table1", vec![("Field1", Cell::Text("crash zqxj".into()))])?;
            Ok(())
        });
        (result.is_ok(), w.into_target())
    };
    let (ok, done) = run(None);
    assert!(ok);
    let steps = done.storage().steps();
    let new = done.storage().live_disk().db;
    assert_ne!(new, old);
    let db = Database::from_bytes_with_password(new.clone(), Some(&pw)).unwrap();
    assert_eq!(
        table1(&db, "Field1"),
        [(1, Some("foo".into())), (2, Some("crash zqxj".into()))]
    );
    check::crash_every_step(run, steps, &old, &new, 21, "db2007-enc.accdb");
}

/// mdb-reader reads written encrypted files: an Agile AES-256 / SHA-512
/// copy (the Office 2013 scheme mdb-reader decrypts) read directly with its
/// password, and the Agile SHA-1 and RC4 CryptoAPI copies (which it cannot
/// decrypt) read after `convert::decrypt`; each holds the rows written.
#[test]
fn written_encrypted_files_are_read_by_mdb_reader() {
    use jet_storage::write::convert::{decrypt, encrypt_agile};
    let Some(script) = oracle::mdb_reader() else {
        return;
    };
    let as_strings = |rows: Vec<(i32, Option<String>)>| -> Vec<Vec<Option<String>>> {
        rows.into_iter()
            .map(|(id, t)| vec![Some(id.to_string()), t])
            .collect()
    };
    let want = as_strings(expected_after_edit(&[(1, "foo")]));
    let table1_of = |dump: Vec<oracle::OracleTable>| {
        dump.into_iter()
            .find(|t| t.name == "Table1")
            .expect("mdb-reader lists Table1")
            .rows
    };
    let pw = Password::from("Test123");
    for rel in [
        "jackcess-encrypt/db2007-enc.accdb",
        "jackcess-encrypt/db2007-oldenc.accdb",
    ] {
        let Some((dir, path)) = copy_of(rel) else {
            return;
        };
        edit(&path, Some("Test123"), "Field1");
        let plain = decrypt(&std::fs::read(&path).unwrap(), Some(&pw)).unwrap();
        let plain_path = dir.path().join("plain.accdb");
        std::fs::write(&plain_path, plain).unwrap();
        assert_eq!(
            table1_of(oracle::oracle_dump(&script, &plain_path, None)),
            want,
            "{rel}"
        );
    }
    let Some((dir, path)) = copy_of("jackcess-encrypt/db2007-enc.accdb") else {
        return;
    };
    let plain = decrypt(&std::fs::read(&path).unwrap(), Some(&pw)).unwrap();
    let sha512 = dir.path().join("sha512.accdb");
    std::fs::write(&sha512, encrypt_agile(&plain, &pw).unwrap()).unwrap();
    edit(&sha512, Some("Test123"), "Field1");
    assert_eq!(
        table1_of(oracle::oracle_dump(&script, &sha512, Some("Test123"))),
        want
    );
}
