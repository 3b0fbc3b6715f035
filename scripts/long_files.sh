#!/usr/bin/env bash
# Warns about every source file of src/ and include/ longer than 500 lines: a
# file that long has usually taken on a second job (docs/architecture.md: one
# folder per step, one room per job). A warning, never a failure: CI prints
# them (.ci/run) and goes on; splitting a file is a decision, not a reflex.
#   scripts/long_files.sh [ROOT]     # ROOT defaults to the repository; exit 0 always
#   scripts/long_files.sh --self-test
set -euo pipefail
limit=500

# Prints "path: warning: file has N lines (over 500)" for each long file under ROOT.
warn_long() {
  local root="$1"
  (cd "$root" && find src include -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' \) -print0 2>/dev/null |
     sort -z | xargs -0 -r wc -l |
     awk -v limit="$limit" '$2 != "total" && $1 > limit {
       printf "%s: warning: file has %d lines (over %d)\n", $2, $1, limit
     }')
}

self_test() {
  local tmp
  tmp="$(mktemp -d)"
  trap "rm -rf '$tmp'" EXIT
  mkdir -p "$tmp/src/a" "$tmp/include/stet"
  seq "$limit" > "$tmp/src/a/exactly.cpp"
  seq $((limit + 1)) > "$tmp/src/a/over.cpp"
  seq 900 > "$tmp/include/stet/long.hpp"
  seq 900 > "$tmp/src/a/notes.txt"  # not a source file
  local got expected
  got="$(warn_long "$tmp")"
  expected="include/stet/long.hpp: warning: file has 900 lines (over $limit)
src/a/over.cpp: warning: file has $((limit + 1)) lines (over $limit)"
  if [ "$got" != "$expected" ]; then
    printf 'FAIL long_files.sh self-test\nexpected:\n%s\ngot:\n%s\n' "$expected" "$got" >&2
    exit 1
  fi
  echo "ok long_files.sh: warns about files over $limit lines, and only about sources"
}

if [ "${1:-}" = "--self-test" ]; then
  self_test
else
  warn_long "${1:-$(cd "$(dirname "$0")/.." && pwd)}"
fi
