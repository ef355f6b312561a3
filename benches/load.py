#!/usr/bin/env python3
"""Loading at the target's speed (issue 36): every loading target jetsql
serves, timed against its peer in one run on one machine, interleaved
(each repetition runs every peer of a workload once, in an order rotated
per repetition), medians reported with every run listed.

Workloads and peers (the first row of each is jetsql)
  sqlite    `jetsql migrate FILE out.sqlite` (a new file each run)
            mdbtools: `mdb-schema FILE sqlite | sqlite3`, then per table
              `mdb-export -I sqlite -b hex -S 100` in one transaction
              (as benches/migrate/run.sh does)
            bound: `sqlite3` loading the CSV copy of TABLE (`.import --csv`)
              into a table of the same columns, no keys or indexes,
              journal_mode=OFF, synchronous=OFF
  postgres  `jetsql migrate FILE "PG dbname=X"` into a fresh database
            mdbtools: `mdb-schema FILE postgres --no-relations | psql`, then
              per table `mdb-export -I postgres -B -b hex -S 100 | psql` in
              one transaction (--no-relations: mdb-schema creates the
              foreign keys before the data, and mdb-tables' order breaks
              them; -B: Yes/No as TRUE/FALSE, which mdb-schema's BOOLEAN
              columns need; psql stops at the first error)
            bound: `psql -c "\\copy bound FROM 'TABLE.csv' CSV HEADER"` into
              a table of the same columns, no keys or indexes
  duckdb    jetsql.open(FILE).read(TABLE) (Arrow), then DuckDB's
              `CREATE TABLE bench AS SELECT * FROM t` (replacement scan of
              the Arrow table) into a new DuckDB file
            DuckDB `CREATE TABLE bench AS SELECT * FROM read_parquet(...)`
  pandas    jetsql.open(FILE).to_pandas(TABLE) (and, when the installed
              jetsql takes `currency=`, the "float" and "arrow" variants)
            pyarrow.parquet.read_table(PARQUET).to_pandas()
  polars    jetsql's `to_polars` when it has one, else
              polars.from_arrow(jetsql.open(FILE).read(TABLE))
            polars.read_parquet(PARQUET)
  scan      jetsql's DataFusion provider, `SELECT * FROM t` streamed
              (examples/df_sql --jet: partitioned scans on every core)
            DataFusion over the Parquet copy (examples/df_sql --parquet)

The copies: PARQUET and the CSV are TABLE as `jetsql export --format
parquet|csv --table TABLE` writes them (default writer properties:
uncompressed Parquet), made once per database file under
target/bench-data/load/ and remade when the database is newer.

Timing
  sqlite, postgres: the wall time of the loading process (or of the
    mdbtools shell pipeline), start-up included; creating and dropping the
    PostgreSQL database and counting the loaded rows are outside it.
  duckdb, pandas, polars: a fresh `python3 -c` process per run (no cache
    carries over); the modules are imported first, then time.perf_counter
    covers opening the file or the Parquet copy through the last step
    (for DuckDB: through con.close(), which checkpoints the table into
    its file).
  scan: the `secs` df_sql reports (planning and execution, the file's
    opening excluded), as benches/compare.py reads it.
  Every run is checked: the target must hold every row (sqlite/postgres:
  all user tables; the bound and the in-process workloads: TABLE), else
  the workload aborts. A failing process aborts its workload with its
  standard error shown; the script then exits with status 1.
  Page cache warm (the files are read once before the first run).
  rows/s = rows loaded ÷ median time. Ratio = jetsql's time ÷ the peer's
  (below 1: jetsql faster); against a peer that loads other rows (the
  bound loads TABLE only, migrate every table) it is the ratio of time per
  row. Speed-up = the inverse.

Usage
  benches/load.sh                                  # 1M-row generated file
  benches/load.sh --runs 5 --workloads sqlite,postgres --pg "host=/var/run/postgresql"
  benches/load.sh --db ../shared/corpus/mdbtools/nwind.mdb --table "Order Details"
Without --db it uses target/bench-data/bench{ROWS}.mdb (Jet4), made with
`jet-fixtures --bench PATH ROWS` when missing: `Bench` (8 columns: Long
auto-number key, Integer, Long with an index, Double, DateTime, Currency,
Text(40), Text(30)) and the 100-row `Categories`. PostgreSQL rows need
--pg or $JETSQL_TEST_PG (a libpq key=value string or URL of a database
the user may CREATE DATABASE from); without either they are skipped and
the output says so. The Python workloads import jetsql from --pythonpath
DIR when given, else from the cdylib of this build (target/release/
lib_jetsql.so with python/jetsql/*.py, assembled in a temporary
directory as python/tests/pytest.rs does), else the installed wheel;
without an importable jetsql they are skipped with a note. Results go to
benches/LOAD.md (--out to change).
"""

import argparse
import json
import os
import re
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target").resolve()
REL = TARGET / "release"
BENCH_DATA = ROOT / "target" / "bench-data"
COPIES = BENCH_DATA / "load"

# compare.py's readers of df_sql's and `jetsql scan`'s output are reused
# (the scan workload below runs df_sql the way compare.py does). Its CLI
# is not: `compare.py --workloads scan` runs five peers (jetdb, mdb-sql,
# `jetsql scan` too) over its own Parquet copy, with binaries at fixed
# paths, and reports medians only, so its rows could not carry the
# per-run details LOAD.md lists nor use the Parquet copy the other
# workloads read.
sys.path.insert(0, str(ROOT / "benches"))
import compare  # noqa: E402

WORKLOADS = ["sqlite", "postgres", "duckdb", "pandas", "polars", "scan"]
PYTHON_WORKLOADS = {"duckdb", "pandas", "polars"}

