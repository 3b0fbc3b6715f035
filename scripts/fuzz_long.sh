#!/usr/bin/env bash
# Long fuzzing runs (not for CI): builds the libFuzzer targets as scripts/fuzz.sh
# does, then runs each, one target after the other, over a corpus kept between
# runs outside the repository, in FUZZ_CORPUS_DIR/<target> (default
# build-fuzz/corpus-long), seeded from fuzz/corpus/<target>.
#
# A target is to reach FUZZ_TOTAL executions (10^7) with its kept corpus, which
# takes hours for the slow ones (the whole-server target runs a few hundred
# inputs a second per core), so a long run may be done in parts, on different
# days. FUZZ_CORPUS_DIR/<target>.ledger keeps one line per part (when it ended,
# the commit fuzzed, executions, seconds, findings); each run adds its line, and
# by default runs what the ledger says the target still lacks of FUZZ_TOTAL (a
# target that has it is skipped). FUZZ_RUNS sets a part's executions instead,
# FUZZ_SECONDS bounds a part's time (it then stops by itself with what it did);
# the executions are split over FUZZ_WORKERS parallel jobs (2 by default: one
# per core of a 2-core box; libFuzzer's -jobs/-workers).
#
# Logs and crashing inputs go to FUZZ_OUT_DIR/<target> (default
# build-fuzz/long). Prints one row per target: this part's executions, exec/s,
# coverage, corpus size, findings (crash-, leak-, timeout-, oom- files and
# sanitizer reports), and the ledger's total, also written to
# FUZZ_OUT_DIR/summary.txt as each target ends.
#   scripts/fuzz_long.sh                          # every target, up to 10^7 each
#   FUZZ_SECONDS=3600 scripts/fuzz_long.sh server # an hour of what server lacks
#   FUZZ_RUNS=1000000 scripts/fuzz_long.sh server cors
#   FUZZ_CORPUS_DIR=/work/fuzz-long/corpus FUZZ_OUT_DIR=/work/fuzz-long scripts/fuzz_long.sh
#   scripts/fuzz_long.sh --self-test              # the ledger's rules, on safe_path (CI)
# Reproduce a finding: build-fuzz/fuzz/<target>_fuzz FUZZ_OUT_DIR/<target>/crash-...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# --self-test: three short parts of safe_path in a scratch directory; the
# ledger must count what ran, skip a target that has its total, and a part
# bounded by FUZZ_SECONDS must stop by itself and be counted.
if [ "${1:-}" = --self-test ]; then
  scratch="$(mktemp -d)"
  trap 'rm -rf "$scratch"' EXIT
  export FUZZ_CORPUS_DIR="$scratch/corpus" FUZZ_OUT_DIR="$scratch/out" FUZZ_WORKERS=1
  unset FUZZ_RUNS FUZZ_SECONDS
  ledger="$FUZZ_CORPUS_DIR/safe_path.ledger"
  fail() {
    echo "FAIL fuzz_long.sh self-test: $1" >&2
    cat "$ledger" "$FUZZ_OUT_DIR/summary.txt" >&2 2>/dev/null || true
    exit 1
  }
  parts() { grep -vc '^#' "$ledger" || true; }
  FUZZ_TOTAL=3000 "$0" safe_path >/dev/null
  [ "$(parts)" = 1 ] && [ "$(awk '!/^#/ { print $3 }' "$ledger")" = 3000 ] || fail "a first part runs the whole total"
  FUZZ_TOTAL=3000 "$0" safe_path >/dev/null
  [ "$(parts)" = 1 ] && grep -q ' 3000  reached before$' "$FUZZ_OUT_DIR/summary.txt" ||
    fail "a target that has its total is skipped"
  start=$(date +%s)
  FUZZ_TOTAL=1000000000 FUZZ_SECONDS=2 "$0" safe_path >/dev/null
  n="$(awk '!/^#/ { n = $3 } END { print n }' "$ledger")"
  total="$(awk 'NR == 2 { print $7 }' "$FUZZ_OUT_DIR/summary.txt")"
  [ "$(parts)" = 2 ] && [ "$n" -gt 0 ] && [ "$total" = $((3000 + n)) ] && [ $(($(date +%s) - start)) -lt 60 ] ||
    fail "a part bounded in time stops by itself and adds what it ran"
  echo "ok: fuzz_long.sh counts its parts in the ledger, skips a target that has its total, stops a part on time"
  exit 0
fi

"$root/scripts/install-deps.sh" --fuzz

