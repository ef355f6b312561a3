#!/usr/bin/env python3
"""Read a table of about a million rows into pandas three ways, one run
each, and print the times and ratios (jetsql / peer):

- jetsql: ``jetsql.open(path).to_pandas(table)`` (the installed package or
  the one on PYTHONPATH);
- mdb-export + ``pandas.read_csv``, as pandas_access does (its CSV piped
  straight into the parser);
- access-parser (PyPI ``access-parser``, pure Python), its column lists
  made into a DataFrame.

usage: python_pandas.py [FILE TABLE]

Without arguments it makes the file: nwind's Orders (Jet3) with its data
pages copied 1,204 times by ``../shared/tools/inflate_table.py`` (1,000,150
rows, 129 MB) under ``target/bench-data/``. Not a test: a measurement for
the notes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
ORDERS_TDEF_PAGE = 449  # nwind.mdb: MSysObjects.Id of Orders (mdb-export MSysObjects)
COPIES = 1204


def make_file() -> tuple[Path, str]:
    out = ROOT / "target" / "bench-data" / "nwind_orders_1m.mdb"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                sys.executable,
                str(SHARED / "tools" / "inflate_table.py"),
                str(SHARED / "corpus" / "mdbtools" / "nwind.mdb"),
                str(out),
                str(ORDERS_TDEF_PAGE),
                str(COPIES),
            ],
            check=True,
        )
    return out, "Orders"


def timed(label: str, f):
    start = time.perf_counter()
    df = f()
    took = time.perf_counter() - start
    print(f"{label:<28} {took:8.3f} s  {len(df):>9} rows  {df.shape[1]} columns", flush=True)
    return took, len(df)


def main() -> None:
    import pandas as pd

    if len(sys.argv) == 3:
        path, table = Path(sys.argv[1]), sys.argv[2]
    else:
        path, table = make_file()
    print(f"{path} ({path.stat().st_size / 1e6:.0f} MB), table {table}; one run each, warm page cache")
    path.read_bytes()  # warm the page cache for everyone

    def with_jetsql():
        import jetsql

        with jetsql.open(path) as db:
            return db.to_pandas(table)

    def with_mdb_export():
        p = subprocess.Popen(["mdb-export", str(path), table], stdout=subprocess.PIPE)
        df = pd.read_csv(p.stdout)
        if p.wait() != 0:
            raise SystemExit("mdb-export failed")
        return df

    def with_access_parser():
        from access_parser import AccessParser

        columns = AccessParser(str(path)).parse_table(table)
        return pd.DataFrame(dict(columns))

    results = {}
    for label, f in [
        ("jetsql to_pandas", with_jetsql),
        ("mdb-export + read_csv", with_mdb_export),
        ("access-parser + DataFrame", with_access_parser),
    ]:
        results[label] = timed(label, f)
    base, rows = results["jetsql to_pandas"]
    for label, (took, n) in results.items():
        if label != "jetsql to_pandas":
            note = "" if n == rows else f" (read {n} rows, jetsql {rows})"
            print(f"jetsql / {label}: {base / took:.4f} ({took / base:.1f}x faster){note}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
