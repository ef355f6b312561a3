#!/usr/bin/env python3
"""Side by side, one machine, one run: jetsql against what a user would pick
instead, on the same files, interleaved (each repetition runs every peer once,
in an order rotated per repetition), medians reported.

Peers
  jetsql       `jetsql cat` (CSV), `jetsql scan` (storage scan to Arrow, one
               thread), and jetsql's DataFusion provider (examples/df_sql.rs
               --jet: partitioned scans on every core, index seeks)
  mdb-export   Debian's mdbtools CSV export
  mdb-sql      mdbtools' SQL (only count(*) and `WHERE pk = v` parse)
  jetdb        the jetdb crate from crates.io (examples/jetdb_scan.rs)
  datafusion   DataFusion over a Parquet copy of the same table, written by
               df_sql --export-parquet from jetsql's scan ("data already in
               Arrow" bound); same binary, same session setup as jetsql's SQL

Timing: every peer runs as its own process. `wall` is the process's wall
time (what a user waits for, start-up included). Peers that run in-process
also report `inner` (open excluded): df_sql reports the median of its own
repetitions for the short queries (point lookup, ORDER BY … LIMIT, MIN/MAX).
A ratio is jetsql's time divided by the peer's (below 1 = jetsql faster),
on `inner` when both sides have it, else on `wall`. Peak RSS is
/usr/bin/time's %M of the same runs.

Usage
  benches/compare.sh [--runs N] [--workloads csv,scan,...]        # defaults
  benches/compare.sh --db FILE --table T [--group K,X,Y] [--pk COL=VALUE]
        [--minmax COL] [--join T2:LEFTCOL=RIGHTCOL] [--indexed]
The second form times one database (e.g. the generated 1M-row file):
--indexed says its indexes are live (seek workloads run); without it only
the scan workloads run. Results go to benches/RESULTS.md (--out to change),
followed by benches/notes.md (hand-written: criterion figures, profile, caveats).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the build compare.sh made: cargo puts it under CARGO_TARGET_DIR when set
REL = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target").resolve() / "release"
JETSQL = REL / "jetsql"
DF_SQL = REL / "examples" / "df_sql"
JETDB = REL / "examples" / "jetdb_scan"
FIXTURES = REL / "jet-fixtures"
BENCH_DATA = ROOT / "target" / "bench-data"
PARQUET_DIR = BENCH_DATA / "parquet"
GEN_ROWS = 1_000_000
CORPUS = Path(os.environ.get("JET_CORPUS", ROOT.parent.parent / "shared" / "corpus"))
if not CORPUS.exists():
    CORPUS = ROOT.parent / "shared" / "corpus"

WORKLOADS = ["csv", "scan", "groupby", "point", "orderby", "minmax", "join"]
SHORT = {"point", "orderby", "minmax"}  # in-process repetitions


def q(name):
    return '"' + name.replace('"', '""') + '"'


def run(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd; returns (wall seconds, peak RSS KiB, stdout text, stderr text)."""
    out_path = "/tmp/jet-compare.out"
    err_path = "/tmp/jet-compare.err"
    rss_path = "/tmp/jet-compare.rss"
    # /usr/bin/time reports the peer's own peak RSS (a child forked from
    # Python would inherit Python's in its ru_maxrss)
    with open(out_path, "wb") as o, open(err_path, "wb") as e:
        start = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_path] + list(map(str, cmd)),
                           stdout=o if stdout is None else stdout, stderr=e)
        wall = time.perf_counter() - start
    text = Path(out_path).read_text(errors="replace") if stdout is None else ""
    err = Path(err_path).read_text(errors="replace")
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited {p.returncode}: {err.strip()[-400:]}")
    rss = int(Path(rss_path).read_text().split()[-1])
    return wall, rss, text, err


def kv(text):
    """Parses `key=value` words (df_sql, jetdb_scan)."""
    d = {}
    for w in text.split():
        if "=" in w:
            k, v = w.split("=", 1)
            d[k] = v
    return d


class Peer:
    """One way of doing one workload: a command and how to read its output."""

    def __init__(self, name, cmd, parse=None, capture=False, note=""):
        self.name, self.cmd, self.parse, self.capture, self.note = name, cmd, parse, capture, note
        self.walls, self.inners, self.rss, self.info = [], [], [], {}
        self.error = None

    def once(self):
        if self.error:
            return
        try:
            wall, rss, out, err = run(self.cmd, stdout=None if self.capture else subprocess.DEVNULL)
        except RuntimeError as e:
            self.error = str(e)
            return
        self.walls.append(wall)
        self.rss.append(rss)
        if self.parse:
            inner, info = self.parse(out, err)
            if inner is not None:
                self.inners.append(inner)
            self.info.update(info)

    def wall(self):
        return statistics.median(self.walls) if self.walls else None

    def inner(self):
        return statistics.median(self.inners) if self.inners else None


