//! The `jetsql` binary under a memory limit of its own (issue 35): run in
//! a child shell that sets `ulimit -v` first, every statement that would
//! build a value too large for the process fails with one line of
//! "Resources exhausted" (exit 1) instead of the process aborting with
//! "memory allocation of … bytes failed". The session's memory limit is
//! half the process's own limit (`jet_provider::frontdoor::limits`).

use crate::common;
use assert_cmd::Command;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

/// The address-space limit the tests run `jetsql` under, in KiB
/// (`ulimit -v`): 4,096,000,000 bytes, so the session's limit is
/// 2,048,000,000 bytes ("1.9 GiB").
const ULIMIT_KB: u64 = 4_000_000;

/// The small fixture database (Jet4), present in every checkout.
fn sample_mdb() -> PathBuf {
    jet_tests::workspace_root().join("fixtures/sample.mdb")
}

/// `jetsql ARGS` run by `sh` after `ulimit -v KB` (the shell replaces
/// itself with the binary, so the limit is the binary's), with standard
/// input empty, ended after `timeout`.
fn under_ulimit(kb: u64, args: &[OsString], timeout: Duration) -> Output {
    let bin = common::jetsql().get_program().to_owned();
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args)
        .env_remove("JETSQL_SAMPLE")
        .write_stdin("")
        .timeout(timeout);
    c.output().expect("sh runs jetsql")
}

/// The arguments `DB [--memory-limit SIZE] -c SQL`.
fn query(memory_limit: Option<&str>, sql: &str) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec![sample_mdb().into()];
    if let Some(m) = memory_limit {
        v.push("--memory-limit".into());
        v.push(m.into());
    }
    v.push("-c".into());
    v.push(sql.into());
    v
}

/// Asserts that `out` is one line of "Resources exhausted" holding
/// `want`, exit code 1, and no sign of an abort or a panic.
fn assert_exhausted(out: &Output, sql: &str, want: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{sql}: {err}");
    assert!(err.contains("Resources exhausted"), "{sql}: {err}");
    assert!(err.contains(want), "{sql}: want {want:?} in {err}");
    assert_eq!(err.lines().count(), 1, "{sql}: {err}");
    assert!(
        !err.contains("memory allocation of") && !err.contains("panicked"),
        "{sql}: {err}"
    );
}

/// Under `ulimit -v`, the default memory limit is half the address space
/// (not half the machine's memory), and a larger `--memory-limit` is
/// lowered to it; a smaller one still wins.
#[test]
fn the_memory_limit_follows_the_address_space_limit() {
    // 2.2 GB of text: more than half of 4 GB
    let sql = "SELECT length(repeat('ab', 1100000000)) AS n";
    let minute = Duration::from_secs(60);
    for flag in [None, Some("100GiB")] {
        let out = under_ulimit(ULIMIT_KB, &query(flag, sql), minute);
        assert_exhausted(&out, sql, "memory limit of 1.9 GiB");
    }
    let out = under_ulimit(ULIMIT_KB, &query(Some("1GiB"), sql), minute);
    assert_exhausted(&out, sql, "memory limit of 1.0 GiB");
    // what fits still answers
    let small = "SELECT length(repeat('ab', 1000000)) AS n";
    let out = under_ulimit(ULIMIT_KB, &query(None, small), minute);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "n\n2000000\n");
}
