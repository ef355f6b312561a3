//! SQL fuzz (issue 17): random token streams (SQL keywords, operators,
//! brackets, Access tokens: `[names]`, `#dates#`, `&`, `Mod`, `\`, `TOP`,
//! `IIf(`, `Like '*a?'`, parameters) and mutated valid statements (the
//! queries of `tests/slt/**/*.slt`, with tokens deleted, duplicated,
//! swapped, inserted, spliced, nested deeply or chained) run through a
//! fresh read-only [`JetSession`] over a copy of nwind, in both dialects.
//!
//! Each statement must end within 10 s and must not panic (the session
//! turns a panic into an error saying it is a bug: that counts as a
//! failure too), and no statement may leave a file behind or change the
//! database copy. Deterministic: the seed is fixed (`JET_SQL_FUZZ_SEED`
//! changes it). `JET_SQL_FUZZ_N` sets the statements per dialect (default
//! 1200); `JET_SQL_FUZZ_SECS` runs for that many seconds instead.

use datafusion::prelude::SessionConfig;
use jet_provider::{JetOptions, JetSession, SqlDialect};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A statement taking longer than this is a failure.
const WATCHDOG: Duration = Duration::from_secs(10);
/// Rows read from a result before the statement counts as answered.
const MAX_ROWS: usize = 2000;

/// splitmix64: small, deterministic, good enough to pick tokens.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

const TOKENS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP BY",
    "ORDER BY",
    "HAVING",
    "JOIN",
    "LEFT JOIN",
    "INNER JOIN",
    "ON",
    "AS",
    "AND",
    "OR",
    "NOT",
    "IN",
    "EXISTS",
    "BETWEEN",
    "IS NULL",
    "IS NOT NULL",
    "LIKE",
    "Like '*a?'",
    "Like 'D*'",
    "UNION",
    "UNION ALL",
    "DISTINCT",
    "DISTINCTROW",
    "TOP 5",
    "TOP 10 PERCENT",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "CAST(",
    "AS INT",
    "AS VARCHAR",
    "WITH",
    "VALUES",
    "LIMIT 3",
    "OFFSET 1",
    "TRANSFORM",
    "PIVOT",
    "PARAMETERS [p] Long;",
    "INSERT INTO",
    "UPDATE",
    "DELETE",
    "SET",
    "NULL",
    "True",
    "False",
    "Yes",
    "Mod",
    "\\",
    "&",
    "+",
    "-",
    "*",
    "/",
    "^",
    "=",
    "<>",
    "<",
    ">",
    "<=",
    ">=",
    "||",
    "(",
    ")",
    "(",
    ")",
    ",",
    ";",
    ".",
    "!",
    "[Order Details]",
    "[Orders]",
    "orders",
    "customers",
    "Employees",
    "Products",
    "OrderID",
    "CustomerID",
    "[Unit Price]",
    "Freight",
    "OrderDate",
    "Orders!OrderID",
    "[Orders].[OrderID]",
    "'a'",
    "'x*'",
    "\"q\"",
    "\"OrderID\"",
    "42",
    "3.5",
    "-1",
    "0",
    "1e308",
    "2147483648",
    "#1/2/2003#",
    "#1998-01-01#",
    "#10:30 PM#",
    "#13/45/2003#",
    "IIf(",
    "Nz(",
    "Format(",
    "Left(",
    "Mid(",
    "InStr(",
    "DateAdd('d', 1,",
    "DateDiff('m',",
    "DatePart('yyyy',",
    "CStr(",
    "CLng(",
    "CDbl(",
    "Val(",
    "Space(",
    "String(3,",
    "StrReverse(",
    "Round(",
    "Int(",
    "Fix(",
    "[Enter a date]",
    "?",
    "$1",
    "count(*)",
    "sum(",
    "min(",
    "max(",
    "avg(",
    "First(",
    "Last(",
    "StDev(",
    "DLookup(\"OrderID\", \"Orders\")",
    "DCount(\"*\", \"Orders\")",
    "*",
    "ASC",
    "DESC",
    "NULLS FIRST",
    "EXPLAIN",
    "SHOW TABLES",
    "'",
    "\"",
    "[",
    "]",
    "#",
    "--",
    "/*",
    "*/",
    "'it''s'",
    "[a]]b]",
    "x",
    "é",
    "\u{0}",
];

