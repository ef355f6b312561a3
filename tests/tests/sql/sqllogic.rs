//! Runs every `tests/slt/*.slt` file (sqllogictest format, as DataFusion
//! uses) against corpus databases registered through jet-provider, in a
//! session with the Jet optimizer rules, twice: with index pushdown (seeks,
//! ordered walks, MIN/MAX from index ends) and without; both must give the
//! expected rows.
//!
//! Catalogs: `nw` (and the default schema) = `mdbtools/nwind.mdb`, `cmp` =
//! `jackcess/V2000/compIndexTestV2000.mdb`, `codes` =
//! `jackcess/V1997/testIndexCodesV1997.mdb`, `calc` =
//! `jackcess/V2010/calcFieldTestV2010.accdb`, and `fx` = the project's own
//! `fixtures/sample.accdb` when that file exists. A file whose name starts
//! with `fixtures` needs `fx`: it fails when the fixture is missing.
//!
//! The files in `tests/slt/dml/` change databases: each runs through
//! `JetSession` on fresh copies of the generated fixtures, and after every
//! statement the database passes the reader's and indexes' consistency
//! checks (`jet_tests::consistency`). There the statement `\dialect
//! access` (or `\dialect datafusion`, as in jetsql) chooses the SQL
//! dialect of the statements that follow; a file starts in DataFusion's.

use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, JetSession, register_jet, register_jet_tables};
use sqllogictest::{DBOutput, DefaultColumnType};
use support::slt_output::db_output;

use crate::support;
use std::path::Path;
use std::path::PathBuf;

struct Jet {
    ctx: SessionContext,
}

#[derive(Debug)]
struct SltError(String);
impl std::fmt::Display for SltError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for SltError {}

/// The project's own sample database, written by its writer.
fn fixture() -> PathBuf {
    jet_tests::workspace_root().join("fixtures/sample.accdb")
}

fn session(corpus: &Path, options: JetOptions) -> SessionContext {
    let ctx = jet_provider::session_context(SessionConfig::new().with_target_partitions(2));
    let db = register_jet(
        &ctx,
        "nw",
        corpus.join("mdbtools/nwind.mdb"),
        options.clone(),
    )
    .unwrap();
    register_jet_tables(&ctx, &db, options.clone()).unwrap();
    for (name, file) in [
        ("cmp", "jackcess/V2000/compIndexTestV2000.mdb"),
        ("codes", "jackcess/V1997/testIndexCodesV1997.mdb"),
        ("calc", "jackcess/V2010/calcFieldTestV2010.accdb"),
    ] {
        register_jet(&ctx, name, corpus.join(file), options.clone()).unwrap();
    }
    if fixture().exists() {
        register_jet(&ctx, "fx", fixture(), options).unwrap();
    }
    ctx
}

#[async_trait::async_trait]
impl sqllogictest::AsyncDB for Jet {
    type Error = SltError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SltError> {
        let df = self
            .ctx
            .sql(sql)
            .await
            .map_err(|e| SltError(e.to_string()))?;
        let schema = df.schema().as_arrow().clone();
        let batches = df.collect().await.map_err(|e| SltError(e.to_string()))?;
        Ok(db_output(&schema, &batches))
    }

    async fn shutdown(&mut self) {}
}

/// A writable session over a fresh copy of a generated database, for the
/// files in `tests/slt/dml/`: catalog `db` (and the default schema) is the
/// copy, writable; catalog `ro` is a second copy, read-only. After every
/// statement, failed or not, the database passes
/// [`jet_tests::consistency`]: the file itself (a fresh reader, which runs
/// recovery if needed), and inside an explicit transaction also the image
/// the transaction has built so far.
struct JetDml {
    session: JetSession,
    handle: std::sync::Arc<jet_provider::JetHandle>,
    path: PathBuf,
    statements: usize,
    _dir: tempfile::TempDir,
}

