//! Multi-file tables (issue 26): an archive of 200 databases written by
//! the writer (varied row counts, one file with an extra column, one with
//! a wider, differently spelled quantity column, one damaged file) read as
//! one table. Expected values are the rows the generator wrote (never read
//! back through jetsql), the single-file provider's per-file answers, and
//! mdb-export for a few files.

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, Int32Type, TimestampMicrosecondType, UInt8Type,
};
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_fixtures::archive::{ArchiveEntry, Variant, archive_file, damage, write_archive};
use jet_provider::archive::{JetFilesFunction, JetFilesOptions, register_jet_files};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Files in the shared archive.
const FILES: u32 = 200;

struct Archive {
    dir: tempfile::TempDir,
    entries: Vec<ArchiveEntry>,
    damaged: PathBuf,
}

/// The shared archive: 200 good files and `2020/damaged.mdb`.
fn archive() -> &'static Archive {
    static A: OnceLock<Archive> = OnceLock::new();
    A.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let entries = write_archive(dir.path(), FILES).unwrap();
        let damaged = dir.path().join("2020/damaged.mdb");
        std::fs::write(&damaged, archive_file(9_999, Variant::Plain).unwrap().0).unwrap();
        damage(&damaged).unwrap();
        Archive {
            dir,
            entries,
            damaged,
        }
    })
}

impl Archive {
    /// Every file, the damaged one too.
    fn all(&self) -> String {
        format!("{}/**/*.mdb", self.dir.path().display())
    }
    /// The good files only.
    fn good(&self) -> String {
        format!("{}/**/site_*.mdb", self.dir.path().display())
    }
    fn total_rows(&self) -> usize {
        self.entries.iter().map(|e| e.rows.len()).sum()
    }
}

fn ctx(partitions: usize) -> SessionContext {
    jet_provider::session_context(SessionConfig::new().with_target_partitions(partitions))
}

fn skip() -> JetFilesOptions {
    JetFilesOptions {
        skip_errors: true,
        ..JetFilesOptions::default()
    }
}

