#!/usr/bin/env bash
# Side by side, one machine, one run: jetsql vs mdbtools (mdb-export,
# mdb-sql), the jetdb crate and DataFusion over a Parquet copy, on the same
# files. Builds the binaries (niced), then runs benches/compare.py, which
# interleaves the peers, prints a table of medians and ratios and writes
# benches/RESULTS.md. Every argument goes to compare.py (see its --help):
#   benches/compare.sh                     # the default data sets
#   benches/compare.sh --runs 7 --workloads csv,scan
#   benches/compare.sh --db gen1m.accdb --table Orders --indexed \
#       --group CustomerID,Quantity,Price --pk OrderID=500000 --minmax OrderID \
#       --join Customers:CustomerID=CustomerID
set -euo pipefail
cd "$(dirname "$0")/.."
# one invocation over the whole workspace: the same feature resolution as
# the workspace's test build, so the prebuilt dependencies are reused (a
# `-p` subset resolves DataFusion's features differently and rebuilds it)
nice -n 10 cargo build -q --release --workspace --bins --examples --features jet-benches/examples
command -v mdb-export >/dev/null || { echo "compare.sh: mdbtools is needed (apt-get install mdbtools)" >&2; exit 1; }
exec python3 benches/compare.py "$@"
