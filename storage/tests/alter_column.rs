//! `ALTER TABLE … DROP COLUMN` ([`Transaction::drop_column`]) and column
//! renames ([`Transaction::rename_column`]): on generated Jet4 and ACE
//! files and on copies of corpus files, the table's other columns read the
//! values the test wrote (reasoned out here, not read from jetsql before the
//! change), every index stays consistent with the rows, writes go on, and a
//! column added after a drop reads NULL in the old rows; refusals leave the
//! image byte-identical; a crash at any step of the journaled commit
//! recovers to the old or the new image exactly; `mdb-export` and
//! `mdb-schema` read the results.

use crate::support::check as support;
use crate::support::oracle;

use arrow_array::{ArrayRef, Int16Array, Int32Array, RecordBatch, StringArray};
use jet_storage::error::WriteError;
use jet_storage::write::{Cell, ColumnSpec, IndexSpec, TableSpec, new_database};
use jet_storage::{Database, Error, JetType, JetVersion, MemImage, Writer};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use support::*;

const N: i32 = 600;

fn writer(v: JetVersion) -> Writer<MemImage> {
    let bytes = new_database(v, jet_storage::write::txn::DEFAULT_CLOCK).unwrap();
    Writer::new(MemImage { bytes }).unwrap()
}

fn write_err(e: Error) -> WriteError {
    match e {
        Error::Write(w) => *w,
        e => panic!("not a write error: {e}"),
    }
}

fn name_of(i: i32) -> String {
    format!("name {i:04}")
}

fn note_of(i: i32) -> Option<String> {
    (i % 3 != 0).then(|| format!("note {i} ").repeat(1 + (i as usize % 5) * 40))
}

