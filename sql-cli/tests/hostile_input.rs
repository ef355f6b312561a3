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
/// input empty; an error when it cannot run or is still running after
/// `timeout` (it is killed then).
fn try_under_ulimit(kb: u64, args: &[OsString], timeout: Duration) -> std::io::Result<Output> {
    let bin = common::jetsql().get_program().to_owned();
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kb} && exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args)
        .env_remove("JETSQL_SAMPLE")
        .write_stdin("")
        .timeout(timeout);
    c.output()
}

/// [`try_under_ulimit`], which must end in time.
fn under_ulimit(kb: u64, args: &[OsString], timeout: Duration) -> Output {
    try_under_ulimit(kb, args, timeout).expect("sh runs jetsql, which ends in time")
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
        // the bounded fuzz, seed 35, run 6260: repeat needs its result and
        // a buffer as long as one value (1.2 GB each)
        "SELECT length(repeat(overlay(repeat('é', 601492262) placing encode('é', 'hex') from 2), 297193))".into(),
        "SELECT length(repeat('é', 601492262))".into(),
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

/// What the bounded fuzz found (seed 35, run 500): Access's `&` over an
/// 808 MB `Replace` result aborted under `ulimit -v` ("memory allocation
/// of 807971706 bytes failed"): the operator copied each text operand and
/// grew its result by doubling, and the result column was built over
/// copies again. And (seed 36, run 3660) a 1.2 GB `Replace` result of
/// constant arguments aborted ("memory allocation of 1175713742 bytes
/// failed"): an Access function on constants copied its text result into
/// an array and from it into a scalar, and `Len` copied it in again. Now
/// each answers or refuses in one line, as any fuzz run must.
#[test]
fn large_access_concatenations_answer_or_refuse() {
    for sql in [
        "SELECT Len((Replace(String(14962439, 'x'), 'x', String(54, 'x')) & ('ab' & 'x')))",
        "SELECT Len(String(300000000, 'x') & String(300000000, 'y') & 'z')",
        "SELECT Len(Replace(String(12507593, 'x'), 'x', Replace(Space(94), 'x', Replace(Space(3), 'x', 'ab'))))",
    ] {
        let out = under_ulimit(
            ULIMIT_KB,
            &query("access", None, sql),
            Duration::from_secs(120),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        assert!(
            code == Some(0) || (code == Some(1) && err.lines().count() == 1),
            "{sql}\nexit {code:?}, stderr:\n{err}"
        );
        assert!(!err.contains("memory allocation of"), "{sql}\n{err}");
    }
}

/// The session's memory limit under [`ULIMIT_KB`]: half of it.
const LIMIT: u64 = ULIMIT_KB * 1024 / 2;

/// Random statements that nest the functions building large values, with
/// sizes from a few bytes to past the memory limit.
struct Statements {
    rng: jet_fixtures::Rng,
    /// Whether the expression runs over rows of `generate_series` (its
    /// `value` column may be used).
    rows: bool,
}

impl Statements {
    /// A count (`repeat`'s, `lpad`'s): small, medium, large, or around
    /// the memory limit and past it.
    fn count(&mut self) -> u64 {
        match self.rng.below(4) {
            0 => 1 + self.rng.below(100),
            1 => 1_000 + self.rng.below(1_000_000),
            2 => 10_000_000 + self.rng.below(300_000_000),
            _ => LIMIT / 4 + self.rng.below(2 * LIMIT),
        }
    }

    /// A short text: a literal, or the row's number as text.
    fn leaf(&mut self) -> String {
        let literals = ["'x'", "'ab'", "'é'", "''", "'xyz'"];
        if self.rows && self.rng.below(3) == 0 {
            "CAST(value AS VARCHAR)".to_string()
        } else {
            self.rng.pick(&literals).to_string()
        }
    }

    /// A text expression of DataFusion's functions, nested up to `depth`.
    fn text(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.below(4) == 0 {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(9) {
            0 => format!("repeat({}, {})", self.text(d), self.count()),
            1 => format!("lpad({}, {}, {})", self.text(d), self.count(), self.leaf()),
            2 => format!("rpad({}, {})", self.text(d), self.count()),
            3 => format!(
                "overlay({} placing {} from {})",
                self.text(d),
                self.text(d),
                1 + self.rng.below(10)
            ),
            4 => format!("replace({}, 'x', {})", self.text(d), self.text(d)),
            5 => format!(
                "concat({}, {}, {})",
                self.text(d),
                self.text(d),
                self.leaf()
            ),
            6 => format!("concat_ws(',', {}, {})", self.text(d), self.text(d)),
            // a regular expression over at most a million characters
            // (its speed, not its memory, would bound the run)
            7 => {
                let input = format!("repeat({}, {})", self.leaf(), self.rng.below(1_000_000));
                format!("regexp_replace({input}, 'x', {}, 'g')", self.text(d))
            }
            _ => format!("encode({}, 'hex')", self.text(d)),
        }
    }

    /// A text expression of Access's functions, nested up to `depth`.
    fn access(&mut self, depth: u32) -> String {
        if depth == 0 || self.rng.below(4) == 0 {
            return self.rng.pick(&["'x'", "'ab'", "Space(3)"]).to_string();
        }
        let d = depth - 1;
        // Space and String refuse more than 2^26 characters themselves
        let n = match self.rng.below(3) {
            0 => 1 + self.rng.below(100),
            1 => 1_000_000 + self.rng.below(1 << 26),
            _ => 1 + self.rng.below(1 << 27),
        };
        match self.rng.below(4) {
            0 => format!("Space({n})"),
            1 => format!("String({n}, 'x')"),
            2 => format!("Replace({}, 'x', {})", self.access(d), self.access(d)),
            _ => format!("({} & {})", self.access(d), self.access(d)),
        }
    }

    /// The rows of an aggregate's `generate_series`.
    fn series(&mut self) -> u64 {
        match self.rng.below(2) {
            0 => 1 + self.rng.below(100),
            _ => 1_000 + self.rng.below(20_000),
        }
    }

    /// One statement and its dialect.
    fn statement(&mut self) -> (&'static str, String) {
        match self.rng.below(8) {
            0..=2 => ("datafusion", format!("SELECT length({})", self.text(3))),
            3 => {
                let digest = self.rng.pick(&["sha256", "md5"]);
                ("datafusion", format!("SELECT {digest}({})", self.text(3)))
            }
            4 | 5 => {
                self.rows = true;
                let e = self.text(2);
                self.rows = false;
                let n = self.series();
                let sql = if self.rng.below(2) == 0 {
                    format!("SELECT length(string_agg({e}, ',')) FROM generate_series(1, {n})")
                } else {
                    format!("SELECT cardinality(array_agg({e})) FROM generate_series(1, {n})")
                };
                ("datafusion", sql)
            }
            _ => ("access", format!("SELECT Len({})", self.access(3))),
        }
    }
}

/// A bounded fuzz of the functions that build large values: random
/// nestings of repeat, lpad, rpad, overlay, replace, concat, concat_ws,
/// regexp_replace, encode, the digests, string_agg and array_agg (and
/// Access's Space, String, Replace and `&`), with sizes from a few bytes
/// to past the memory limit, each run by the binary under
/// `ulimit -v 4000000`. Every run must answer (exit 0) or fail with one
/// line (exit 1): never "memory allocation of … failed", a panic, a
/// backtrace, a signal. Runs for `$JETSQL_FUZZ_SECONDS` (default 20)
/// from the seed `$JETSQL_FUZZ_SEED` (default 35), which it prints.
#[test]
fn bounded_fuzz() {
    let seconds: u64 = std::env::var("JETSQL_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("JETSQL_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(35);
    eprintln!("bounded_fuzz: seed {seed} (JETSQL_FUZZ_SEED), {seconds} s (JETSQL_FUZZ_SECONDS)");
    let mut statements = Statements {
        rng: jet_fixtures::Rng::new(seed),
        rows: false,
    };
    let start = std::time::Instant::now();
    let (mut runs, mut answered) = (0u32, 0u32);
    while runs == 0 || start.elapsed() < Duration::from_secs(seconds) {
        let (dialect, sql) = statements.statement();
        runs += 1;
        let context = format!("seed {seed}, run {runs}, --dialect {dialect}: {sql}");
        let out = try_under_ulimit(
            ULIMIT_KB,
            &query(dialect, None, &sql),
            Duration::from_secs(120),
        )
        .unwrap_or_else(|e| panic!("{context}: {e}"));
        let err = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        let one_line_error = code == Some(1) && err.lines().count() == 1;
        assert!(
            code == Some(0) || one_line_error,
            "{context}\nexit {code:?}, stderr:\n{err}"
        );
        for sign in [
            "memory allocation of",
            "panicked",
            "backtrace",
            "this is a bug",
        ] {
            assert!(!err.contains(sign), "{context}\nstderr:\n{err}");
        }
        if code == Some(0) {
            answered += 1;
        }
    }
    eprintln!(
        "bounded_fuzz: {runs} statements, {answered} answered, {} refused",
        runs - answered
    );
}