def parse_df(out, _err):
    d = kv(out)
    return float(d["secs"]), {k: d[k] for k in ("rows", "pages_read", "index_pages_read", "digest", "exec") if k in d}


def parse_jetdb(_out, err):
    d = kv(err)
    return float(d["secs"]), {"rows": d.get("rows", "")}


def parse_jetsql_scan(out, _err):
    # "N rows in S s (R rows/s), P page reads"
    w = out.split()
    return float(w[3]), {"rows": w[0]}


def df(args, sql, reps=1, warmup=0, extra=()):
    return [str(DF_SQL)] + args + ["--sql", sql, "--reps", str(reps), "--warmup", str(warmup)] + list(extra)


def mdb_sql(db, sql):
    script = Path("/tmp/jet-compare.sql")
    script.write_text(sql + "\ngo\n")
    return ["mdb-sql", "-H", "-F", "-P", "-i", str(script), str(db)]


def ensure_parquet(ds):
    """Parquet copies of the dataset's tables (cached beside the bench data)."""
    out = PARQUET_DIR / ds["name"]
    tables = {"t": ds["table"]}
    if ds.get("join"):
        tables["u"] = ds["join"][0]
    paths = {n: out / f"{n}.parquet" for n in tables}
    if all(p.exists() and p.stat().st_mtime >= Path(ds["file"]).stat().st_mtime for p in paths.values()):
        return paths
    args = ["--jet", str(ds["file"])]
    for n, t in tables.items():
        args += ["--table", f"{n}={t}"]
    subprocess.run([str(DF_SQL)] + args + ["--export-parquet", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    return paths


def peers_for(ds, workload):
    f, t = str(ds["file"]), ds["table"]
    jet = ["--jet", f, "--table", f"t={t}"]
    if ds.get("join"):
        jet += ["--table", f"u={ds['join'][0]}"]
    pq = ensure_parquet(ds)
    par = ["--parquet"] + sum((["--table", f"{n}={p}"] for n, p in pq.items()), [])
    P = []
    if workload == "csv":
        P.append(Peer("jetsql cat", [str(JETSQL), "cat", f, t]))
        P.append(Peer("mdb-export", ["mdb-export", f, t]))
        P.append(Peer("jetdb write_csv", [str(JETDB), "csv", f, t], parse_jetdb, capture=False))
    elif workload == "scan":
        sql = "SELECT * FROM t"
        P.append(Peer("jetsql SQL (2 partitions)", df(jet, sql), parse_df, capture=True))
        P.append(Peer("jetsql scan (storage, 1 thread)", [str(JETSQL), "scan", f, t],
                      parse_jetsql_scan, capture=True))
        P.append(Peer("jetdb rows", [str(JETDB), "scan", f, t], parse_jetdb))
        P.append(Peer("datafusion parquet", df(par, sql), parse_df, capture=True))
        P.append(Peer("mdb-sql count(*)", mdb_sql(f, f"select count(*) from [{t}]"),
                      note="counts rows only"))
    elif workload == "groupby" and ds.get("group"):
        k, x, y = ds["group"]
        sql = f"SELECT {q(k)}, count(*), sum({q(x)}), avg({q(y)}) FROM t GROUP BY {q(k)}"
        P.append(Peer("jetsql SQL", df(jet, sql), parse_df, capture=True))
        P.append(Peer("datafusion parquet", df(par, sql), parse_df, capture=True))
    elif workload == "point" and ds.get("pk"):
        col, val = ds["pk"]
        sql = f"SELECT * FROM t WHERE {q(col)} = {val}"
        P.append(Peer("jetsql SQL (index seek)", df(jet, sql, 20, 2), parse_df, capture=True))
        P.append(Peer("jetsql SQL, pushdown off", df(jet, sql, 3, 1, ["--no-pushdown"]),
                      parse_df, capture=True))
        P.append(Peer("datafusion parquet", df(par, sql, 20, 2), parse_df, capture=True))
        P.append(Peer("mdb-sql", mdb_sql(f, f"select * from [{t}] where [{col}] = {val}")))
    elif workload == "orderby" and ds.get("pk"):
        col, _ = ds["pk"]
        sql = f"SELECT * FROM t ORDER BY {q(col)} LIMIT 10"
        P.append(Peer("jetsql SQL", df(jet, sql, 5, 1), parse_df, capture=True))
        P.append(Peer("datafusion parquet", df(par, sql, 5, 1), parse_df, capture=True))
    elif workload == "minmax" and ds.get("minmax"):
        c = ds["minmax"]
        sql = f"SELECT min({q(c)}), max({q(c)}) FROM t"
        P.append(Peer("jetsql SQL", df(jet, sql, 5, 1), parse_df, capture=True))
        P.append(Peer("datafusion parquet", df(par, sql, 5, 1), parse_df, capture=True))
    elif workload == "join" and ds.get("join"):
        t2, lc, rc = ds["join"]
        sql = f"SELECT count(*), sum(length(CAST(u.{q(rc)} AS VARCHAR))) FROM t JOIN u ON t.{q(lc)} = u.{q(rc)}"
        P.append(Peer("jetsql SQL", df(jet, sql), parse_df, capture=True))
        P.append(Peer("datafusion parquet", df(par, sql), parse_df, capture=True))
    return P


def ensure_generated(rows=GEN_ROWS):
    """The generated, indexed benchmark database (`jet-fixtures --bench`):
    `Bench` of `rows` rows (primary key `ID`, index on `Amount`) and the
    100-row `Categories`; written under target/bench-data/ (never committed)
    when missing or when it predates the `Categories` table."""
    path = BENCH_DATA / f"bench-{rows // 1000}k.accdb"
    if path.exists():
        ok = subprocess.run([str(JETSQL), "describe", str(path), "Categories"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        if ok:
            return path
    BENCH_DATA.mkdir(parents=True, exist_ok=True)
    start = time.time()
    subprocess.run([str(FIXTURES), "--bench", str(path), str(rows)], check=True)
    print(f"  generated {path} in {time.time() - start:.0f} s", file=sys.stderr)
    return path


def default_datasets():
    lines = subprocess.run([str(REL / "examples" / "bench_data")], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    inflated = {n: (p, t) for n, p, t in (l.split("\t") for l in lines)}
    out = []
    p, t = inflated["jet3_order_details"]
    out.append(dict(name="jet3_order_details", file=p, table=t,
                    what="nwind Order Details ×400 (Jet3, inflated, scan-only)",
                    group=("ProductID", "Quantity", "UnitPrice")))
    p, t = inflated["jet4_comp_index"]
    out.append(dict(name="jet4_comp_index", file=p, table=t,
                    what="compIndexTestV2000 Table1 ×1500 (Jet4, inflated, scan-only)",
                    group=("RS_AGENTE", "CD_AGENTE", "CD_AGENTE")))
    g = ensure_generated()
    out.append(dict(name="gen_1m", file=str(g), table="Bench",
                    what=f"generated by `jet-fixtures --bench` (ACE12, {GEN_ROWS:,} distinct rows: "
                         "Long key, Integer, Long, Double, DateTime, Currency, two Text columns "
                         "with Latin-1 letters; PK on ID, index on Amount; written by jetsql's writer)",
                    group=("Category", "Amount", "Score"), pk=("ID", GEN_ROWS // 2),
                    minmax="Amount", join=("Categories", "Category", "Category"), indexed=True))
    out.append(dict(name="nwind", file=str(CORPUS / "mdbtools" / "nwind.mdb"), table="Order Details",
                    what="nwind.mdb Order Details (largest indexed corpus table, real indexes)",
                    group=("ProductID", "Quantity", "UnitPrice"), pk=("OrderID", 10500),
                    minmax="OrderID", join=("Orders", "OrderID", "OrderID"), indexed=True))
    return out


def fmt(x):
    if x is None:
        return "—"
    return f"{x * 1000:.1f} ms" if x < 1 else f"{x:.3f} s"


def targets(results):
    """The issue's targets, checked against this run's medians."""
    def t(p):
        return p.inner() if p.inner() else p.wall()

    out = ["\n## Targets (issue 8), this run\n", "| data | target | measured | met |", "| --- | --- | ---: | --- |"]

    def row(ds, what, value, ok):
        out.append(f"| {ds} | {what} | {value} | {'yes' if ok else '**no**'} |")

    for ds, w, peers in results:
        by = {p.name: p for p in peers if not p.error and p.walls}
        n = ds["name"]
        # speed targets are about large tables: at a few thousand rows fixed
        # costs (DataFusion planning, process start) are all there is
        big = int(ds["rows"]) >= 100_000
        if not big and w in ("csv", "scan", "groupby"):
            if w == "scan" and "jetsql SQL (2 partitions)" in by:
                mib = max(by["jetsql SQL (2 partitions)"].rss) / 1024
                row(n, "full scan peak RSS < 200 MB", f"{mib:.0f} MiB", mib < 200)
            continue
        if w == "csv" and "mdb-export" in by and "jetsql cat" in by:
            r = by["mdb-export"].wall() / by["jetsql cat"].wall()
            row(n, "CSV export ≥5× faster than mdb-export", f"{r:.1f}×", r >= 5)
        if w == "scan":
            j = by.get("jetsql SQL (2 partitions)")
            if j and "jetdb rows" in by:
                r = t(by["jetdb rows"]) / t(j)
                row(n, "full scan ≥2× faster than jetdb", f"{r:.1f}×", r >= 2)
            if j and "datafusion parquet" in by:
                r = t(j) / t(by["datafusion parquet"])
                row(n, "full scan within 2× of DataFusion/Parquet", f"{r:.1f}× slower", r <= 2)
            if j:
                mib = max(j.rss) / 1024
                row(n, "full scan peak RSS < 200 MB", f"{mib:.0f} MiB", mib < 200)
        if w == "groupby" and "jetsql SQL" in by and "datafusion parquet" in by:
            r = t(by["jetsql SQL"]) / t(by["datafusion parquet"])
            row(n, "GROUP BY within 2× of DataFusion/Parquet", f"{r:.1f}× slower", r <= 2)
        if w == "point":
            s, off = by.get("jetsql SQL (index seek)"), by.get("jetsql SQL, pushdown off")
            if s and off and big:
                r = t(off) / t(s)
                row(n, "point lookup ≥1,000× faster than pushdown off (planning + execution)",
                    f"{r:.0f}×", r >= 1000)
                ex = float(off.info.get("exec", "nan")) / float(s.info.get("exec", "nan"))
                row(n, "point lookup ≥1,000× faster than pushdown off (execution only)",
                    f"{ex:.0f}×", ex >= 1000)
            if s and off:
                pr = int(s.info.get("pages_read", "0"))
                row(n, "point lookup < 50 page reads", f"{pr}", pr < 50)
        scan = next((int(p.info.get("pages_read", "0")) for d2, w2, ps in results
                     if d2 is ds and w2 == "scan" for p in ps
                     if p.name.startswith("jetsql SQL")), None)
        if w == "minmax" and "jetsql SQL" in by:
            pr = int(by["jetsql SQL"].info.get("pages_read", "0"))
            ip = int(by["jetsql SQL"].info.get("index_pages_read", "0"))
            h = ds.get("heights", {}).get(ds["minmax"])
            limit = 2 * h if h else 8
            # one descent per aggregate; each also reads the data page of
            # the row its value comes from (counted in pages_read)
            row(n, f"MIN/MAX without a table scan (index pages ≤ 2×tree height = {limit}"
                   f"{'' if h else ', height unknown'})",
                f"{ip} index pages, {pr} pages in all with the 2 rows' data pages "
                f"(full scan: {scan})", 0 < ip <= limit and pr <= ip + 2)
        if w == "orderby" and "jetsql SQL" in by:
            pr = int(by["jetsql SQL"].info.get("pages_read", "0"))
            h = ds.get("heights", {}).get(ds["pk"][0])
            j, d = by["jetsql SQL"], by.get("datafusion parquet")
            ratio = f", {t(j) / t(d):.2f}× DataFusion/Parquet's time" if d else ""
            # an index walk reads the root-to-leaf path, the leaves holding
            # ten keys and the rows' data pages (at most ten)
            limit = (h or 4) + 1 + 10
            row(n, f"ORDER BY pk LIMIT 10 by an index walk (≤ height + 1 + 10 = {limit} pages)",
                f"{pr} pages (full scan: {scan}){ratio}", pr <= limit)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--db")
    ap.add_argument("--table")
    ap.add_argument("--group")
    ap.add_argument("--pk")
    ap.add_argument("--minmax")
    ap.add_argument("--join")
    ap.add_argument("--indexed", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "benches" / "RESULTS.md"))
    a = ap.parse_args()
    wanted = a.workloads.split(",")
    if a.db:
        ds = dict(name=Path(a.db).stem, file=a.db, table=a.table, what=f"{a.db} {a.table}",
                  indexed=a.indexed)
        if a.group:
            ds["group"] = tuple(a.group.split(","))
        if a.pk:
            c, v = a.pk.split("=", 1)
            ds["pk"] = (c, v)
        ds["minmax"] = a.minmax
        if a.join:
            t2, cols = a.join.split(":", 1)
            lc, rc = cols.split("=", 1)
            ds["join"] = (t2, lc, rc)
        datasets = [ds]
    else:
        datasets = default_datasets()

    load_before = os.getloadavg()
    t0 = time.time()
    results = []
    for ds in datasets:
        rows = subprocess.run([str(JETSQL), "scan", ds["file"], ds["table"]], check=True,
                              capture_output=True, text=True).stdout.split()[0]
        ds["rows"] = rows
        if ds.get("indexed"):
            # heights of the B-trees (for the MIN/MAX page bound); an older
            # df_sql without --index-heights leaves them unknown
            out = subprocess.run([str(DF_SQL), "--jet", ds["file"], "--table", f"t={ds['table']}",
                                  "--index-heights"], capture_output=True, text=True).stdout
            ds["heights"] = {k: int(v) for k, v in (l.split()[1].split("=") for l in out.splitlines()
                                                    if l.startswith("height "))}
        for w in wanted:
            if w in ("point", "orderby", "minmax", "join") and not ds.get("indexed"):
                continue
            peers = peers_for(ds, w)
            if not peers:
                continue
            ds.setdefault("load", {})[w] = os.getloadavg()[0]
            for rep in range(a.runs):
                k = rep % len(peers)
                for p in peers[k:] + peers[:k]:
                    p.once()
                print(f"  {ds['name']} {w} rep {rep + 1}/{a.runs}", file=sys.stderr)
            results.append((ds, w, peers))
    load_after = os.getloadavg()
    elapsed = time.time() - t0

    md = []
    md.append("# Side-by-side results\n")
    md.append(f"Generated by `benches/compare.sh` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
              f"{os.cpu_count()} cores, {os.uname().machine}; {a.runs} interleaved repetitions per workload "
              f"(peers alternate, order rotated each repetition), medians; warm page cache; "
              f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, run took {elapsed:.0f} s.\n")
    md.append("`wall` = whole process; `inner` = in-process time reported by the peer (open excluded; "
              "for short queries the median of its own repetitions); `exec` = DataFusion execution "
              "without planning (last process's median). Ratio = jetsql ÷ peer "
              "(< 1: jetsql faster), on `inner` when both have it, else `wall`. "
              "`spread` = (max−min)/median of the walls, a noise gauge.\n")
    summary = {}
    for ds, w, peers in results:
        md.append(f"\n## {ds['name']} — {w}\n")
        md.append(f"{ds['what']}; {ds['rows']} rows in `{ds['table']}`; "
                  f"load average {ds['load'][w]:.2f} when the workload started.\n")
        md.append("| peer | wall | inner | exec | spread | peak RSS | rows | pages read | ratio jetsql ÷ peer |")
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        base = peers[0]
        for p in peers:
            if p.error:
                md.append(f"| {p.name} | failed: {p.error[:120]} | | | | | | | |")
                continue
            ratio = "—"
            if p is not base and not base.error:
                if base.inner() and p.inner():
                    ratio = f"{base.inner() / p.inner():.3f} (inner)"
                else:
                    ratio = f"{base.wall() / p.wall():.3f} (wall)"
            spread = (max(p.walls) - min(p.walls)) / statistics.median(p.walls) if len(p.walls) > 1 else 0
            ex = float(p.info["exec"]) if "exec" in p.info else None
            md.append(f"| {p.name}{' (' + p.note + ')' if p.note else ''} | {fmt(p.wall())} | {fmt(p.inner())} | "
                      f"{fmt(ex)} | "
                      f"{spread * 100:.0f}% | {max(p.rss) / 1024:.0f} MiB | {p.info.get('rows', '')} | "
                      f"{p.info.get('pages_read', '')} | {ratio} |")
            summary[(ds["name"], w, p.name)] = dict(wall=p.wall(), inner=p.inner(), rss_kib=max(p.rss),
                                                  **p.info)
        digests = {p.info.get("digest") for p in peers if p.info.get("digest") not in (None, "-")}
        if len(digests) > 1:
            md.append(f"\n**Results differ between peers** (digests {sorted(digests)}).\n")
        elif digests:
            md.append("\nSame result on every SQL peer (digest of the sorted rows).\n")
    md.extend(targets(results))
    notes = ROOT / "benches" / "notes.md"
    if notes.exists():
        md.append("\n" + notes.read_text())
    text = "\n".join(md) + "\n"
    Path(a.out).write_text(text)
    Path(a.out).with_suffix(".json").write_text(json.dumps(
        {" / ".join(map(str, k)): v for k, v in summary.items()}, indent=1))
    print(text)


if __name__ == "__main__":
    main()