async fn query(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// One row as compared: file, OrderID, Site, Amount (1/10000), Qty,
/// OrderDate (µs), Note, Priority.
type Row = (
    String,
    i32,
    String,
    i128,
    i32,
    i64,
    Option<String>,
    Option<u8>,
);

/// The rows of `batches`, columns found by name ignoring case; `_file`
/// from the batch or `file`, Priority NULL when absent.
fn rows_of(batches: &[RecordBatch], file: Option<&str>) -> Vec<Row> {
    let mut out = Vec::new();
    for b in batches {
        let col = |name: &str| {
            b.schema()
                .fields()
                .iter()
                .position(|f| f.name().eq_ignore_ascii_case(name))
                .map(|i| b.column(i).clone())
        };
        let id = col("OrderID").unwrap();
        let site = col("Site").unwrap();
        let amount = col("Amount").unwrap();
        let qty = cast(&col("Qty").unwrap(), &DataType::Int32).unwrap();
        let date = col("OrderDate").unwrap();
        let note = col("Note").unwrap();
        let prio = col("Priority");
        let files = col("_file");
        for i in 0..b.num_rows() {
            let note = note.as_string::<i32>();
            out.push((
                match &files {
                    Some(f) => f.as_string::<i32>().value(i).to_string(),
                    None => file.unwrap().to_string(),
                },
                id.as_primitive::<Int32Type>().value(i),
                site.as_string::<i32>().value(i).to_string(),
                amount.as_primitive::<Decimal128Type>().value(i),
                qty.as_primitive::<Int32Type>().value(i),
                date.as_primitive::<TimestampMicrosecondType>().value(i),
                note.is_valid(i).then(|| note.value(i).to_string()),
                prio.as_ref().and_then(|p| {
                    let p = p.as_primitive::<UInt8Type>();
                    p.is_valid(i).then(|| p.value(i))
                }),
            ));
        }
    }
    out.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    out
}

/// The rows the generator wrote.
fn written(entries: &[ArchiveEntry]) -> Vec<Row> {
    let mut out: Vec<Row> = entries
        .iter()
        .flat_map(|e| {
            let file = jet_provider::archive::shown(&e.path);
            e.rows.iter().map(move |r| {
                (
                    file.clone(),
                    r.order_id,
                    r.site.clone(),
                    i128::from(r.amount_cents) * 100,
                    i32::from(r.qty),
                    r.order_date,
                    r.note.clone(),
                    r.priority,
                )
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn union_equals_written_rows_and_per_file_queries() {
    let a = archive();
    let ctx = ctx(4);
    let t = register_jet_files(&ctx, "orders", a.all().as_str(), "Orders", skip()).unwrap();
    let warnings = t.stats().warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("damaged.mdb"), "{warnings:?}");
    let schema = datafusion::catalog::TableProvider::schema(t.as_ref());
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "OrderID",
            "Site",
            "Amount",
            "Qty",
            "OrderDate",
            "Note",
            "Priority",
            "_file"
        ]
    );
    // Integer in 199 files, Long (spelled QTY) in one: Long
    assert_eq!(schema.field(3).data_type(), &DataType::Int32);
    let expected = written(&a.entries);
    assert_eq!(expected.len(), a.total_rows());
    assert!(
        expected.iter().any(|r| r.7.is_some()),
        "the extra column has values"
    );
    let got = rows_of(&query(&ctx, "SELECT * FROM orders").await, None);
    assert_eq!(got.len(), expected.len());
    assert!(got == expected, "the union differs from the rows written");
    // the same rows through the single-file provider, file by file
    let single = ctx_single();
    let mut per_file = Vec::new();
    for (i, e) in a.entries.iter().enumerate() {
        jet_provider::register_jet(&single, &format!("f{i}"), &e.path, Default::default()).unwrap();
        let b = query(&single, &format!("SELECT * FROM f{i}.public.\"Orders\"")).await;
        per_file.extend(rows_of(&b, Some(&jet_provider::archive::shown(&e.path))));
    }
    per_file.sort_by(|x, y| (&x.0, x.1).cmp(&(&y.0, y.1)));
    assert!(
        got == per_file,
        "the union differs from the per-file queries"
    );
}

fn ctx_single() -> SessionContext {
    ctx(2)
}

#[tokio::test(flavor = "multi_thread")]
async fn aggregates_and_pushed_filters_agree_at_any_partitioning() {
    let a = archive();
    let expected = written(&a.entries);
    for partitions in [1, 3, 8] {
        let ctx = ctx(partitions);
        register_jet_files(
            &ctx,
            "orders",
            a.good().as_str(),
            "orders",
            JetFilesOptions::default(),
        )
        .unwrap();
        // GROUP BY _file: counts and sums per file
        let b = query(
            &ctx,
            r#"SELECT _file, count(*) AS n, sum("Qty") AS q FROM orders GROUP BY _file ORDER BY _file"#,
        )
        .await;
        let mut got = Vec::new();
        for b in &b {
            for i in 0..b.num_rows() {
                got.push((
                    b.column(0).as_string::<i32>().value(i).to_string(),
                    b.column(1)
                        .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
                        .value(i),
                    b.column(2)
                        .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
                        .value(i),
                ));
            }
        }
        let mut want: Vec<(String, i64, i64)> = a
            .entries
            .iter()
            .filter(|e| !e.rows.is_empty())
            .map(|e| {
                (
                    jet_provider::archive::shown(&e.path),
                    e.rows.len() as i64,
                    e.rows.iter().map(|r| i64::from(r.qty)).sum(),
                )
            })
            .collect();
        want.sort();
        assert_eq!(got, want, "{partitions} partitions");
        // an indexed filter (seeks in every file) and one on a column whose
        // type differs in one file (applied above that file's scan)
        for (sql, keep) in [
            (
                "SELECT * FROM orders WHERE \"Site\" = 'Süd'",
                Box::new(|r: &Row| r.2 == "Süd") as Box<dyn Fn(&Row) -> bool>,
            ),
            (
                r#"SELECT * FROM orders WHERE "Qty" > 250"#,
                Box::new(|r: &Row| r.4 > 250),
            ),
            (
                r#"SELECT * FROM orders WHERE "Priority" IS NOT NULL"#,
                Box::new(|r: &Row| r.7.is_some()),
            ),
        ] {
            let got = rows_of(&query(&ctx, sql).await, None);
            let want: Vec<Row> = expected.iter().filter(|r| keep(r)).cloned().collect();
            assert!(!want.is_empty(), "{sql}");
            assert!(got == want, "{sql} at {partitions} partitions");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn file_filters_open_only_the_files_they_name() {
    let a = archive();
    let ctx = ctx(4);
    let t = register_jet_files(
        &ctx,
        "orders",
        a.good().as_str(),
        "Orders",
        JetFilesOptions::default(),
    )
    .unwrap();
    let files: Vec<String> = t.files().iter().map(|s| s.to_string()).collect();
    assert_eq!(files.len(), FILES as usize);
    let rows_in = |pred: &dyn Fn(&str) -> bool| -> i64 {
        a.entries
            .iter()
            .filter(|e| pred(&jet_provider::archive::shown(&e.path)))
            .map(|e| e.rows.len() as i64)
            .sum()
    };
    let year = format!("{}/2019/", jet_provider::archive::shown(a.dir.path()));
    let cases: Vec<(String, usize, i64)> = vec![
        (
            format!("_file = '{}'", files[10]),
            1,
            rows_in(&|f| f == files[10]),
        ),
        (
            format!(
                "_file IN ('{}', '{}', '{}')",
                files[1], files[2], files[150]
            ),
            3,
            rows_in(&|f| f == files[1] || f == files[2] || f == files[150]),
        ),
        (
            "_file LIKE '%/2019/%'".to_string(),
            files.iter().filter(|f| f.contains("/2019/")).count(),
            rows_in(&|f| f.contains("/2019/")),
        ),
        (
            format!("starts_with(_file, '{year}site_00')"),
            files
                .iter()
                .filter(|f| f.starts_with(&format!("{year}site_00")))
                .count(),
            rows_in(&|f| f.starts_with(&format!("{year}site_00"))),
        ),
        ("_file = 'no such file'".to_string(), 0, 0),
    ];
    for (filter, opened, rows) in cases {
        let before = t.stats().scan_opens();
        let b = query(&ctx, &format!("SELECT count(*) FROM orders WHERE {filter}")).await;
        let n = b[0]
            .column(0)
            .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
            .value(0);
        assert_eq!(n, rows, "{filter}");
        assert_eq!(
            t.stats().scan_opens() - before,
            opened,
            "files opened for {filter}"
        );
    }
    // no file is open once the queries are done
    assert_eq!(t.stats().open_now(), 0);
}

/// A copy of the first `n` files of the archive in a new folder.
fn copy_of(a: &Archive, n: usize) -> (tempfile::TempDir, Vec<(PathBuf, usize)>) {
    let dir = tempfile::tempdir().unwrap();
    let files = a.entries[..n]
        .iter()
        .map(|e| {
            let to = dir.path().join(e.path.file_name().unwrap());
            std::fs::copy(&e.path, &to).unwrap();
            (to, e.rows.len())
        })
        .collect();
    (dir, files)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_file_fails_by_name_or_is_skipped_and_reported() {
    let a = archive();
    // found damaged while the table is made
    let e = register_jet_files(
        &ctx(2),
        "t",
        a.all().as_str(),
        "Orders",
        JetFilesOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains(&jet_provider::archive::shown(&a.damaged)), "{e}");
    // damaged after the table was made: found while the query runs
    let (dir, files) = copy_of(a, 8);
    let pattern = format!("{}/*.mdb", dir.path().display());
    let ctx = ctx(2);
    register_jet_files(
        &ctx,
        "strict",
        pattern.as_str(),
        "Orders",
        JetFilesOptions::default(),
    )
    .unwrap();
    let lenient = register_jet_files(&ctx, "lenient", pattern.as_str(), "Orders", skip()).unwrap();
    let (victim, lost) = &files[3];
    damage(victim).unwrap();
    let e = ctx
        .sql("SELECT count(*) FROM strict")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains(&jet_provider::archive::shown(victim)), "{e}");
    let b = query(&ctx, "SELECT count(*) FROM lenient").await;
    let n = b[0]
        .column(0)
        .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
        .value(0);
    let all: usize = files.iter().map(|f| f.1).sum();
    assert_eq!(n as usize, all - lost);
    let w = lenient.stats().take_warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(&jet_provider::archive::shown(victim)),
        "{w:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_table_function_reads_globs_lists_and_options() {
    let a = archive();
    let ctx = ctx(4);
    let b = query(
        &ctx,
        &format!("SELECT count(*) FROM jet_files('{}', 'Orders')", a.good()),
    )
    .await;
    let n = b[0]
        .column(0)
        .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
        .value(0);
    assert_eq!(n as usize, a.total_rows());
    let (x, y) = (&a.entries[3], &a.entries[7]);
    let b = query(
        &ctx,
        &format!(
            "SELECT count(*), count(\"Priority\") FROM jet_files(['{}', '{}'], 'orders')",
            x.path.display(),
            y.path.display()
        ),
    )
    .await;
    let c = |i: usize| {
        b[0].column(i)
            .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
            .value(0)
    };
    assert_eq!(c(0) as usize, x.rows.len() + y.rows.len());
    assert_eq!(
        c(1) as usize,
        y.rows.iter().filter(|r| r.priority.is_some()).count()
    );
    // options; the skipped file is reported by the session's function
    let b = query(
        &ctx,
        &format!(
            "SELECT count(*) FROM jet_files('{}', 'Orders', 'skip_errors, max_open=3')",
            a.all()
        ),
    )
    .await;
    let n = b[0]
        .column(0)
        .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
        .value(0);
    assert_eq!(n as usize, a.total_rows());
    let state = ctx.state();
    let f = state
        .table_functions()
        .get("jet_files")
        .unwrap()
        .function()
        .clone();
    let any: &dyn std::any::Any = f.as_ref();
    let f = any.downcast_ref::<JetFilesFunction>().unwrap();
    let w = f.stats().take_warnings();
    assert!(w.iter().any(|w| w.contains("damaged.mdb")), "{w:?}");
    let e = ctx
        .sql(&format!(
            "SELECT * FROM jet_files('{}', 'Orders', 'colour=red')",
            a.good()
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("colour"), "{e}");
}

#[test]
fn mdb_export_agrees_on_sampled_files() {
    let Some((prog, _)) = jet_tests::require_mdb_export() else {
        return;
    };
    let a = archive();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let ctx = ctx(2);
    rt.block_on(async {
        register_jet_files(
            &ctx,
            "orders",
            a.good().as_str(),
            "Orders",
            JetFilesOptions::default(),
        )
        .unwrap();
    });
    // a plain file, the one with the extra column, the one with QTY
    for n in [0usize, 7, 11, 123] {
        let e = &a.entries[n];
        let out = jet_tests::run_mdb_export(&prog, &[], &e.path, "Orders").unwrap();
        let mut r = csv::Reader::from_reader(out.stdout.as_slice());
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
        let at = |name: &str| header.iter().position(|h| h.eq_ignore_ascii_case(name));
        let mut oracle: Vec<(i32, String, i32, String, Option<u8>)> = r
            .records()
            .map(|rec| {
                let rec = rec.unwrap();
                (
                    rec[at("OrderID").unwrap()].parse().unwrap(),
                    rec[at("Site").unwrap()].to_string(),
                    rec[at("Qty").unwrap()].parse().unwrap(),
                    rec[at("Note").unwrap()].to_string(),
                    at("Priority").map(|p| rec[p].parse().unwrap()),
                )
            })
            .collect();
        oracle.sort();
        let shown = jet_provider::archive::shown(&e.path);
        let b = rt.block_on(query(
            &ctx,
            &format!("SELECT * FROM orders WHERE _file = '{shown}'"),
        ));
        let mut ours: Vec<(i32, String, i32, String, Option<u8>)> = rows_of(&b, None)
            .into_iter()
            .map(|r| (r.1, r.2, r.4, r.6.unwrap_or_default(), r.7))
            .collect();
        ours.sort();
        assert_eq!(ours.len(), e.rows.len(), "{shown}");
        assert_eq!(ours, oracle, "{shown} against {}", out.command);
    }
}

/// Environment variable the child of the descriptor test runs under.
const CHILD: &str = "JET_ARCHIVE_FD_CHILD";

/// 5,000 files (links to one small database) read as one table in a
/// process allowed 64 descriptors: the open-files bound keeps the scan
/// within it.
#[test]
fn five_thousand_files_fit_in_64_descriptors() {
    if let Some(dir) = std::env::var_os(CHILD) {
        return five_thousand_child(Path::new(&dir));
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 64 && exec \"$0\" \"$@\"")
        .arg(&exe)
        .args([
            "--exact",
            "archive::five_thousand_files_fit_in_64_descriptors",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, dir.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(text.contains("5000 files read"), "{text}");
}

fn five_thousand_child(dir: &Path) {
    let (bytes, rows) = archive_file(3, Variant::Plain).unwrap();
    assert!(!rows.is_empty());
    let first = dir.join("base.mdb");
    std::fs::write(&first, bytes).unwrap();
    for i in 0..5_000 {
        std::fs::hard_link(&first, dir.join(format!("f{i:05}.mdb"))).unwrap();
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()
        .unwrap();
    let ctx = ctx(16);
    let options = JetFilesOptions {
        max_open: 16,
        ..JetFilesOptions::default()
    };
    let pattern = format!("{}/f*.mdb", dir.display());
    let t = register_jet_files(&ctx, "many", pattern.as_str(), "Orders", options).unwrap();
    let b = rt.block_on(query(
        &ctx,
        "SELECT count(*), count(DISTINCT _file) FROM many",
    ));
    let c = |i: usize| {
        b[0].column(i)
            .as_primitive::<datafusion::arrow::datatypes::Int64Type>()
            .value(0)
    };
    assert_eq!(c(0) as usize, 5_000 * rows.len());
    assert_eq!(c(1), 5_000);
    assert_eq!(t.stats().scan_opens(), 5_000);
    assert!(
        t.stats().max_open_at_once() <= 16,
        "{}",
        t.stats().max_open_at_once()
    );
    println!(
        "5000 files read, at most {} open at once",
        t.stats().max_open_at_once()
    );
}

#[test]
fn stats_start_empty() {
    // a table made over one file counts one schema read and nothing else
    let a = archive();
    let t = jet_provider::JetFilesTable::try_new(
        &jet_provider::archive::FileSource::List(vec![a.entries[0].path.clone()]),
        "Orders",
        JetFilesOptions::default(),
    )
    .unwrap();
    assert_eq!(t.stats().schema_opens(), 1);
    assert_eq!(t.stats().scan_opens(), 0);
}
