//! NOT NULL and column defaults, written as Access writes them: the
//! column's `Required` and `DefaultValue` properties in the table's property
//! map (`LvProp`) in MSysObjects. The reader exposes them (`jet.required`,
//! `jet.default`), mdbtools' `mdb-prop` shows them, inserts apply the
//! defaults to omitted columns, NULLs in required columns are refused on
//! insert and update (file byte-identical), and a default the writer cannot
//! evaluate is refused at CREATE TABLE.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float64Type, Int32Type, TimestampMicrosecondType, UInt8Type,
};
use arrow_array::{Array, ArrayRef, Int32Array, RecordBatch, StringArray};
use jet_storage::error::WriteError;
use jet_storage::page::image::MemImage;
use jet_storage::write::{ColumnSpec, IndexSpec, TableSpec, Writer, new_database};
use jet_storage::{Database, Error, JetType, JetVersion, ScanOptions};
use std::sync::Arc;

const CLOCK: i64 = 946_684_800_000_000;
/// 2024-05-06 07:08:09.250 (what `Now()` evaluates to in these tests).
const NOW: i64 = 1_714_979_289_250_000;

fn spec() -> TableSpec {
    TableSpec::new(
        "Orders",
        vec![
            ColumnSpec::new("id", JetType::Long).auto_number(),
            ColumnSpec::new("qty", JetType::Long)
                .not_null()
                .default_value("0"),
            ColumnSpec::text("status", 10).default_value("\"new \"\"A\"\"\""),
            ColumnSpec::new("rush", JetType::Boolean).default_value("Yes"),
            ColumnSpec::new("due", JetType::DateTime).default_value("#2024-01-31#"),
            ColumnSpec::new("placed", JetType::DateTime).default_value("Now()"),
            ColumnSpec::new("day", JetType::DateTime).default_value("=Date()"),
            ColumnSpec::new("price", JetType::Currency).default_value("2.5"),
            ColumnSpec::new("ratio", JetType::Double).default_value("1.5E3"),
            ColumnSpec::new("small", JetType::Byte).default_value("7"),
            ColumnSpec::new("note", JetType::Memo).not_null(),
        ],
    )
    .index(IndexSpec::primary("PrimaryKey", &["id"]))
}

fn writer(v: JetVersion) -> Writer<MemImage> {
    let mut w = Writer::new(MemImage {
        bytes: new_database(v, CLOCK).unwrap(),
    })
    .unwrap();
    w.set_now(Some(NOW));
    w
}

fn notes(v: &[Option<&str>]) -> RecordBatch {
    RecordBatch::try_from_iter(vec![(
        "note",
        Arc::new(StringArray::from(v.to_vec())) as ArrayRef,
    )])
    .unwrap()
}

fn write_error(e: &Error) -> &WriteError {
    match e {
        Error::Write(w) => w,
        e => panic!("not a write error: {e}"),
    }
}

fn scan(db: &Database, table: &str) -> RecordBatch {
    let t = db.table(table).unwrap();
    let b: Vec<RecordBatch> = t
        .scan(ScanOptions::default())
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    arrow_select::concat::concat_batches(&t.schema(), &b).unwrap()
}