# The targets of issue 36 as given to this script, by workload:
#   ("rate", KEY, N, text)       entry KEY loads ≥ N rows/s
#   ("speedup", KEY, N, text)    jetsql is ≥ N× faster than entry KEY
#   ("ratio", KEY, N, text)      jetsql's time ÷ entry KEY's ≤ N
# (per row when they load different rows; every jetsql entry is checked).
# Workloads without one show the bound / the peer as the reference only.
TARGETS = {
    "sqlite": [("rate", "jetsql", 500_000, "jetsql loads ≥ 500,000 rows/s"),
               ("speedup", "mdbtools", 5, "jetsql ≥ 5× faster than mdbtools")],
    "postgres": [("rate", "jetsql", 300_000, "jetsql loads ≥ 300,000 rows/s"),
                 ("speedup", "mdbtools", 10, "jetsql ≥ 10× faster than mdbtools")],
    "duckdb": [("ratio", "parquet", 2.0, "jetsql → DuckDB within 2× of DuckDB from Parquet")],
    "pandas": [("ratio", "parquet", 1.5, "to_pandas within 1.5× of Parquet → pandas")],
    "scan": [("ratio", "parquet", 1.5, "full scan within 1.5× of DataFusion over Parquet")],
}


class Failed(Exception):
    """A step that went wrong: aborts the workload it belongs to."""

    def __init__(self, message, stdout=""):
        super().__init__(message)
        self.stdout = stdout


def redact(text):
    """Text with the passwords of connection strings (key=value and URL
    forms) starred out: messages and commands go into LOAD.md."""
    text = re.sub(r"(?i)(password\s*=\s*)('[^']*'|\S+)", r"\1***", text)
    return re.sub(r"(?i)(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@", r"\1***@", text)


def shown(cmd):
    return " ".join(str(c) if re.fullmatch(r"[\w./=:,+-]+", str(c)) else repr(str(c)) for c in cmd)


def run(cmd, stdin=None, env=None, quiet_stderr=False, what=None):
    """Runs cmd (a list); returns (wall seconds, stdout, stderr). A nonzero
    exit (or, with quiet_stderr, any standard error output) raises Failed
    with the command (or `what`) and the end of its standard error."""
    cmd = [str(c) for c in cmd]
    what = redact(what or shown(cmd)[:300])
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, errors="replace", env=env)
    except OSError as e:
        raise Failed(f"`{what}` could not start: {e}") from e
    wall = time.perf_counter() - start
    if p.returncode != 0 or (quiet_stderr and p.stderr.strip()):
        how = f"exited {p.returncode}" if p.returncode else "wrote to standard error"
        tail = p.stderr.strip()[-2000:] or p.stdout.strip()[-2000:] or "(no output)"
        raise Failed(f"`{what}` {how}:\n{redact(tail)}", p.stdout)
    return wall, p.stdout, p.stderr


def check_rows(what, got, expected):
    if got != expected:
        raise Failed(f"{what}: the target holds {got:,} rows, expected {expected:,}")


def sql_literal(s):
    return "'" + str(s).replace("'", "''") + "'"


def sql_name(s):
    return '"' + str(s).replace('"', '""') + '"'


# ---------------------------------------------------------------- inputs

def table_rows(jetsql, db):
    """{table: rows} of the user tables, from `jetsql tables`."""
    _, out, _ = run([jetsql, "tables", db])
    rows = {}
    for line in out.splitlines():
        if line.startswith("#") or "\t" not in line:
            continue
        name, n = line.rsplit("\t", 1)
        if n.startswith("linked:"):
            continue
        rows[name] = int(n)
    if not rows:
        raise Failed(f"`jetsql tables {db}` listed no tables:\n{out}")
    return rows


def ensure_generated(jetsql, fixtures, rows):
    """target/bench-data/bench{rows}.mdb, written by `jet-fixtures --bench`
    when missing."""
    path = BENCH_DATA / f"bench{rows}.mdb"
    if path.exists():
        return path
    if not Path(fixtures).exists():
        raise SystemExit(f"load.py: {path} is missing and {fixtures} does not exist "
                         "(benches/load.sh builds it; or give --fixtures)")
    BENCH_DATA.mkdir(parents=True, exist_ok=True)
    start = time.time()
    run([fixtures, "--bench", path, rows])
    print(f"  generated {path} in {time.time() - start:.0f} s", file=sys.stderr)
    return path


def ensure_copy(jetsql, db, table, fmt):
    """TABLE of db as `jetsql export --format fmt` writes it, cached under
    target/bench-data/load/<file stem>/<fmt>/ until the database changes."""
    out = COPIES / Path(db).stem / fmt
    stamp = out / "table.txt"
    if stamp.exists():
        name, path = stamp.read_text().split("\n", 1)
        path = Path(path.strip())
        if name == table and path.exists() and path.stat().st_mtime >= Path(db).stat().st_mtime:
            return path
    if out.exists():
        shutil.rmtree(out)
    start = time.time()
    _, text, _ = run([jetsql, "export", db, "--to", out, "--format", fmt, "--table", table])
    # one line per table: NAME \t N rows \t PATH
    lines = [l.split("\t") for l in text.splitlines() if l.count("\t") == 2]
    if len(lines) != 1:
        raise Failed(f"jetsql export wrote {len(lines)} files for --table {table!r}:\n{text}")
    path = Path(lines[0][2])
    if not path.is_absolute():
        path = Path.cwd() / path
    stamp.write_text(f"{table}\n{path}")
    print(f"  wrote {path} ({mb(path.stat().st_size)}) in {time.time() - start:.1f} s",
          file=sys.stderr)
    return path


def warm(*paths):
    """Reads each file once, so every peer starts with a warm page cache."""
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass


# ---------------------------------------------------------------- entries

class Entry:
    """One way of doing one workload's load. `once(rep)` does it once:
    sets up, runs the timed part, checks the rows the target holds and
    cleans up; returns (seconds, process wall seconds, rows loaded)."""

    def __init__(self, key, name, once, jetsql=False):
        self.key, self.name, self.once, self.jetsql = key, name, once, jetsql
        self.times, self.walls, self.rows = [], [], None

    def median(self):
        return statistics.median(self.times) if self.times else None

    def rate(self):
        m = self.median()
        return self.rows / m if m else None

    def per_row(self):
        return self.median() / self.rows if self.rows else None


class Workload:
    def __init__(self, name, title, basis, entries, notes=()):
        self.name, self.title, self.basis, self.entries = name, title, basis, entries
        self.notes = list(notes)
        self.error = None
        self.failed_rep = None
        self.load = None


class Ctx:
    """What the workloads share: paths, row counts, the PostgreSQL
    connection, the Python environment; and the bound tables' columns as
    jetsql's own migration made them (filled by its first run)."""

    def __init__(self, **kw):
        self.__dict__.update(kw)
        self.sqlite_cols = None
        self.pg_cols = None


# --- SQLite

MDB_SQLITE = r"""set -euo pipefail
f=$1; out=$2
mdb-schema "$f" sqlite | sqlite3 -bail "$out"
while IFS= read -r t; do
  [ -z "$t" ] && continue
  { echo "BEGIN;"; mdb-export -I sqlite -b hex -S 100 "$f" "$t"; echo "COMMIT;"; } | sqlite3 -bail "$out"
done < <(mdb-tables -1 "$f")
"""


def sqlite_count(path, table=None):
    """Rows of `table` in the SQLite file, or of every table but SQLite's own."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        if table is not None:
            names = [table]
        else:
            names = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")]
        return sum(con.execute(f"SELECT count(*) FROM {sql_name(n)}").fetchone()[0] for n in names)
    finally:
        con.close()


def sqlite_columns(path, table):
    """`"name" TYPE, ...` of the table named like `table` (ignoring case)
    in the SQLite file: the columns as declared, no constraints."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        match = [n for n in names if n == table] or [n for n in names if n.lower() == table.lower()]
        if not match:
            return None
        cols = con.execute(f"PRAGMA table_info({sql_name(match[0])})").fetchall()
        return ", ".join(f"{sql_name(c[1])} {c[2]}".rstrip() for c in cols)
    finally:
        con.close()


def mdb_schema_columns(db, table, dialect):
    """The column list of mdb-schema's CREATE TABLE for `table` (no keys,
    indexes, NOT NULL, defaults or comments): the bound's columns when
    jetsql's own are not at hand."""
    _, out, _ = run(["mdb-schema", "-T", table, "--no-indexes", "--no-relations", "--no-not-null",
                     "--no-default-values", "--no-comments", db, dialect])
    m = re.search(r"CREATE TABLE[^(]*\((.*)\)\s*;", out, re.S)
    if not m:
        raise Failed(f"no CREATE TABLE for {table!r} in mdb-schema's output:\n{out[-1000:]}")
    cols = " ".join(m.group(1).split())
    if dialect == "postgres":
        # a serial column would come with a sequence and a default
        cols = re.sub(r"\bBIGSERIAL\b", "BIGINT", cols)
        cols = re.sub(r"\bSERIAL\b", "INTEGER", cols)
    return cols


FALLBACK_NOTE = ("The bound's table took mdb-schema's columns: jetsql's migration had not "
                 "made the table (a renamed table?).")


def note(c, workload, text):
    """A note under the workload's table, once."""
    n = c.notes.setdefault(workload, [])
    if text not in n:
        n.append(text)


def sqlite_workload(c):
    total = sum(c.rows.values())

    def jet(rep):
        out = c.work / f"jetsql-{rep}.sqlite"
        wall, _, _ = run([c.jetsql, "migrate", c.db, out])
        check_rows("jetsql migrate", sqlite_count(out), total)
        if c.sqlite_cols is None:
            c.sqlite_cols = sqlite_columns(out, c.table)
        out.unlink()
        return wall, wall, total

    def mdb(rep):
        out = c.work / f"mdbtools-{rep}.sqlite"
        wall, _, _ = run(["bash", "-c", MDB_SQLITE, "mdb-sqlite", c.db, out],
                         what=f"load.py's mdbtools SQLite pipeline on {c.db}")
        check_rows("mdbtools", sqlite_count(out), total)
        out.unlink()
        return wall, wall, total

    def bound(rep):
        out = c.work / f"bound-{rep}.sqlite"
        cols = c.sqlite_cols
        if cols is None:
            cols = mdb_schema_columns(c.db, c.table, "sqlite")
            note(c, "sqlite", FALLBACK_NOTE)
        script = ("PRAGMA journal_mode=OFF;\nPRAGMA synchronous=OFF;\n"
                  f"CREATE TABLE bound ({cols});\n"
                  f".import --csv --skip 1 {sql_literal(c.csv)} bound\n")
        # .import reports a malformed line on standard error and goes on
        wall, _, _ = run(["sqlite3", "-bail", out], stdin=script, quiet_stderr=True)
        check_rows("sqlite3 .import", sqlite_count(out, "bound"), c.rows[c.table])
        out.unlink()
        return wall, wall, c.rows[c.table]

    return Workload("sqlite", "SQLite: a new database file", "wall", [
        Entry("jetsql", "jetsql migrate", jet, jetsql=True),
        Entry("mdbtools", "mdbtools (mdb-schema | sqlite3; mdb-export -I sqlite per table)", mdb),
        Entry("bound", f"bound: sqlite3 .import of {c.table}'s CSV (no keys, no indexes)", bound),
    ])


