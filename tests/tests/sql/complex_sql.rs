//! Complex columns through SQL: attachments, multi-value lists and version
//! histories typed as Arrow lists by the provider.
//!
//! Expected values come from Jackcess 4's
//! `src/test/java/com/healthmarketscience/jackcess/ComplexColumnTest.java`
//! (`testVersions`, `testAttachments`, `testMultiValues`, and its
//! `TEST_BYTES`/`TEST2_BYTES`), for the Jackcess `COMPLEX` test databases
//! (V2007, V2010) and UCanAccess's copy of that database
//! (`complex.accdb`, table `t_complex`; its rows 1–4 are Jackcess's).
//! Jackcess reads dates in America/New_York (EDT, UTC−4 in September
//! 2011), so its `new Date(ms)` is the zone-less stored time `ms − 4 h`.
//!
//! Without the corpus the tests skip, except under `CI=true`.

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, TimeUnit, TimestampMicrosecondType};
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, JetSession, JetTable, session_context};
use jet_storage::{Database, OpenOptions};
use std::path::PathBuf;
use std::sync::Arc;

/// The three copies of Jackcess's complex-data test database and the
/// table holding the complex columns in each.
const FILES: [(&str, &str); 3] = [
    ("jackcess/V2007/complexDataTestV2007.accdb", "Table1"),
    ("jackcess/V2010/complexDataTestV2010.accdb", "Table1"),
    ("ucanaccess/complex.accdb", "t_complex"),
];

/// The version history column of `append-memo-data` (as mdb-schema lists it).
const HISTORY: &str = "VersionHistory_F5F8918F-0A3F-4DA9-AE71-184EE5012880";

/// Jackcess ComplexColumnTest `TEST_BYTES` and `TEST2_BYTES`.
const TEST_BYTES: &[u8] = b"this is some test data for attachment.";
const TEST2_BYTES: &[u8] = b"this is some more test data for attachment.";

/// The rows Jackcess's tests check.
const ROWS: &str = "id IN ('row1', 'row2', 'row3', 'row4')";

fn corpus_file(rel: &str) -> Option<PathBuf> {
    jet_tests::corpus().map(|c| c.join(rel))
}

/// Jackcess's `new Date(ms)` in EDT as zone-less microseconds.
fn edt(ms: i64) -> i64 {
    (ms - 4 * 3600 * 1000) * 1000
}

/// Rows 1–4 as Jackcess ComplexColumnTest expects them: multi-values,
/// attachment file names, versions (newest first).
#[allow(clippy::type_complexity)]
fn expected() -> Vec<(
    &'static str,
    Vec<&'static str>,
    Vec<&'static str>,
    Vec<(&'static str, i64)>,
)> {
    vec![
        ("row1", vec![], vec![], vec![]),
        (
            "row2",
            vec!["value1", "value4"],
            vec!["test_data.txt", "test_data2.txt"],
            vec![("row2-memo", 1315876862334)],
        ),
        (
            "row3",
            vec!["value1", "value2", "value3", "value4"],
            vec![],
            vec![
                ("row3-memo-again", 1315876965382),
                ("row3-memo-revised", 1315876953077),
                ("row3-memo", 1315876879126),
            ],
        ),
        (
            "row4",
            vec![],
            vec!["test_data2.txt"],
            vec![("row4-memo", 1315876945758)],
        ),
    ]
}

fn file_bytes(name: &str) -> &'static [u8] {
    match name {
        "test_data.txt" => TEST_BYTES,
        "test_data2.txt" => TEST2_BYTES,
        other => panic!("unexpected attachment {other}"),
    }
}

/// A session over `path` with its tables under bare names.
fn session(path: &PathBuf, partitions: usize) -> (SessionContext, Database) {
    let ctx = session_context(SessionConfig::new().with_target_partitions(partitions));
    let db = Database::open(path, OpenOptions::default()).unwrap();
    jet_provider::register_jet_tables(&ctx, &db, JetOptions::default()).unwrap();
    (ctx, db)
}