#[test]
fn defaults_fill_omitted_columns_and_properties_round_trip() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = writer(v);
        w.transaction(|tx| tx.create_table(&spec())).unwrap();
        // two rows giving only the required note; one also gives qty / status
        w.transaction(|tx| {
            tx.insert("Orders", &notes(&[Some("first")]))?;
            let b = RecordBatch::try_from_iter(vec![
                (
                    "note",
                    Arc::new(StringArray::from(vec!["second"])) as ArrayRef,
                ),
                ("qty", Arc::new(Int32Array::from(vec![5])) as ArrayRef),
                (
                    "status",
                    Arc::new(StringArray::from(vec![None::<&str>])) as ArrayRef,
                ),
            ])
            .unwrap();
            tx.insert("Orders", &b)
        })
        .unwrap();
        let db = w.database().unwrap();
        let t = db.table("Orders").unwrap();
        let schema = t.schema();
        let md = |c: &str, k: &str| {
            schema
                .field_with_name(c)
                .unwrap()
                .metadata()
                .get(k)
                .cloned()
        };
        assert_eq!(md("qty", "jet.required").as_deref(), Some("true"));
        assert_eq!(md("note", "jet.required").as_deref(), Some("true"));
        assert_eq!(md("status", "jet.required"), None);
        assert_eq!(md("qty", "jet.default").as_deref(), Some("0"));
        assert_eq!(
            md("status", "jet.default").as_deref(),
            Some("\"new \"\"A\"\"\"")
        );
        assert_eq!(md("placed", "jet.default").as_deref(), Some("Now()"));
        assert_eq!(md("note", "jet.default"), None);
        assert!(t.def().columns.iter().any(|c| c.required));

        let b = scan(&db, "Orders");
        let col = |n: &str| b.column(schema.index_of(n).unwrap()).clone();
        assert_eq!(b.num_rows(), 2, "{v:?}");
        assert_eq!(col("qty").as_primitive::<Int32Type>().values(), &[0, 5]);
        let status = col("status");
        assert_eq!(status.as_string::<i32>().value(0), "new \"A\"");
        assert!(status.is_null(1), "an explicit NULL stays NULL");
        assert!(col("rush").as_boolean().value(0));
        let ts = |n: &str, r: usize| col(n).as_primitive::<TimestampMicrosecondType>().value(r);
        assert_eq!(ts("due", 0), 1_706_659_200_000_000); // 2024-01-31
        assert_eq!(ts("placed", 0), 1_714_979_289_000_000); // NOW, whole seconds
        assert_eq!(ts("day", 0), 1_714_953_600_000_000); // NOW's date
        let price = col("price");
        let price = price.as_primitive::<Decimal128Type>();
        assert_eq!(price.value(0), 25_000); // 2.5000
        assert_eq!(col("ratio").as_primitive::<Float64Type>().value(0), 1500.0);
        assert_eq!(col("small").as_primitive::<UInt8Type>().value(0), 7);

        // a fresh writer over the committed image reads the rules back from
        // the property map and enforces them
        let image = w.into_target();
        let mut w = Writer::new(image).unwrap();
        w.set_now(Some(NOW));
        let before = w.target().bytes.clone();
        let e = w
            .transaction(|tx| tx.insert("Orders", &notes(&[Some("ok"), None])))
            .unwrap_err();
        assert!(
            matches!(write_error(&e), WriteError::NullRefused { table, column }
                if table == "Orders" && column == "note"),
            "{e}"
        );
        assert!(
            w.target().bytes == before,
            "{v:?}: refused insert left bytes"
        );
        // omitting a required column without a default is a NULL too
        let e = w
            .transaction(|tx| {
                let b = RecordBatch::try_from_iter(vec![(
                    "qty",
                    Arc::new(Int32Array::from(vec![1])) as ArrayRef,
                )])
                .unwrap();
                tx.insert("Orders", &b)
            })
            .unwrap_err();
        assert!(
            matches!(write_error(&e), WriteError::NullRefused { column, .. } if column == "note"),
            "{e}"
        );
        // update to NULL refused; update of another column allowed
        let e = w
            .transaction(|tx| {
                let bms = tx.bookmarks("Orders")?;
                let b = RecordBatch::try_from_iter(vec![(
                    "qty",
                    Arc::new(Int32Array::from(vec![None, Some(3)])) as ArrayRef,
                )])
                .unwrap();
                tx.update("Orders", &bms, &b)
            })
            .unwrap_err();
        assert!(
            matches!(write_error(&e), WriteError::NullRefused { column, .. } if column == "qty"),
            "{e}"
        );
        assert!(
            w.target().bytes == before,
            "{v:?}: refused update left bytes"
        );
        w.transaction(|tx| {
            let bms = tx.bookmarks("Orders")?;
            let b = RecordBatch::try_from_iter(vec![(
                "status",
                Arc::new(StringArray::from(vec![None, Some("done")])) as ArrayRef,
            )])
            .unwrap();
            tx.update("Orders", &bms, &b)
        })
        .unwrap();
        // defaults still apply through the reopened writer
        w.transaction(|tx| tx.insert("Orders", &notes(&[Some("third")])))
            .unwrap();
        let b = scan(&w.database().unwrap(), "Orders");
        assert_eq!(b.num_rows(), 3);
        mdb_prop_agrees(&w.target().bytes, v);
    }
}