/// The statements of the slt files (the SQL between `query`/`statement`
/// and `----` or a blank line).
fn seed_statements() -> Vec<String> {
    let root = jet_tests::workspace_root().join("tests/slt");
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [root.clone(), root.join("access")] {
        if let Ok(rd) = std::fs::read_dir(&dir) {
            files.extend(
                rd.filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "slt")),
            );
        }
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let mut cur: Option<String> = None;
        for line in text.lines() {
            match cur.as_mut() {
                None if line.starts_with("query") || line.starts_with("statement") => {
                    cur = Some(String::new());
                }
                None => {}
                Some(s) if line.starts_with("----") || line.trim().is_empty() => {
                    if !s.trim().is_empty() {
                        out.push(s.trim().to_string());
                    }
                    cur = None;
                }
                Some(s) => {
                    s.push_str(line);
                    s.push('\n');
                }
            }
        }
        if let Some(s) = cur.filter(|s| !s.trim().is_empty()) {
            out.push(s.trim().to_string());
        }
    }
    // statements that write files are not fuzzed (a read-only session
    // refuses database writes; COPY would write into the working directory)
    out.retain(|s| {
        let u = s.to_ascii_uppercase();
        !u.contains("COPY") && !u.contains("EXTERNAL")
    });
    out
}

/// Splits SQL into rough tokens: quoted runs stay whole, punctuation
/// stands alone. Each token carries whether a space preceded it, so that
/// joining an unchanged list gives back equivalent SQL (`<>`, `a.b`).
fn rough_tokens(sql: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut space = false;
    let flush = |cur: &mut String, out: &mut Vec<String>, space: &mut bool| {
        if !cur.is_empty() {
            let t = std::mem::take(cur);
            out.push(if *space { format!(" {t}") } else { t });
            *space = false;
        }
    };
    for c in sql.chars() {
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
                flush(&mut cur, &mut out, &mut space);
            }
            continue;
        }
        match c {
            '\'' | '"' | '[' | '#' => {
                flush(&mut cur, &mut out, &mut space);
                cur.push(c);
                quote = Some(if c == '[' { ']' } else { c });
            }
            c if c.is_whitespace() => {
                flush(&mut cur, &mut out, &mut space);
                space = true;
            }
            '(' | ')' | ',' | ';' | '+' | '*' | '/' | '=' | '<' | '>' | '&' => {
                flush(&mut cur, &mut out, &mut space);
                cur.push(c);
                flush(&mut cur, &mut out, &mut space);
            }
            c => cur.push(c),
        }
    }
    flush(&mut cur, &mut out, &mut space);
    out
}

/// One fuzz statement.
fn generate(rng: &mut Rng, seeds: &[String]) -> String {
    if seeds.is_empty() || rng.below(3) == 0 {
        let n = 1 + rng.below(40);
        let mut v: Vec<&str> = Vec::with_capacity(n);
        if rng.below(2) == 0 {
            v.push("SELECT");
        }
        for _ in 0..n {
            v.push(*rng.pick::<&str>(TOKENS));
        }
        let sep = if rng.below(8) == 0 { "" } else { " " };
        return v.join(sep);
    }
    let mut t = rough_tokens(rng.pick::<String>(seeds));
    for _ in 0..rng.below(3) {
        let len = t.len().max(1);
        match rng.below(8) {
            0 if !t.is_empty() => {
                t.remove(rng.below(len));
            }
            1 if !t.is_empty() => {
                let i = rng.below(len);
                let x = t[i].clone();
                t.insert(i, x);
            }
            2 if t.len() > 1 => {
                let (i, j) = (rng.below(len), rng.below(len));
                t.swap(i, j);
            }
            3 => {
                let i = rng.below(len + 1).min(t.len());
                t.insert(i, format!(" {}", rng.pick(TOKENS)));
            }
            4 => {
                // splice: a prefix of this statement, a suffix of another
                let other = rough_tokens(rng.pick::<String>(seeds));
                let cut = rng.below(len + 1).min(t.len());
                let from = rng.below(other.len() + 1).min(other.len());
                t.truncate(cut);
                t.extend(other[from..].iter().cloned());
            }
            5 if !t.is_empty() => {
                // deep nesting around one token
                let i = rng.below(len);
                let k = 1 + rng.below(60);
                t[i] = format!("{}{}{}", "(".repeat(k), t[i], ")".repeat(k));
            }
            6 if !t.is_empty() => {
                // a long chain after one token
                let i = rng.below(len);
                let op = *rng.pick(&[" + 1", " & 'a'", " || 'a'", " AND 1=1", " OR x", " Mod 2"]);
                t[i] = format!("{}{}", t[i], op.repeat(1 + rng.below(250)));
            }
            _ => {
                if !t.is_empty() {
                    let i = rng.below(len);
                    t[i] = format!(" {}", rng.pick(TOKENS));
                }
            }
        }
    }
    t.concat()
}

/// How one statement ended.
enum Outcome {
    Answered,
    /// An error (its message).
    Refused(String),
    /// The session reported a caught panic.
    Panicked(String),
}

