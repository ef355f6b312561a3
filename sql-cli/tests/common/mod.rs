//! What the CLI test files share: the `jetsql` binary as the tests run it
//! and the corpus's nwind.mdb. Each test file uses part of it.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::PathBuf;
use std::process::Output;

/// The `jetsql` binary of this build, without `JETSQL_SAMPLE` (so a test
/// never depends on where the sample was found at build time).
pub fn jetsql() -> Command {
    let mut c = Command::cargo_bin("jetsql").expect("the jetsql binary is built");
    c.env_remove("JETSQL_SAMPLE");
    c
}

/// The corpus's nwind.mdb (Access 97), or `None` without the corpus
/// (which fails under `CI=true`, see `jet_tests::corpus`).
pub fn nwind() -> Option<PathBuf> {
    Some(jet_tests::corpus()?.join("mdbtools/nwind.mdb"))
}

/// The output of `cmd`, which must succeed (its stderr is the message
/// when it does not).
pub fn success(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("jetsql runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Held by the tests whose timing is their subject (the SIGKILL tests
/// calibrate a statement's run time, then kill inside it) and by the
/// tests that load the machine for seconds (the server's protocol fuzz,
/// its client libraries): so neither runs while the other does.
pub fn timing_exclusive() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
