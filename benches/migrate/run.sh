#!/usr/bin/env bash
# Migration bench (not a test): `jetsql migrate` into SQLite and PostgreSQL
# against mdbtools (`mdb-schema` + `mdb-export -I` piped into sqlite3 /
# psql, each table in one transaction, binary values as hex literals), on
# the files given.
#
# usage: benches/migrate/run.sh JETSQL PGCONN FILE...
#   JETSQL  the release jetsql binary
#   PGCONN  libpq connection string of an administrative database
# Prints: file, target, tool, seconds, rows, rows/s.
set -euo pipefail
jetsql=$1; pg=$2; shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
rate() { awk -v r="$1" -v s="$2" 'BEGIN { printf "%.0f", r / s }'; }
for f in "$@"; do
  rows=0
  while IFS= read -r t; do
    [ -z "$t" ] && continue
    n=$(mdb-export "$f" "$t" | tail -n +2 | wc -l)
    rows=$((rows + n))
  done < <(mdb-tables -1 "$f")
  # jetsql into SQLite
  rm -f "$work/j.sqlite"
  s=$(now); "$jetsql" migrate "$f" "$work/j.sqlite" 2>/dev/null; e=$(now)
  sec=$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
  echo "$(basename "$f") sqlite jetsql $sec $rows $(rate $rows $sec)"
  # mdbtools into SQLite
  rm -f "$work/m.sqlite"
  s=$(now)
  mdb-schema "$f" sqlite | sqlite3 "$work/m.sqlite"
  while IFS= read -r t; do
    [ -z "$t" ] && continue
    { echo "BEGIN;"; mdb-export -I sqlite -b hex -S 100 "$f" "$t"; echo "COMMIT;"; } | sqlite3 "$work/m.sqlite"
  done < <(mdb-tables -1 "$f")
  e=$(now)
  sec=$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
  echo "$(basename "$f") sqlite mdbtools $sec $rows $(rate $rows $sec)"
  # jetsql into PostgreSQL
  db=bench_j_$$; psql -q -d "$pg" -c "CREATE DATABASE $db"
  s=$(now); "$jetsql" migrate "$f" "$pg dbname=$db" 2>/dev/null; e=$(now)
  sec=$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
  echo "$(basename "$f") postgres jetsql $sec $rows $(rate $rows $sec)"
  psql -q -d "$pg" -c "DROP DATABASE $db"
  # mdbtools into PostgreSQL
  db=bench_m_$$; psql -q -d "$pg" -c "CREATE DATABASE $db"
  s=$(now)
  mdb-schema "$f" postgres | psql -q -d "$pg dbname=$db" >/dev/null 2>&1
  while IFS= read -r t; do
    [ -z "$t" ] && continue
    { echo "BEGIN;"; mdb-export -I postgres -b hex -S 100 "$f" "$t"; echo "COMMIT;"; } \
      | psql -q -d "$pg dbname=$db" >/dev/null 2>&1
  done < <(mdb-tables -1 "$f")
  e=$(now)
  sec=$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
  echo "$(basename "$f") postgres mdbtools $sec $rows $(rate $rows $sec)"
  psql -q -d "$pg" -c "DROP DATABASE $db"
done
