//! Regression tests of issue 16 part A: literals outside a column type's
//! range, of another numeric type, or decimals of another scale never
//! change an answer of an index seek, and a huge `IN` list is one seek.
//! Expected answers come from `mdb-export` (Northwind's order numbers) or
//! from the rows this file writes itself, and are checked with pushdown on
//! and off.

use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use jet_provider::{JetOptions, register_jet};
use std::path::Path;

fn session(file: &Path, pushdown: bool) -> SessionContext {
    let ctx = jet_provider::session_context(SessionConfig::new().with_target_partitions(2));
    let opts = JetOptions {
        pushdown,
        ..Default::default()
    };
    register_jet(&ctx, "db", file, opts).unwrap();
    ctx
}

async fn count(ctx: &SessionContext, sql: &str) -> i64 {
    let b = ctx
        .sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    b[0].column(0)
        .as_any()
        .downcast_ref::<datafusion::arrow::array::Int64Array>()
        .unwrap()
        .value(0)
}

async fn plan(ctx: &SessionContext, sql: &str) -> String {
    let p = ctx
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    displayable(p.as_ref()).indent(true).to_string()
}

/// Northwind's order numbers, as `mdb-export` reads them.
fn order_ids(file: &Path) -> Option<Vec<i64>> {
    let (prog, _) = jet_tests::require_mdb_export()?;
    // Ship addresses hold line breaks, so rows end with a record separator.
    let out = jet_tests::run_mdb_export(&prog, &["-R", "\u{1e}"], file, "Orders").unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let ids: Vec<i64> = text
        .split('\u{1e}')
        .filter(|l| !l.is_empty())
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 830);
    Some(ids)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_and_fractional_literals_on_a_long_key() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let file = corpus.join("mdbtools/nwind.mdb");
    let Some(ids) = order_ids(&file) else { return };
    let n = |f: &dyn Fn(i64) -> bool| ids.iter().filter(|&&i| f(i)).count() as i64;
    let cases: Vec<(&str, i64)> = vec![
        // 1: bounds the Long key cannot hold
        ("\"OrderID\" < 3000000000", n(&|_| true)),
        ("\"OrderID\" <= 3000000000", n(&|_| true)),
        ("\"OrderID\" > 3000000000", 0),
        ("\"OrderID\" = 3000000000", 0),
        ("\"OrderID\" = -3000000000", 0),
        ("\"OrderID\" >= -3000000000", n(&|_| true)),
        ("\"OrderID\" < -3000000000", 0),
        (
            "\"OrderID\" > -3000000000 AND \"OrderID\" <= 10300",
            n(&|i| i <= 10300),
        ),
        (
            "\"OrderID\" BETWEEN -3000000000 AND 3000000000",
            n(&|_| true),
        ),
        ("\"OrderID\" < 9223372036854775807", n(&|_| true)),
        ("\"OrderID\" > -9223372036854775808", n(&|_| true)),
        // 2: literals of another numeric type
        ("\"OrderID\" = 10250.0", n(&|i| i == 10250)),
        ("\"OrderID\" = 10250.5", 0),
        ("\"OrderID\" > 10300.5", n(&|i| i > 10300)),
        ("\"OrderID\" >= 10300.5", n(&|i| i > 10300)),
        ("\"OrderID\" < 10300.5", n(&|i| i <= 10300)),
        ("\"OrderID\" <= 10300.5", n(&|i| i <= 10300)),
        ("\"OrderID\" < 19.5", 0),
        ("\"OrderID\" > -10300.5", n(&|_| true)),
        (
            "\"OrderID\" BETWEEN 10249.5 AND 10252.5",
            n(&|i| (10250..=10252).contains(&i)),
        ),
        (
            "\"OrderID\" IN (10250.0, 10251, 3000000000, 10250.5)",
            n(&|i| i == 10250 || i == 10251),
        ),
        ("\"OrderID\" = CAST('10250' AS DOUBLE)", n(&|i| i == 10250)),
        ("\"OrderID\" > CAST('10300.5' AS DOUBLE)", n(&|i| i > 10300)),
        ("\"OrderID\" < CAST('inf' AS DOUBLE)", n(&|_| true)),
        ("\"OrderID\" > CAST('-inf' AS DOUBLE)", n(&|_| true)),
        ("\"OrderID\" > CAST('inf' AS DOUBLE)", 0),
        (
            "\"OrderID\" = CAST(10250 AS DECIMAL(38, 10))",
            n(&|i| i == 10250),
        ),
    ];
    let (on, off) = (session(&file, true), session(&file, false));
    for (pred, want) in cases {
        let sql = format!(r#"SELECT count(*) FROM db.public."Orders" WHERE {pred}"#);
        assert_eq!(count(&on, &sql).await, want, "pushdown on: {sql}");
        assert_eq!(count(&off, &sql).await, want, "pushdown off: {sql}");
    }
    // they still seek: the bound is clamped, not given up
    for pred in ["\"OrderID\" < 3000000000", "\"OrderID\" > 10300.5"] {
        let p = plan(
            &on,
            &format!(r#"SELECT count(*) FROM db.public."Orders" WHERE {pred}"#),
        )
        .await;
        assert!(p.contains("IndexSeekExec"), "{pred}: {p}");
    }
    // NaN is not sought; DataFusion orders it above every number
    let sql = r#"SELECT count(*) FROM db.public."Orders" WHERE "OrderID" < CAST('NaN' AS DOUBLE)"#;
    assert_eq!(count(&on, sql).await, count(&off, sql).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_in_list_is_one_seek() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let file = corpus.join("mdbtools/nwind.mdb");
    let Some(ids) = order_ids(&file) else { return };
    // 20,000 values: every third number from 0, with repeats
    let values: Vec<i64> = (0..20_000).map(|k| (k * 3) % 30_000).collect();
    let want = ids.iter().filter(|i| values.contains(i)).count() as i64;
    let list = values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(r#"SELECT count(*) FROM db.public."Orders" WHERE "OrderID" IN ({list})"#);
    let on = session(&file, true);
    let p = plan(&on, &sql).await;
    assert_eq!(p.matches("IndexSeekExec").count(), 1, "{p}");
    assert!(!p.contains("UnionExec"), "{p}");
    assert!(p.contains("OrderID in 20000 values"), "{p}");
    assert_eq!(count(&on, &sql).await, want);
    assert_eq!(count(&session(&file, false), &sql).await, want);
}

/// A table of one row per limit value, written here: `(column, SQL type
/// literal, rows)` facts below are counted from these rows by hand.
fn limits_db(dir: &Path) -> std::path::PathBuf {
    use datafusion::arrow::array::{
        ArrayRef, Decimal128Array, Float32Array, Int16Array, Int64Array, RecordBatch,
        TimestampMicrosecondArray, UInt8Array,
    };
    use jet_storage::page::image::MemImage;
    use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, Writer, new_database};
    use jet_storage::{JetType, JetVersion};
    use std::sync::Arc;
    let mut spec = TableSpec::new(
        "Limits",
        vec![
            ColumnSpec::new("B", JetType::Byte),
            ColumnSpec::new("I", JetType::Integer),
            ColumnSpec::new("G", JetType::BigInt),
            ColumnSpec::new("S", JetType::Single),
            ColumnSpec::new("C", JetType::Currency),
            ColumnSpec::numeric("N", 18, 3),
            ColumnSpec::new("T", JetType::DateTime),
        ],
    );
    for c in ["B", "I", "G", "S", "C", "N", "T"] {
        spec = spec.index(IndexSpec::new(&format!("ix{c}"), &[c]));
    }
    let cols: Vec<(&str, ArrayRef)> = vec![
        ("B", Arc::new(UInt8Array::from(vec![0, 255, 7, 7]))),
        (
            "I",
            Arc::new(Int16Array::from(vec![i16::MIN, i16::MAX, 0, 5])),
        ),
        (
            "G",
            Arc::new(Int64Array::from(vec![i64::MIN, i64::MAX, (1 << 53) + 1, 0])),
        ),
        (
            "S",
            Arc::new(Float32Array::from(vec![0.1, -0.0, 1.5, 3e38])),
        ),
        (
            "C",
            Arc::new(
                Decimal128Array::from(vec![21_712_942, i64::MIN.into(), i64::MAX.into(), 5])
                    .with_precision_and_scale(19, 4)
                    .unwrap(),
            ),
        ),
        (
            "N",
            Arc::new(
                Decimal128Array::from(vec![1_500, -1, 999_999_999_999_999_999, 2_171_294])
                    .with_precision_and_scale(18, 3)
                    .unwrap(),
            ),
        ),
        (
            "T",
            // 0100-01-01, 9999-12-31 23:59:59, 1899-12-29 18:00, 1996-07-04
            Arc::new(TimestampMicrosecondArray::from(vec![
                -59_011_459_200_000_000,
                253_402_300_799_000_000,
                -2_209_183_200_000_000,
                836_438_400_000_000,
            ])),
        ),
    ];
    let batch = RecordBatch::try_from_iter(cols).unwrap();
    let bytes = new_database(JetVersion::Ace16, jet_fixtures::CREATED).unwrap();
    let mut w = Writer::new(MemImage { bytes }).unwrap();
    w.transaction(|tx| {
        tx.create_table(&spec)?;
        tx.insert("Limits", &batch)?;
        Ok(())
    })
    .unwrap();
    let path = dir.join("limits.accdb");
    std::fs::write(&path, w.into_target().bytes).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounds_clamp_for_every_key_type() {
    let dir = tempfile::tempdir().unwrap();
    let file = limits_db(dir.path());
    let cases: &[(&str, i64)] = &[
        // Byte is unsigned 0..=255
        ("\"B\" < 256", 4),
        ("\"B\" > 255", 0),
        ("\"B\" >= -1", 4),
        ("\"B\" = -1", 0),
        ("\"B\" = 7.0", 2),
        ("\"B\" > 6.5", 3),
        ("\"B\" <= 254.9", 3),
        // Integer
        ("\"I\" < 32768", 4),
        ("\"I\" >= 32768", 0),
        ("\"I\" > -32769", 4),
        ("\"I\" = -32768", 1),
        ("\"I\" BETWEEN -40000 AND 4.5", 2),
        // BigInt beyond i64, and a float literal (compared as Double)
        ("\"G\" < 18446744073709551615", 4),
        ("\"G\" > 18446744073709551615", 0),
        ("\"G\" >= 9223372036854775807", 1),
        ("\"G\" = 9007199254740993", 1),
        // Single: a decimal literal compares as Double
        ("\"S\" = 1.5", 1),
        ("\"S\" < 0.1", 1),
        ("\"S\" > CAST('1e300' AS DOUBLE)", 0),
        ("\"S\" < CAST('3.5e38' AS DOUBLE)", 4),
        // Currency: decimal literals of other scales, exact
        ("\"C\" = 2171.2942", 1),
        ("\"C\" = 2171.29420000", 1),
        ("\"C\" = 2171.29421", 0),
        ("\"C\" > 2171.29419", 2),
        ("\"C\" < 0.00051", 2),
        ("\"C\" > 922337203685477.5807", 0),
        ("\"C\" >= 922337203685477.5807", 1),
        ("\"C\" < 1000000000000000", 4),
        ("\"C\" > -1000000000000000", 4),
        ("\"C\" = 5", 0),
        ("\"C\" = 0.0005", 1),
        // Numeric(18, 3)
        ("\"N\" = 1.5", 1),
        ("\"N\" = 1.50000", 1),
        ("\"N\" = 2171.294", 1),
        ("\"N\" > 2171.2935", 2),
        ("\"N\" < -0.0005", 1),
        ("\"N\" < 1000000000000000000000", 4),
        ("\"N\" > 1000000000000000", 0),
        ("\"N\" > 999999999999999.998", 1),
        ("\"N\" = 2", 0),
        // Date/Time outside Access's range
        ("\"T\" < TIMESTAMP '2200-01-01 00:00:00'", 3),
        (
            "\"T\" > arrow_cast('0099-12-31T00:00:00', 'Timestamp(Microsecond, None)')",
            4,
        ),
        (
            "\"T\" < arrow_cast('0099-12-31T00:00:00', 'Timestamp(Microsecond, None)')",
            0,
        ),
        ("\"T\" >= TIMESTAMP '1899-12-29 18:00:00'", 3),
        ("\"T\" = DATE '1996-07-04'", 1),
    ];
    let (on, off) = (session(&file, true), session(&file, false));
    for (pred, want) in cases {
        let sql = format!(r#"SELECT count(*) FROM db.public."Limits" WHERE {pred}"#);
        assert_eq!(count(&on, &sql).await, *want, "pushdown on: {sql}");
        assert_eq!(count(&off, &sql).await, *want, "pushdown off: {sql}");
    }
}

/// A multi-range seek returns exactly the entries of one seek per range,
/// once each, in key order: dense and sparse range sets (the sparse ones
/// descend again between ranges) on the multi-level indexes of a
/// generated table.
#[test]
fn multi_range_seek_equals_one_seek_per_range() {
    use jet_storage::index::KeyMatch;
    use jet_storage::index::key::{KeyValue, first_column_bounds};
    use std::ops::Bound;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.mdb");
    let bytes = jet_fixtures::bench(jet_storage::JetVersion::Jet4, 5000, true).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let db = jet_storage::Database::open(&path, Default::default()).unwrap();
    let t = db.table("Bench").unwrap();
    let mut rng = jet_fixtures::Rng::new(0x5EEC);
    let mut checked = 0;
    // real index 0: the primary key on ID (1..=5000); 1: Amount (random)
    for (index, col_name, span) in [(0usize, "ID", 6000i64), (1, "Amount", 2_000_000_000)] {
        let idx = t.index(index).unwrap();
        assert!(idx.height().unwrap() >= 2);
        let col = t.def().columns.iter().find(|c| c.name == col_name).unwrap();
        let dir = t.def().real_indexes[index].key[0].1;
        for (count, width) in [
            (3usize, 1i64),
            (40, 1),
            (400, 1),
            (30, 50),
            (5, 300_000_000),
        ] {
            let mut ranges: Vec<jet_provider::KeyRange> = (0..count)
                .filter_map(|_| {
                    let lo = rng.below(span as u64) as i64 - if index == 1 { span / 2 } else { 0 };
                    let (a, b) = (KeyValue::Int(lo), KeyValue::Int(lo + width - 1));
                    first_column_bounds(
                        col,
                        dir,
                        Bound::Included(&a),
                        Bound::Included(&b),
                        db.version(),
                    )
                    .unwrap()
                })
                .collect();
            ranges.sort_by(|a, b| match (&a.0, &b.0) {
                (Bound::Included(x), Bound::Included(y)) => x.cmp(y),
                _ => unreachable!("closed ranges"),
            });
            let refs: Vec<_> = ranges
                .iter()
                .map(|(l, h)| {
                    (
                        l.as_ref().map(|v| v.as_slice()),
                        h.as_ref().map(|v| v.as_slice()),
                    )
                })
                .collect();
            let got: Vec<_> = idx
                .seek_ranges(&refs, KeyMatch::Prefix)
                .unwrap()
                .into_iter()
                .map(|e| (e.key, e.bookmark))
                .collect();
            let mut want: Vec<_> = refs
                .iter()
                .flat_map(|(l, h)| idx.seek(*l, *h, KeyMatch::Prefix).unwrap())
                .map(|e| (e.key, e.bookmark))
                .collect();
            want.sort();
            want.dedup();
            let mut sorted = got.clone();
            sorted.sort();
            assert_eq!(sorted, want, "{col_name}: {count} ranges of width {width}");
            assert!(
                got.windows(2).all(|w| w[0].0 <= w[1].0),
                "{col_name}: entries in key order"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 10);
}