/// `mdb-prop` (mdbtools) reads the properties we wrote.
fn mdb_prop_agrees(image: &[u8], v: JetVersion) {
    if jet_tests::require_mdb_export().is_none() {
        return;
    }
    let path = std::env::temp_dir().join(format!("jet-rules-{}-{v:?}.db", std::process::id()));
    std::fs::write(&path, image).unwrap();
    let out = std::process::Command::new("mdb-prop")
        .arg(&path)
        .arg("Orders")
        .output()
        .expect("mdb-prop runs");
    std::fs::remove_file(&path).ok();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let block = |col: &str| -> String {
        let start = text
            .find(&format!("name: {col}\n"))
            .unwrap_or_else(|| panic!("{v:?}: mdb-prop lists {col}: {text}"));
        let rest = &text[start..];
        rest[..rest.find("\n\n").unwrap_or(rest.len())].to_string()
    };
    let qty = block("qty");
    assert!(qty.contains("Required: yes"), "{qty}");
    assert!(qty.contains("DefaultValue: 0"), "{qty}");
    assert!(block("note").contains("Required: yes"));
    assert!(block("placed").contains("DefaultValue: Now()"));
    assert!(block("due").contains("DefaultValue: #2024-01-31#"));
}

#[test]
fn defaults_the_writer_cannot_evaluate_are_refused_at_create_table() {
    let mut w = writer(JetVersion::Ace12);
    let before = w.target().bytes.clone();
    for (col, why) in [
        (
            ColumnSpec::new("g", JetType::Guid).default_value("GenGUID()"),
            "not an expression",
        ),
        (
            ColumnSpec::new("n", JetType::Long).default_value("1+1"),
            "not an expression",
        ),
        (
            ColumnSpec::new("b", JetType::Byte).default_value("300"),
            "outside",
        ),
        (
            ColumnSpec::text("t", 3).default_value("\"four\""),
            "the column holds 3",
        ),
        (
            ColumnSpec::new("d", JetType::Long).default_value("Now()"),
            "does not apply",
        ),
        (
            ColumnSpec::new("x", JetType::DateTime).default_value("#2024-02-30#"),
            "not an expression",
        ),
    ] {
        let name = col.name.clone();
        let e = w
            .transaction(|tx| tx.create_table(&TableSpec::new("T", vec![col])))
            .unwrap_err();
        match write_error(&e) {
            WriteError::BadDefinition { table, why: w } => {
                assert_eq!(table, "T");
                assert!(w.contains(&format!("{name:?}")), "{w}");
                assert!(w.contains(why), "{w}");
            }
            other => panic!("{other}"),
        }
        assert!(
            w.target().bytes == before,
            "refused CREATE TABLE left bytes"
        );
    }
}

