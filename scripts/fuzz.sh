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
export CCACHE_DIR="${CCACHE_DIR:-$root/.cache/ccache}"

# Which dictionary each target reads.
declare -A dict=(
  [request_path]=http.dict [chunked]=http.dict
  [safe_path]=url.dict [router]=url.dict [form]=url.dict [cookie]=url.dict
  [accept_encoding]=accept_encoding.dict [multipart]=multipart.dict [websocket_frame]=websocket.dict
  [forwarded]=forwarded.dict [proxy_protocol]=proxy_protocol.dict
)
all_targets=(request_path chunked safe_path router cookie form accept_encoding multipart websocket_frame forwarded
             proxy_protocol)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  if [ -z "${dict[$t]:-}" ]; then
    echo "fuzz: unknown target '$t' (known: ${all_targets[*]})" >&2
    exit 2
  fi
done

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSTET_BUILD_FUZZ=ON \
      -DSTET_BUILD_TESTS=OFF -DSTET_BUILD_BENCH=OFF -DSTET_BUILD_EXAMPLES=OFF -DSTET_INSTALL=OFF >/dev/null
cmake --build "$build" -j"$jobs" --target "${targets[@]/%/_fuzz}"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/artifacts" "$build/logs"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

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