# --- PostgreSQL

MDB_POSTGRES = r"""set -euo pipefail
f=$1; conn=$2
mdb-schema --no-relations "$f" postgres | psql -X -q -v ON_ERROR_STOP=1 -d "$conn" >/dev/null
while IFS= read -r t; do
  [ -z "$t" ] && continue
  { echo "BEGIN;"; mdb-export -I postgres -B -b hex -S 100 "$f" "$t"; echo "COMMIT;"; } \
    | psql -X -q -v ON_ERROR_STOP=1 -d "$conn" >/dev/null
done < <(mdb-tables -1 "$f")
"""

PG_COUNT_ALL = """SELECT coalesce(sum((xpath('/row/n/text()', query_to_xml(
  format('SELECT count(*) AS n FROM %I.%I', schemaname, tablename), false, true, '')))[1]::text::bigint), 0)
FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"""


def pg_conn(pg, db):
    """The admin connection `pg` pointed at database `db`."""
    if re.match(r"(?i)postgres(ql)?://", pg):
        u = urlsplit(pg)
        return urlunsplit((u.scheme, u.netloc, "/" + db, u.query, u.fragment))
    return f"{pg} dbname={db}"


def psql(conn, *sql):
    """Runs each statement with psql (-c each); returns the unaligned output."""
    cmd = ["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", conn]
    for s in sql:
        cmd += ["-c", s]
    return run(cmd)[1].strip()


def pg_columns(conn, table):
    """`"name" type, ...` of the table named like `table` (ignoring case),
    as PostgreSQL formats the types: the columns without constraints,
    identity or defaults."""
    oid = psql(conn, "SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                     "WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
                     f"AND lower(c.relname) = lower({sql_literal(table)}) "
                     f"ORDER BY (c.relname = {sql_literal(table)}) DESC LIMIT 1")
    if not oid:
        return None
    return psql(conn, "SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), "
                      f"', ' ORDER BY attnum) FROM pg_attribute WHERE attrelid = {int(oid)} "
                      "AND attnum > 0 AND NOT attisdropped")


class FreshDatabase:
    """CREATE DATABASE on entry, DROP DATABASE on exit (neither timed)."""

    def __init__(self, c, tag, rep):
        self.c = c
        self.name = f"jetsql_load_{os.getpid()}_{tag}_{rep}"
        self.conn = pg_conn(c.pg, self.name)

    def __enter__(self):
        psql(self.c.pg, f"CREATE DATABASE {self.name}")
        return self

    def __exit__(self, kind, value, tb):
        try:
            psql(self.c.pg, f"DROP DATABASE IF EXISTS {self.name}")
        except Failed as e:
            if kind is None:
                raise
            # the failure that brought us here is the one to report
            print(f"  (and dropping {self.name} failed too: {e})", file=sys.stderr)


def postgres_workload(c):
    total = sum(c.rows.values())

    def jet(rep):
        with FreshDatabase(c, "jetsql", rep) as d:
            wall, _, _ = run([c.jetsql, "migrate", c.db, d.conn])
            check_rows("jetsql migrate", int(psql(d.conn, PG_COUNT_ALL)), total)
            if c.pg_cols is None:
                c.pg_cols = pg_columns(d.conn, c.table)
        return wall, wall, total

    def mdb(rep):
        with FreshDatabase(c, "mdbtools", rep) as d:
            wall, _, _ = run(["bash", "-c", MDB_POSTGRES, "mdb-postgres", c.db, d.conn],
                             what=f"load.py's mdbtools PostgreSQL pipeline on {c.db}")
            check_rows("mdbtools", int(psql(d.conn, PG_COUNT_ALL)), total)
        return wall, wall, total

    def bound(rep):
        cols = c.pg_cols
        if cols is None:
            cols = mdb_schema_columns(c.db, c.table, "postgres")
            note(c, "postgres", FALLBACK_NOTE)
        with FreshDatabase(c, "bound", rep) as d:
            path = str(c.csv).replace("'", "''")
            wall, _, _ = run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", d.conn,
                              "-c", f"CREATE TABLE bound ({cols})",
                              "-c", f"\\copy bound FROM '{path}' CSV HEADER"])
            check_rows("psql \\copy", int(psql(d.conn, "SELECT count(*) FROM bound")), c.rows[c.table])
        return wall, wall, c.rows[c.table]

    return Workload("postgres", "PostgreSQL: a new database", "wall", [
        Entry("jetsql", "jetsql migrate (COPY)", jet, jetsql=True),
        Entry("mdbtools", "mdbtools (mdb-schema --no-relations | psql; mdb-export -I postgres -B per table)", mdb),
        Entry("bound", f"bound: psql \\copy of {c.table}'s CSV (no keys, no indexes)", bound),
    ])


# --- Python (DuckDB, pandas, Polars)

PROBE = r"""
import importlib, inspect, json, sys
info = {"python": sys.version.split()[0]}
for m in ("pyarrow", "pandas", "polars", "duckdb"):
    try:
        info[m] = getattr(importlib.import_module(m), "__version__", "?")
    except Exception as e:
        info[m] = None
        info[m + "_error"] = f"{type(e).__name__}: {e}"
try:
    import jetsql
    info["jetsql"] = getattr(jetsql, "__version__", "?")
    info["jetsql_file"] = jetsql.__file__
    info["currency"] = "currency" in inspect.signature(jetsql.Database.to_pandas).parameters
    info["to_polars"] = callable(getattr(jetsql.Database, "to_polars", None))
except Exception as e:
    info["jetsql"] = None
    info["jetsql_error"] = f"{type(e).__name__}: {e}"
print(json.dumps(info))
"""

