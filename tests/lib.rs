//! # jet-tests
//!
//! Helpers shared by the workspace integration tests
//! (`tests/tests/{storage,sql}/` and `sql-cli/tests/`):
//! where the corpus of real Access files and the mdbtools oracle live, what
//! to do when they are missing (skip locally, fail under CI), how to read the
//! oracle's digest files and how to run `mdb-export`.
//!
//! The corpus and the oracle are data beside the checkout, never copied into
//! it: by default `../shared/corpus` and `../shared/oracle` relative to the
//! workspace root, overridden by the environment variables `JET_CORPUS` and
//! `JET_ORACLE`.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Environment variable that overrides [`corpus_dir`].
pub const CORPUS_ENV: &str = "JET_CORPUS";
/// Environment variable that overrides [`oracle_dir`].
pub const ORACLE_ENV: &str = "JET_ORACLE";
/// Environment variable that overrides the `mdb-export` program
/// ([`mdb_export_program`]).
pub const MDB_EXPORT_ENV: &str = "JET_MDB_EXPORT";

/// The root of the Cargo workspace (the parent of this package's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the jet-tests package lives inside the workspace")
        .to_path_buf()
}

fn dir_from_env(var: &str, default_rel: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(v) if !v.is_empty() => {
            let p = PathBuf::from(v);
            if p.is_absolute() {
                p
            } else {
                workspace_root().join(p)
            }
        }
        _ => workspace_root().join(default_rel),
    }
}

/// Where the corpus of real database files is: `$JET_CORPUS` if set (a
/// relative value is taken relative to the workspace root), else
/// `<workspace root>/../shared/corpus`. The directory may not exist; see
/// [`corpus`].
pub fn corpus_dir() -> PathBuf {
    dir_from_env(CORPUS_ENV, "../shared/corpus")
}

/// Where the mdbtools oracle (row counts and export digests) is:
/// `$JET_ORACLE` if set (relative values are relative to the workspace
/// root), else `<workspace root>/../shared/oracle`. See [`oracle`].
pub fn oracle_dir() -> PathBuf {
    dir_from_env(ORACLE_ENV, "../shared/oracle")
}

/// Whether the tests run under continuous integration (`CI=true`), where a
/// missing prerequisite is a failure rather than a reason to skip.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v.eq_ignore_ascii_case("true"))
}

/// Handles a missing prerequisite of a test: under CI ([`in_ci`]) it panics
/// with `what` (a skipped conformance test in CI is a failure); otherwise it
/// prints a notice saying the test is skipped and returns `None`, so that
/// callers can write `let Some(x) = skip_or_fail(..) else { return };`.
pub fn skip_or_fail<T>(what: &str) -> Option<T> {
    if in_ci() {
        panic!("{what} (CI=true: a skipped conformance test is a failure)");
    }
    eprintln!("NOTICE: skipping test: {what}");
    None
}

/// The directory `dir` if it exists, otherwise [`skip_or_fail`] with a
/// message naming `what`, the path and the variable `env_var` that
/// overrides it.
pub fn require_dir(what: &str, dir: PathBuf, env_var: &str) -> Option<PathBuf> {
    if dir.is_dir() {
        Some(dir)
    } else {
        skip_or_fail(&format!(
            "{what} not found at {} (set {env_var} to its location)",
            dir.display()
        ))
    }
}

/// The corpus directory ([`corpus_dir`]) if it exists; otherwise skips
/// (prints a notice, returns `None`) or, under CI, panics.
pub fn corpus() -> Option<PathBuf> {
    require_dir("database corpus", corpus_dir(), CORPUS_ENV)
}

/// The oracle directory ([`oracle_dir`]) if it exists; otherwise skips
/// (prints a notice, returns `None`) or, under CI, panics.
pub fn oracle() -> Option<PathBuf> {
    require_dir("mdbtools oracle", oracle_dir(), ORACLE_ENV)
}

/// The `mdb-export` program to run: `$JET_MDB_EXPORT` if set, else
/// `mdb-export` from `PATH`.
pub fn mdb_export_program() -> PathBuf {
    std::env::var_os(MDB_EXPORT_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("mdb-export"))
}