total="${FUZZ_TOTAL:-10000000}"
workers="${FUZZ_WORKERS:-2}"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
build="$root/build-fuzz"
corpus_root="${FUZZ_CORPUS_DIR:-$build/corpus-long}"
out="${FUZZ_OUT_DIR:-$build/long}"

# shellcheck source=scripts/lib/fuzz_targets.sh
. "$root/scripts/lib/fuzz_targets.sh"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
check_fuzz_targets "${targets[@]}"
build_fuzz_targets "$build" "$workers" "${targets[@]}"

mkdir -p "$corpus_root" "$out"
export_sanitizer_options
summary="$out/summary.txt"
header="$(printf '%-18s %12s %9s %7s %8s %8s %12s  %s' target executions exec/s cov ft corpus total findings)"
echo "$header" >"$summary"

# The executions a target's ledger holds: the sum of its parts' third fields.
ledger_total() {
  [ -f "$1" ] || { echo 0; return; }
  awk '!/^#/ && NF >= 5 { n += $3 } END { printf "%d\n", n }' "$1"
}

for t in "${targets[@]}"; do
  corpus="$corpus_root/$t"
  ledger="$corpus_root/$t.ledger"
  logs="$out/$t"
  done_before="$(ledger_total "$ledger")"
  runs="${FUZZ_RUNS:-$((total - done_before))}"
  if [ "$runs" -le 0 ]; then
    echo "== fuzz_long $t: $done_before executions in $ledger, none lacking of $total"
    printf '%-18s %12s %9s %7s %8s %8s %12s  %s\n' "$t" 0 - - - - "$done_before" "reached before" >>"$summary"
    continue
  fi
  mkdir -p "$corpus" "$logs"
  cp -n "$root/fuzz/corpus/$t/"* "$corpus/" 2>/dev/null || true
  rm -f "$logs"/fuzz-*.log
  per_job=$(((runs + workers - 1) / workers))
  limits=(-runs="$per_job")
  [ -z "${FUZZ_SECONDS:-}" ] || limits+=(-max_total_time="$FUZZ_SECONDS")
  echo "== fuzz_long $t: $runs executions over $workers jobs${FUZZ_SECONDS:+, at most $FUZZ_SECONDS s} (corpus $corpus, $done_before before)"
  start=$(date +%s)
  status=0
  # The jobs run in $logs, where libFuzzer writes fuzz-<job>.log.
  (cd "$logs" && "$build/fuzz/${t}_fuzz" "$corpus" -dict="$root/fuzz/dict/${dict[$t]}" \
      -jobs="$workers" -workers="$workers" "${limits[@]}" -detect_leaks=1 -timeout=60 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$logs/" >"$logs/driver.log" 2>&1) || status=$?
  seconds=$(($(date +%s) - start))
  execs=0
  for log in "$logs"/fuzz-*.log; do
    [ -f "$log" ] || continue
    n="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
    if [ -z "$n" ]; then  # a job that stopped on a finding prints no final stats
      n="$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')"
    fi
    execs=$((execs + ${n:-0}))
  done
  rate=$((execs / (seconds > 0 ? seconds : 1)))
  cov="$(cat "$logs"/fuzz-*.log 2>/dev/null | sed -n 's/.* cov: \([0-9]*\).*/\1/p' | sort -n | tail -n 1)"
  ft="$(cat "$logs"/fuzz-*.log 2>/dev/null | sed -n 's/.* ft: \([0-9]*\).*/\1/p' | sort -n | tail -n 1)"
  files="$(find "$logs" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)"
  reports="$(cat "$logs"/fuzz-*.log 2>/dev/null |
      grep -cE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|fuzz property broken' || true)"
  findings="none"
  if [ "$files" -gt 0 ] || [ "$reports" -gt 0 ] || [ "$status" -ne 0 ]; then
    findings="$files inputs, $reports reports, exit $status (see $logs)"
  fi
  corp="$(find "$corpus" -type f | wc -l)"
  [ -f "$ledger" ] || echo "# ended (UTC)        commit   executions  seconds  findings" >"$ledger"
  printf '%s %8s %12s %8s  %s\n' "$(date -u +%Y-%m-%dT%H:%M)" "$commit" "$execs" "$seconds" "$findings" >>"$ledger"
  printf '%-18s %12s %9s %7s %8s %8s %12s  %s\n' "$t" "$execs" "$rate" "${cov:-?}" "${ft:-?}" "$corp" \
      "$(ledger_total "$ledger")" "$findings" >>"$summary"
done

echo "== fuzz_long summary ($summary)"
cat "$summary"
if grep -qvE ' (none|reached before)$' <(tail -n +2 "$summary"); then
  echo "fuzz_long: findings above" >&2
  exit 1
fi