# Each snippet: imports (not timed); t0; the load; secs; then `rows`
# counted from the result (not timed). F, T, P, D: the database, the
# table, the Parquet copy, a new DuckDB file.
PY_SNIPPETS = {
    "duckdb_jetsql": """
import duckdb, jetsql, pyarrow
t0 = time.perf_counter()
with jetsql.open(F) as db:
    t = db.read(T)
con = duckdb.connect(D)
con.execute("CREATE TABLE bench AS SELECT * FROM t")
con.close()
secs = time.perf_counter() - t0
con = duckdb.connect(D, read_only=True)
rows = con.execute("SELECT count(*) FROM bench").fetchone()[0]
con.close()
""",
    "duckdb_parquet": """
import duckdb
t0 = time.perf_counter()
con = duckdb.connect(D)
con.execute("CREATE TABLE bench AS SELECT * FROM read_parquet(" + "'" + P.replace("'", "''") + "'" + ")")
con.close()
secs = time.perf_counter() - t0
con = duckdb.connect(D, read_only=True)
rows = con.execute("SELECT count(*) FROM bench").fetchone()[0]
con.close()
""",
    "pandas_jetsql": """
import jetsql, pandas, pyarrow
t0 = time.perf_counter()
with jetsql.open(F) as db:
    df = db.to_pandas(T, **KW)
secs = time.perf_counter() - t0
rows = len(df)
""",
    "pandas_parquet": """
import pandas, pyarrow, pyarrow.parquet
t0 = time.perf_counter()
df = pyarrow.parquet.read_table(P).to_pandas()
secs = time.perf_counter() - t0
rows = len(df)
""",
    "polars_jetsql_to_polars": """
import jetsql, polars, pyarrow
t0 = time.perf_counter()
with jetsql.open(F) as db:
    df = db.to_polars(T)
secs = time.perf_counter() - t0
rows = df.height
""",
    "polars_jetsql_from_arrow": """
import jetsql, polars, pyarrow
t0 = time.perf_counter()
with jetsql.open(F) as db:
    df = polars.from_arrow(db.read(T))
secs = time.perf_counter() - t0
rows = df.height
""",
    "polars_parquet": """
import polars
t0 = time.perf_counter()
df = polars.read_parquet(P)
secs = time.perf_counter() - t0
rows = df.height
""",
}


def py_entry(c, key, name, snippet, jetsql=False, kw=None):
    """An entry that runs PY_SNIPPETS[snippet] in a fresh interpreter."""

    def once(rep):
        duck = c.work / f"{snippet}-{rep}.duckdb"
        head = (f"import json, time\nF = {str(c.db)!r}\nT = {c.table!r}\nP = {str(c.parquet)!r}\n"
                f"D = {str(duck)!r}\nKW = {dict(kw or {})!r}\n")
        tail = '\nprint("LOADRESULT " + json.dumps({"secs": secs, "rows": int(rows)}))\n'
        try:
            wall, out, _ = run([sys.executable, "-c", head + PY_SNIPPETS[snippet] + tail], env=c.py_env,
                               what=f"python3 -c <load.py's {snippet} snippet, {kw or ''}>")
        except Failed as e:
            if "LOADRESULT " in e.stdout:
                raise Failed(f"{e}\n(it had printed its result: it failed after the load, "
                             "e.g. while the interpreter exited)") from e
            raise
        finally:
            for p in (duck, duck.with_name(duck.name + ".wal")):
                if p.exists():
                    p.unlink()
        lines = [l for l in out.splitlines() if l.startswith("LOADRESULT ")]
        if not lines:
            raise Failed(f"{name}: no result line in its output:\n{out[-1000:]}")
        r = json.loads(lines[-1].split(" ", 1)[1])
        check_rows(name, r["rows"], c.rows[c.table])
        return r["secs"], wall, r["rows"]

    return Entry(key, name, once, jetsql=jetsql)


def duckdb_workload(c):
    return Workload("duckdb", "DuckDB: a new database file", "in-process", [
        py_entry(c, "jetsql", "jetsql read → DuckDB CREATE TABLE AS (Arrow replacement scan)",
                 "duckdb_jetsql", jetsql=True),
        py_entry(c, "parquet", "DuckDB CREATE TABLE AS read_parquet", "duckdb_parquet"),
    ])


CURRENCY_PROBE = r"""
import json, jetsql
ok = {}
with jetsql.open(F) as db:
    for v in ("float", "arrow"):
        try:
            db.to_pandas(T, limit=1, currency=v)
            ok[v] = None
        except (TypeError, ValueError) as e:
            ok[v] = f"{type(e).__name__}: {e}"
print(json.dumps(ok))
"""


def pandas_workload(c):
    entries = [py_entry(c, "jetsql", "jetsql to_pandas" + (" (currency=decimal, default)" if c.py["currency"] else ""),
                        "pandas_jetsql", jetsql=True)]
    notes = []
    if c.py["currency"]:
        # the variants this jetsql accepts (the option is new: a value it
        # refuses is noted rather than timed)
        head = f"F = {str(c.db)!r}\nT = {c.table!r}\n"
        _, out, _ = run([sys.executable, "-c", head + CURRENCY_PROBE], env=c.py_env,
                        what="python3 -c <load.py's currency probe>")
        for v, err in json.loads(out.strip().splitlines()[-1]).items():
            if err is None:
                entries.append(py_entry(c, f"jetsql-{v}", f"jetsql to_pandas currency={v!r}", "pandas_jetsql",
                                        jetsql=True, kw={"currency": v}))
            else:
                notes.append(f"to_pandas(currency={v!r}) is refused by the jetsql imported ({err}): not timed.")
    else:
        notes.append("The jetsql imported has no `currency=` keyword on to_pandas: only the default "
                     "(Decimal objects for Currency) was timed.")
    entries.append(py_entry(c, "parquet", "pyarrow.parquet.read_table → to_pandas", "pandas_parquet"))
    return Workload("pandas", "pandas DataFrame", "in-process", entries, notes)


