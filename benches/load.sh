#!/usr/bin/env bash
# Loading at the target's speed (issue 36), side by side in one run: jetsql
# into SQLite, PostgreSQL, DuckDB, pandas, Polars and a DataFusion scan,
# each against its peer (mdbtools, the target's own CSV/COPY loader,
# Parquet). Builds the binaries and the Python module's cdylib (niced), then
# runs benches/load.py, which interleaves the peers, prints a table of
# medians and ratios and writes benches/LOAD.md. Every argument goes to
# load.py (see its --help):
#   benches/load.sh                                   # 1M-row generated file, 3 runs
#   benches/load.sh --runs 5 --pg "host=/var/run/postgresql user=postgres"
#   benches/load.sh --workloads pandas,polars --pythonpath python
#   benches/load.sh --db ../shared/corpus/mdbtools/nwind.mdb --table "Order Details"
set -euo pipefail
cd "$(dirname "$0")/.."
# one invocation over the whole workspace: the same feature resolution as
# the workspace's test build, so the prebuilt dependencies are reused (a
# `-p` subset resolves DataFusion's features differently and rebuilds it)
nice -n 10 cargo build -q --release --workspace --bins --examples --features jet-benches/examples
for t in mdb-schema mdb-export mdb-tables sqlite3; do
  command -v "$t" >/dev/null || { echo "load.sh: $t is needed (apt-get install mdbtools sqlite3)" >&2; exit 1; }
done
exec python3 benches/load.py "$@"
