//! Complex columns in the CLI: `jetsql export` keeps them as lists in
//! Parquet (read back here with the parquet reader) and writes them as
//! text in CSV; the shell shows them in brief; `jetsql attachments`
//! writes every attachment as a file, byte for byte as mdb-reader 3.2.0
//! decodes it, and never outside the target directory.
//!
//! Expected values: Jackcess 4 `ComplexColumnTest.java` (`testAttachments`,
//! `testMultiValues`, `TEST_BYTES`, `TEST2_BYTES`) for the Jackcess
//! `complexDataTestV2007.accdb`, and mdb-reader (node, `tests/oracle-js`)
//! for every attachment's decoded bytes. Without the corpus, node or
//! mdb-reader the tests skip, except under `CI=true`.

use datafusion::arrow::array::{Array, AsArray, RecordBatch, RecordBatchReader};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::DataType;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common;
use common::{jetsql, success};

const FILE: &str = "jackcess/V2007/complexDataTestV2007.accdb";
const TABLE: &str = "Table1";

/// Jackcess ComplexColumnTest `TEST_BYTES` and `TEST2_BYTES`.
const TEST_BYTES: &[u8] = b"this is some test data for attachment.";
const TEST2_BYTES: &[u8] = b"this is some more test data for attachment.";

fn corpus_file() -> Option<PathBuf> {
    jet_tests::corpus().map(|c| c.join(FILE))
}

/// Jackcess testMultiValues / testAttachments: row → (multi-values,
/// attachment file names).
fn jackcess() -> BTreeMap<&'static str, (Vec<&'static str>, Vec<&'static str>)> {
    BTreeMap::from([
        ("row1", (vec![], vec![])),
        (
            "row2",
            (
                vec!["value1", "value4"],
                vec!["test_data.txt", "test_data2.txt"],
            ),
        ),
        (
            "row3",
            (vec!["value1", "value2", "value3", "value4"], vec![]),
        ),
        ("row4", (vec![], vec!["test_data2.txt"])),
    ])
}

fn export(file: &Path, dir: &Path, format: &str) -> PathBuf {
    success(
        jetsql()
            .arg("export")
            .arg(file)
            .arg("--to")
            .arg(dir)
            .args(["--format", format, "--table", TABLE]),
    );
    dir.join(format!("{TABLE}.{format}"))
}

/// The Parquet export keeps the three complex columns as lists with
/// Jackcess's values (attachment bytes included).
#[test]
fn parquet_export_keeps_lists() {
    let Some(file) = corpus_file() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = export(&file, dir.path(), "parquet");
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let b = concat_batches(&schema, &batches).unwrap();
    let col = |name: &str| schema.index_of(name).unwrap();
    for name in ["multi-value-data", "attach-data"] {
        assert!(
            matches!(schema.field(col(name)).data_type(), DataType::List(_)),
            "{name}: {}",
            schema.field(col(name)).data_type()
        );
        assert_eq!(
            schema
                .field(col(name))
                .metadata()
                .get("jet.type")
                .map(String::as_str),
            Some("Complex")
        );
    }
    let ids = b.column(col("id")).as_string::<i32>();
    let multi = b.column(col("multi-value-data")).as_list::<i32>();
    let attach = b.column(col("attach-data")).as_list::<i32>();
    let want = jackcess();
    let mut seen = 0;
    for r in 0..b.num_rows() {
        let Some((values, files)) = want.get(ids.value(r)) else {
            continue;
        };
        let got: Vec<String> = multi
            .value(r)
            .as_string::<i32>()
            .iter()
            .map(|v| v.unwrap().to_string())
            .collect();
        assert_eq!(&got, values, "{}", ids.value(r));
        let a = attach.value(r);
        let a = a.as_struct();
        let names = a.column_by_name("file_name").unwrap().as_string::<i32>();
        let data = a.column_by_name("file_data").unwrap().as_binary::<i64>();
        let got: Vec<&str> = names.iter().flatten().collect();
        assert_eq!(&got, files, "{}", ids.value(r));
        for i in 0..a.len() {
            let bytes = if names.value(i) == "test_data.txt" {
                TEST_BYTES
            } else {
                TEST2_BYTES
            };
            assert_eq!(data.value(i), bytes);
        }
        seen += 1;
    }
    assert_eq!(seen, 4);
}