/// The `mdb-export` program ([`mdb_export_program`]) and its version line if
/// it runs (`mdb-export --version`); otherwise skips or, under CI, panics.
pub fn require_mdb_export() -> Option<(PathBuf, String)> {
    let prog = mdb_export_program();
    match Command::new(&prog).arg("--version").output() {
        Ok(out) if out.status.success() => {
            let v = String::from_utf8_lossy(&out.stdout).trim().to_string();
            Some((prog, v))
        }
        Ok(out) => skip_or_fail(&format!(
            "{} --version failed ({}): {}",
            prog.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => skip_or_fail(&format!(
            "{} cannot be run ({e}); install mdbtools (apt-get install mdbtools)",
            prog.display()
        )),
    }
}

/// Every regular file under `root` (recursively) whose name does not end in
/// `.md` or `.txt`, as paths relative to `root` with `/` separators, sorted.
pub fn list_files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in rd.flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else if p.is_file() {
                let rel = p.strip_prefix(root).unwrap_or(&p);
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(rel.join("/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.retain(|p| !p.ends_with(".md") && !p.ends_with(".txt"));
    out.sort();
    out
}

/// One line of an oracle digest file: a table as mdbtools exported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleTable {
    /// Table name as `mdb-tables` lists it.
    pub name: String,
    /// Rows `mdb-export` wrote for it.
    pub rows: u64,
    /// Lower-case hex SHA-256 of the `mdb-export` output.
    pub sha256: String,
}

/// Parses an oracle digest file (`table<TAB>rowcount<TAB>sha256` per line;
/// blank lines ignored). An empty file means a database without user tables.
pub fn read_oracle_tsv(path: &Path) -> Result<Vec<OracleTable>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parts: Vec<&str> = line.split('\t').collect();
        let [name, rows, sha] = parts[..] else {
            return Err(format!(
                "{}:{}: expected 3 tab-separated fields, got {:?}",
                path.display(),
                i + 1,
                line
            ));
        };
        let rows = rows
            .parse()
            .map_err(|e| format!("{}:{}: bad row count {rows:?}: {e}", path.display(), i + 1))?;
        out.push(OracleTable {
            name: name.to_string(),
            rows,
            sha256: sha.to_ascii_lowercase(),
        });
    }
    Ok(out)
}

/// The databases the oracle describes: for every `<path>.tsv` (not
/// `.iso.tsv`) under `oracle` (outside its `csv/` folder), `<path>`, which
/// names a file relative to the corpus. Sorted.
pub fn oracle_databases(oracle: &Path) -> Vec<String> {
    list_files(oracle)
        .into_iter()
        .filter(|p| !p.starts_with("csv/"))
        .filter(|p| p.ends_with(".tsv") && !p.ends_with(".iso.tsv"))
        .map(|p| p.trim_end_matches(".tsv").to_string())
        .filter(|p| p != "MANIFEST")
        .collect()
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let d = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in d {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// What one run of `mdb-export` produced.
#[derive(Debug, Clone)]
pub struct ExportOutput {
    /// The command line, for messages.
    pub command: String,
    /// Standard output (the CSV).
    pub stdout: Vec<u8>,
    /// Standard error (mdbtools' warnings).
    pub stderr: String,
}

/// Runs `program args.. file table` (an `mdb-export` invocation) and returns
/// its output, or an error naming the command if it cannot run or exits
/// unsuccessfully.
pub fn run_mdb_export(
    program: &Path,
    args: &[&str],
    file: &Path,
    table: &str,
) -> Result<ExportOutput, String> {
    let mut cmd = Command::new(program);
    cmd.args(args).arg(file).arg(table);
    let mut words = vec![program.display().to_string()];
    words.extend(args.iter().map(|a| {
        if a.contains(' ') || a.chars().any(|c| c.is_control()) {
            format!("{a:?}")
        } else {
            a.to_string()
        }
    }));
    words.push(file.display().to_string());
    words.push(format!("{table:?}"));
    let command = words.join(" ");
    let out = cmd.output().map_err(|e| format!("{command}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{command}: {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(ExportOutput {
        command,
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

pub mod agree;
pub mod crash;
pub mod mdb_reader;

pub use agree::consistency;