def polars_workload(c):
    if c.py["to_polars"]:
        j = py_entry(c, "jetsql", "jetsql to_polars", "polars_jetsql_to_polars", jetsql=True)
    else:
        j = py_entry(c, "jetsql", "polars.from_arrow(jetsql read)", "polars_jetsql_from_arrow", jetsql=True)
    return Workload("polars", "Polars DataFrame", "in-process",
                    [j, py_entry(c, "parquet", "polars.read_parquet", "polars_parquet")])


# --- full scan (df_sql, as compare.py runs it)

def scan_workload(c):
    df_sql = Path(c.jetsql).parent / "examples" / "df_sql"
    sql = "SELECT * FROM t"

    def entry(key, name, source, jetsql=False):
        def once(rep):
            wall, out, err = run([df_sql] + source + ["--sql", sql, "--reps", "1", "--warmup", "0"])
            secs, info = compare.parse_df(out, err)
            check_rows(name, int(info.get("rows", -1)), c.rows[c.table])
            return secs, wall, int(info["rows"])
        return Entry(key, name, once, jetsql=jetsql)

    return Workload("scan", f"full scan (`{sql}`, streamed)", "in-process", [
        entry("jetsql", f"jetsql provider (df_sql --jet, {os.cpu_count()} partitions)",
              ["--jet", str(c.db), "--table", f"t={c.table}"], jetsql=True),
        entry("parquet", "DataFusion over Parquet (df_sql --parquet)", ["--parquet", "--table", f"t={c.parquet}"]),
    ])


BUILDERS = {"sqlite": sqlite_workload, "postgres": postgres_workload, "duckdb": duckdb_workload,
            "pandas": pandas_workload, "polars": polars_workload, "scan": scan_workload}


# ---------------------------------------------------------------- running

def measure(w, runs):
    """`runs` repetitions, every entry once in each, the order rotated per
    repetition (the first starts with jetsql, whose migration gives the
    bounds their columns). The first failure aborts the workload."""
    w.load = os.getloadavg()[0]
    try:
        for rep in range(runs):
            k = rep % len(w.entries)
            for e in w.entries[k:] + w.entries[:k]:
                t, wall, rows = e.once(rep)
                e.times.append(t)
                e.walls.append(wall)
                if e.rows is not None and e.rows != rows:
                    raise Failed(f"{e.name}: {rows:,} rows this run, {e.rows:,} before")
                e.rows = rows
                extra = f" (process {wall:.3f} s)" if w.basis == "in-process" else ""
                print(f"  {w.name} rep {rep + 1}/{runs}  {e.name}: {t:.3f} s{extra}", file=sys.stderr)
    except Failed as err:
        w.error = str(err)
        w.failed_rep = rep + 1
        print(f"\n!! {w.name} aborted: {w.error}\n", file=sys.stderr)


def ratio(j, p):
    """jetsql's time ÷ the peer's (per row when they load different
    rows); None when either has no time. Returns (ratio, per_row)."""
    if not j.median() or not p.median():
        return None, False
    if j.rows == p.rows:
        return j.median() / p.median(), False
    return j.per_row() / p.per_row(), True


def targets_of(w):
    """Lines `| target | measured | met |` for the workload's targets."""
    out = []
    by = {e.key: e for e in w.entries}
    jets = [e for e in w.entries if e.jetsql]
    for kind, key, n, text in TARGETS.get(w.name, []):
        e = by.get(key)
        if kind == "rate":
            if e and e.rate():
                out.append((text, f"{e.rate():,.0f} rows/s", e.rate() >= n))
            continue
        for j in jets:
            r, _ = ratio(j, e) if e else (None, False)
            if r is None:
                continue
            label = text if len(jets) == 1 else f"{text} — {j.name}"
            if kind == "speedup":
                out.append((label, f"{1 / r:.1f}× faster", 1 / r >= n))
            else:
                out.append((label, f"{r:.2f}× the peer's time", r <= n))
    return out