impl JetDml {
    fn new(fixture: &Path, pushdown: bool) -> JetDml {
        let dir = tempfile::tempdir().unwrap();
        let ext = fixture.extension().unwrap().to_string_lossy().to_string();
        let path = dir.path().join(format!("db.{ext}"));
        let ro = dir.path().join(format!("ro.{ext}"));
        std::fs::copy(fixture, &path).unwrap();
        std::fs::copy(fixture, &ro).unwrap();
        let session = JetSession::new(jet_provider::session_context(
            SessionConfig::new()
                .with_target_partitions(2)
                .with_information_schema(true),
        ));
        let options = JetOptions {
            pushdown,
            writable: true,
            ..Default::default()
        };
        let handle = session
            .register("db", &path, options.clone(), true)
            .unwrap();
        session
            .register(
                "ro",
                &ro,
                JetOptions {
                    writable: false,
                    ..options
                },
                false,
            )
            .unwrap();
        JetDml {
            session,
            handle,
            path,
            statements: 0,
            _dir: dir,
        }
    }

    fn check(&self, sql: &str) {
        let ctx = format!("after statement {} ({sql:?})", self.statements);
        if self.handle.in_transaction() {
            let db = self.handle.database().unwrap();
            jet_tests::consistency(&db, &format!("{ctx}, transaction image"));
        } else {
            let db = jet_storage::Database::open(&self.path, jet_storage::OpenOptions::default())
                .unwrap_or_else(|e| panic!("{ctx}: the file does not open: {e}"));
            jet_tests::consistency(&db, &format!("{ctx}, file"));
        }
    }
}

#[async_trait::async_trait]
impl sqllogictest::AsyncDB for JetDml {
    type Error = SltError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SltError> {
        if let Some(d) = sql.trim().strip_prefix("\\dialect ") {
            let d: jet_provider::SqlDialect = d.trim().parse().map_err(SltError)?;
            self.session.set_dialect(d);
            return Ok(DBOutput::StatementComplete(0));
        }
        self.statements += 1;
        let out = async {
            let df = self.session.sql_frame(sql).await?;
            let schema = df.schema().as_arrow().clone();
            let batches = df.collect().await?;
            Ok::<_, datafusion::error::DataFusionError>(db_output(&schema, &batches))
        }
        .await;
        self.check(sql);
        out.map_err(|e| SltError(e.to_string()))
    }

    async fn shutdown(&mut self) {}
}

/// Every `tests/slt/dml/*.slt` file, on fresh copies of the project's own
/// generated `fixtures/sample.mdb` (Jet4) and `fixtures/sample.accdb`
/// (ACE12), with index seeks for DELETE / UPDATE and without: the same
/// statements must give the same answers each way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slt_dml_files() {
    let root = jet_tests::workspace_root().join("fixtures");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("slt/dml");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        for fixture in ["sample.mdb", "sample.accdb"] {
            let fixture = root.join(fixture);
            assert!(fixture.exists(), "{} is missing", fixture.display());
            for pushdown in [true, false] {
                let fx = fixture.clone();
                let mut runner = sqllogictest::Runner::new(move || {
                    let db = JetDml::new(&fx, pushdown);
                    async move { Ok::<_, SltError>(db) }
                });
                runner.run_file_async(&f).await.unwrap_or_else(|e| {
                    panic!(
                        "{} on {} (pushdown {pushdown}): {e}",
                        f.display(),
                        fixture.display()
                    )
                });
            }
        }
        eprintln!(
            "{}: ok on both fixtures, with and without seeks",
            f.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slt_files() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("slt");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "slt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let name = f.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("fixtures") {
            assert!(
                fixture().exists(),
                "{} needs {}",
                f.display(),
                fixture().display()
            );
        }
        for pushdown in [true, false] {
            let c = corpus.clone();
            let mut runner = sqllogictest::Runner::new(move || {
                let options = JetOptions {
                    pushdown,
                    ..Default::default()
                };
                let ctx = session(&c, options);
                async move { Ok::<_, SltError>(Jet { ctx }) }
            });
            runner
                .run_file_async(&f)
                .await
                .unwrap_or_else(|e| panic!("{} (pushdown {pushdown}): {e}", f.display()));
        }
        eprintln!("{}: ok with and without pushdown", f.display());
    }
}
