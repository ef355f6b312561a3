#!/usr/bin/env bash
# jetsql serve under load, side by side with PostgreSQL serving the same
# data (made by `jetsql migrate`), in one run: pgbench, CLIENTS clients
# for SECONDS seconds each, prepared statements, the scripts of
# benches/serve/ weighted 6 seeks : 3 index scans : 1 aggregate, and with
# WRITE=1 also 2 inserts (a --write server over a copy of FILE). Prints
# transactions per second, p50 and p99 latency per server and the
# jetsql/PostgreSQL ratios; with WRITE=1 it counts the inserted rows in
# each target afterwards (for jetsql with mdbtools, in the file, after the
# server stopped) against pgbench's count of insert transactions.
#
#   [WRITE=1] benches/serve_load.sh FILE.mdb "host=/tmp/pg user=postgres" [CLIENTS] [SECONDS]
#
# The PostgreSQL side: a libpq connection string to a server where a
# database may be created.
set -euo pipefail
file=$1
admin=$2
clients=${3:-64}
seconds=${4:-300}
here="$(cd "$(dirname "$0")" && pwd)"
jetsql=${JETSQL:-$here/../target/release/jetsql}
pgbench=${PGBENCH:-$(command -v pgbench || ls /usr/lib/postgresql/*/bin/pgbench | sort -V | tail -1)}
work=$(mktemp -d)
trap 'kill "${server:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT

db=serve_load_$$
psql "$admin" -qc "CREATE DATABASE $db" >/dev/null
"$jetsql" migrate "$file" "$admin dbname=$db" >/dev/null

write=${WRITE:-0}
scripts=(-f "$here/serve/seek.sql@6" -f "$here/serve/scan.sql@3" -f "$here/serve/aggregate.sql@1")
mode=()
if [ "$write" = 1 ]; then
  cp "$file" "$work/$(basename "$file")"
  chmod u+w "$work/$(basename "$file")"
  file="$work/$(basename "$file")"
  scripts+=(-f "$here/serve/insert.sql@2")
  mode=(--write)
fi
"$jetsql" serve "$file" --listen 127.0.0.1:0 --max-connections $((clients + 8)) "${mode[@]}" 2>"$work/serve.err" &
server=$!
for _ in $(seq 50); do grep -q listening "$work/serve.err" && break; sleep 0.1; done
port=$(grep -o '127.0.0.1:[0-9]*' "$work/serve.err" | head -1 | cut -d: -f2)
stem=$(basename "${file%.*}" | tr 'A-Z' 'a-z')

# percentiles of pgbench's per-transaction log (column 3: latency in µs)
stats() {
  cat "$1"/pgbench_log.* | awk '{print $3}' | sort -n | awk '
    { v[NR] = $1 }
    END { printf "%.2f %.2f", v[int(NR * 0.50) + 1] / 1000, v[int(NR * 0.99) + 1] / 1000 }'
}

run() { # name, connection string, extra environment
  local name=$1 conn=$2
  mkdir -p "$work/$name"
  (cd "$work/$name" && env ${3:-} "$pgbench" -n -M prepared -c "$clients" -j 2 -T "$seconds" -l \
    "${scripts[@]}" "$conn" > out.txt 2> err.txt) || { cat "$work/$name/err.txt" >&2; exit 1; }
  local tps failed
  tps=$(grep -o 'tps = [0-9.]*' "$work/$name/out.txt" | head -1 | cut -d' ' -f3)
  failed=$(grep -o 'number of failed transactions: [0-9]*' "$work/$name/out.txt" | head -1 | grep -o '[0-9]*$' || echo 0)
  read -r p50 p99 < <(stats "$work/$name")
  # transactions of the insert script (the fourth)
  local inserts=0
  if [ "$write" = 1 ]; then
    inserts=$(grep -A3 'SQL script 4' "$work/$name/out.txt" | grep -o '[0-9]* transactions' | head -1 | cut -d' ' -f1)
  fi
  echo "$name $tps $p50 $p99 $failed $inserts"
}

echo "clients $clients, $seconds s each, file $(basename "$file"), writes: $write"
ours=$(run jetsql "host=127.0.0.1 port=$port dbname=$stem user=bench" "PGOPTIONS=-cjetsql.dialect=datafusion")
theirs=$(run postgresql "$admin dbname=$db")
kill "$server"; wait "$server" 2>/dev/null || true
lost=0
if [ "$write" = 1 ]; then
  # rows in the targets against pgbench's insert transactions (pgbench
  # does not count the transactions in flight when the time is up, which
  # the server may still commit: more rows than transactions is no loss)
  ours_rows=$(mdb-export "$file" Shippers | grep -c '"pgbench"' || true)
  theirs_rows=$(psql "$admin dbname=$db" -Atc "SELECT count(*) FROM \"Shippers\" WHERE \"CompanyName\" = 'pgbench'")
  read -r _ _ _ _ _ ours_ins <<< "$ours"
  read -r _ _ _ _ _ theirs_ins <<< "$theirs"
  echo "inserted rows: jetsql $ours_rows for $ours_ins insert transactions (mdbtools, in the file); PostgreSQL $theirs_rows for $theirs_ins"
  [ "$ours_rows" -ge "$ours_ins" ] && [ "$theirs_rows" -ge "$theirs_ins" ] || lost=1
fi
psql "$admin" -qc "DROP DATABASE $db WITH (FORCE)" >/dev/null
printf '%-11s %10s %9s %9s %7s %8s\n' server tps p50_ms p99_ms failed inserts
for r in "$ours" "$theirs"; do printf '%-11s %10s %9s %9s %7s %8s\n' $r; done
read -r _ t1 a1 b1 _ <<< "$ours"
read -r _ t2 a2 b2 _ <<< "$theirs"
awk -v t1="$t1" -v t2="$t2" -v a1="$a1" -v a2="$a2" -v b1="$b1" -v b2="$b2" 'BEGIN {
  printf "jetsql/PostgreSQL: throughput %.2fx, p50 %.2fx, p99 %.2fx\n", t1 / t2, a1 / a2, b1 / b2 }'
[ "$lost" = 0 ] || { echo "LOST WRITES: fewer rows than insert transactions" >&2; exit 1; }
