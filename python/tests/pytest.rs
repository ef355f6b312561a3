//! Runs the Python tests (`python/tests/test_*.py`, pytest) against the
//! extension module this very build made: `cargo test --workspace
//! --release` builds the `_jetsql` cdylib (a workspace member), and this
//! test assembles an importable `jetsql` package from it and
//! `python/jetsql/*.py` in a temporary directory, then runs
//! `python3 -m pytest python/tests` with that directory on `PYTHONPATH`.
//!
//! Needs python3 with pytest, pyarrow, pandas, polars, duckdb and
//! datafusion 55 (`.ci/run` installs them with pip); `$JET_PYTHON`
//! names another interpreter. Missing ones skip the test locally and fail
//! it under `CI=true`, as do missing corpus files and mdbtools inside the
//! Python tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python modules the tests import.
const MODULES: &[&str] = &[
    "pytest",
    "pyarrow",
    "pandas",
    "polars",
    "duckdb",
    "datafusion",
];

fn python() -> PathBuf {
    std::env::var_os("JET_PYTHON")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// The cdylib of this build: `lib_jetsql.so` in the profile directory the
/// test binary's `deps/` directory lies in.
fn extension_module() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let deps = exe.parent().expect("the test binary lies in deps/");
    let profile = deps.parent().expect("deps/ lies in the profile directory");
    let name = format!(
        "{}_jetsql{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    );
    [profile.join(&name), deps.join(&name)]
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "the extension module {name} was not built next to {} \
                 (cargo test --workspace --profile ci builds it)",
                deps.display()
            )
        })
}

/// Copies the package's Python files and the extension module into
/// `dir/jetsql/`, as the wheel lays them out.
fn assemble(source: &Path, module: &Path, dir: &Path) {
    let pkg = dir.join("jetsql");
    std::fs::create_dir_all(&pkg).expect("create the package directory");
    for entry in std::fs::read_dir(source).expect("read python/jetsql") {
        let path = entry.expect("list python/jetsql").path();
        let keep = path.is_file()
            && path
                .extension()
                .is_some_and(|e| e == "py" || e == "pyi" || e == "typed");
        if keep {
            std::fs::copy(&path, pkg.join(path.file_name().expect("a file name")))
                .expect("copy a package file");
        }
    }
    std::fs::copy(module, pkg.join("_jetsql.abi3.so")).expect("copy the extension module");
}

#[test]
fn python_package_passes_its_pytest_suite() {
    let python = python();
    let probe = format!("import {}", MODULES.join(", "));
    match Command::new(&python).args(["-c", &probe]).output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            let Some(()) = jet_tests::skip_or_fail(&format!(
                "{} cannot import the test needs ({}): {} \
                 (pip install maturin pyarrow pandas polars duckdb datafusion==55.0.0 pytest)",
                python.display(),
                MODULES.join(", "),
                String::from_utf8_lossy(&out.stderr).trim()
            )) else {
                return;
            };
        }
        Err(e) => {
            let Some(()) =
                jet_tests::skip_or_fail(&format!("{} cannot be run: {e}", python.display()))
            else {
                return;
            };
        }
    }
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = jet_tests::workspace_root();
    let dir = tempfile::tempdir().expect("a temporary directory");
    assemble(&crate_dir.join("jetsql"), &extension_module(), dir.path());
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(crate_dir.join("tests"))
        .env("PYTHONPATH", dir.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("JET_CORPUS", jet_tests::corpus_dir())
        .env("JET_ORACLE", jet_tests::oracle_dir())
        .current_dir(&root)
        .output()
        .expect("run pytest");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "pytest failed:\n{text}");
}
