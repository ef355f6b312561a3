#!/usr/bin/env bash
# Side by side, one machine, one run: full-table export to CSV and full scan,
# jetsql vs mdbtools' mdb-export, on the inflated bench tables.
# usage: benches/compare.sh [runs]   (writes benches/RESULTS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build -q --release -p jetsql -p jet-benches --benches
# generate the inflated files through the bench crate's own generator
cargo bench -q -p jet-benches --bench scan -- --list >/dev/null
J=target/release/jetsql
D=target/bench-data
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
timeit() { # prints seconds of one run of "$@" with output discarded
  local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
out=benches/RESULTS.md
{
  echo "# Side-by-side results"
  echo
  echo "Machine: $(nproc) cores, $(uname -m); $(date -u +%Y-%m-%d). Median of $runs runs, warm page cache."
  echo
  echo "| data | rows | mdb-export CSV (s) | jetsql cat CSV (s) | CSV ratio | jetsql scan to Arrow (s) | scan rows/s | scan vs mdb-export |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
} > "$out"
for spec in "jet3_order_details.mdb|Order Details" "jet4_comp_index.mdb|Table1"; do
  f=$D/${spec%%|*}; t=${spec#*|}
  rows=$($J scan "$f" "$t" | awk '{print $1}')
  m=$(for i in $(seq "$runs"); do timeit mdb-export "$f" "$t"; done | median)
  c=$(for i in $(seq "$runs"); do timeit "$J" cat "$f" "$t"; done | median)
  s=$(for i in $(seq "$runs"); do timeit "$J" scan "$f" "$t"; done | median)
  printf '| %s | %s | %.3f | %.3f | %.1fx | %.3f | %.0f | %.1fx |\n' \
    "${spec%%|*}" "$rows" "$m" "$c" "$(echo "$m / $c" | bc -l)" "$s" "$(echo "$rows / $s" | bc -l)" "$(echo "$m / $s" | bc -l)" >> "$out"
done
cat "$out"
