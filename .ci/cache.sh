#!/usr/bin/env bash
# A build cache that CI can trust across clones.
#
# cargo decides whether a workspace crate is fresh by comparing its source
# files' modification times with those of its last build, and a fresh
# clone gives every file a new time: without help, a cache kept outside
# the clone still rebuilds every workspace crate. Commit times are not safe
# either (an edit built and then discarded, or a reset to an older commit,
# would be taken as built). So freshness is decided by content:
#
#   prepare LIST  before the build: when LIST (the tracked files and their
#                 blob ids, `git ls-files -s`, of the tree the cache last
#                 built) exists, every tracked file gets one fixed old time,
#                 then every file whose blob differs from LIST or is not in
#                 it gets the current time; a file LIST names that is gone
#                 is missing from its crate's dep-info, which cargo treats
#                 as changed. Without LIST every file keeps the current
#                 time and everything is built.
#   record LIST   after a successful build: LIST := this tree's files.
#   forget LIST   after a failed build: LIST removed, so the next run
#                 rebuilds what is not provably built.
#
# Run from the top of a git work tree. Only CI writes its cache directory,
# so LIST always describes a tree that was built there.
set -euo pipefail

# 2000-01-01 00:00:00 UTC: older than any build.
OLD_TIME=946684800

list_now() { git ls-files -s -z | sort -z; }

cmd="${1:-}"
list="${2:-}"
[ -n "$list" ] || { echo "usage: cache.sh prepare|record|forget LIST" >&2; exit 2; }

case "$cmd" in
  prepare)
    if [ -f "$list" ]; then
      git ls-files -z | xargs -0 -r touch -h -c -d "@$OLD_TIME"
      # entries of this tree that are not in LIST: changed or new files
      comm -z -23 <(list_now) <(sort -z "$list") | cut -z -f2- \
        | xargs -0 -r touch -h -c
    fi
    ;;
  record)
    mkdir -p "$(dirname "$list")"
    list_now > "$list.tmp"
    mv "$list.tmp" "$list"
    ;;
  forget)
    rm -f "$list"
    ;;
  *)
    echo "usage: cache.sh prepare|record|forget LIST" >&2
    exit 2
    ;;
esac