fn session(db: &Path, dialect: SqlDialect) -> JetSession {
    let s = JetSession::new(jet_provider::session_context(
        SessionConfig::new()
            .with_target_partitions(2)
            .with_information_schema(true)
            .with_default_catalog_and_schema("datafusion", "public"),
    ));
    s.register("nw", db, JetOptions::default(), true)
        .expect("the nwind copy opens");
    s.set_dialect(dialect);
    s
}

async fn run_one(db: &Path, dialect: SqlDialect, sql: &str) -> Outcome {
    let s = session(db, dialect);
    let r = async {
        let df = s.sql_frame(sql).await?;
        df.limit(0, Some(MAX_ROWS))?.collect().await?;
        Ok::<_, datafusion::error::DataFusionError>(())
    };
    match jet_provider::frontdoor::catch_panic(r).await {
        Ok(()) => Outcome::Answered,
        Err(e) => {
            let m = e.to_string();
            if m.contains("failed inside the engine") {
                Outcome::Panicked(m)
            } else {
                Outcome::Refused(m)
            }
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn sql_fuzz_never_panics_hangs_or_writes() {
    let Some(corpus) = jet_tests::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("nwind.mdb");
    std::fs::copy(corpus.join("mdbtools/nwind.mdb"), &db).unwrap();
    let original = std::fs::read(&db).unwrap();
    let seeds = seed_statements();
    assert!(seeds.len() > 100, "only {} seed statements", seeds.len());
    let seed = env_u64("JET_SQL_FUZZ_SEED").unwrap_or(0x005e_ed17);
    let per_dialect = env_u64("JET_SQL_FUZZ_N").unwrap_or(1200) as usize;
    let budget = env_u64("JET_SQL_FUZZ_SECS").map(Duration::from_secs);
    let start = Instant::now();
    let mut rng = Rng(seed);
    let (to_worker, jobs) = mpsc::channel::<(SqlDialect, String)>();
    let (done, results) = mpsc::channel::<Outcome>();
    let worker_db = db.clone();
    std::thread::Builder::new()
        .name("fuzz-worker".into())
        .stack_size(16 << 20)
        .spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_stack_size(16 << 20)
                .enable_all()
                .build()
                .unwrap();
            for (dialect, sql) in jobs {
                let out = rt.block_on(run_one(&worker_db, dialect, &sql));
                if done.send(out).is_err() {
                    break;
                }
            }
        })
        .unwrap();
    let (mut ran, mut answered, mut refused) = (0usize, 0usize, 0usize);
    let mut failures: Vec<String> = Vec::new();
    let mut samples: Vec<String> = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    let mut i = 0usize;
    loop {
        let more = match budget {
            Some(b) => start.elapsed() < b,
            None => i < 2 * per_dialect,
        };
        if !more {
            break;
        }
        let dialect = if i.is_multiple_of(2) {
            SqlDialect::Access
        } else {
            SqlDialect::DataFusion
        };
        i += 1;
        let sql = generate(&mut rng, &seeds);
        let t0 = Instant::now();
        to_worker.send((dialect, sql.clone())).unwrap();
        match results.recv_timeout(WATCHDOG) {
            Ok(Outcome::Answered) => answered += 1,
            Ok(Outcome::Refused(m)) => {
                refused += 1;
                if samples.len() < 6 && std::env::var_os("JET_SQL_FUZZ_VERBOSE").is_some() {
                    samples.push(format!("{sql}\n    -> {m}"));
                }
            }
            Ok(Outcome::Panicked(m)) => failures.push(format!("{dialect}: panic: {m}\n  {sql}")),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                failures.push(format!(
                    "{dialect}: the worker died (a panic outside the statement):\n  {}",
                    sql.chars().take(300).collect::<String>()
                ));
                ran += 1;
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                failures.push(format!(
                    "{dialect}: took more than {WATCHDOG:?}:\n  {}",
                    sql.chars().take(300).collect::<String>()
                ));
                // the worker is stuck: stop here
                ran += 1;
                break;
            }
        }
        ran += 1;
        let took = t0.elapsed();
        if took > slowest.0 {
            slowest = (took, sql.chars().take(120).collect());
        }
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "nwind.mdb")
            .collect();
        if !left.is_empty() {
            failures.push(format!("{dialect}: left {left:?} behind:\n  {sql}"));
            break;
        }
    }
    eprintln!(
        "sql fuzz: {ran} statements in {:.1} s ({answered} answered, {refused} refused, {} failures); \
         slowest {:?}: {}",
        start.elapsed().as_secs_f64(),
        failures.len(),
        slowest.0,
        slowest.1
    );
    for s in &samples {
        eprintln!("refused: {s}");
    }
    assert_eq!(
        std::fs::read(&db).unwrap(),
        original,
        "the database copy changed"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(answered > 0 && refused > 0);
}
