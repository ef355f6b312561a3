#!/usr/bin/env bash
# `jetsql export --format csv` of one table vs `mdb-export` of the same
# table: wall time, median of N runs, warm page cache, output to a file
# (jetsql writes the file itself; mdb-export's stdout is redirected).
# Data: the inflated bench tables (made by the bench crate's generator, as
# benches/compare.sh does) and Northwind's largest table from the corpus.
# usage: benches/cli_export.sh [runs]   (prints a Markdown section)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build -q --release -p jetsql
D=target/bench-data
if [ ! -f "$D/jet3_order_details.mdb" ] || [ ! -f "$D/jet4_comp_index.mdb" ]; then
  # generate the inflated files through the bench crate's own generator
  cargo bench -q -p jet-benches --bench scan -- --list >/dev/null
fi
J=target/release/jetsql
C=${JET_CORPUS:-../shared/corpus}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
secs() { local s e; s=$(date +%s.%N); "$@"; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
mdb() { mdb-export "$1" "$2" > "$tmp/mdb.csv"; }
jet() { "$J" export "$1" --to "$tmp/jet" --format csv --table "$2" > /dev/null; }
echo "## jetsql export --format csv vs mdb-export"
echo
echo "Machine: $(nproc) cores, $(uname -m); $(date -u +%Y-%m-%d). Median of $runs runs, warm page cache, one table to a file."
echo
echo "| data | table | rows | mdb-export (s) | jetsql export csv (s) | ratio (mdb-export / jetsql) |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for spec in "$D/jet3_order_details.mdb|Order Details" "$D/jet4_comp_index.mdb|Table1" "$C/mdbtools/nwind.mdb|Order Details"; do
  f=${spec%%|*}; t=${spec#*|}
  [ -f "$f" ] || { echo "| $(basename "$f") | $t | missing | | | |"; continue; }
  rows=$("$J" scan "$f" "$t" | awk '{print $1}')
  m=$(for i in $(seq "$runs"); do secs mdb "$f" "$t"; done | median)
  j=$(for i in $(seq "$runs"); do secs jet "$f" "$t"; done | median)
  printf '| %s | %s | %s | %.3f | %.3f | %.1fx |\n' "$(basename "$f")" "$t" "$rows" "$m" "$j" "$(echo "$m / $j" | bc -l)"
done
