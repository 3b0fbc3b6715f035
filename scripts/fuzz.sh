#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan, fuzz/) into build-fuzz/
# and runs each for a bounded time over a scratch copy of its seed corpus (the
# repository's fuzz/corpus/ is never written to). Fails on any crash, leak,
# sanitizer report or broken property; prints executions and coverage per target.
#   scripts/fuzz.sh                       # every target, FUZZ_SECONDS (30) each
#   FUZZ_SECONDS=300 scripts/fuzz.sh router chunked
#   FUZZ_KEEP_CORPUS=DIR scripts/fuzz.sh  # keep the grown corpora in DIR/<target>
# A crashing input is kept in build-fuzz/artifacts/; reproduce it with
#   build-fuzz/fuzz/<target>_fuzz build-fuzz/artifacts/<target>-crash-...
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" --fuzz

seconds="${FUZZ_SECONDS:-30}"
build="$root/build-fuzz"
jobs="${FUZZ_JOBS:-$(nproc)}"

# shellcheck source=scripts/lib/fuzz_targets.sh
. "$root/scripts/lib/fuzz_targets.sh"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
check_fuzz_targets "${targets[@]}"
build_fuzz_targets "$build" "$jobs" "${targets[@]}"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/artifacts" "$build/logs"
export_sanitizer_options

failed=()
summary=()
for t in "${targets[@]}"; do
  corpus="$scratch/$t"
  mkdir -p "$corpus"
  cp "$root/fuzz/corpus/$t/"* "$corpus/"
  log="$build/logs/$t.log"
  echo "== fuzz $t: ${seconds} s"
  status=0
  "$build/fuzz/${t}_fuzz" "$corpus" -dict="$root/fuzz/dict/${dict[$t]}" -max_total_time="$seconds" \
      -detect_leaks=1 -timeout=60 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
      >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|fuzz property broken' "$log"; then
    failed+=("$t")
    tail -n 60 "$log" >&2
  fi
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)"
  last="$(grep -E '^#[0-9]+' "$log" | tail -n 1)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
  corp="$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")"
  summary+=("$(printf '%-15s %5ss %10s execs %7s/s  cov %5s  ft %6s  corpus %5s  exit %s' \
      "$t" "$seconds" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$status")")
  if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
    mkdir -p "$FUZZ_KEEP_CORPUS/$t"
    cp "$corpus/"* "$FUZZ_KEEP_CORPUS/$t/"
  fi
done

echo "== fuzz summary (logs in $build/logs)"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $build/artifacts)" >&2
  exit 1
fi