/// CSV writes a multi-value list as its values joined by `; ` and
/// attachments as their file names; the shell's table shows them in
/// brief; JSON writes arrays.
#[test]
fn csv_json_and_table_show_lists_as_text() {
    let Some(file) = corpus_file() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = export(&file, dir.path(), "csv");
    let mut r = csv::Reader::from_path(&path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let at = |n: &str| header.iter().position(|h| h == n).unwrap();
    let mut rows = BTreeMap::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        rows.insert(
            rec[at("id")].to_string(),
            (
                rec[at("multi-value-data")].to_string(),
                rec[at("attach-data")].to_string(),
            ),
        );
    }
    for (id, (values, files)) in jackcess() {
        assert_eq!(
            rows[id],
            (values.join("; "), files.join("; ")),
            "CSV row {id}"
        );
    }
    let sql = format!(r#"SELECT [multi-value-data], [attach-data] FROM {TABLE} WHERE id = 'row2'"#);
    let out = success(jetsql().arg(&file).args(["--format", "table", "-c", &sql]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("{value1, value4}"), "{text}");
    assert!(
        text.contains("<2 attachments: test_data.txt, test_data2.txt>"),
        "{text}"
    );
    let out = success(jetsql().arg(&file).args(["--format", "json", "-c", &sql]));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#""multi-value-data":["value1","value4"]"#),
        "{text}"
    );
    assert!(text.contains(r#""file_name":"test_data.txt""#), "{text}");
}

/// Every attachment of the flat tables as mdb-reader 3.2.0 reads and
/// decodes it: (complex id, file name, decoded bytes).
fn mdb_reader_attachments(file: &Path) -> Option<Vec<(i32, String, Vec<u8>)>> {
    jet_tests::mdb_reader::require_mdb_reader()?;
    let script = r#"
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
const base = join(process.cwd(), "node_modules/mdb-reader/lib/node");
const { default: MDBReader } = await import(pathToFileURL(join(base, "index.js")).href);
const { decodeAttachmentFileData } = await import(pathToFileURL(join(base, "data/complex/attachment.js")).href);
const known = new Set(["FileName", "FileType", "FileData", "FileURL", "FileTimeStamp", "FileFlags"]);
const reader = new MDBReader(readFileSync(process.argv[process.argv.length - 1]));
for (const name of reader.getTableNames({ normalTables: true, systemTables: true })) {
  if (!name.startsWith("f_") || !name.endsWith("_attach-data")) continue;
  const t = reader.getTable(name);
  const fk = t.getColumns().find((c) => c.type === "long" && !c.autoLong && !known.has(c.name));
  for (const r of t.getData()) {
    const data = decodeAttachmentFileData(r.FileData).toString("hex");
    console.log([r[fk.name], Buffer.from(r.FileName, "utf8").toString("hex"), data].join(" "));
  }
}
"#;
    let out = std::process::Command::new("node")
        .current_dir(jet_tests::mdb_reader::oracle_js_dir())
        .args(["--input-type=module", "-e", script])
        .arg(file)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let unhex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                (
                    f[0].parse().unwrap(),
                    String::from_utf8(unhex(f[1])).unwrap(),
                    unhex(f.get(2).copied().unwrap_or("")),
                )
            })
            .collect(),
    )
}

/// The rows of `Table1` as mdb-export lists them: each row's `id` (its
/// primary key, the layout's key) and `attach-data` complex id.
fn attach_ids_in_row_order(file: &Path) -> Option<Vec<(String, i32)>> {
    let (program, _) = jet_tests::require_mdb_export()?;
    let out = std::process::Command::new(program)
        .arg(file)
        .arg(TABLE)
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut r = csv::Reader::from_reader(out.stdout.as_slice());
    let headers = r.headers().unwrap().clone();
    let at = |n: &str| headers.iter().position(|h| h == n).unwrap();
    let (id, attach) = (at("id"), at("attach-data"));
    Some(
        r.records()
            .map(|rec| {
                let rec = rec.unwrap();
                (rec[id].to_string(), rec[attach].parse().unwrap())
            })
            .collect(),
    )
}

