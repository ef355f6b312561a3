#!/usr/bin/env bash
# Archives (issue 26), one run each, warm page cache:
#  1. GROUP BY over an archive as one table (jet_files), single node, with
#     target_partitions 1 and 2;
#     and through a local Ballista cluster (one jetsql-scheduler, two
#     jetsql-executors of two tasks each, on this machine);
#  2. `jetsql export 'ARCHIVE/**/*.mdb' --format parquet` (every table of
#     every file, Hive layout) vs a shell loop of `mdb-export` per file and
#     table (CSV to files).
# The archive is written by the fixtures generator (`jet-fixtures
# --archive DIR N`: N small Jet4 files, Orders of 0-120 rows and Sites).
# usage: benches/archive.sh [files]   (prints a Markdown section; not in CI)
set -euo pipefail
cd "$(dirname "$0")/.."
files=${1:-200}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
[ -n "${SKIP_BUILD:-}" ] || cargo build -q --release --workspace
B=$CARGO_TARGET_DIR/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$B/jet-fixtures" --archive "$tmp/arc" "$files" 2>/dev/null
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc -l; }
Q="SELECT \"Site\", count(*), sum(\"Amount\"), max(\"OrderDate\") FROM jet_files('$tmp/arc/**/*.mdb', 'Orders') GROUP BY \"Site\""
q() { "$B/jetsql" --format csv -c "SET datafusion.execution.target_partitions = $1" -c "$Q"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start_cluster() {
  "$B/jetsql-scheduler" --bind 127.0.0.1:0 --external-host 127.0.0.1 > "$tmp/sched.out" &
  pids="$!"
  until grep -q listening "$tmp/sched.out" 2>/dev/null; do sleep 0.1; done
  sport=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$tmp/sched.out" | head -1)
  for i in 1 2; do
    mkdir -p "$tmp/work$i"
    "$B/jetsql-executor" --scheduler "127.0.0.1:$sport" --bind-host 127.0.0.1 --external-host 127.0.0.1 \
      --flight-port "$(free_port)" --grpc-port "$(free_port)" --concurrent-tasks 2 --heartbeat 1 \
      --work-dir "$tmp/work$i" 2>/dev/null &
    pids="$pids $!"
  done
  trap 'kill $pids 2>/dev/null; rm -rf "$tmp"' EXIT
  until "$B/jetsql" --cluster "127.0.0.1:$sport" --format csv -c "$Q" >/dev/null 2>&1; do sleep 0.5; done
}
qc() { "$B/jetsql" --cluster "127.0.0.1:$sport" --format csv -c "$Q"; }
mdb_loop() {
  mkdir -p "$tmp/mdb"
  for f in "$tmp"/arc/*/*.mdb; do
    stem=$(basename "$f" .mdb)
    mdb-tables -1 "$f" | while IFS= read -r t; do
      mdb-export "$f" "$t" > "$tmp/mdb/$stem.$t.csv"
    done
  done
}
jet_export() { rm -rf "$tmp/out"; "$B/jetsql" export "$tmp/arc/**/*.mdb" --to "$tmp/out" --format parquet "$@"; }
q 1 >/dev/null # warm the page cache
g1=$(secs q 1)
g2=$(secs q 2)
start_cluster
gc=$(secs qc)
m=$(secs mdb_loop)
j=$(secs jet_export)
j1=$(secs jet_export --jobs 1)
r=$(secs "$B/jetsql" export "$tmp/arc/**/*.mdb" --to "$tmp/out" --format parquet)
echo "## Archives: $files files"
echo
echo "Machine: $(nproc) cores, $(uname -m); $(date -u +%Y-%m-%d). One run each, warm page cache."
echo
echo "| what | seconds | ratio |"
echo "| --- | ---: | ---: |"
printf '| GROUP BY over jet_files, target_partitions 1 | %.3f | 1.00 |\n' "$g1"
printf '| GROUP BY over jet_files, target_partitions 2 | %.3f | %.2fx faster |\n' "$g2" "$(echo "$g1 / $g2" | bc -l)"
printf '| GROUP BY over jet_files, local cluster (2 executors × 2 tasks) | %.3f | %.2fx |\n' "$gc" "$(echo "$g1 / $gc" | bc -l)"
printf '| shell loop of mdb-export per file and table (CSV) | %.3f | 1.00 |\n' "$m"
printf '| jetsql export GLOB --format parquet (all cores) | %.3f | %.2fx faster |\n' "$j" "$(echo "$m / $j" | bc -l)"
printf '| jetsql export GLOB --format parquet --jobs 1 | %.3f | %.2fx faster |\n' "$j1" "$(echo "$m / $j1" | bc -l)"
printf '| re-run of the export (every file complete, skipped) | %.3f | |\n' "$r"
