//! Bench data: large scan-only files made from corpus tables with
//! `../shared/tools/inflate_table.py` (data pages duplicated; indexes are not
//! updated, so these files are for full scans only). Generated on demand
//! under `target/bench-data/`, never committed.

use jet_storage::{Database, OpenOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One bench data set: a corpus table inflated `copies` times.
#[derive(Debug, Clone, Copy)]
pub struct Dataset {
    /// Short name.
    pub name: &'static str,
    /// Corpus-relative source file.
    pub source: &'static str,
    /// Table inflated.
    pub table: &'static str,
    /// Copies of its data pages appended.
    pub copies: u32,
}

/// The data sets: a Jet3 and a Jet4 table, each near a million rows.
pub const DATASETS: &[Dataset] = &[
    Dataset {
        name: "jet3_order_details",
        source: "mdbtools/nwind.mdb",
        table: "Order Details",
        copies: 400,
    },
    Dataset {
        name: "jet4_comp_index",
        source: "jackcess/V2000/compIndexTestV2000.mdb",
        table: "Table1",
        copies: 1500,
    },
];

/// Root of the shared folder beside the workspace.
pub fn shared_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// Path of the inflated file for `d`, generating it if missing.
pub fn ensure(d: &Dataset) -> std::io::Result<PathBuf> {
    let corpus = std::env::var_os("JET_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| shared_dir().join("corpus"));
    let src = corpus.join(d.source);
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-data");
    std::fs::create_dir_all(&dir)?;
    let ext = Path::new(d.source)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("mdb");
    let dst = dir.join(format!("{}.{ext}", d.name));
    if dst.exists() {
        return Ok(dst);
    }
    let db = Database::open(&src, OpenOptions::default()).map_err(std::io::Error::other)?;
    let t = db.table(d.table).map_err(std::io::Error::other)?;
    let status = Command::new("python3")
        .arg(shared_dir().join("tools/inflate_table.py"))
        .arg(&src)
        .arg(&dst)
        .arg(t.def().page.to_string())
        .arg(d.copies.to_string())
        // the tool's progress goes to standard error: standard output is
        // the `name<TAB>path<TAB>table` lines `bench_data` prints
        .stdout(std::io::stderr())
        .status()?;
    if !status.success() {
        return Err(std::io::Error::other(format!(
            "inflate_table.py failed for {}",
            d.name
        )));
    }
    Ok(dst)
}