/// Every file under `dir`, relative path → bytes.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// `jetsql attachments` writes DIR/Table1/attach-data/<id>/<name> (`id`
/// is Table1's one-column primary key) for
/// every attachment, each byte-identical to mdb-reader's decoding (and to
/// Jackcess's TEST_BYTES / TEST2_BYTES); it never replaces a file.
#[test]
fn attachments_command_writes_files_as_mdb_reader_decodes_them() {
    let Some(file) = corpus_file() else { return };
    let Some(oracle) = mdb_reader_attachments(&file) else {
        return;
    };
    let Some(order) = attach_ids_in_row_order(&file) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = jetsql()
        .args(["attachments"])
        .arg(&file)
        .arg(TABLE)
        .args(["--to"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut want = BTreeMap::new();
    for (id, name, bytes) in &oracle {
        let key = &order.iter().find(|(_, a)| a == id).unwrap().0;
        want.insert(format!("{TABLE}/attach-data/{key}/{name}"), bytes.clone());
    }
    assert_eq!(want.len(), 3, "Jackcess: two files in row 2, one in row 4");
    let got = files_under(dir.path());
    assert_eq!(got, want);
    for (path, bytes) in &got {
        let jackcess = if path.ends_with("/test_data.txt") {
            TEST_BYTES
        } else {
            TEST2_BYTES
        };
        assert_eq!(bytes.as_slice(), jackcess, "{path}");
    }
    let lines = String::from_utf8(out.stdout).unwrap();
    assert_eq!(lines.lines().count(), 3, "{lines}");
    // a second run does not replace what the first wrote
    jetsql()
        .args(["attachments"])
        .arg(&file)
        .arg(TABLE)
        .args(["--column", "ATTACH-DATA", "--to"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicates::str::contains("exists"));
    // a column of another kind is refused by name
    jetsql()
        .args(["attachments"])
        .arg(&file)
        .arg(TABLE)
        .args(["--column", "multi-value-data", "--to"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "\"multi-value-data\" of table \"Table1\" holds multiple values, not attachments",
        ));
}

/// A file whose attachment is named `../../../evil` or `/etc/passwd.x`
/// (the stored name replaced in a copy) still writes inside DIR, under a
/// safe name, and nothing else appears around DIR.
#[test]
fn hostile_attachment_names_stay_inside_the_target() {
    let Some(file) = corpus_file() else { return };
    let original = std::fs::read(&file).unwrap();
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let stored = utf16("test_data.txt");
    let at: Vec<usize> = original
        .windows(stored.len())
        .enumerate()
        .filter(|(_, w)| *w == stored.as_slice())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1, "the file name is stored once, as UTF-16");
    for (hostile, safe) in [
        ("../../../evil", ".._.._.._evil"),
        ("/etc/passwd.x", "_etc_passwd.x"),
    ] {
        assert_eq!(hostile.len(), "test_data.txt".len());
        let mut bytes = original.clone();
        bytes[at[0]..at[0] + stored.len()].copy_from_slice(&utf16(hostile));
        let outer = tempfile::tempdir().unwrap();
        let db = outer.path().join("hostile.accdb");
        std::fs::write(&db, &bytes).unwrap();
        let target = outer.path().join("a").join("b").join("c");
        jetsql()
            .args(["attachments"])
            .arg(&db)
            .arg(TABLE)
            .args(["--to"])
            .arg(&target)
            .assert()
            .success();
        let inside = files_under(&target);
        assert!(
            inside.keys().any(|p| p.ends_with(&format!("/{safe}"))),
            "{hostile}: {inside:?}"
        );
        assert_eq!(inside.len(), 3, "{hostile}");
        let all = files_under(outer.path());
        assert_eq!(
            all.len(),
            4,
            "{hostile}: only the database and the three files: {all:?}"
        );
    }
}