/// T(id Long PK, name Text(30) indexed, qty Integer, note Memo, flag
/// Boolean, tag Text(10) NOT NULL DEFAULT "dflt") with N rows: id i, name
/// "name {i:04}", qty i*3 (NULL when i % 10 == 0), note per `note_of`,
/// flag i odd, tag the default.
fn setup(v: JetVersion) -> Writer<MemImage> {
    let mut w = writer(v);
    let ids: Vec<i32> = (0..N).collect();
    let rows = RecordBatch::try_from_iter(vec![
        ("id", Arc::new(Int32Array::from(ids.clone())) as ArrayRef),
        (
            "name",
            Arc::new(StringArray::from(
                ids.iter().map(|&i| name_of(i)).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "qty",
            Arc::new(Int16Array::from(
                ids.iter()
                    .map(|&i| (i % 10 != 0).then_some((i * 3) as i16))
                    .collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "note",
            Arc::new(StringArray::from(
                ids.iter().map(|&i| note_of(i)).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "flag",
            Arc::new(arrow_array::BooleanArray::from(
                ids.iter().map(|&i| i % 2 == 1).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
    ])
    .unwrap();
    w.transaction(|tx| {
        tx.create_table(
            &TableSpec::new(
                "T",
                vec![
                    ColumnSpec::new("id", JetType::Long),
                    ColumnSpec::text("name", 30),
                    ColumnSpec::new("qty", JetType::Integer),
                    ColumnSpec::new("note", JetType::Memo),
                    ColumnSpec::new("flag", JetType::Boolean),
                    ColumnSpec::text("tag", 10)
                        .not_null()
                        .default_value("\"dflt\""),
                ],
            )
            .index(IndexSpec::primary("pk", &["id"]))
            .index(IndexSpec::new("by_name", &["name"])),
        )?;
        tx.create_table(&TableSpec::new(
            "Single",
            vec![ColumnSpec::new("only", JetType::Long)],
        ))?;
        tx.insert("T", &rows)?;
        Ok(())
    })
    .unwrap();
    w
}

/// The rows of T as the test wrote them, restricted to `cols`.
fn expected(cols: &[&str], upto: i32) -> Vec<Vec<Option<String>>> {
    (0..upto)
        .map(|i| {
            cols.iter()
                .map(|c| match *c {
                    "id" => Some(i.to_string()),
                    "name" => Some(name_of(i)),
                    "qty" => (i % 10 != 0).then(|| (i * 3).to_string()),
                    "note" => note_of(i),
                    "flag" => Some((i % 2 == 1).to_string()),
                    "tag" => Some("dflt".to_string()),
                    other => panic!("{other}"),
                })
                .collect()
        })
        .collect()
}

fn columns(db: &Database, t: &str) -> Vec<String> {
    db.table(t)
        .unwrap()
        .def()
        .columns
        .iter()
        .map(|c| c.name.clone())
        .collect()
}

/// The column names the table's property maps name.
fn prop_maps(db: &Database, t: &str) -> Vec<String> {
    let e = db.catalog().iter().find(|e| e.name == t).unwrap();
    jet_storage::schema::props::PropertyMaps::parse(&e.props, true, encoding_rs::WINDOWS_1252)
        .maps
        .into_iter()
        .map(|(m, _)| m)
        .filter(|m| !m.is_empty())
        .collect()
}

#[test]
fn dropped_columns_leave_the_rest_reading_the_same() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = setup(v);
        let before = w.database().unwrap();
        let max_cols = before.table("T").unwrap().def().max_cols;
        assert_eq!(
            oracle::rows(&before, "T"),
            expected(&["id", "name", "qty", "note", "flag", "tag"], N)
        );
        assert_eq!(prop_maps(&before, "T"), ["tag"]);
        // a fixed column, a long-value column and one with properties
        w.transaction(|tx| {
            tx.drop_column("T", "QTY")?;
            tx.drop_column("T", "note")
        })
        .unwrap();
        w.transaction(|tx| tx.drop_column("t", "tag")).unwrap();
        let db = w.database().unwrap();
        assert_eq!(columns(&db, "T"), ["id", "name", "flag"]);
        let def = db.table("T").unwrap().def().clone();
        assert_eq!(def.max_cols, max_cols, "max_cols counts dropped columns");
        assert_eq!(
            oracle::rows(&db, "T"),
            expected(&["id", "name", "flag"], N),
            "{v:?}"
        );
        assert!(prop_maps(&db, "T").is_empty(), "{:?}", prop_maps(&db, "T"));
        assert_eq!(
            consistency(&db, "after drop"),
            consistency(&before, "before")
        );
        // writes go on; a column added now reads NULL in the old rows
        w.transaction(|tx| {
            tx.add_column("T", &ColumnSpec::new("later", JetType::Long))?;
            tx.add_column("T", &ColumnSpec::text("later_text", 20))?;
            tx.insert_named(
                "T",
                vec![
                    ("id", Cell::Int(N.into())),
                    ("name", Cell::Text(name_of(N))),
                    ("flag", Cell::Bool(false)),
                    ("later", Cell::Int(7)),
                    ("later_text", Cell::Text("seven".into())),
                ],
            )
            .map(|_| ())
        })
        .unwrap();
        let db = w.database().unwrap();
        let added = db.table("T").unwrap().def().clone();
        assert!(
            added
                .columns
                .iter()
                .all(|c| c.col_num >= max_cols || c.name != "later"),
            "a new column takes a number no old row has"
        );
        let mut want: Vec<Vec<Option<String>>> = expected(&["id", "name", "flag"], N)
            .into_iter()
            .map(|mut r| {
                r.extend([None, None]);
                r
            })
            .collect();
        want.push(vec![
            Some(N.to_string()),
            Some(name_of(N)),
            Some("false".into()),
            Some("7".into()),
            Some("seven".into()),
        ]);
        assert_eq!(oracle::rows(&db, "T"), want, "{v:?}");
        assert_eq!(table_consistency(&db, "T", "after add"), N as usize + 1);
        consistency(&db, "after add");
        mdb_reads(
            &w.target().bytes,
            "T",
            &["id", "name", "flag", "later", "later_text"],
            N as usize + 1,
        );
    }
}

#[test]
fn refused_drops_leave_the_image_unchanged() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = setup(v);
        relationship_and_query(&mut w);
        let before = w.target().bytes.clone();
        let cases: Vec<(&str, &str, &str)> = vec![
            ("T", "name", "index by_name"),
            ("T", "id", "index pk"),
            ("Single", "only", "only column"),
            ("T", "nope", "no column"),
            ("Nope", "id", "no table"),
            ("MSysObjects", "Flags", "system table"),
            ("T", "flag", "relationship \"TFlag\""),
            ("T", "qty", "saved query"),
        ];
        for (t, c, want) in cases {
            let e = write_err(w.transaction(|tx| tx.drop_column(t, c)).unwrap_err());
            let s = e.to_string().to_lowercase();
            assert!(s.contains(&want.to_lowercase()), "{t}.{c}: {e}");
            assert!(w.target().bytes == before, "{t}.{c}: image changed");
        }
    }
}

/// A relationship row naming T.flag and a saved query naming T and qty.
fn relationship_and_query(w: &mut Writer<MemImage>) {
    w.transaction(|tx| {
        tx.insert_named(
            "MSysRelationships",
            vec![
                ("szRelationship", Cell::Text("TFlag".into())),
                ("szObject", Cell::Text("Single".into())),
                ("szReferencedObject", Cell::Text("T".into())),
                ("szColumn", Cell::Text("only".into())),
                ("szReferencedColumn", Cell::Text("flag".into())),
            ],
        )?;
        tx.insert_named(
            "MSysQueries",
            vec![
                ("ObjectId", Cell::Int(4242)),
                ("Attribute", Cell::Int(5)),
                ("Name1", Cell::Text("T".into())),
            ],
        )?;
        tx.insert_named(
            "MSysQueries",
            vec![
                ("ObjectId", Cell::Int(4242)),
                ("Attribute", Cell::Int(6)),
                ("Expression", Cell::Text("T.qty * 2".into())),
            ],
        )
        .map(|_| ())
    })
    .unwrap();
}

#[test]
fn renamed_columns_keep_indexes_rules_and_relationships() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = setup(v);
        relationship_and_query(&mut w);
        let before = w.database().unwrap();
        let rows = oracle::rows(&before, "T");
        w.transaction(|tx| {
            tx.rename_column("T", "name", "Full Name")?;
            tx.rename_column("T", "tag", "Label")?;
            tx.rename_column("T", "flag", "Flagged")?;
            // case-only rename of itself
            tx.rename_column("T", "id", "ID")
        })
        .unwrap();
        let db = w.database().unwrap();
        assert_eq!(
            columns(&db, "T"),
            ["ID", "Full Name", "qty", "note", "Flagged", "Label"]
        );
        assert_eq!(oracle::rows(&db, "T"), rows);
        assert_eq!(prop_maps(&db, "T"), ["Label"]);
        consistency(&db, "after rename");
        // the relationship row names the new column
        let rel = oracle::rows(&db, "MSysRelationships");
        assert!(
            rel.iter().flatten().flatten().any(|s| s == "Flagged"),
            "{rel:?}"
        );
        assert!(!rel.iter().flatten().flatten().any(|s| s == "flag"));
        // the renamed NOT NULL column keeps its default; the index its rows
        w.transaction(|tx| {
            tx.insert_named(
                "T",
                vec![
                    ("ID", Cell::Int(N.into())),
                    ("Full Name", Cell::Text("zz".into())),
                ],
            )
            .map(|_| ())
        })
        .unwrap();
        let db = w.database().unwrap();
        let last = oracle::rows(&db, "T").pop().unwrap();
        assert_eq!(last[5].as_deref(), Some("dflt"), "{last:?}");
        assert_eq!(table_consistency(&db, "T", "written"), N as usize + 1);
        mdb_reads(
            &w.target().bytes,
            "T",
            &["ID", "Full Name", "qty", "note", "Flagged", "Label"],
            N as usize + 1,
        );
        // refusals
        let image = w.target().bytes.clone();
        for (c, new, want) in [
            ("Full Name", "qty", "exists"),
            ("Full Name", "QTY", "exists"),
            ("Full Name", "a.b", "column name"),
            ("qty", "amount", "saved query"),
            ("nope", "x", "no column"),
        ] {
            let e = write_err(
                w.transaction(|tx| tx.rename_column("T", c, new))
                    .unwrap_err(),
            );
            assert!(e.to_string().contains(want), "{c} -> {new}: {e}");
            assert!(w.target().bytes == image, "{c} -> {new}: image changed");
        }
    }
}

/// `mdb-export` lists `cols` as the table's columns and reads `rows` rows;
/// `mdb-schema` lists the columns. Skipped without mdbtools (a failure
/// under `CI=true`).
fn mdb_reads(bytes: &[u8], table: &str, cols: &[&str], rows: usize) {
    if Command::new("mdb-export")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "mdb-export is missing under CI"
        );
        return;
    }
    let scratch = Scratch::new(&format!("alter-col-{table}-{}", bytes.len()));
    let path = scratch.path("t.mdb");
    std::fs::write(&path, bytes).unwrap();
    let out = export(&path, table);
    let mut lines = out.lines();
    let header = lines.next().unwrap().trim_end_matches('\u{1e}');
    assert_eq!(header, cols.join("\u{1f}"), "mdb-export header");
    assert_eq!(out.matches('\u{1e}').count(), rows + 1, "mdb-export rows");
    let schema = Command::new("mdb-schema").arg(&path).output().unwrap();
    assert!(schema.status.success());
    let schema = String::from_utf8_lossy(&schema.stdout);
    for c in cols {
        assert!(
            schema.contains(&format!("[{c}]")),
            "mdb-schema lacks {c}: {schema}"
        );
    }
}

fn export(file: &Path, table: &str) -> String {
    let out = Command::new("mdb-export")
        .args(["-Q", "-d", "\u{1f}", "-R", "\u{1e}\n", "-b", "hex"])
        .arg(file)
        .arg(table)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mdb-export {} {table}",
        file.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A crash at every step of a journaled commit that drops and renames
/// columns recovers to the old or the new image exactly.
#[test]
fn crashed_column_changes_recover_to_old_or_new() {
    use jet_storage::journal::JournaledFile;
    use jet_storage::journal::sim::SimStorage;
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let old = setup(v).into_target().bytes;
        let run = |crash_at: Option<u64>| {
            let mut s = SimStorage::new("t.mdb", old.clone());
            s.crash_after(crash_at);
            let f = JournaledFile::with_storage(s).unwrap();
            let mut w = Writer::new(f).unwrap();
            let result = w.transaction(|tx| {
                tx.drop_column("T", "note")?;
                tx.rename_column("T", "tag", "Label")
            });
            (result.is_ok(), w.into_target())
        };
        let (ok, done) = run(None);
        assert!(ok);
        let steps = done.storage().steps();
        let new = done.storage().live_disk().db;
        assert_ne!(new, old);
        let db = Database::from_bytes(new.clone()).unwrap();
        assert_eq!(columns(&db, "T"), ["id", "name", "qty", "flag", "Label"]);
        consistency(&db, "crash-free");
        crash_every_step(run, steps, &old, &new, 7, &format!("{v:?}"));
    }
}

/// Copies of corpus files (Jet4, ACE): in every user table, the last
/// column that no index, relationship or query names is dropped and
/// another renamed, through the journaled file; the other columns read
/// as before (our reader and `mdb-export`), every index stays consistent.
#[test]
fn corpus_columns_dropped_and_renamed() {
    let Some(root) = corpus_root() else { return };
    let mdb = Command::new("mdb-export").arg("--version").output().is_ok();
    if !mdb && std::env::var("CI").as_deref() == Ok("true") {
        panic!("mdb-export is missing under CI");
    }
    let scratch = Scratch::new("alter-col-corpus");
    let (mut dropped, mut renamed) = (0, 0);
    for f in [
        "jackcess/V2000/testV2000.mdb",
        "jackcess/V2000/delColTestV2000.mdb",
        "jackcess/V2010/delColTestV2010.accdb",
        "jackcess/V2007/testV2007.accdb",
        "jackcess/V2010/queryTestV2010.accdb",
        "ucanaccess/functionsV2003.mdb",
    ] {
        let src = root.join(f);
        if !src.exists() {
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{f} missing");
            continue;
        }
        let path = scratch.copy(&src);
        let mut perm = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o600);
        std::fs::set_permissions(&path, perm).unwrap();
        let orig = Database::open(&src, Default::default()).unwrap();
        for t in orig.table_names() {
            let def = orig.table(&t).unwrap().def().clone();
            if def.columns.len() < 2 {
                continue;
            }
            let indexed = |n: u16| {
                def.real_indexes
                    .iter()
                    .any(|r| r.key.iter().any(|(k, _)| *k == n))
            };
            let Some(victim) = def
                .columns
                .iter()
                .rev()
                .find(|c| !indexed(c.col_num) && c.jet_type != JetType::Complex)
                .map(|c| c.name.clone())
            else {
                continue;
            };
            let before = oracle::rows(&orig, &t);
            let keep: Vec<usize> = (0..def.columns.len())
                .filter(|&i| def.columns[i].name != victim)
                .collect();
            let mut w = Database::open_writable(&path).unwrap();
            let result = w.transaction(|tx| tx.drop_column(&t, &victim));
            drop(w);
            match result {
                Ok(()) => {
                    dropped += 1;
                    let db = Database::open(&path, Default::default()).unwrap();
                    let want: Vec<Vec<Option<String>>> = before
                        .iter()
                        .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
                        .collect();
                    assert_eq!(oracle::rows(&db, &t), want, "{f}: {t} without {victim}");
                    table_consistency(&db, &t, f);
                    if mdb {
                        let header = export(&path, &t)
                            .lines()
                            .next()
                            .unwrap_or("")
                            .trim_end_matches('\u{1e}')
                            .to_string();
                        assert!(
                            !header.split('\u{1f}').any(|c| c == victim),
                            "{f}: {t}: mdb-export still lists {victim}"
                        );
                        assert_eq!(
                            export(&path, &t).matches('\u{1e}').count(),
                            before.len() + 1,
                            "{f}: {t}: mdb-export rows"
                        );
                    }
                }
                Err(e) => {
                    let e = write_err(e).to_string();
                    assert!(
                        e.contains("relationship") || e.contains("saved query"),
                        "{f}: {t}.{victim}: {e}"
                    );
                }
            }
            // rename the first column (possibly indexed)
            let db = Database::open(&path, Default::default()).unwrap();
            let first = db.table(&t).unwrap().def().columns[0].name.clone();
            let rows = oracle::rows(&db, &t);
            let new = format!("{first} renamed");
            let mut w = Database::open_writable(&path).unwrap();
            let result = w.transaction(|tx| tx.rename_column(&t, &first, &new));
            drop(w);
            match result {
                Ok(()) => {
                    renamed += 1;
                    let db = Database::open(&path, Default::default()).unwrap();
                    assert_eq!(db.table(&t).unwrap().def().columns[0].name, new);
                    assert_eq!(oracle::rows(&db, &t), rows, "{f}: {t}");
                    table_consistency(&db, &t, f);
                    if mdb {
                        let out = export(&path, &t);
                        let header = out.lines().next().unwrap_or("").trim_end_matches('\u{1e}');
                        assert!(
                            header.split('\u{1f}').any(|c| c == new),
                            "{f}: {t}: {header}"
                        );
                    }
                }
                Err(e) => {
                    let e = write_err(e).to_string();
                    assert!(e.contains("saved query"), "{f}: {t}.{first}: {e}");
                }
            }
        }
        let db = Database::open(&path, Default::default()).unwrap();
        consistency(&db, f);
    }
    assert!(
        dropped >= 5 && renamed >= 5,
        "dropped {dropped}, renamed {renamed}"
    );
}

