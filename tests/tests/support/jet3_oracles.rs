//! mdb-reader's reading of a table, compared with jetsql's, and the scratch
//! directory of corpus copies (shared by the Access 97 writer tests).

use super::oracle_values::{Ours, agrees_reader};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, TimestampMicrosecondType, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use jet_storage::{Database, JetType, ScanOptions};
use jet_tests::mdb_reader::{ReaderDump, dump, require_mdb_reader};
use std::path::{Path, PathBuf};

/// jetsql's values of one column, typed as the oracle comparison types them.
fn our_values(a: &ArrayRef, jet: JetType) -> Vec<Ours> {
    (0..a.len())
        .map(|i| {
            if a.is_null(i) {
                return Ours::Null;
            }
            match a.data_type() {
                DataType::Boolean => Ours::Bool(a.as_boolean().value(i)),
                DataType::UInt8 => Ours::Int(a.as_primitive::<UInt8Type>().value(i).into()),
                DataType::Int16 => Ours::Int(a.as_primitive::<Int16Type>().value(i).into()),
                DataType::Int32 => Ours::Int(a.as_primitive::<Int32Type>().value(i).into()),
                DataType::Int64 if jet == JetType::Currency => {
                    Ours::Dec(a.as_primitive::<Int64Type>().value(i).into(), 4)
                }
                DataType::Int64 => Ours::Int(a.as_primitive::<Int64Type>().value(i).into()),
                DataType::Float32 => Ours::F32(a.as_primitive::<Float32Type>().value(i)),
                DataType::Float64 => Ours::F64(a.as_primitive::<Float64Type>().value(i)),
                DataType::Decimal128(_, s) => Ours::Dec(
                    a.as_primitive::<arrow_array::types::Decimal128Type>()
                        .value(i),
                    *s,
                ),
                DataType::Timestamp(_, None) => {
                    Ours::Micros(a.as_primitive::<TimestampMicrosecondType>().value(i))
                }
                DataType::Utf8 if jet == JetType::Guid => {
                    Ours::Guid(a.as_string::<i32>().value(i).to_string())
                }
                DataType::Utf8 => Ours::Text(a.as_string::<i32>().value(i).to_string()),
                DataType::Binary => Ours::Bytes(a.as_binary::<i32>().value(i).to_vec()),
                other => Ours::Other(format!("{other:?}")),
            }
        })
        .collect()
}

/// Asserts that mdb-reader reads `table` of `file` as jetsql reads it in
/// `db`: the same rows, every value agreeing (the rules of
/// `oracle_mdb_reader.rs`). Without `long_values` the Memo and OLE columns
/// are left out: mdb-reader 3.2 takes an LVAL row's end from the previous
/// slot's offset without masking its flags (`Database.findRow`), so a long
/// value stored in a row that follows a deleted one (as after an update
/// frees the old value) reads on to the page end; mdbtools and jetsql mask
/// the flags, and `mdb-export` checks those columns. Returns the rows
/// compared; 0 without node or mdb-reader (outside CI).
pub fn assert_mdb_reader_equals_scan(
    file: &Path,
    db: &Database,
    table: &str,
    long_values: bool,
) -> usize {
    let Some(script) = require_mdb_reader() else {
        return 0;
    };
    let ReaderDump::Tables(tables) = dump(&script, file, None).unwrap() else {
        panic!("{}: mdb-reader refused the file", file.display());
    };
    let rt = tables
        .iter()
        .find(|t| t.name == table)
        .unwrap_or_else(|| panic!("{table}: not in mdb-reader's tables"));
    assert!(rt.error.is_none(), "{table}: mdb-reader: {:?}", rt.error);
    let t = db.table(table).unwrap();
    let batches: Vec<RecordBatch> = t
        .scan(ScanOptions::default())
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rt.rows.len(), rows, "{table}: row count");
    // our values per row, columns in mdb-reader's order
    let mut cols: Vec<Vec<Ours>> = Vec::new();
    for (cname, _) in &rt.columns {
        let pos = t
            .def()
            .columns
            .iter()
            .position(|c| &c.name == cname)
            .unwrap_or_else(|| panic!("{table}: column {cname}"));
        let jet = t.def().columns[pos].jet_type;
        cols.push(
            batches
                .iter()
                .flat_map(|b| our_values(b.column(pos), jet))
                .collect(),
        );
    }
    // every mdb-reader row is one of ours (each used once): the readers
    // may order rows of rewritten pages differently
    let compared: Vec<usize> = rt
        .columns
        .iter()
        .enumerate()
        .filter(|(_, (cname, _))| {
            long_values
                || !t
                    .def()
                    .columns
                    .iter()
                    .any(|c| &c.name == cname && c.jet_type.is_long_value())
        })
        .map(|(ci, _)| ci)
        .collect();
    let mut used = vec![false; rows];
    for (r, theirs) in rt.rows.iter().enumerate() {
        let m = (0..rows).find(|&o| {
            !used[o]
                && compared.iter().all(|&ci| {
                    agrees_reader(&cols[ci][o], theirs[ci].as_deref(), &rt.columns[ci].1)
                })
        });
        match m {
            Some(o) => used[o] = true,
            None => panic!("{table}: mdb-reader row {r} {theirs:?} is none of ours"),
        }
    }
    rows
}

/// A scratch directory for one test (`jet-jet3-<tag>-<pid>-<n>` in the
/// temporary directory), removed at the end.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        // unique in the process: every test module shares one process
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = std::env::temp_dir().join(format!("jet-jet3-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    /// A writable copy of corpus file `src` (mode 0600).
    pub fn copy(&self, src: &Path) -> PathBuf {
        let dst = self.0.join(src.file_name().unwrap());
        std::fs::write(&dst, std::fs::read(src).unwrap()).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        dst
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
