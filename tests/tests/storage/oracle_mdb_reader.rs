//! Two reading oracles: every value jetsql reads from the corpus is
//! compared with mdb-reader 3.2.0 (npm, through `tests/oracle-js/dump.mjs`,
//! one node process per file) and with mdbtools (`mdb-export` with the
//! oracle's ISO options, as `corpus_conformance.rs` runs it).
//!
//! For every corpus file both jetsql and mdb-reader open, every user table
//! both read, every row (in page order: all three readers walk the data
//! pages the same way) and every column (matched by name):
//!
//! * jetsql agreeing with at least one oracle is counted (with both, with
//!   mdb-reader only, with mdbtools only) and printed;
//! * jetsql differing from *both* is a failure, unless the column is listed
//!   in [`KNOWN`]: a place where both oracles are shown wrong, with the
//!   evidence in `tests/oracle-js/KNOWN_DISAGREEMENTS.md`. A listed
//!   disagreement must still occur (the list cannot go stale).
//!
//! Files and tables an oracle cannot read are listed with its message.
//! Without node, mdb-reader (`npm ci` in `tests/oracle-js`), `mdb-export`
//! or the corpus the test skips, except under `CI=true`, where it fails.
//!
//! Normalisation (what "agrees" means), per jetsql's Arrow type:
//! integers and booleans exactly; Single/Double exactly as `f64` against
//! mdb-reader (it prints JavaScript's shortest round-trip form), within
//! mdbtools' printed precision (`%.8g` / `%.16g`); Currency/Decimal as
//! decimals (trailing zeros ignored); date/time to the millisecond against
//! mdb-reader (it builds a JavaScript `Date`, ±1 ms for its float
//! arithmetic), to the second against mdbtools (its `%S`); extended
//! date/time to the microsecond (jetsql's Arrow type holds µs; mdb-reader
//! prints 100 ns); text exactly; GUIDs ignoring case, braces and hyphens
//! (mdb-reader prints a replication ID in lower case without braces,
//! mdbtools drops a hyphen); binary as hex.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    TimestampMicrosecondType, UInt8Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use jet_storage::{Database, JetType, ScanOptions};
use jet_tests::mdb_reader::{ReaderDump, ReaderTable, dump, require_mdb_reader};
use jet_tests::{corpus, list_files, require_mdb_export, run_mdb_export};
use std::time::Instant;

use crate::support::oracle_values;
use oracle_values::{Csv, Ctx, KNOWN, Ours, Tally, compare_columns, parse_csv};

/// mdb-export options of the oracle's ISO exports (see corpus_conformance).
const ISO_ARGS: &[&str] = &[
    "-D",
    "%Y-%m-%d %H:%M:%S",
    "-T",
    "%Y-%m-%d %H:%M:%S",
    "-b",
    "hex",
];

