#!/usr/bin/env bash
# bench/e2e/offload.sh: what the offload pool is for. /plaintext p99 under wrk,
# alone and while CONCURRENT clients keep /slow?ms=SLOW_MS requests (a blocking
# call on the pool) in flight on the same single worker. Target (issue 18): the
# second p99 within 1.5x of the first. Also the server CPU per request of
# /plaintext and of /slow?ms=0 (the offload round trip doing no work).
#
#   bench/e2e/offload.sh                    # DURATION=5
#   DURATION=2 STET_SERVER=build/examples/stet-server bench/e2e/offload.sh
#
# Environment: DURATION=5  CONNECTIONS=50  CONCURRENT=64  SLOW_MS=200
#              OFFLOAD_THREADS=64  PORT=18520  STET_SERVER=path
# One run on a shared machine is noisy: compare the ratios, rerun on a quiet one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
# shellcheck source=bench/e2e/lib.sh
source "$here/lib.sh"
slow_pid=""
cleanup() {
  if [ -n "$slow_pid" ]; then kill "$slow_pid" 2>/dev/null || true; wait "$slow_pid" 2>/dev/null || true; fi
  stop_all_servers
  rm -rf "$tmp"
}
trap cleanup EXIT

DURATION="${DURATION:-5}"
CONNECTIONS="${CONNECTIONS:-50}"
CONCURRENT="${CONCURRENT:-64}"
SLOW_MS="${SLOW_MS:-200}"
OFFLOAD_THREADS="${OFFLOAD_THREADS:-64}"
PORT="${PORT:-18520}"
command -v wrk >/dev/null || die "wrk is missing: run scripts/install-deps.sh"
build_stet

"$stet_bin" --host 127.0.0.1 --port "$PORT" --threads 1 --no-access-log \
  --offload-threads "$OFFLOAD_THREADS" --offload-queue 1024 2>>"$tmp/stet.log" &
server_pid[stet]=$!
wait_listening "$!" "$PORT" || die "stet-server did not start (see $tmp/stet.log)"
url="http://127.0.0.1:$PORT"

# Prints "p99_ms requests" of one wrk run against PATH with N connections.
measure() {
  local path="$1" connections="$2" out
  out="$(wrk -t1 -c"$connections" -d"${DURATION}s" --latency "$url$path")"
  local p99 requests
  p99="$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) } else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } print v }' <<<"$out")"
  requests="$(awk '/requests in/ { print $1 }' <<<"$out")"
  echo "$p99 $requests"
}

# Server CPU microseconds per request of one wrk run against PATH.
cpu_per_request() {
  local path="$1" before after requests
  before="$(cpu_ticks "${server_pid[stet]}")"
  read -r _ requests < <(measure "$path" "$CONNECTIONS")
  after="$(cpu_ticks "${server_pid[stet]}")"
  awk -v t=$((after - before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t * 1e6 / hz / n }'
}

measure /plaintext "$CONNECTIONS" >/dev/null  # warm up
plain_cpu="$(cpu_per_request /plaintext)"
offload_cpu="$(cpu_per_request '/slow?ms=0')"
read -r alone _ < <(measure /plaintext "$CONNECTIONS")
wrk -t1 -c"$CONCURRENT" -d"$((DURATION + 2))s" "$url/slow?ms=$SLOW_MS" >"$tmp/slow.txt" &
slow_pid=$!
sleep 1
read -r loaded _ < <(measure /plaintext "$CONNECTIONS")
wait "$slow_pid" || true
slow_pid=""

provenance "$(reproduce_command bench/e2e/offload.sh "" DURATION CONNECTIONS CONCURRENT SLOW_MS OFFLOAD_THREADS \
              STET_SERVER)" wrk
echo
echo "| measure | value |"
echo "|---|---|"
echo "| server CPU per /plaintext | ${plain_cpu} µs |"
echo "| server CPU per /slow?ms=0 (offload round trip) | ${offload_cpu} µs |"
echo "| /plaintext p99 alone | ${alone} ms |"
echo "| /plaintext p99 with $CONCURRENT x /slow?ms=$SLOW_MS | ${loaded} ms |"
awk -v a="$alone" -v b="$loaded" 'BEGIN { printf "| ratio (target <= 1.5) | %.2f |\n", b / a }'
echo "(wrk -t1 -c$CONNECTIONS -d${DURATION}s; stet-server --threads 1 --offload-threads $OFFLOAD_THREADS; $(nproc) cores, shared)"
