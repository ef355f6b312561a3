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

/// The arguments `DB --dialect DIALECT [--memory-limit SIZE] -c SQL`.
fn query(dialect: &str, memory_limit: Option<&str>, sql: &str) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec![sample_mdb().into(), "--dialect".into(), dialect.into()];
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
        let out = under_ulimit(ULIMIT_KB, &query("access", flag, sql), minute);
        assert_exhausted(&out, sql, "memory limit of 1.9 GiB");
    }
    let out = under_ulimit(ULIMIT_KB, &query("access", Some("1GiB"), sql), minute);
    assert_exhausted(&out, sql, "memory limit of 1.0 GiB");
    // what fits still answers
    let small = "SELECT length(repeat('ab', 1000000)) AS n";
    let out = under_ulimit(ULIMIT_KB, &query("access", None, small), minute);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "n\n2000000\n");
}

/// The statements of issue 35 and their kin, under `ulimit -v 4000000`:
/// each function that builds a large value (repeat, lpad, overlay,
/// concat, regexp_replace, a digest of a large value, string_agg and
/// array_agg over many rows, Access's Space, String and Replace)
/// fails with one line of "Resources exhausted" and exit code 1, where
/// the process used to abort ("memory allocation of 2000000000 bytes
/// failed").
#[test]
fn large_values_are_resources_exhausted_not_aborts() {
    const SERIES: &str = "FROM generate_series(1, 10000)";
    let mut cases: Vec<(&str, String)> = [
        format!("SELECT length(string_agg(repeat('x', 1000000), ',')) {SERIES}"),
        "SELECT overlay('x' placing repeat('y', 2000000000) from 1)".into(),
        "SELECT sha256(repeat('x', 2000000000))".into(),
        "SELECT length(lpad('x', 2000000000, 'y'))".into(),
        "SELECT length(concat(repeat('x', 1100000000), repeat('y', 1100000000)))".into(),
        "SELECT length(regexp_replace(repeat('x', 500000000), 'x', 'yy', 'g'))".into(),
        format!("SELECT cardinality(array_agg(repeat('x', 1000000))) {SERIES}"),
    ]
    .into_iter()
    .map(|sql| ("datafusion", sql))
    .collect();
    // 250 customers in a batch: 15 GB of spaces
    cases.push((
        "access",
        "SELECT Len(Space(60000000)) FROM Customers".into(),
    ));
    let y = "y".repeat(40);
    cases.push((
        "access",
        format!("SELECT Len(Replace(String(60000000, 'x'), 'x', '{y}'))"),
    ));
    for (dialect, sql) in &cases {
        let out = under_ulimit(
            ULIMIT_KB,
            &query(dialect, None, sql),
            Duration::from_secs(120),
        );
        assert_exhausted(&out, sql, "");
    }
}