def cell(text):
    """Text for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def fence(text):
    return "\n```text\n" + text.strip() + "\n```"


def mb(n):
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} kB"


def fmt_s(x):
    return "—" if x is None else f"{x:.3f}"


def table_md(w):
    md = []
    if w.error and not any(e.times for e in w.entries):
        return ["**Aborted before any run finished:**" + fence(w.error)]
    jets = [e for e in w.entries if e.jetsql and e.times]
    md.append("| peer | median s | rows | rows/s | jetsql ÷ peer (time) | speed-up (peer ÷ jetsql) |")
    md.append("| --- | ---: | ---: | ---: | ---: | ---: |")
    for e in w.entries:
        if not e.times:
            md.append(f"| {cell(e.name)} | not run | | | | |")
            continue
        rs, sp = [], []
        if not e.jetsql:
            for j in jets:
                r, per_row = ratio(j, e)
                tag = " per row" if per_row else ""
                who = "" if len(jets) == 1 else f" ({j.key})"
                rs.append(f"{r:.3f}{tag}{who}")
                sp.append(f"{1 / r:.2f}×{who}")
        md.append(f"| {cell(e.name)} | {fmt_s(e.median())} | {e.rows:,} | {e.rate():,.0f} | "
                  f"{'; '.join(rs) or '—'} | {'; '.join(sp) or '—'} |")
    if w.error:
        md.append(f"\n**Aborted during run {w.failed_rep}** (the medians above are of the runs "
                  "that finished):" + fence(w.error))
    return md


def details_md(w):
    parts = []
    for e in w.entries:
        if e.times:
            runs = ", ".join(f"{t:.3f}" for t in e.times)
            if w.basis == "in-process":
                runs += " (processes: " + ", ".join(f"{t:.3f}" for t in e.walls) + ")"
            parts.append(f"{e.name}: {runs}")
    return "Every run, s, in run order — " + "; ".join(parts) + "." if parts else ""


def machine():
    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        nproc = str(os.cpu_count())
    mem = "?"
    try:
        kib = next(int(l.split()[1]) for l in Path("/proc/meminfo").read_text().splitlines()
                   if l.startswith("MemTotal:"))
        mem = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    return nproc, model, mem


def git_commit():
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def fs_type(path):
    try:
        return subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "-T", str(path)],
                              capture_output=True, text=True, check=True).stdout.strip() or "?"
    except (OSError, subprocess.CalledProcessError):
        return "?"


def first_line(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
        return (p.stdout.strip() or p.stderr.strip()).splitlines()[0]
    except (OSError, IndexError):
        return "?"


def python_env(a):
    """PYTHONPATH for the Python workloads: --pythonpath, else a package
    assembled from this build's cdylib (python/tests/pytest.rs's layout),
    else whatever the interpreter finds (an installed wheel). Returns
    (env, where from, temporary directory to remove or None)."""
    env = dict(os.environ)
    paths, where, tmp = [], "the installed package", None
    if a.pythonpath:
        paths = [str(Path(p).resolve()) for p in a.pythonpath]
        where = "--pythonpath " + os.pathsep.join(paths)
    else:
        so = Path(a.jetsql).parent / "lib_jetsql.so"
        if so.exists():
            tmp = Path(tempfile.mkdtemp(prefix="jetsql-load-py-"))
            pkg = tmp / "jetsql"
            pkg.mkdir()
            for f in (ROOT / "python" / "jetsql").iterdir():
                if f.is_file() and f.suffix in (".py", ".pyi", ".typed"):
                    shutil.copy(f, pkg / f.name)
            shutil.copy(so, pkg / "_jetsql.abi3.so")
            paths = [str(tmp)]
            where = f"this build's {so} with python/jetsql/*.py"
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH")] if p])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env, where, tmp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jetsql", default=str(REL / "jetsql"),
                    help="the release jetsql binary (default: %(default)s)")
    ap.add_argument("--fixtures", help="the jet-fixtures binary (default: beside --jetsql)")
    ap.add_argument("--pg", default=os.environ.get("JETSQL_TEST_PG") or None,
                    help="libpq connection string (or URL) of an administrative database; "
                         "default $JETSQL_TEST_PG; none: the PostgreSQL workload is skipped")
    ap.add_argument("--rows", type=int, default=1_000_000, help="rows of the generated file (default %(default)s)")
    ap.add_argument("--db", help="time this database instead of the generated one")
    ap.add_argument("--table", help="the table the single-table peers (bounds, Python, scan) read "
                                    "(default Bench)")
    ap.add_argument("--runs", type=int, default=3, help="repetitions per workload (default %(default)s)")
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help="comma list (default %(default)s)")
    ap.add_argument("--pythonpath", action="append", metavar="DIR",
                    help="put DIR first on PYTHONPATH for the Python workloads (repeatable)")
    ap.add_argument("--out", default=str(ROOT / "benches" / "LOAD.md"), help="default %(default)s")
    a = ap.parse_args()

    wanted = [w.strip() for w in a.workloads.split(",") if w.strip()]
    unknown = [w for w in wanted if w not in WORKLOADS]
    if unknown:
        ap.error(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}")
    if a.runs < 1:
        ap.error("--runs must be at least 1")
    a.jetsql = str(Path(a.jetsql).resolve())
    if not Path(a.jetsql).exists():
        raise SystemExit(f"load.py: no jetsql binary at {a.jetsql} (benches/load.sh builds it; or give --jetsql)")
    fixtures = a.fixtures or str(Path(a.jetsql).parent / "jet-fixtures")

    load_start = os.getloadavg()
    started = time.time()
    if a.db:
        db = Path(a.db).resolve()
        table = a.table or "Bench"
        what = f"`{a.db}`"
    else:
        db = ensure_generated(a.jetsql, fixtures, a.rows)
        table = a.table or "Bench"
        what = (f"`{db.relative_to(ROOT) if db.is_relative_to(ROOT) else db}`, generated by "
                f"`jet-fixtures --bench PATH {a.rows}` (Jet4; `Bench`: Long auto-number key, Integer, "
                "Long with an index, Double, DateTime, Currency, Text(40), Text(30); `Categories`: 100 rows)")

    skipped, notes = [], {}
    rows = table_rows(a.jetsql, db)
    match = [n for n in rows if n == table] or [n for n in rows if n.lower() == table.lower()]
    if not match:
        raise SystemExit(f"load.py: no table {table!r} in {db} (tables: {', '.join(rows)})")
    table = match[0]

    work = Path(tempfile.mkdtemp(prefix="jetsql-load-"))
    py_tmp = None
    try:
        py_env, py_where, py_tmp = python_env(a)
        py = {}
        if PYTHON_WORKLOADS & set(wanted):
            _, out, _ = run([sys.executable, "-c", PROBE], env=py_env)
            py = json.loads(out.strip().splitlines()[-1])
        pg = a.pg
        names = []
        for name in wanted:
            if name == "postgres" and not pg:
                skipped.append("postgres: no --pg and no $JETSQL_TEST_PG, so no PostgreSQL rows.")
                continue
            if name in PYTHON_WORKLOADS:
                if py.get("jetsql") is None:
                    skipped.append(f"{name}: `import jetsql` failed ({py_where}): {py.get('jetsql_error')}")
                    continue
                need = {"duckdb": ["duckdb", "pyarrow"], "pandas": ["pandas", "pyarrow"],
                        "polars": ["polars", "pyarrow"]}[name]
                missing = [m for m in need if py.get(m) is None]
                if missing:
                    skipped.append(f"{name}: Python module(s) {', '.join(missing)} missing "
                                   f"({'; '.join(py.get(m + '_error', '') for m in missing)})")
                    continue
            names.append(name)

        need_parquet = any(w in names for w in ("duckdb", "pandas", "polars", "scan"))
        need_csv = any(w in names for w in ("sqlite", "postgres"))
        parquet = ensure_copy(a.jetsql, db, table, "parquet") if need_parquet else None
        csv_path = ensure_copy(a.jetsql, db, table, "csv") if need_csv else None
        c = Ctx(jetsql=a.jetsql, db=db, table=table, rows=rows, parquet=parquet, csv=csv_path,
                work=work, pg=pg, py_env=py_env, py=py, notes=notes)
        workloads = []
        for name in names:
            try:
                workloads.append(BUILDERS[name](c))
            except Failed as err:
                # a probe the workload needed went wrong: the workload is
                # reported aborted, the others still run
                w = Workload(name, name, "wall", [])
                w.error, w.failed_rep = str(err), 0
                workloads.append(w)
        for s in skipped:
            print(f"  skipped {s}", file=sys.stderr)

        warm(*[p for p in (db, parquet, csv_path) if p])
        for w in workloads:
            if w.error:
                print(f"\n!! {w.name} aborted before its runs: {w.error}", file=sys.stderr)
                continue
            print(f"\n== {w.name}: {w.title}", file=sys.stderr)
            measure(w, a.runs)
            print("\n".join(table_md(w)), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if py_tmp:
            shutil.rmtree(py_tmp, ignore_errors=True)
    load_end = os.getloadavg()
    elapsed = time.time() - started

    nproc, model, mem = machine()
    md = ["# Loading at the target's speed (issue 36)\n"]
    md.append(f"Generated by `benches/load.sh` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
              f"{nproc} cores ({model}), {mem} of memory; load average {load_start[0]:.2f} at the start, "
              f"{load_end[0]:.2f} at the end; jetsql commit {git_commit()} ({a.jetsql}); "
              f"{a.runs} interleaved repetition{'s' if a.runs > 1 else ''} per workload (order rotated each "
              "repetition), medians; "
              f"warm page cache; temporary files on {fs_type(tempfile.gettempdir())}; the run took "
              f"{elapsed:.0f} s.\n")
    md.append("Command: `benches/load.sh" + "".join(" " + shlex.quote(redact(x)) for x in sys.argv[1:]) + "`.\n")
    md.append(f"Data: {what}; {sum(rows.values()):,} rows in {len(rows)} tables, {rows[table]:,} in "
              f"`{table}` (file {mb(db.stat().st_size)}). The single-table peers read `{table}`"
              + (f"; its Parquet copy is {mb(parquet.stat().st_size)}" if parquet else "")
              + (f"{',' if parquet else ';'} its CSV copy {mb(csv_path.stat().st_size)}" if csv_path else "")
              + ".\n")
    versions = ["sqlite3 " + first_line(["sqlite3", "--version"]).split()[0],
                first_line(["mdb-schema", "--version"])]
    if pg and any(w.name == "postgres" for w in workloads):
        try:
            versions.append("PostgreSQL " + psql(pg, "SHOW server_version") +
                            f" (fsync {psql(pg, 'SHOW fsync')}, synchronous_commit "
                            f"{psql(pg, 'SHOW synchronous_commit')})")
        except Failed:
            pass
    if py:
        versions.append(f"Python {py.get('python')}: " + ", ".join(
            f"{m} {py[m]}" for m in ("jetsql", "pyarrow", "pandas", "polars", "duckdb") if py.get(m)))
        if py.get("jetsql"):
            versions.append(f"jetsql imported from {py_where}")
    md.append("Tools: " + "; ".join(v for v in versions if v) + ".\n")
    md.append("Timing (see `python3 benches/load.py --help`): `median s` is the median of the runs: the "
              "loading process's wall time for SQLite and PostgreSQL (mdbtools: its whole shell "
              "pipeline), the in-process time of the load (imports excluded, a fresh interpreter per "
              "run) for DuckDB, pandas and Polars, df_sql's `secs` for the scan. rows/s = rows ÷ median. "
              "Ratio = jetsql's time ÷ the peer's (below 1: jetsql faster), per row against a peer "
              "that loads other rows (the bounds load one table, migrate every table). Every run's "
              "loaded rows were counted in the target.\n")
    for s in skipped:
        md.append(f"Skipped: {s}\n")
    failed = False
    for w in workloads:
        md.append(f"\n## {w.name}: {w.title}\n")
        if w.load is not None:
            md.append(f"Load average {w.load:.2f} when the workload started.\n")
        md.extend(table_md(w))
        failed |= w.error is not None
        d = details_md(w)
        if d:
            md.append("\n" + d)
        for n in w.notes + notes.get(w.name, []):
            md.append("\n" + n)
        t = targets_of(w)
        if t:
            md.append("\n| target | measured | met |")
            md.append("| --- | ---: | :---: |")
            for text, measured, ok in t:
                md.append(f"| {cell(text)} | {measured} | {'✓' if ok else '✗'} |")
        elif w.name not in TARGETS:
            md.append("\nNo target for this workload in issue 36; the peers are the reference.")
    text = "\n".join(md) + "\n"
    Path(a.out).write_text(text)
    print("\n" + text)
    print(f"wrote {a.out}", file=sys.stderr)
    if failed:
        print("load.py: some workloads were aborted (see above)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