async fn query(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn one(batches: &[RecordBatch]) -> RecordBatch {
    let schema = batches[0].schema();
    datafusion::arrow::compute::concat_batches(&schema, batches).unwrap()
}

/// Checks a batch of (id, multi, attachments, history) rows against
/// Jackcess's expectations.
fn check(b: &RecordBatch, what: &str) {
    assert_eq!(b.num_rows(), 4, "{what}");
    let ids = b.column(0).as_string::<i32>();
    let multi = b.column(1).as_list::<i32>();
    let attach = b.column(2).as_list::<i32>();
    let history = b.column(3).as_list::<i32>();
    for (r, (id, want_multi, want_files, want_versions)) in expected().into_iter().enumerate() {
        assert_eq!(ids.value(r), id, "{what}");
        let got: Vec<String> = multi
            .value(r)
            .as_string::<i32>()
            .iter()
            .map(|v| v.unwrap().to_string())
            .collect();
        assert_eq!(got, want_multi, "{what} {id} multi-values");
        let files = attach.value(r);
        let files = files.as_struct();
        let names = files
            .column_by_name("file_name")
            .unwrap()
            .as_string::<i32>();
        let types = files
            .column_by_name("file_type")
            .unwrap()
            .as_string::<i32>();
        let data = files
            .column_by_name("file_data")
            .unwrap()
            .as_binary::<i64>();
        assert_eq!(files.len(), want_files.len(), "{what} {id} attachments");
        for (i, name) in want_files.iter().enumerate() {
            assert_eq!(names.value(i), *name, "{what} {id}");
            assert_eq!(types.value(i), "txt", "{what} {id}");
            assert_eq!(data.value(i), file_bytes(name), "{what} {id} {name}");
        }
        let versions = history.value(r);
        let versions = versions.as_struct();
        let text = versions.column_by_name("value").unwrap().as_string::<i32>();
        let when = versions
            .column_by_name("modified")
            .unwrap()
            .as_primitive::<TimestampMicrosecondType>();
        let got: Vec<(String, i64)> = (0..versions.len())
            .map(|i| (text.value(i).to_string(), when.value(i)))
            .collect();
        let want: Vec<(String, i64)> = want_versions
            .iter()
            .map(|(v, ms)| (v.to_string(), edt(*ms)))
            .collect();
        assert_eq!(got, want, "{what} {id} versions");
    }
}

/// `SELECT` of the three complex columns gives Jackcess's values, typed
/// as the provider documents: `List<Utf8>`, `List<Struct<file_name, …>>`,
/// `List<Struct<value, modified>>`; with one partition and several.
#[tokio::test]
async fn select_gives_lists_equal_to_jackcess() {
    let mut checked = 0;
    for (rel, table) in FILES {
        let Some(path) = corpus_file(rel) else { return };
        for partitions in [1, 4] {
            let (ctx, _db) = session(&path, partitions);
            let sql = format!(
                r#"SELECT id, "multi-value-data", "attach-data", "{HISTORY}" FROM "{table}" WHERE {ROWS} ORDER BY id"#
            );
            let batches = query(&ctx, &sql).await;
            let b = one(&batches);
            let s = b.schema();
            let item = |i: usize| match s.field(i).data_type() {
                DataType::List(f) => f.data_type().clone(),
                other => panic!("{rel}: column {i} is {other}, not a list"),
            };
            assert_eq!(item(1), DataType::Utf8, "{rel}");
            let DataType::Struct(fields) = item(2) else {
                panic!("{rel}: attachments are not structs")
            };
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            assert_eq!(
                names,
                [
                    "file_name",
                    "file_type",
                    "file_data",
                    "file_url",
                    "file_timestamp",
                    "file_flags"
                ],
                "{rel}"
            );
            assert_eq!(fields[2].data_type(), &DataType::LargeBinary);
            assert_eq!(
                fields[4].data_type(),
                &DataType::Timestamp(TimeUnit::Microsecond, None)
            );
            let DataType::Struct(fields) = item(3) else {
                panic!("{rel}: versions are not structs")
            };
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            assert_eq!(names, ["value", "modified"], "{rel}");
            check(&b, &format!("{rel} ({partitions} partitions)"));
            checked += 1;
        }
    }
    assert_eq!(checked, 6);
}

/// DataFusion's array functions over the lists: `array_has` filters rows
/// (only row 3 has value2), `unnest` gives one row per value (2 + 4
/// values in rows 1–4), `array_length` counts them.
#[tokio::test]
async fn array_functions_work_on_complex_columns() {
    for (rel, table) in FILES {
        let Some(path) = corpus_file(rel) else { return };
        let (ctx, _db) = session(&path, 2);
        let has = query(
            &ctx,
            &format!(
                r#"SELECT id FROM "{table}" WHERE {ROWS} AND array_has("multi-value-data", 'value2') ORDER BY id"#
            ),
        )
        .await;
        let b = one(&has);
        let ids: Vec<&str> = b.column(0).as_string::<i32>().iter().flatten().collect();
        assert_eq!(ids, ["row3"], "{rel}");
        let values = query(
            &ctx,
            &format!(
                r#"SELECT v FROM (SELECT unnest("multi-value-data") AS v FROM "{table}" WHERE {ROWS}) ORDER BY v"#
            ),
        )
        .await;
        let b = one(&values);
        let got: Vec<&str> = b.column(0).as_string::<i32>().iter().flatten().collect();
        assert_eq!(
            got,
            ["value1", "value1", "value2", "value3", "value4", "value4"],
            "{rel}"
        );
        let len = query(
            &ctx,
            &format!(
                r#"SELECT array_length("multi-value-data") AS n, array_length("attach-data") AS a FROM "{table}" WHERE id = 'row3'"#
            ),
        )
        .await;
        let b = one(&len);
        let n = datafusion::arrow::compute::cast(b.column(0), &DataType::Int64).unwrap();
        assert_eq!(
            n.as_primitive::<datafusion::arrow::datatypes::Int64Type>()
                .value(0),
            4,
            "{rel}"
        );
        // row 3 has no attachments: an empty list, not a missing one
        let a = datafusion::arrow::compute::cast(b.column(1), &DataType::Int64).unwrap();
        assert!(
            a.is_null(0)
                || a.as_primitive::<datafusion::arrow::datatypes::Int64Type>()
                    .value(0)
                    == 0,
            "{rel}"
        );
    }
}

/// Lazy: a query that projects no complex column makes no expander (the
/// only reader of hidden tables) and reads fewer pages than one that
/// projects one; a filter or count over other columns makes none either.
#[tokio::test]
async fn a_projection_without_complex_columns_reads_no_hidden_table() {
    let (rel, table) = FILES[0];
    let Some(path) = corpus_file(rel) else { return };
    let pages = |sql: &'static str| {
        let path = path.clone();
        async move {
            let db = Database::open(&path, OpenOptions::default()).unwrap();
            let t = db.table(table).unwrap();
            let provider = Arc::new(JetTable::new(t, db.clone(), JetOptions::default()));
            let lists = provider.complex_lists().clone();
            let ctx = session_context(SessionConfig::new().with_target_partitions(1));
            ctx.register_table("t", provider).unwrap();
            let df = ctx.sql(sql).await.unwrap();
            let before = db.pages_read();
            df.collect().await.unwrap();
            (db.pages_read() - before, lists.expanders_made())
        }
    };
    for sql in [
        r#"SELECT id, "memo-data" FROM t"#,
        r#"SELECT count(*) FROM t"#,
        r#"SELECT id FROM t WHERE "append-memo-data" IS NOT NULL"#,
    ] {
        let (_, made) = pages(sql).await;
        assert_eq!(made, 0, "{sql}");
    }
    let (plain, _) = pages(r#"SELECT id, "memo-data" FROM t"#).await;
    let (with, made) = pages(r#"SELECT id, "memo-data", "attach-data" FROM t"#).await;
    assert_eq!(made, 1);
    assert!(
        with > plain,
        "{with} pages with attachments, {plain} without"
    );
}

/// An UPDATE of other columns keeps the row's complex values (its
/// complex ids are rewritten as read). Writes of complex values are
/// tested in `complex_write_sql.rs`.
#[tokio::test]
async fn an_update_of_other_columns_keeps_complex_values() {
    let (rel, table) = FILES[0];
    let Some(path) = corpus_file(rel) else { return };
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("complex.accdb");
    std::fs::copy(&path, &copy).unwrap();
    let mut perms = std::fs::metadata(&copy).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o600);
    std::fs::set_permissions(&copy, perms).unwrap();
    let s = JetSession::new(SessionContext::new());
    s.register(
        "db",
        &copy,
        JetOptions {
            writable: true,
            ..JetOptions::default()
        },
        true,
    )
    .unwrap();
    s.sql(&format!(
        r#"UPDATE "{table}" SET "memo-data" = 'changed' WHERE id = 'row2'"#
    ))
    .await
    .unwrap();
    let got = s
        .sql(&format!(
            r#"SELECT id, "multi-value-data", "attach-data", "{HISTORY}" FROM "{table}" WHERE {ROWS} ORDER BY id"#
        ))
        .await
        .unwrap();
    check(&one(&got), "after UPDATE of memo-data");
    let memo = s
        .sql(&format!(
            r#"SELECT "memo-data" FROM "{table}" WHERE id = 'row2'"#
        ))
        .await
        .unwrap();
    assert_eq!(one(&memo).column(0).as_string::<i32>().value(0), "changed");
}
