//! A Jet cluster of separate processes on localhost (one
//! `jetsql-scheduler`, two `jetsql-executor`s) answers aggregate, join
//! and filter queries over a generated archive of 200 files exactly as one
//! machine does; Access functions whose names DataFusion also uses keep
//! Access's meaning on the executors; killing an executor during a query
//! gives the right answer or a clear error, never a wrong answer.
//!
//! Expected values: the rows the archive generator wrote (never read back
//! through jetsql) for counts and sums, and the single-machine session for
//! whole results.

use crate::support;
use support::{lines, runtime};

use datafusion::arrow::array::RecordBatch;
use jet_distributed::Node;
use jet_fixtures::archive::{ArchiveEntry, write_archive};
use jet_provider::{JetOptions, JetSession, SqlDialect};
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A child process killed when dropped.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts a scheduler on a free port; returns it and its port.
fn scheduler() -> (Proc, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_jetsql-scheduler"))
        .args([
            "--bind",
            "127.0.0.1:0",
            "--external-host",
            "127.0.0.1",
            "--executor-timeout",
            "6",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .expect("start jetsql-scheduler");
    let stdout = child.stdout.take().unwrap();
    let proc = Proc(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let port = line
        .trim()
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse().ok())
        .unwrap_or_else(|| panic!("the scheduler said {line:?}"));
    (proc, port)
}

/// Starts an executor of the scheduler at `port`, two tasks at once,
/// heartbeats every second; waits until it listens.
fn executor(port: u16, work: &Path) -> Proc {
    let flight = free_port();
    let grpc = free_port();
    let child = Command::new(env!("CARGO_BIN_EXE_jetsql-executor"))
        .args(["--scheduler", &format!("127.0.0.1:{port}")])
        .args(["--bind-host", "127.0.0.1", "--external-host", "127.0.0.1"])
        .args(["--flight-port", &flight.to_string()])
        .args(["--grpc-port", &grpc.to_string()])
        .args(["--concurrent-tasks", "2", "--heartbeat", "1"])
        .arg("--work-dir")
        .arg(work)
        .spawn()
        .expect("start jetsql-executor");
    let proc = Proc(child);
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", flight)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the executor did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    proc
}

struct Cluster {
    port: u16,
    scheduler: Proc,
    executors: Vec<Proc>,
    _work: tempfile::TempDir,
}

fn cluster() -> Cluster {
    let work = tempfile::tempdir().unwrap();
    let (scheduler, port) = scheduler();
    let executors = (0..2)
        .map(|i| {
            let dir = work.path().join(format!("executor{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            executor(port, &dir)
        })
        .collect();
    Cluster {
        port,
        scheduler,
        executors,
        _work: work,
    }
}

/// A single-machine session and a cluster session, both with the first
/// archive file registered as database `site` (bare names allowed).
fn sessions(rt: &tokio::runtime::Runtime, c: &Cluster, first: &Path) -> (JetSession, JetSession) {
    let local = jet_provider::session::new_session(1 << 30).unwrap();
    let remote = rt
        .block_on(jet_distributed::remote_session(
            &format!("127.0.0.1:{}", c.port),
            Arc::new(Node::default()),
        ))
        .unwrap();
    for s in [&local, &remote] {
        s.register("site", first, JetOptions::default(), true)
            .unwrap();
    }
    (local, remote)
}

/// Runs `sql` on `s`, retrying while the cluster is still starting (no
/// executor registered yet) for at most 30 seconds.
fn run(rt: &tokio::runtime::Runtime, s: &JetSession, sql: &str) -> Vec<RecordBatch> {
    let start = Instant::now();
    loop {
        match rt.block_on(s.sql(sql)) {
            Ok(b) => return b,
            Err(e) if start.elapsed() < Duration::from_secs(30) && starting(&e.to_string()) => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => panic!("{sql}: {e}"),
        }
    }
}

/// An error of a cluster still starting (no executor registered yet).
fn starting(message: &str) -> bool {
    let m = message.to_lowercase();
    m.contains("executor") || m.contains("connect") || m.contains("unavailable")
}

fn archive() -> (tempfile::TempDir, Vec<ArchiveEntry>) {
    let dir = tempfile::tempdir().unwrap();
    let entries = write_archive(dir.path(), 200).unwrap();
    (dir, entries)
}

fn glob(dir: &Path) -> String {
    format!("{}/**/*.mdb", dir.display())
}

#[test]
fn cluster_answers_as_one_machine() {
    let (dir, entries) = archive();
    let c = cluster();
    let rt = runtime();
    let first: PathBuf = entries[0].path.clone();
    let (local, remote) = sessions(&rt, &c, &first);
    let g = glob(dir.path());
    local.set_dialect(SqlDialect::DataFusion);
    remote.set_dialect(SqlDialect::DataFusion);

    // the generator's own numbers: rows and amounts per site
    let mut expected: std::collections::BTreeMap<String, (i64, i64)> = Default::default();
    for r in entries.iter().flat_map(|e| &e.rows) {
        let e = expected.entry(r.site.clone()).or_default();
        e.0 += 1;
        e.1 += r.amount_cents;
    }
    let aggregate = format!(
        "SELECT \"Site\", count(*) AS n, CAST(sum(\"Amount\") * 100 AS BIGINT) AS cents, \
         min(\"OrderDate\") AS first, max(\"OrderID\") AS last_id, count(DISTINCT _file) AS files \
         FROM jet_files('{g}', 'Orders') GROUP BY \"Site\" ORDER BY \"Site\""
    );
    let got = run(&rt, &remote, &aggregate);
    let mut from_cluster = std::collections::BTreeMap::new();
    for b in &got {
        use datafusion::arrow::array::AsArray;
        use datafusion::arrow::datatypes::{DataType, Int64Type};
        let sites = datafusion::arrow::compute::cast(b.column(0), &DataType::Utf8).unwrap();
        let sites = sites.as_string::<i32>();
        let n = b.column(1).as_primitive::<Int64Type>();
        let cents = b.column(2).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            from_cluster.insert(sites.value(i).to_string(), (n.value(i), cents.value(i)));
        }
    }
    assert_eq!(
        from_cluster, expected,
        "counts and sums against the generator"
    );
    assert_eq!(lines(&got), lines(&run(&rt, &local, &aggregate)));

    let queries = [
        // a join of two multi-file tables, file by file
        format!(
            "SELECT s.\"SiteID\", count(*) AS n, sum(o.\"Qty\") AS qty \
             FROM jet_files('{g}', 'Orders') o JOIN jet_files('{g}', 'Sites') s \
             ON o.\"Site\" = s.\"Name\" AND o._file = s._file \
             GROUP BY s.\"SiteID\" ORDER BY s.\"SiteID\""
        ),
        // filters: one pushed to every file (an index seek on Site), one
        // on `_file` (pruning), one on a column one file spells `QTY`
        format!(
            "SELECT \"OrderID\", \"Site\", \"Qty\", \"Priority\", _file \
             FROM jet_files('{g}', 'Orders') \
             WHERE \"Site\" = 'Ost' AND _file LIKE '%/2020/%' AND \"Qty\" > 20 \
             ORDER BY \"OrderID\""
        ),
        // a limit and a sort over every file
        format!(
            "SELECT \"OrderID\", \"Amount\", \"Note\" FROM jet_files('{g}', 'Orders') \
             ORDER BY \"Amount\" DESC, \"OrderID\" LIMIT 25"
        ),
    ];
    for q in &queries {
        let want = run(&rt, &local, q);
        let got = run(&rt, &remote, q);
        assert!(lines(&want).len() > 4, "{q} returned nothing");
        assert_eq!(lines(&got), lines(&want), "{q}");
    }

    // one database through its catalog, in Access SQL: an index seek
    // (OrderID is the primary key) and Access functions whose names
    // DataFusion uses with another meaning (Log is the natural logarithm
    // in Access, base 10 in DataFusion; Access's Round rounds half to
    // even)
    local.set_dialect(SqlDialect::Access);
    remote.set_dialect(SqlDialect::Access);
    let access = "SELECT OrderID, Site, Round(Amount / 3, 2) AS r, Log(Qty + 1) AS l, \
                  IIf(Qty > 50, 'big', 'small') AS size, Left(Site, 2) AS s2 \
                  FROM Orders WHERE OrderID >= 3 AND OrderID < 40 ORDER BY OrderID";
    let want = run(&rt, &local, access);
    let got = run(&rt, &remote, access);
    assert!(lines(&want).len() > 6, "the Access query returned nothing");
    assert_eq!(lines(&got), lines(&want));
    // Access's Log(e) is 1 on the executors too (DataFusion's log says
    // 0.434…)
    let e = run(
        &rt,
        &remote,
        "SELECT Log(Exp(1)) AS one FROM Orders WHERE OrderID = 1",
    );
    assert!(
        lines(&e)
            .iter()
            .any(|l| l.contains("| 1.0 ") || l.contains("| 1   ")),
        "{:?}",
        lines(&e)
    );
    // the seek is planned and runs on the cluster
    let plan = run(
        &rt,
        &remote,
        "EXPLAIN SELECT Site FROM Orders WHERE OrderID = 5",
    );
    assert!(
        lines(&plan).iter().any(|l| l.contains("IndexSeekExec")),
        "{:?}",
        lines(&plan)
    );
    drop(c);
}

#[test]
fn an_executor_killed_mid_query_never_gives_a_wrong_answer() {
    let (dir, entries) = archive();
    let mut c = cluster();
    let rt = runtime();
    let (_, remote) = sessions(&rt, &c, &entries[0].path);
    remote.set_dialect(SqlDialect::DataFusion);
    let g = glob(dir.path());
    // a join of every order with the orders of the same site of no
    // smaller quantity: millions of pairs, both sides shuffled; its answer
    // from the generator's rows
    let mut per_site: std::collections::BTreeMap<&str, Vec<i16>> = Default::default();
    for r in entries.iter().flat_map(|e| &e.rows) {
        per_site.entry(r.site.as_str()).or_default().push(r.qty);
    }
    let pairs: usize = per_site
        .values()
        .map(|q| {
            q.iter()
                .map(|a| q.iter().filter(|b| a <= *b).count())
                .sum::<usize>()
        })
        .sum();
    let want = vec![
        "+----------+".to_string(),
        "| pairs    |".to_string(),
        "+----------+".to_string(),
        format!("| {pairs:<8} |"),
        "+----------+".to_string(),
    ];
    let q = format!(
        "SELECT count(*) AS pairs FROM jet_files('{g}', 'Orders') a \
         JOIN jet_files('{g}', 'Orders') b ON a.\"Site\" = b.\"Site\" AND a.\"Qty\" <= b.\"Qty\""
    );
    // the cluster is up: the same query once through it
    assert_eq!(lines(&run(&rt, &remote, &q)), want);

    let remote = Arc::new(remote);
    let running = {
        let remote = remote.clone();
        let q = q.clone();
        rt.spawn(async move { remote.sql(&q).await })
    };
    // the query takes about a second here: kill in its middle
    std::thread::sleep(Duration::from_millis(300));
    let mut killed = c.executors.remove(1);
    assert!(
        !running.is_finished(),
        "the query ended before the kill: make it longer"
    );
    killed.0.kill().unwrap();
    let outcome = rt
        .block_on(async { tokio::time::timeout(Duration::from_secs(120), running).await })
        .expect("the query neither finished nor failed within two minutes")
        .expect("the query task");
    match &outcome {
        Ok(b) => assert_eq!(
            lines(b),
            want,
            "an answer after the kill must be the right one"
        ),
        Err(e) => {
            let m = e.to_string();
            assert!(!m.trim().is_empty() && !m.contains("panicked"), "{m}");
        }
    }
    eprintln!(
        "killed an executor during the query: {}",
        match &outcome {
            Ok(_) => "the right answer".to_string(),
            Err(e) => format!("the error {e}"),
        }
    );
    // the cluster goes on with the executor left
    let start = Instant::now();
    loop {
        match rt.block_on(remote.sql(&q)) {
            Ok(b) => {
                assert_eq!(lines(&b), want);
                break;
            }
            Err(e) => assert!(
                start.elapsed() < Duration::from_secs(90),
                "the surviving executor never answered: {e}"
            ),
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    drop(c.scheduler);
}

#[test]
fn jetsql_cluster_flag_runs_queries_on_the_cluster() {
    let (dir, entries) = archive();
    let c = cluster();
    let jetsql = Path::new(env!("CARGO_BIN_EXE_jetsql-scheduler")).with_file_name("jetsql");
    assert!(
        jetsql.exists(),
        "{} is not built: run the workspace's tests",
        jetsql.display()
    );
    let total: usize = entries.iter().map(|e| e.rows.len()).sum();
    let sql = format!(
        "SELECT count(*) AS n FROM jet_files('{}', 'Orders')",
        glob(dir.path())
    );
    let start = Instant::now();
    loop {
        let out = Command::new(&jetsql)
            .arg("--cluster")
            .arg(format!("127.0.0.1:{}", c.port))
            .args(["--dialect", "datafusion", "--format", "csv", "-c", &sql])
            .arg(&entries[0].path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            assert_eq!(stdout.trim(), format!("n\n{total}"), "{stderr}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30) && starting(&stderr),
            "jetsql --cluster failed: {stderr}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    // writes are refused with a cluster
    let out = Command::new(&jetsql)
        .args(["--cluster", "127.0.0.1:1", "--write", "-c", "SELECT 1"])
        .arg(&entries[0].path)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--write"));
}