#[test]
fn every_value_agrees_with_mdb_reader_or_mdbtools() {
    let Some(root) = corpus() else { return };
    let Some(script) = require_mdb_reader() else {
        return;
    };
    let Some((mdb_export, _)) = require_mdb_export() else {
        return;
    };
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut failures: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut known_hits = vec![0u64; KNOWN.len()];
    let files: Vec<String> = list_files(&root)
        .into_iter()
        .filter(|f| {
            let l = f.to_ascii_lowercase();
            l.ends_with(".mdb") || l.ends_with(".accdb") || l.ends_with(".mny")
        })
        .collect();
    for rel in &files {
        let path = root.join(rel);
        let db = match Database::open(&path, Default::default()) {
            Ok(db) => db,
            Err(e) => {
                notes.push(format!("{rel}: jetsql refuses the file: {e}"));
                continue;
            }
        };
        let tables = match dump(&script, &path, None) {
            Ok(ReaderDump::Tables(t)) => t,
            Ok(ReaderDump::Refused(e)) => {
                notes.push(format!("{rel}: mdb-reader refuses the file: {e}"));
                continue;
            }
            Err(e) => {
                failures.push(format!("{rel}: {e}"));
                continue;
            }
        };
        tally.files += 1;
        for name in db.table_names() {
            let Some(rt) = tables.iter().find(|t| t.name == name) else {
                failures.push(format!(
                    "{rel}: table {name:?}: mdb-reader does not list it"
                ));
                continue;
            };
            if let Some(e) = &rt.error {
                notes.push(format!(
                    "{rel}: table {name:?}: mdb-reader cannot read it: {e}"
                ));
                continue;
            }
            let mdb = run_mdb_export(&mdb_export, ISO_ARGS, &path, &name)
                .map_err(|e| e.to_string())
                .and_then(|o| parse_csv(&o.stdout));
            let mdb = match mdb {
                Ok(m) => m,
                Err(e) => {
                    notes.push(format!(
                        "{rel}: table {name:?}: mdbtools cannot read it: {e}"
                    ));
                    continue;
                }
            };
            let ctx = Ctx {
                rel,
                table: &name,
                known_hits: &mut known_hits,
                tally: &mut tally,
                failures: &mut failures,
            };
            compare_table(&db, rt, &mdb, ctx);
        }
    }
    for (k, hits) in KNOWN.iter().zip(&known_hits) {
        if *hits == 0 {
            failures.push(format!(
                "stale known disagreement: {} {:?}.{:?} ({}) no longer occurs",
                k.file,
                k.table,
                k.column,
                k.class.name()
            ));
        }
    }
    println!("oracle files not compared:");
    for n in &notes {
        println!("  {n}");
    }
    println!("jetsql agrees with mdb-reader but not mdbtools (values per column):");
    for (c, n) in &tally.mdbtools_differs {
        println!("  {n:6}  {c}");
    }
    println!("jetsql agrees with mdbtools but not mdb-reader (values per column):");
    for (c, n) in &tally.reader_differs {
        println!("  {n:6}  {c}");
    }
    println!(
        "{} files, {} tables, {} values compared: {} agree with both oracles, {} with mdb-reader \
         only, {} with mdbtools only; known disagreements with both: {:?}; {:.1?}",
        tally.files,
        tally.tables,
        tally.values,
        tally.agree_all,
        tally.reader_only,
        tally.mdbtools_only,
        tally.known,
        started.elapsed()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(tally.values > 40_000, "too few values compared: {tally:?}");
}

/// jetsql's values of one column, typed.
fn our_values(a: &ArrayRef, jet: JetType) -> Vec<Ours> {
    let n = a.len();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if a.is_null(i) {
            out.push(Ours::Null);
            continue;
        }
        out.push(match a.data_type() {
            DataType::Boolean => Ours::Bool(a.as_boolean().value(i)),
            DataType::UInt8 => Ours::Int(a.as_primitive::<UInt8Type>().value(i).into()),
            DataType::Int16 => Ours::Int(a.as_primitive::<Int16Type>().value(i).into()),
            DataType::Int32 => Ours::Int(a.as_primitive::<Int32Type>().value(i).into()),
            DataType::Int64 => Ours::Int(a.as_primitive::<Int64Type>().value(i).into()),
            DataType::Float32 => Ours::F32(a.as_primitive::<Float32Type>().value(i)),
            DataType::Float64 => Ours::F64(a.as_primitive::<Float64Type>().value(i)),
            DataType::Decimal128(_, s) => {
                Ours::Dec(a.as_primitive::<Decimal128Type>().value(i), *s)
            }
            DataType::Timestamp(_, None) if jet == JetType::ExtDateTime => {
                Ours::ExtMicros(a.as_primitive::<TimestampMicrosecondType>().value(i))
            }
            DataType::Timestamp(_, None) => {
                Ours::Micros(a.as_primitive::<TimestampMicrosecondType>().value(i))
            }
            DataType::Utf8 if jet == JetType::Guid => {
                Ours::Guid(a.as_string::<i32>().value(i).to_string())
            }
            DataType::Utf8 => Ours::Text(a.as_string::<i32>().value(i).to_string()),
            DataType::Binary => Ours::Bytes(a.as_binary::<i32>().value(i).to_vec()),
            other => Ours::Other(format!("{other:?}")),
        });
    }
    out
}

fn compare_table(db: &Database, rt: &ReaderTable, mdb: &Csv, cx: Ctx<'_>) {
    let (rel, table) = (cx.rel, cx.table);
    let t = match db.table(table) {
        Ok(t) => t,
        Err(e) => {
            cx.failures
                .push(format!("{rel}: table {table:?}: jetsql: {e}"));
            return;
        }
    };
    let schema = t.schema();
    let jet_types: Vec<JetType> = t.def().columns.iter().map(|c| c.jet_type).collect();
    let calculated: Vec<bool> = t.def().columns.iter().map(|c| c.is_calculated()).collect();
    let mut cols: Vec<Vec<Ours>> = vec![Vec::new(); schema.fields().len()];
    let scan = match t.scan(ScanOptions::default()) {
        Ok(s) => s,
        Err(e) => {
            cx.failures
                .push(format!("{rel}: table {table:?}: jetsql: {e}"));
            return;
        }
    };
    for b in scan {
        match b {
            Ok(b) => {
                for (c, col) in cols.iter_mut().enumerate() {
                    col.extend(our_values(b.column(c), jet_types[c]));
                }
            }
            Err(e) => {
                cx.failures
                    .push(format!("{rel}: table {table:?}: jetsql: {e}"));
                return;
            }
        }
    }
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    compare_columns(&names, &calculated, &cols, rt, mdb, cx);
}
