#!/usr/bin/env bash
# Tests the rule of .ci/cache.sh on a scratch workspace of two crates
# (`low`, and `high` which depends on it), cloned anew for every build as CI
# clones: which crates `cargo build -v` reports `Fresh` and which it
# compiles after a change, a revert, an added and a deleted file, a reset
# to an older commit and a failed build. Prints "N passed, 0 failed".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$here/cache.sh"
scratch="$(mktemp -d /tmp/jetsql-cache-test.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
export CARGO_TARGET_DIR="$scratch/target"
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@localhost
export GIT_COMMITTER_NAME=ci GIT_COMMITTER_EMAIL=ci@localhost
list="$CARGO_TARGET_DIR/built.list"
origin="$scratch/origin"
work="$scratch/clone"
passed=0
failed=0

# the origin repository
mkdir -p "$origin/low/src" "$origin/high/src"
cat > "$origin/Cargo.toml" <<'EOF'
[workspace]
resolver = "3"
members = ["low", "high"]
EOF
cat > "$origin/low/Cargo.toml" <<'EOF'
[package]
name = "low"
version = "0.1.0"
edition = "2024"
EOF
cat > "$origin/high/Cargo.toml" <<'EOF'
[package]
name = "high"
version = "0.1.0"
edition = "2024"

[dependencies]
low = { path = "../low" }
EOF
echo 'pub fn low() -> u32 { 1 }' > "$origin/low/src/lib.rs"
echo 'pub fn high() -> u32 { low::low() + 1 }' > "$origin/high/src/lib.rs"
git -C "$origin" init -q -b main
git -C "$origin" add -A
git -C "$origin" commit -q -m one

commit() { git -C "$origin" add -A && git -C "$origin" commit -q -m "$1"; }

# A CI run: a fresh clone at one fixed path (of REV, default the tip), the
# rule, the build; records on success, forgets on failure. Sets $out to
# the build's output.
ci_build() {
  local rev="${1:-main}"
  sleep 1 # a clone's file times are later than the last build's
  rm -rf "$work"
  git clone -q "$origin" "$work"
  git -C "$work" checkout -q "$rev"
  (cd "$work" && bash "$cache" prepare "$list")
  if out="$(cd "$work" && cargo build -v --offline 2>&1)"; then
    (cd "$work" && bash "$cache" record "$list")
    return 0
  else
    (cd "$work" && bash "$cache" forget "$list")
    return 1
  fi
}

# expect NAME CRATE fresh|built: what the last build did with CRATE
expect() {
  local what="$1" crate="$2" want="$3" got
  if grep -q "Fresh $crate v" <<<"$out"; then
    got=fresh
  elif grep -q "Compiling $crate v" <<<"$out"; then
    got=built
  else
    got=absent
  fi
  if [ "$got" = "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $what: $crate was $got, expected $want" >&2
    echo "$out" >&2
  fi
}

ci_build
expect "first build" low built
expect "first build" high built

ci_build
expect "same tree, fresh clone" low fresh
expect "same tree, fresh clone" high fresh

echo 'pub fn high() -> u32 { low::low() + 2 }' > "$origin/high/src/lib.rs"
commit two
ci_build
expect "high changed" low fresh
expect "high changed" high built

echo 'pub fn high() -> u32 { low::low() + 1 }' > "$origin/high/src/lib.rs"
commit three
ci_build
expect "high reverted to a content built before" low fresh
expect "high reverted to a content built before" high built

echo 'pub fn extra() -> u32 { 3 }' > "$origin/low/src/extra.rs"
printf 'mod extra;\npub fn low() -> u32 { extra::extra() - 2 }\n' > "$origin/low/src/lib.rs"
commit four
ci_build
expect "file added to low" low built
expect "file added to low" high built

git -C "$origin" rm -q low/src/extra.rs
echo 'pub fn low() -> u32 { 1 }' > "$origin/low/src/lib.rs"
commit five
ci_build
expect "file deleted from low" low built
expect "file deleted from low" high built

ci_build main~3
expect "reset to an older commit" low fresh
expect "reset to an older commit" high built

echo 'pub fn high() -> u32 { not_a_function() }' > "$origin/high/src/lib.rs"
commit six
if ci_build; then
  failed=$((failed + 1))
  echo "FAIL: a build that cannot compile succeeded" >&2
else
  passed=$((passed + 1))
fi
[ -f "$list" ] && { failed=$((failed + 1)); echo "FAIL: the list survived a failed build" >&2; } \
  || passed=$((passed + 1))

git -C "$origin" revert --no-edit HEAD >/dev/null
ci_build
expect "after a failed build" low built
expect "after a failed build" high built

echo "cache rule: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
