//! Compaction ([`jet_storage::write::compact_image`] / `compact_file`):
//! the compacted database reads identically — every table (user and
//! system) scans to the same rows, every real index walks the same keys in
//! the same order, the index/scan consistency check passes — and is no
//! larger than the original. Checked over generated databases with
//! deleted rows, overflowed rows, chained long values, dropped tables and
//! indexes, and over every Jet4/ACE file of the corpus (refusals must be
//! typed and named); `mdb-export` reads the same rows from a compacted
//! corpus file as from the original.

use crate::support::check as support;

use arrow_array::{ArrayRef, BinaryArray, Int32Array, RecordBatch, StringArray};
use jet_storage::error::WriteError;
use jet_storage::write::{
    ColumnSpec, IndexSpec, TableSpec, compact_file, compact_image, new_database,
};
use jet_storage::{Database, Error, JetType, JetVersion, MemImage, ScanOptions, Writer};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use support::*;

/// Every table's rows (system tables included), as one batch per table.
fn scans(db: &Database) -> Vec<(String, RecordBatch)> {
    let mut names = db.table_names();
    names.extend(db.system_table_names());
    names.sort();
    names
        .into_iter()
        .map(|n| {
            let t = db.table(&n).unwrap();
            let batches: Vec<RecordBatch> = t
                .scan(ScanOptions::default())
                .unwrap()
                .map(|b| b.unwrap())
                .collect();
            let b = arrow_select::concat::concat_batches(&t.schema(), &batches).unwrap();
            (n, b)
        })
        .collect()
}

/// Every real index's keys, walked forward, per table.
fn index_keys(db: &Database) -> Vec<(String, usize, Vec<Vec<u8>>)> {
    let mut names = db.table_names();
    names.extend(db.system_table_names());
    names.sort();
    let mut out = Vec::new();
    for n in names {
        let count = db.table(&n).unwrap().def().real_indexes.len();
        for i in 0..count {
            out.push((
                n.clone(),
                i,
                walk(db, &n, i).into_iter().map(|e| e.0).collect(),
            ));
        }
    }
    out
}

/// Compacts `bytes` and checks the result reads identically; returns the
/// new image.
fn compact_and_check(bytes: &[u8], ctx: &str) -> Vec<u8> {
    let (out, report) = compact_image(bytes).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    let before = Database::from_bytes(bytes.to_vec()).unwrap();
    let after = Database::from_bytes(out.clone()).unwrap();
    assert_eq!(report.bytes_before as usize, bytes.len());
    assert_eq!(report.bytes_after as usize, out.len());
    assert!(
        out.len() <= bytes.len(),
        "{ctx}: {} > {}",
        out.len(),
        bytes.len()
    );
    assert_eq!(before.table_names(), after.table_names(), "{ctx}");
    assert_eq!(
        before.system_table_names(),
        after.system_table_names(),
        "{ctx}"
    );
    assert_eq!(before.catalog(), after.catalog(), "{ctx}: catalog");
    let (a, b) = (scans(&before), scans(&after));
    for ((na, ba), (nb, bb)) in a.iter().zip(&b) {
        assert_eq!(na, nb);
        assert!(ba == bb, "{ctx}: table {na} reads differently");
    }
    assert!(
        index_keys(&before) == index_keys(&after),
        "{ctx}: index keys differ"
    );
    for n in before.table_names() {
        let (x, y) = (before.table(&n).unwrap(), after.table(&n).unwrap());
        assert_eq!(x.def().indexes, y.def().indexes, "{ctx}: {n}");
        assert_eq!(x.def().columns, y.def().columns, "{ctx}: {n}");
    }
    out
}

fn writer(v: JetVersion) -> Writer<MemImage> {
    let bytes = new_database(v, jet_storage::write::txn::DEFAULT_CLOCK).unwrap();
    Writer::new(MemImage { bytes }).unwrap()
}