#[test]
fn add_column_not_null_fills_existing_rows_from_its_default() {
    for v in [JetVersion::Jet4, JetVersion::Ace12] {
        let mut w = writer(v);
        w.transaction(|tx| {
            tx.create_table(&TableSpec::new(
                "T",
                vec![ColumnSpec::new("a", JetType::Long)],
            ))?;
            let b = RecordBatch::try_from_iter(vec![(
                "a",
                Arc::new(Int32Array::from((0..300).collect::<Vec<i32>>())) as ArrayRef,
            )])
            .unwrap();
            tx.insert("T", &b)
        })
        .unwrap();
        let before = w.target().bytes.clone();
        // NOT NULL without a default cannot be added to a table with rows
        let e = w
            .transaction(|tx| tx.add_column("T", &ColumnSpec::text("b", 20).not_null()))
            .unwrap_err();
        assert!(
            matches!(write_error(&e), WriteError::BadDefinition { why, .. } if why.contains("300 rows")),
            "{e}"
        );
        assert!(w.target().bytes == before);
        w.transaction(|tx| {
            tx.add_column(
                "T",
                &ColumnSpec::text("b", 20).not_null().default_value("'dflt'"),
            )?;
            tx.add_column("T", &ColumnSpec::new("c", JetType::Long).default_value("9"))
        })
        .unwrap();
        let db = w.database().unwrap();
        let b = scan(&db, "T");
        let t = db.table("T").unwrap();
        let s = t.schema();
        assert_eq!(b.num_rows(), 300);
        let bcol = b.column(s.index_of("b").unwrap());
        assert!((0..300).all(|r| bcol.as_string::<i32>().value(r) == "dflt"));
        // a default alone leaves existing rows NULL (as Access does)
        assert_eq!(b.column(s.index_of("c").unwrap()).null_count(), 300);
        assert_eq!(
            s.field_with_name("b")
                .unwrap()
                .metadata()
                .get("jet.required")
                .map(String::as_str),
            Some("true")
        );
        // new rows take both defaults
        w.transaction(|tx| {
            let r = RecordBatch::try_from_iter(vec![(
                "a",
                Arc::new(Int32Array::from(vec![1000])) as ArrayRef,
            )])
            .unwrap();
            tx.insert("T", &r)
        })
        .unwrap();
        let b = scan(&w.database().unwrap(), "T");
        let last = b.num_rows() - 1;
        assert_eq!(
            b.column(s.index_of("c").unwrap())
                .as_primitive::<Int32Type>()
                .value(last),
            9
        );
        assert_eq!(
            b.column(s.index_of("b").unwrap())
                .as_string::<i32>()
                .value(last),
            "dflt"
        );
    }
}

#[test]
fn required_columns_of_access_files_are_enforced() {
    let Some(root) = jet_tests::corpus() else {
        return;
    };
    // fixedTextTestV2007 "users": Access marked every column Required
    let src = root.join("jackcess/V2007/fixedTextTestV2007.accdb");
    let dir = std::env::temp_dir().join(format!("jet-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fixedText.accdb");
    // a fresh file (the corpus copies are read-only)
    std::fs::write(&path, std::fs::read(&src).unwrap()).unwrap();
    let db = Database::open(&path, Default::default()).unwrap();
    let t = db.table("users").unwrap();
    let required: Vec<String> = t
        .schema()
        .fields()
        .iter()
        .filter(|f| f.metadata().get("jet.required").is_some())
        .map(|f| f.name().clone())
        .collect();
    assert!(
        required.contains(&"c_user_login".to_string()),
        "{required:?}"
    );
    drop(db);
    let before = std::fs::read(&path).unwrap();
    let mut w = Database::open_writable(&path).unwrap();
    let b = RecordBatch::try_from_iter(vec![(
        "c_user_login",
        Arc::new(StringArray::from(vec!["someone"])) as ArrayRef,
    )])
    .unwrap();
    let e = w.transaction(|tx| tx.insert("users", &b)).unwrap_err();
    assert!(
        matches!(write_error(&e), WriteError::NullRefused { table, .. } if table == "users"),
        "{e}"
    );
    drop(w);
    assert!(std::fs::read(&path).unwrap() == before);
    std::fs::remove_dir_all(&dir).ok();
}
