//! `jetsql export` of corpus databases: the Parquet and Arrow files read
//! back with the parquet and Arrow IPC readers equal a direct storage scan
//! of every table (values, types, field metadata); CSV files parse back to
//! the same row counts; nothing but the file list is printed when piped.

use assert_cmd::Command;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::FileReader;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use jet_storage::{Database, OpenOptions, ScanOptions};
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

fn jetsql() -> Command {
    Command::cargo_bin("jetsql").expect("the jetsql binary is built")
}

/// Every table of `db` scanned directly (complex ids turned into lists by
/// storage's expander), or the first error.
fn direct(db: &Database) -> Result<BTreeMap<String, (SchemaRef, RecordBatch)>, String> {
    let mut out = BTreeMap::new();
    for name in db.table_names() {
        let t = db.table(&name).map_err(|e| e.to_string())?;
        let complex = db.complex_columns(&t).map_err(|e| e.to_string())?;
        let all: Vec<usize> = (0..t.schema().fields().len()).collect();
        let mut lists =
            jet_storage::read::complex::ListExpander::new(db, &complex, &t.schema(), &all);
        let schema = lists.as_ref().map_or(t.schema(), |l| l.schema());
        let batches = t
            .scan(ScanOptions::default())
            .map_err(|e| e.to_string())?
            .map(|b| {
                let b = b.map_err(|e| e.to_string())?;
                match lists.as_mut() {
                    Some(l) => l.expand(&b).map_err(|e| e.to_string()),
                    None => Ok(b),
                }
            })
            .collect::<Result<Vec<_>, String>>()?;
        let all = concat_batches(&schema, &batches).map_err(|e| e.to_string())?;
        out.insert(name, (schema, all));
    }
    Ok(out)
}

/// Runs the export; returns table → file from its output lines.
fn export(file: &Path, dir: &Path, format: &str) -> Result<BTreeMap<String, PathBuf>, String> {
    let out = jetsql()
        .arg("export")
        .arg(file)
        .arg("--to")
        .arg(dir)
        .args(["--format", format])
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    assert!(
        out.stderr.is_empty(),
        "no progress when piped: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    Ok(text
        .lines()
        .map(|l| {
            let mut parts = l.split('\t');
            let table = parts.next().unwrap().to_string();
            let path = PathBuf::from(parts.nth(1).unwrap());
            (table, path)
        })
        .collect())
}

fn read_back(path: &Path, format: &str) -> (SchemaRef, RecordBatch) {
    let f = File::open(path).unwrap();
    let (schema, batches): (SchemaRef, Vec<RecordBatch>) = match format {
        "parquet" => {
            let b = ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
            let schema = b.schema().clone();
            let r = b.build().unwrap();
            (schema, r.collect::<Result<_, _>>().unwrap())
        }
        _ => {
            let r = FileReader::try_new(f, None).unwrap();
            let schema = r.schema();
            (schema, r.collect::<Result<_, _>>().unwrap())
        }
    };
    let all = concat_batches(&schema, &batches).unwrap();
    (schema, all)
}

fn check_file(file: &Path, expected: &BTreeMap<String, (SchemaRef, RecordBatch)>) -> usize {
    let mut tables = 0;
    for format in ["parquet", "arrow"] {
        let dir = tempfile::tempdir().unwrap();
        let files = export(file, dir.path(), format)
            .unwrap_or_else(|e| panic!("{}: export {format} failed: {e}", file.display()));
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{}: one file per table",
            file.display()
        );
        for (name, (schema, want)) in expected {
            let (got_schema, got) = read_back(&files[name], format);
            let what = format!("{} {name} ({format})", file.display());
            assert_eq!(got_schema.fields().len(), schema.fields().len(), "{what}");
            for (g, w) in got_schema.fields().iter().zip(schema.fields()) {
                assert_eq!(g.name(), w.name(), "{what}");
                assert_eq!(g.data_type(), w.data_type(), "{what}: type of {}", w.name());
                assert_eq!(
                    g.metadata(),
                    w.metadata(),
                    "{what}: metadata of {}",
                    w.name()
                );
            }
            assert_eq!(got.num_rows(), want.num_rows(), "{what}: rows");
            for (i, f) in schema.fields().iter().enumerate() {
                assert!(
                    got.column(i).to_data() == want.column(i).to_data(),
                    "{what}: values of {}",
                    f.name()
                );
            }
            tables += 1;
        }
    }
    tables
}

#[test]
fn parquet_and_arrow_exports_equal_direct_scans_over_the_corpus() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let mut checked_files = 0;
    let mut checked_tables = 0;
    let mut refused = 0;
    for rel in jet_tests::list_files(&corpus) {
        let file = corpus.join(&rel);
        let Ok(db) = Database::open(&file, OpenOptions::default()) else {
            continue;
        };
        match direct(&db) {
            Ok(expected) => {
                checked_tables += check_file(&file, &expected);
                checked_files += 1;
            }
            Err(e) => {
                // A table the reader refuses makes the export fail too.
                let dir = tempfile::tempdir().unwrap();
                let err = export(&file, dir.path(), "parquet")
                    .expect_err("export of a file with an unreadable table fails");
                assert!(!err.is_empty(), "{rel}: {e}");
                refused += 1;
            }
        }
    }
    eprintln!(
        "exported {checked_files} files, {checked_tables} table files compared, {refused} refused"
    );
    assert!(
        checked_files >= 50,
        "only {checked_files} corpus files exported"
    );
}

#[test]
fn csv_export_parses_back_to_the_same_rows() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let file = corpus.join("mdbtools/nwind.mdb");
    let db = Database::open(&file, OpenOptions::default()).unwrap();
    let expected = direct(&db).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = export(&file, dir.path(), "csv").unwrap();
    assert_eq!(files.len(), expected.len());
    for (name, (schema, want)) in &expected {
        let mut r = csv::Reader::from_path(&files[name]).unwrap();
        let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(header, names, "{name}");
        assert_eq!(r.records().count(), want.num_rows(), "{name}");
    }
    // One table by name, ignoring case; an unknown table is an error.
    let one = tempfile::tempdir().unwrap();
    jetsql()
        .arg("export")
        .arg(&file)
        .arg("--to")
        .arg(one.path())
        .args(["--format", "csv", "--table", "order details"])
        .assert()
        .success()
        .stdout(predicates::str::starts_with("Order Details\t2155 rows\t"));
    assert_eq!(std::fs::read_dir(one.path()).unwrap().count(), 1);
    jetsql()
        .arg("export")
        .arg(&file)
        .arg("--to")
        .arg(one.path())
        .args(["--table", "nope"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no table \"nope\""));
}
