#!/usr/bin/env bash
# bench/e2e/single_flight.sh: the response cache's single flight under a
# burst. CLIENTS connections are opened, then one request is written on each,
# back to back (bench/e2e/peers/burst_load.cpp: each request timed from its own
# write to the end of its answer, so connection setup is not counted), all to
# one cold key of a route whose handler takes DELAY_MS (stet-server
# --cache-ms with --users-delay-ms: GET /users/{id} sleeps on its worker, a
# slow backend). Each burst asks for a new id, so its key is cold. The sibling
# of bench/e2e/response_cache.sh, which measures CPU per cached request; this
# one counts the handler's runs and times the clients' wait.
#
#   STET_SERVER=build-release/examples/stet-server nice -n 10 bench/e2e/single_flight.sh
#   BURSTS=3 CLIENTS=200 bench/e2e/single_flight.sh
#
# Reported per burst: handler runs (the route's cache misses and bypasses, from
# /-/metrics), waits (single flight) and hits (arrived after the answer was
# stored), failed requests, how long writing the burst took, and the latency
# at p50, p99 and max; then the median of each over BURSTS.
# Without the cache the same burst would take CLIENTS * DELAY_MS / THREADS
# (25 s for 1,000 clients, 50 ms, 2 workers): not run.
# Environment: CLIENTS=1000 DELAY_MS=50 BURSTS=5 THREADS=2 PORT=18690 STET_SERVER=path KEEP_TMP=1
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC2034  # root is read by lib.sh
root="$(cd "$here/../.." && pwd)"
CLIENTS="${CLIENTS:-1000}"
DELAY_MS="${DELAY_MS:-50}"
BURSTS="${BURSTS:-5}"
THREADS="${THREADS:-2}"
PORT="${PORT:-18690}"
# shellcheck source=lib.sh
source "$here/lib.sh"
make_temp_dir

[ "$(ulimit -n)" -gt $((CLIENTS + 64)) ] || ulimit -n $((CLIENTS + 64)) || die "ulimit -n is below $CLIENTS"
# The load: no dependency, one compiler call (as websocket.sh builds its ws_load).
load="$root/build-e2e/burst_load"
if [ ! -x "$load" ] || [ "$here/peers/burst_load.cpp" -nt "$load" ]; then
  mkdir -p "$(dirname "$load")"
  c++ -std=c++20 -O2 -DNDEBUG -o "$load" "$here/peers/burst_load.cpp" || die "could not build burst_load"
fi
build_stet

# shellcheck disable=SC2154  # stet_bin is set by build_stet (lib.sh)
"$stet_bin" --host 127.0.0.1 --port "$PORT" --threads "$THREADS" --no-access-log --backlog 4096 \
  --cache-ms 600000 --users-delay-ms "$DELAY_MS" 2>>"$tmp/stet.log" &
server_pid[stet]=$!
wait_listening "$!" "$PORT" || die "stet-server did not start (see $tmp/stet.log)"

# The route's counter from /-/metrics (0 before its first request).
route_counter() {  # family
  curl -sf "http://127.0.0.1:$PORT/-/metrics" |
    awk -v f="$1" '$1 ~ "^" f "\\{" && $1 ~ /route="\/users\/\{id\}"/ { v = $2 } END { print v + 0 }'
}

results="$tmp/results.tsv"  # burst runs waits hits failed spread p50 p99 max
: > "$results"
"$load" "$PORT" /users/0 "$CLIENTS" > /dev/null || true  # warm-up: the server's pools, the client's path
for burst in $(seq "$BURSTS"); do
  runs_before=$(($(route_counter stet_response_cache_misses_total) + $(route_counter stet_response_cache_bypasses_total)))
  waits_before="$(route_counter stet_response_cache_waits_total)"
  hits_before="$(route_counter stet_response_cache_hits_total)"
  out="$("$load" "$PORT" "/users/$burst" "$CLIENTS")" || log "burst $burst: some requests failed: $out"
  runs=$(($(route_counter stet_response_cache_misses_total) + $(route_counter stet_response_cache_bypasses_total) -
    runs_before))
  waits=$(($(route_counter stet_response_cache_waits_total) - waits_before))
  hits=$(($(route_counter stet_response_cache_hits_total) - hits_before))
  awk -v burst="$burst" -v runs="$runs" -v waits="$waits" -v hits="$hits" '
    /^burst-result / { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END { printf "%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", burst, runs, waits, hits, v["failed"],
                 v["send_spread_ms"], v["p50_ms"], v["p99_ms"], v["max_ms"] }' <<<"$out" >> "$results"
  log "burst $burst: $(tail -n1 "$results")"
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
column_median() { cut -f"$1" "$results" | median; }

provenance "$(reproduce_command bench/e2e/single_flight.sh "" CLIENTS DELAY_MS BURSTS THREADS STET_SERVER)" \
  "burst_load (bench/e2e/peers at $(checkout_label))"
echo
echo "| burst | handler runs | waits | hits | failed | burst written in ms | p50 ms | p99 ms | max ms |"
echo "|---|---|---|---|---|---|---|---|---|"
while IFS=$'\t' read -r b runs waits hits failed spread p50 p99 max; do
  echo "| $b | $runs | $waits | $hits | $failed | $spread | $p50 | $p99 | $max |"
done < "$results"
echo "| median | $(column_median 2) | $(column_median 3) | $(column_median 4) | $(column_median 5) |" \
  "$(column_median 6) | $(column_median 7) | $(column_median 8) | $(column_median 9) |"
echo
echo "CLIENTS=$CLIENTS DELAY_MS=$DELAY_MS THREADS=$THREADS; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
