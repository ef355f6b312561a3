//! Refusals leave the file byte-identical (acceptance 4 of the writer): a
//! unique violation, a value too wide for its column, a text key the
//! encoder does not know, a read-only file, and a full disk (the simulated
//! storage refusing to grow with ENOSPC at every point of the journaled
//! commit) — each attempted on a database file with rows and indexes, the
//! file's bytes compared before and after.

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::journal::JournaledFile;
use jet_storage::journal::sim::SimStorage;
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, Writer, new_database};
use jet_storage::{Database, Error, JetType, JetVersion, JournalError, MemImage, WriteError};
use std::sync::Arc;

const CLOCK: i64 = 946_684_800_000_000;

fn spec() -> TableSpec {
    TableSpec::new(
        "People",
        vec![
            ColumnSpec::new("id", JetType::Long).auto_number(),
            ColumnSpec::new("code", JetType::Long),
            ColumnSpec::text("name", 12),
            ColumnSpec::new("note", JetType::Memo),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["id"]))
    .index(IndexSpec::new("code", &["code"]).unique())
    .index(IndexSpec::new("name", &["name"]))
}

fn rows(codes: std::ops::Range<i32>, name: impl Fn(i32) -> String) -> RecordBatch {
    RecordBatch::try_from_iter(vec![
        (
            "code",
            Arc::new(Int32Array::from(codes.clone().collect::<Vec<_>>())) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(
                codes.clone().map(&name).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "note",
            Arc::new(StringArray::from(
                codes
                    .map(|i| "n".repeat(i as usize % 900))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap()
}

/// A database with 500 rows in `People`.
fn image(v: JetVersion) -> Vec<u8> {
    let mut w = Writer::new(MemImage {
        bytes: new_database(v, CLOCK).unwrap(),
    })
    .unwrap();
    w.transaction(|tx| {
        tx.create_table(&spec())?;
        tx.insert("People", &rows(0..500, |i| format!("p{i:04}")))
    })
    .unwrap();
    w.into_target().bytes
}

fn write_error(e: &Error) -> &WriteError {
    match e {
        Error::Write(w) => w,
        e => panic!("not a write error: {e}"),
    }
}

/// Tries `f` in a transaction on the file at `path` and returns its error,
/// asserting the file is byte-identical afterwards.
fn refused_on_file(
    path: &std::path::Path,
    what: &str,
    f: impl FnOnce(&mut jet_storage::Transaction<'_>) -> Result<(), WriteError>,
) -> Error {
    let before = std::fs::read(path).unwrap();
    let mut w = Database::open_writable(path).unwrap();
    let e = w
        .transaction(|tx| f(tx))
        .expect_err(&format!("{what} is refused"));
    drop(w);
    assert!(
        std::fs::read(path).unwrap() == before,
        "{what}: the file changed"
    );
    e
}

/// Grows `People` by 300 rows with long notes and deletes 50: the commit
/// journals rewritten pages and extends the database.
fn growth(tx: &mut jet_storage::Transaction<'_>) -> Result<(), WriteError> {
    tx.insert("People", &rows(10_000..10_300, |i| format!("q{i}")))?;
    let bms = tx.bookmarks("People")?;
    tx.delete("People", &bms[..50])?;
    Ok(())
}

#[test]
fn every_refusal_leaves_the_file_byte_identical() {
    let dir = std::env::temp_dir().join(format!("jet-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut listed = Vec::new();
    for (v, name) in [(JetVersion::Jet4, "r.mdb"), (JetVersion::Ace12, "r.accdb")] {
        let bytes = image(v);
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();

        // 1. unique violation (after a row that would have been written)
        let e = refused_on_file(&path, "unique violation", |tx| {
            tx.insert("People", &rows(900..901, |_| "fresh".into()))?;
            tx.insert("People", &rows(7..8, |_| "dup".into()))?;
            Ok(())
        });
        assert!(
            matches!(write_error(&e), WriteError::Index { table, why } if table == "People" && why.contains("unique")),
            "{e}"
        );
        listed.push(format!("{v:?} unique violation: {e}"));

        // 2. a value too wide for its column (13 characters into Text(12))
        let e = refused_on_file(&path, "value too wide", |tx| {
            tx.insert("People", &rows(901..902, |_| "thirteen char".into()))?;
            Ok(())
        });
        assert!(
            matches!(write_error(&e), WriteError::ValueOutOfRange { column, .. } if column == "name"),
            "{e}"
        );
        listed.push(format!("{v:?} value too wide: {e}"));

        // 3. a text key with a character the encoder has no code for
        let e = refused_on_file(&path, "unsupported text key", |tx| {
            tx.insert("People", &rows(902..903, |_| "名前".into()))?;
            Ok(())
        });
        assert!(
            matches!(write_error(&e), WriteError::IndexKey { table, .. } if table == "People"),
            "{e}"
        );
        listed.push(format!("{v:?} unsupported text key: {e}"));

        // 4. a read-only file is not opened for writing (whoever we run as)
        let mut perm = std::fs::metadata(&path).unwrap().permissions();
        perm.set_readonly(true);
        std::fs::set_permissions(&path, perm.clone()).unwrap();
        let e = match Database::open_writable(&path) {
            Ok(_) => panic!("a read-only file opened for writing"),
            Err(e) => e,
        };
        assert!(
            matches!(&e, Error::Journal(JournalError::ReadOnly { .. })),
            "{e}"
        );
        assert!(
            std::fs::read(&path).unwrap() == bytes,
            "read-only file changed"
        );
        #[allow(clippy::permissions_set_readonly_false)]
        perm.set_readonly(false);
        std::fs::set_permissions(&path, perm).unwrap();
        listed.push(format!("{v:?} read-only file: {e}"));

        // the file is still exactly what was written, and still writable
        assert!(std::fs::read(&path).unwrap() == bytes);

        // 5. a full disk, at every capacity between "no room for the
        //    journal" and "room for all but the last page of growth"
        let full = disk_full(&bytes);
        listed.push(format!(
            "{v:?} disk full: {} capacities refused with ENOSPC, database byte-identical each time; commit succeeds from {} bytes",
            full.0, full.1
        ));
    }
    for l in &listed {
        eprintln!("{l}");
    }
    assert_eq!(listed.len(), 10);
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs [`growth`] on a simulated disk of shrinking capacity: every
/// refused commit must leave the database byte-identical (and a reopen,
/// which recovers any journal, too). Returns how many capacities were
/// refused and the smallest that succeeded.
fn disk_full(bytes: &[u8]) -> (usize, u64) {
    // the unconstrained commit, for the sizes it needs
    let mut w = Writer::new(
        JournaledFile::with_storage(SimStorage::new("d.accdb", bytes.to_vec())).unwrap(),
    )
    .unwrap();
    w.transaction(growth).unwrap();
    let grown = w.into_target().storage().live_disk().db;
    assert!(grown.len() > bytes.len());
    let start = bytes.len() as u64;
    // the commit needs the grown file plus a journal of the rewritten
    // pages' originals: at most twice the grown size
    let end = grown.len() as u64 * 2;
    let step = ((end - start) / 24).max(1);
    let mut refused = 0;
    let mut smallest_ok = None;
    let mut cap = start;
    while cap <= end {
        let mut s = SimStorage::new("d.accdb", bytes.to_vec());
        s.set_capacity(Some(cap));
        let mut w = Writer::new(JournaledFile::with_storage(s).unwrap()).unwrap();
        match w.transaction(growth) {
            Ok(()) => {
                smallest_ok.get_or_insert(cap);
                assert_eq!(w.target().storage().live_disk().db, grown);
            }
            Err(e) => {
                assert!(
                    smallest_ok.is_none(),
                    "capacity {cap} refused after a smaller one succeeded: {e}"
                );
                let msg = e.to_string();
                assert!(msg.contains("ENOSPC"), "capacity {cap}: {msg}");
                assert!(w.target().storage().full_refusals() > 0);
                let disk = w.into_target().into_storage().live_disk();
                assert!(disk.db == bytes, "capacity {cap}: database changed");
                // reopening (which recovers a journal left behind) keeps it
                let mut again = JournaledFile::with_storage(SimStorage::from_disk(&disk)).unwrap();
                assert!(again.read_image().unwrap() == bytes);
                refused += 1;
            }
        }
        cap += step;
    }
    let ok = smallest_ok.expect("the commit fits the largest capacity");
    assert!(refused >= 5, "only {refused} capacities refused");
    (refused, ok)
}

/// Access 97 (Jet3) files take rows, tables, indexes and added columns
/// (`ddl_jet3.rs`) but not the other schema changes: each is refused by
/// name, before anything is written, in a copy of `nwind.mdb`; a row
/// insert in the same file then commits.
#[test]
fn access_97_schema_changes_are_refused_by_name() {
    let Some(root) = jet_tests::corpus() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("jet-refusals97-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("nwind.mdb");
    std::fs::write(
        &path,
        std::fs::read(root.join("mdbtools/nwind.mdb")).unwrap(),
    )
    .unwrap();
    type Change = Box<dyn Fn(&mut jet_storage::Transaction<'_>) -> Result<(), WriteError>>;
    let refusals: Vec<(&str, Change)> = vec![
        (
            "NOT NULL",
            Box::new(|tx: &mut jet_storage::Transaction<'_>| {
                tx.add_column("Shippers", &ColumnSpec::new("x", JetType::Long).not_null())
            }),
        ),
        (
            "DROP COLUMN",
            Box::new(|tx: &mut jet_storage::Transaction<'_>| tx.drop_column("Shippers", "Phone")),
        ),
        (
            "renaming table",
            Box::new(|tx: &mut jet_storage::Transaction<'_>| {
                tx.rename_table("Shippers", "Carriers")
            }),
        ),
    ];
    for (op, f) in &refusals {
        let e = refused_on_file(&path, op, |tx| f(tx));
        let msg = e.to_string();
        assert!(
            matches!(write_error(&e), WriteError::Unsupported(m) if m.contains(op) && m.contains("Access 97")),
            "{op}: {msg}"
        );
        eprintln!("{op}: {msg}");
    }
    let mut w = Database::open_writable(&path).unwrap();
    let batch = RecordBatch::try_from_iter(vec![(
        "CompanyName",
        Arc::new(StringArray::from(vec!["Speedy Café"])) as ArrayRef,
    )])
    .unwrap();
    w.transaction(|tx| tx.insert("Shippers", &batch)).unwrap();
    std::fs::remove_dir_all(&dir).ok();
}
