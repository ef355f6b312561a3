//! Tables linked from another Access file are followed: the target is
//! found beside the linking file when its stored (Windows) path does not
//! exist, and its rows answer under the link's local name.
//!
//! Expected values: Jackcess 4 `LinkedTableTest.testLinkedTables`
//! (linkerTestV2007.accdb: `Table2` links `Table1` of
//! `Z:\jackcess_test\linkeeTest.accdb`, which holds one row, ID 1 and
//! Field1 "bar"), and mdb-export of the targets for UCanAccess's
//! `linked.mdb` (its targets `linkee1.mdb` and `linkee2.mdb` lie beside
//! it). Without the corpus (or mdb-export) the tests skip, except under
//! `CI=true`.

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::Int64Type;
use datafusion::prelude::SessionContext;
use jet_provider::{JetOptions, JetSession};
use jet_storage::{Database, OpenOptions};
use std::path::Path;

fn session(path: &Path) -> JetSession {
    let s = JetSession::new(SessionContext::new());
    s.register("db", path, JetOptions::default(), true).unwrap();
    s
}

fn one(batches: &[RecordBatch]) -> RecordBatch {
    datafusion::arrow::compute::concat_batches(&batches[0].schema(), batches).unwrap()
}

/// Copies `rel` of the corpus into `dir` (read-only corpus: copies are
/// ours), returning the copy.
fn copy(corpus: &Path, rel: &str, dir: &Path) -> std::path::PathBuf {
    let name = Path::new(rel).file_name().unwrap();
    let to = dir.join(name);
    std::fs::copy(corpus.join(rel), &to).unwrap();
    let mut perms = std::fs::metadata(&to).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o600);
    std::fs::set_permissions(&to, perms).unwrap();
    to
}

/// Jackcess LinkedTableTest: `Table2` reads linkeeTest.accdb's `Table1`
/// (ID 1, Field1 "bar") once the target lies beside the linking file;
/// moved away, naming `Table2` is an error naming the table, the stored
/// path and the path tried, while the local `Table1` still reads.
#[tokio::test]
async fn jackcess_linker_reads_its_linkee() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let linker = copy(&corpus, "jackcess/V2007/linkerTestV2007.accdb", dir.path());
    copy(&corpus, "jackcess/linkeeTest.accdb", dir.path());
    let s = session(&linker);
    let b = one(&s.sql("SELECT ID, Field1 FROM Table2").await.unwrap());
    assert_eq!(b.num_rows(), 1);
    let id = datafusion::arrow::compute::cast(
        b.column(0),
        &datafusion::arrow::datatypes::DataType::Int64,
    )
    .unwrap();
    assert_eq!(id.as_primitive::<Int64Type>().value(0), 1);
    assert_eq!(b.column(1).as_string::<i32>().value(0), "bar");
    // a filter on the linked table's key goes through its index
    let b = one(&s
        .sql("SELECT Field1 FROM Table2 WHERE ID = 1")
        .await
        .unwrap());
    assert_eq!(b.column(0).as_string::<i32>().value(0), "bar");
    // read-only: a write through the link is refused
    let err = s
        .sql("INSERT INTO Table2 (ID, Field1) VALUES (2, 'x')")
        .await
        .expect_err("writes through a link are refused")
        .to_string();
    assert!(err.contains("read-only"), "{err}");

    let moved = tempfile::tempdir().unwrap();
    let alone = copy(
        &corpus,
        "jackcess/V2007/linkerTestV2007.accdb",
        moved.path(),
    );
    let s = session(&alone);
    let err = s
        .sql("SELECT * FROM Table2")
        .await
        .expect_err("the target is missing")
        .to_string();
    let beside = moved.path().join("linkeeTest.accdb");
    assert!(
        err.contains("\"Table2\"")
            && err.contains(r"Z:\jackcess_test\linkeeTest.accdb")
            && err.contains(&beside.display().to_string()),
        "{err}"
    );
    let local = one(&s.sql("SELECT count(*) FROM Table1").await.unwrap());
    assert_eq!(local.num_rows(), 1);
}

/// UCanAccess's linked.mdb: every table it links from linkee1.mdb and
/// linkee2.mdb (beside it in the corpus) has the row count mdb-export
/// gives for the target table, and the same first column values.
#[tokio::test]
async fn ucanaccess_links_match_mdb_export_of_the_targets() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let Some((program, _)) = jet_tests::require_mdb_export() else {
        return;
    };
    let linker = corpus.join("ucanaccess/linked.mdb");
    let db = Database::open(&linker, OpenOptions::default()).unwrap();
    let links = jet_provider::catalog::linked::access_links(&db);
    assert!(!links.is_empty(), "linked.mdb links tables");
    let s = session(&linker);
    let mut checked = 0;
    for (local, database, foreign) in links {
        let file = database.rsplit(['\\', '/']).next().unwrap();
        let target = corpus.join("ucanaccess").join(file);
        assert!(target.is_file(), "{local}: {database}");
        let out = std::process::Command::new(&program)
            .arg(&target)
            .arg(&foreign)
            .output()
            .unwrap();
        assert!(out.status.success(), "mdb-export {file} {foreign}");
        let mut r = csv::Reader::from_reader(out.stdout.as_slice());
        let first = r.headers().unwrap()[0].to_string();
        let mut want: Vec<String> = r.records().map(|rec| rec.unwrap()[0].to_string()).collect();
        let sql = format!(r#"SELECT CAST("{first}" AS VARCHAR) FROM "{local}""#);
        let got = s.sql(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        let mut got: Vec<String> = if got.is_empty() {
            Vec::new()
        } else {
            let b = one(&got);
            let c = datafusion::arrow::compute::cast(
                b.column(0),
                &datafusion::arrow::datatypes::DataType::Utf8,
            )
            .unwrap();
            let c = c.as_string::<i32>();
            (0..c.len())
                .map(|i| {
                    if c.is_null(i) {
                        String::new()
                    } else {
                        c.value(i).to_string()
                    }
                })
                .collect()
        };
        want.sort();
        got.sort();
        assert_eq!(got, want, "{local} → {foreign} of {file}");
        checked += 1;
    }
    eprintln!("{checked} linked tables equal mdb-export of their targets");
}