fn batch(from: usize, to: usize) -> RecordBatch {
    let names: Vec<Option<String>> = (from..to)
        .map(|i| (i % 9 != 0).then(|| format!("n{}", (i * 37) % 211)))
        .collect();
    let memos: Vec<Option<String>> = (from..to)
        .map(|i| match i % 4 {
            0 => None,
            1 => Some(format!("short {i}")),
            2 => Some("memo text ".repeat(30 + i % 50)),
            _ => Some("a long memo over pages ".repeat(400 + i % 7)),
        })
        .collect();
    let blobs: Vec<Option<Vec<u8>>> = (from..to)
        .map(|i| (i % 13 == 0).then(|| vec![(i % 251) as u8; 5000 + i]))
        .collect();
    RecordBatch::try_from_iter(vec![
        (
            "k",
            Arc::new(Int32Array::from(
                (from..to).map(|i| i as i32).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
        ("memo", Arc::new(StringArray::from(memos)) as ArrayRef),
        (
            "blob",
            Arc::new(BinaryArray::from(
                blobs.iter().map(|b| b.as_deref()).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap()
}

/// A database with churn: rows inserted, grown past their pages, deleted;
/// a table dropped; an index dropped; an index created on rows.
fn churned(v: JetVersion) -> Vec<u8> {
    let mut w = writer(v);
    let spec = TableSpec::new(
        "Items",
        vec![
            ColumnSpec::new("k", JetType::Long),
            ColumnSpec::text("name", 50),
            ColumnSpec::new("memo", JetType::Memo),
            ColumnSpec::new("blob", JetType::Ole),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["k"]))
    .index(IndexSpec::new("by_name", &["name", "k"]))
    .index(IndexSpec::new("gone", &["name"]));
    w.transaction(|tx| {
        tx.create_table(&spec)?;
        tx.create_table(&TableSpec::new(
            "Scratch",
            vec![ColumnSpec::new("m", JetType::Memo)],
        ))?;
        tx.insert("Items", &batch(0, 1500))?;
        tx.insert(
            "Scratch",
            &RecordBatch::try_from_iter(vec![(
                "m",
                Arc::new(StringArray::from(vec!["x".repeat(9000); 40])) as ArrayRef,
            )])
            .unwrap(),
        )?;
        Ok(())
    })
    .unwrap();
    w.transaction(|tx| {
        let bms = tx.bookmarks("Items")?;
        let grow: Vec<_> = bms.iter().copied().step_by(3).collect();
        let names: Vec<Option<String>> = (0..grow.len())
            .map(|i| Some(format!("grown name {i} {}", "z".repeat(i % 20))))
            .collect();
        let ch = RecordBatch::try_from_iter(vec![(
            "name",
            Arc::new(StringArray::from(names)) as ArrayRef,
        )])
        .unwrap();
        tx.update("Items", &grow, &ch)?;
        let dead: Vec<_> = bms.iter().copied().skip(1).step_by(2).collect();
        tx.delete("Items", &dead)?;
        tx.drop_table("Scratch")?;
        tx.drop_index("Items", "gone")?;
        tx.create_index("Items", &IndexSpec::new("name_only", &["name"]))
            .map(|_| ())
    })
    .unwrap();
    w.into_target().bytes
}

#[test]
fn generated_databases_compact_and_read_identically() {
    for v in [JetVersion::Jet4, JetVersion::Ace12, JetVersion::Ace16] {
        let bytes = churned(v);
        let out = compact_and_check(&bytes, &format!("{v:?}"));
        eprintln!("{v:?}: {} -> {} bytes", bytes.len(), out.len());
        assert!(
            out.len() * 10 < bytes.len() * 7,
            "{v:?}: deleted rows and a dropped table should shrink the file by 30%: {} -> {}",
            bytes.len(),
            out.len()
        );
        let db = Database::from_bytes(out.clone()).unwrap();
        consistency(&db, "compacted");
        // the compacted file is writable like any other
        let mut w = Writer::new(MemImage { bytes: out.clone() }).unwrap();
        w.transaction(|tx| tx.insert("Items", &batch(5000, 5300)).map(|_| ()))
            .unwrap();
        consistency(&w.database().unwrap(), "compacted, then written");
        // compacting again changes nothing that reads
        let again = compact_and_check(&out, "again");
        assert!(again.len() <= out.len());
    }
}

#[test]
fn refusals_are_named() {
    let Some(root) = corpus_root() else { return };
    let enc = std::fs::read(root.join("jackcess-encrypt/db-enc.mdb")).unwrap();
    let e = compact_image(&enc).unwrap_err().to_string();
    assert!(e.contains("encoded"), "{e}");
    let e = compact_image(&[0u8; 100]).unwrap_err().to_string();
    assert!(!e.is_empty());
}

/// Every Jet4/ACE database of the corpus that opens and is not encoded:
/// compacted, it reads identically and is no larger; a refusal must be a
/// typed write error naming what is refused.
#[test]
fn corpus_files_compact_and_read_identically() {
    let Some(root) = corpus_root() else { return };
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let (mut done, mut refused) = (0, Vec::new());
    let (mut before_total, mut after_total) = (0usize, 0usize);
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let Ok(db) = Database::from_bytes(bytes.clone()) else {
            continue;
        };
        if db.version().is_jet3() || db.header().db_key != 0 {
            continue;
        }
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        if !readable(&db) {
            // deliberately damaged: the reader itself refuses some table
            eprintln!("{rel}: skipped, not readable whole");
            continue;
        }
        match compact_image(&bytes) {
            Ok(_) => {
                let out = compact_and_check(&bytes, &rel);
                eprintln!("{rel}: {} -> {} bytes", bytes.len(), out.len());
                before_total += bytes.len();
                after_total += out.len();
                done += 1;
            }
            Err(e) => {
                let w = write_error(e);
                let msg = w.to_string();
                assert!(
                    matches!(w, WriteError::Unsupported(_) | WriteError::Index { .. })
                        && !msg.contains("differs"),
                    "{rel}: {msg}"
                );
                eprintln!("{rel}: refused: {msg}");
                refused.push(rel);
            }
        }
    }
    eprintln!(
        "compacted {done} corpus files: {before_total} -> {after_total} bytes; not compacted: {refused:?}"
    );
    assert!(done >= 30, "only {done} corpus files compacted");
}

/// Whether every table of `db` scans without an error.
fn readable(db: &Database) -> bool {
    let mut names = db.table_names();
    names.extend(db.system_table_names());
    names.iter().all(|n| {
        db.table(n).is_ok_and(|t| {
            t.scan(ScanOptions::default())
                .is_ok_and(|mut s| s.all(|b| b.is_ok()))
        })
    })
}

/// The write error inside `e` (unwrapping the table it names).
fn write_error(e: Error) -> WriteError {
    match e {
        Error::Write(w) => *w,
        Error::InTable { source, .. } => write_error(*source),
        e => panic!("not a write error: {e}"),
    }
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            collect(&p, out);
        } else if matches!(
            p.extension().and_then(|x| x.to_str()),
            Some("mdb" | "accdb" | "mny")
        ) {
            out.push(p);
        }
    }
}

/// `mdb-export` of every user table of a compacted copy equals that of
/// the original (lines compared as sorted multisets: mdbtools lists an
/// overflowed row where its bytes are). Through `compact_file`, in place.
#[test]
fn mdb_export_reads_the_same_rows() {
    let Some(root) = corpus_root() else { return };
    if Command::new("mdb-export")
        .arg("--version")
        .output()
        .is_err()
    {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("mdb-export is missing under CI");
        }
        eprintln!("skipping: mdb-export not found");
        return;
    }
    let scratch = Scratch::new("compact-mdbtools");
    for f in [
        "jackcess/V2000/testV2000.mdb",
        "jackcess/V2000/bigIndexTestV2000.mdb",
        "jackcess/V2007/testV2007.accdb",
        "jackcess/V2010/complexDataTestV2010.accdb",
        "ucanaccess/functionsV2003.mdb",
    ] {
        let src = root.join(f);
        let path = scratch.copy(&src);
        let db = Database::open(&src, Default::default()).unwrap();
        let tables = db.table_names();
        drop(db);
        let report = compact_file(&path, None).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(report.bytes_after, std::fs::metadata(&path).unwrap().len());
        eprintln!(
            "{f}: {} -> {} bytes, {} tables, {} rows, {} indexes",
            report.bytes_before, report.bytes_after, report.tables, report.rows, report.indexes
        );
        for t in &tables {
            let a = export(&src, t);
            let b = export(&path, t);
            assert_eq!(a, b, "{f}: {t}");
        }
        consistency(&Database::open(&path, Default::default()).unwrap(), f);
    }
}

fn export(file: &Path, table: &str) -> Vec<String> {
    let out = Command::new("mdb-export")
        .args(["-b", "hex"])
        .arg(file)
        .arg(table)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mdb-export {} {table}",
        file.display()
    );
    let mut lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// Compaction cost on a generated table (`JET_BIG_COMPACT_ROWS`, default
/// 100,000 rows, two indexes, every third row deleted): prints sizes and
/// the time taken; the result reads identically.
#[test]
fn big_database_compacts() {
    let n: usize = std::env::var("JET_BIG_COMPACT_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let mut w = writer(JetVersion::Ace12);
    let spec = TableSpec::new(
        "Big",
        vec![
            ColumnSpec::new("k", JetType::Long),
            ColumnSpec::text("name", 50),
            ColumnSpec::new("memo", JetType::Memo),
            ColumnSpec::new("blob", JetType::Ole),
        ],
    )
    .index(IndexSpec::primary("pk", &["k"]))
    .index(IndexSpec::new("by_name", &["name"]));
    w.transaction(|tx| {
        tx.create_table(&spec)?;
        for s in (0..n).step_by(5000) {
            let mut b = batch(s, (s + 5000).min(n));
            // key and name only: long values would make generating slow
            b = b.project(&[0, 1]).unwrap();
            tx.insert("Big", &b)?;
        }
        Ok(())
    })
    .unwrap();
    w.transaction(|tx| {
        let dead: Vec<_> = tx.bookmarks("Big")?.into_iter().step_by(3).collect();
        tx.delete("Big", &dead).map(|_| ())
    })
    .unwrap();
    let bytes = w.into_target().bytes;
    let t0 = std::time::Instant::now();
    let (out, report) = compact_image(&bytes).unwrap();
    let dt = t0.elapsed();
    eprintln!(
        "compact {n} rows (a third deleted): {} -> {} bytes, {} rows, {} indexes, {:.2?} (read-back comparison included)",
        report.bytes_before, report.bytes_after, report.rows, report.indexes, dt
    );
    assert!(out.len() < bytes.len());
    let db = Database::from_bytes(out).unwrap();
    assert_eq!(table_consistency(&db, "Big", "big"), n - n.div_ceil(3));
}

/// A compaction killed at a random moment (a child process compacting the
/// file in place over and over, killed after a random delay) leaves a file
/// that reads exactly as the original: either the original bytes or a
/// complete compacted image, never a mixture. A killed run may leave its
/// temporary file (`.<name>.jetcompact-<pid>`) beside it.
#[test]
fn killed_compaction_leaves_a_readable_file() {
    if let Ok(p) = std::env::var("JET_COMPACT_CHILD") {
        loop {
            compact_file(Path::new(&p), None).unwrap();
        }
    }
    let original = churned(JetVersion::Ace12);
    let (compacted, _) = compact_image(&original).unwrap();
    let want = scans(&Database::from_bytes(original.clone()).unwrap());
    let scratch = Scratch::new("compact-kill");
    let path = scratch.path("db.accdb");
    let exe = std::env::current_exe().unwrap();
    let (mut saw_original, mut saw_compacted) = (0, 0);
    for trial in 0..10u64 {
        std::fs::write(&path, &original).unwrap();
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "compact::killed_compaction_leaves_a_readable_file",
                "--nocapture",
            ])
            .env("JET_COMPACT_CHILD", &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30 + trial * 37 % 300));
        child.kill().unwrap();
        child.wait().unwrap();
        let now = std::fs::read(&path).unwrap();
        if now == original {
            saw_original += 1;
        } else {
            assert!(
                now == compacted,
                "trial {trial}: neither the original nor its compaction"
            );
            saw_compacted += 1;
        }
        let db = Database::open(&path, Default::default()).unwrap();
        assert!(scans(&db) == want, "trial {trial}: reads differently");
    }
    eprintln!(
        "killed compactions: {saw_original} left the original, {saw_compacted} the compacted file"
    );
    assert!(saw_compacted > 0, "no compaction finished before a kill");
}
