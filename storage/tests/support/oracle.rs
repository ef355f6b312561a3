//! Helpers of the encrypted-file tests: rows as strings, and mdb-reader
//! 3.2.0 (node, `tests/oracle-js/dump.mjs`) as an independent reader.
#![allow(dead_code)]

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, UInt8Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use jet_storage::{Database, ScanOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every row of `table`, each value as a string (`None` for null).
pub fn rows(db: &Database, table: &str) -> Vec<Vec<Option<String>>> {
    let t = db.table(table).unwrap_or_else(|e| panic!("{table}: {e}"));
    let mut out = Vec::new();
    for b in t.scan(ScanOptions::default()).unwrap() {
        let b = b.unwrap_or_else(|e| panic!("{table}: {e}"));
        append_rows(&b, &mut out);
    }
    out
}

fn append_rows(b: &RecordBatch, out: &mut Vec<Vec<Option<String>>>) {
    for r in 0..b.num_rows() {
        out.push(b.columns().iter().map(|c| cell(c.as_ref(), r)).collect());
    }
}

fn cell(a: &dyn Array, r: usize) -> Option<String> {
    if a.is_null(r) {
        return None;
    }
    Some(match a.data_type() {
        DataType::Int32 => a.as_primitive::<Int32Type>().value(r).to_string(),
        DataType::Int16 => a.as_primitive::<Int16Type>().value(r).to_string(),
        DataType::UInt8 => a.as_primitive::<UInt8Type>().value(r).to_string(),
        DataType::Utf8 => a.as_string::<i32>().value(r).to_string(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(r).to_string(),
        DataType::Boolean => a.as_boolean().value(r).to_string(),
        // JavaScript's String(number): Rust's shortest round-trip form
        // agrees for the values of these files (no exponents)
        DataType::Float64 => a.as_primitive::<Float64Type>().value(r).to_string(),
        DataType::Float32 => f64::from(a.as_primitive::<Float32Type>().value(r)).to_string(),
        DataType::Decimal128(_, scale) => {
            let v = a.as_primitive::<Decimal128Type>().value(r);
            let s = *scale as u32;
            let unit = 10i128.pow(s);
            let sign = if v < 0 { "-" } else { "" };
            let (i, f) = ((v / unit).abs(), (v % unit).abs());
            if s == 0 {
                format!("{sign}{i}")
            } else {
                format!("{sign}{i}.{f:0width$}", width = s as usize)
            }
        }
        DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None) => {
            iso_millis(a.as_primitive::<TimestampMicrosecondType>().value(r))
        }
        DataType::Binary => a
            .as_binary::<i32>()
            .value(r)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        other => format!("<{other}>"),
    })
}

/// `micros` since 1970 as JavaScript's `toISOString()` prints it.
fn iso_millis(micros: i64) -> String {
    let ms = micros.div_euclid(1000);
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // civil date from days since 1970-01-01 (proleptic Gregorian)
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// Streams every user table to the end; the number of rows of each.
pub fn stream_all(db: &Database) -> Vec<(String, usize)> {
    db.table_names()
        .into_iter()
        .map(|name| {
            let t = db.table(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let n = t
                .scan(ScanOptions::default())
                .unwrap()
                .map(|b| b.unwrap_or_else(|e| panic!("{name}: {e}")).num_rows())
                .sum();
            (name, n)
        })
        .collect()
}

pub fn oracle_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/oracle-js")
}

/// `dump.mjs` when node and mdb-reader are installed; else skips, or
/// fails under `CI=true`.
pub fn mdb_reader() -> Option<PathBuf> {
    let dir = oracle_dir();
    let node = Command::new("node").arg("--version").output();
    let ready = node.is_ok_and(|o| o.status.success())
        && dir.join("node_modules/mdb-reader/package.json").is_file();
    if ready {
        return Some(dir.join("dump.mjs"));
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "node or mdb-reader is missing under CI (run `npm ci` in {})",
            dir.display()
        );
    }
    eprintln!(
        "skipping: node or mdb-reader (npm ci in {}) not found",
        dir.display()
    );
    None
}

/// One table as mdb-reader reads it.
#[derive(Debug, Default, PartialEq)]
pub struct OracleTable {
    pub name: String,
    pub rows: Vec<Vec<Option<String>>>,
}

/// Tables and rows of `file` as mdb-reader reads them.
pub fn oracle_dump(script: &Path, file: &Path, password: Option<&str>) -> Vec<OracleTable> {
    let mut cmd = Command::new("node");
    cmd.env("TZ", "UTC").arg(script).arg(file);
    if let Some(p) = password {
        cmd.arg(p);
    }
    let out = cmd.output().expect("node runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let mut tables: Vec<OracleTable> = Vec::new();
    for line in text.lines() {
        let v = json::parse(line).unwrap_or_else(|| panic!("not JSON: {line}"));
        let json::Value::Object(fields) = v else {
            panic!("not an object: {line}")
        };
        let get = |k: &str| fields.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        if let Some(e) = get("error") {
            panic!("mdb-reader could not read {}: {e:?}", file.display());
        }
        if let Some(json::Value::Str(name)) = get("table") {
            tables.push(OracleTable {
                name: name.clone(),
                rows: Vec::new(),
            });
        } else if let Some(json::Value::Array(vals)) = get("row") {
            let row = vals
                .iter()
                .map(|v| match v {
                    json::Value::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            tables
                .last_mut()
                .expect("a table before its rows")
                .rows
                .push(row);
        }
    }
    assert!(
        out.status.success(),
        "dump.mjs failed on {}",
        file.display()
    );
    tables
}

/// The little JSON `dump.mjs` prints: objects, arrays, strings, null.
mod json {
    #[derive(Debug)]
    pub enum Value {
        Null,
        Str(String),
        Array(Vec<Value>),
        Object(Vec<(String, Value)>),
    }

    pub fn parse(s: &str) -> Option<Value> {
        let mut p = s.trim().chars().peekable();
        let v = value(&mut p)?;
        p.next().is_none().then_some(v)
    }

    type P<'a> = std::iter::Peekable<std::str::Chars<'a>>;

    fn value(p: &mut P<'_>) -> Option<Value> {
        match p.peek()? {
            '"' => string(p).map(Value::Str),
            'n' => {
                for c in "null".chars() {
                    (p.next()? == c).then_some(())?;
                }
                Some(Value::Null)
            }
            '[' => {
                p.next();
                let mut items = Vec::new();
                if p.peek() == Some(&']') {
                    p.next();
                    return Some(Value::Array(items));
                }
                loop {
                    items.push(value(p)?);
                    match p.next()? {
                        ',' => {}
                        ']' => return Some(Value::Array(items)),
                        _ => return None,
                    }
                }
            }
            '{' => {
                p.next();
                let mut fields = Vec::new();
                loop {
                    let k = string(p)?;
                    (p.next()? == ':').then_some(())?;
                    fields.push((k, value(p)?));
                    match p.next()? {
                        ',' => {}
                        '}' => return Some(Value::Object(fields)),
                        _ => return None,
                    }
                }
            }
            _ => None,
        }
    }

    fn string(p: &mut P<'_>) -> Option<String> {
        (p.next()? == '"').then_some(())?;
        let mut units: Vec<u16> = Vec::new();
        loop {
            match p.next()? {
                '"' => return Some(String::from_utf16_lossy(&units)),
                '\\' => match p.next()? {
                    'u' => {
                        let hex: String = (0..4).map(|_| p.next()).collect::<Option<_>>()?;
                        units.push(u16::from_str_radix(&hex, 16).ok()?);
                    }
                    'n' => units.push(10),
                    't' => units.push(9),
                    'r' => units.push(13),
                    'b' => units.push(8),
                    'f' => units.push(12),
                    c => units.extend(c.encode_utf16(&mut [0; 2]).iter()),
                },
                c => units.extend(c.encode_utf16(&mut [0; 2]).iter()),
            }
        }
    }
}

/// jetsql's tables of `db` equal mdb-reader's: names, and every value of
/// every row in page order.
pub fn assert_matches_mdb_reader(db: &Database, oracle: &[OracleTable], file: &str) {
    let ours: Vec<String> = db.table_names();
    let theirs: Vec<String> = oracle.iter().map(|t| t.name.clone()).collect();
    assert_eq!(ours, theirs, "{file}: table names");
    for t in oracle {
        assert_eq!(rows(db, &t.name), t.rows, "{file}: table {}", t.name);
    }
}

/// One attachment as mdb-reader reads it: flat table, complex id, file
/// name, file type, decoded bytes.
pub type OracleAttachment = (String, i32, Option<String>, Option<String>, Option<Vec<u8>>);

/// Every row of every flat table holding a `FileData` column, as
/// mdb-reader 3.2.0 reads it and its `decodeAttachmentFileData` decodes it.
pub fn mdb_reader_attachments(file: &std::path::Path) -> Option<Vec<OracleAttachment>> {
    mdb_reader()?;
    let script = r#"
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
const base = join(process.cwd(), "node_modules/mdb-reader/lib/node");
const { default: MDBReader } = await import(pathToFileURL(join(base, "index.js")).href);
const { decodeAttachmentFileData } = await import(pathToFileURL(join(base, "data/complex/attachment.js")).href);
const known = new Set(["FileName", "FileType", "FileData", "FileURL", "FileTimeStamp", "FileFlags"]);
const hex = (s) => (s === null || s === undefined ? "-" : Buffer.from(String(s), "utf8").toString("hex"));
const reader = new MDBReader(readFileSync(process.argv[process.argv.length - 1]));
for (const name of reader.getTableNames({ normalTables: true, systemTables: true })) {
  const t = reader.getTable(name);
  const cols = t.getColumns();
  if (!cols.some((c) => c.name === "FileData")) continue;
  const fk = cols.find((c) => c.type === "long" && !c.autoLong && !known.has(c.name));
  for (const r of t.getData()) {
    const data = r.FileData ? decodeAttachmentFileData(r.FileData).toString("hex") : "-";
    console.log([hex(name), r[fk.name], hex(r.FileName), hex(r.FileType), data].join(" "));
  }
}
"#;
    let out = Command::new("node")
        .current_dir(oracle_dir())
        .args(["--input-type=module", "-e", script])
        .arg(file)
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "mdb-reader failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let unhex = |s: &str| -> Option<Vec<u8>> {
        (s != "-").then(|| {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect()
        })
    };
    let text = |s: &str| unhex(s).map(|b| String::from_utf8(b).unwrap());
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                (
                    text(f[0]).unwrap(),
                    f[1].parse().unwrap(),
                    text(f[2]),
                    text(f[3]),
                    unhex(f[4]),
                )
            })
            .collect(),
    )
}