/// Access's own drops (Jackcess's `delColTest` files, columns deleted in
/// Access; the V2010 copy shows none): the remaining columns keep their numbers, so the numbers have
/// gaps, `max_cols` exceeds the listed columns, and `num_var_cols` counts
/// at least the listed variable columns — what `drop_column` writes.
#[test]
fn access_drops_leave_gaps_in_column_numbers() {
    let Some(root) = corpus_root() else { return };
    for f in [
        "jackcess/V2000/delColTestV2000.mdb",
        "jackcess/V2010/delColTestV2010.accdb",
    ] {
        let db = Database::open(root.join(f), Default::default()).unwrap();
        let mut gaps = 0;
        for t in db.table_names() {
            let def = db.table(&t).unwrap().def().clone();
            let nums: Vec<u16> = def.columns.iter().map(|c| c.col_num).collect();
            let top = nums.iter().max().map_or(0, |n| n + 1);
            assert!(
                def.max_cols >= top,
                "{f}: {t}: max_cols {} < {top}",
                def.max_cols
            );
            if usize::from(def.max_cols) > def.columns.len() {
                gaps += 1;
                let listed_var = def.columns.iter().filter(|c| !c.is_fixed()).count();
                assert!(usize::from(def.num_var_cols) >= listed_var, "{f}: {t}");
                eprintln!(
                    "{f}: {t}: columns {nums:?}, max_cols {}, num_var_cols {} ({listed_var} listed)",
                    def.max_cols, def.num_var_cols
                );
            }
        }
        eprintln!("{f}: {gaps} tables with deleted columns");
        if f.contains("V2000") {
            assert!(gaps > 0, "{f}: no table with a deleted column");
        }
    }
}
