#!/usr/bin/env bash
# bench/e2e/response_cache.sh: server CPU per response of GET /report.json
# from stet-server's response cache (--cache-ms) against building it per
# request, against nginx sending the same bytes as a file (and gzip_static),
# and against nginx proxy_cache (proxy_cache_lock on) in front of an uncached
# stet-server, counting both processes' CPU.
#
#   STET_SERVER=build-release/examples/stet-server bench/e2e/response_cache.sh
#   DURATION=2 ROUNDS=1 bench/e2e/response_cache.sh
#
# Every server is pinned to core 0 (one worker each), wrk -t1 to core 1.
# Reported: median server CPU µs per response over the rounds and req/s.
# Environment: DURATION=5 ROUNDS=3 CONNECTIONS=20 BASE_PORT=18680 STET_SERVER=path KEEP_TMP=1
# shellcheck disable=SC2034  # nginx_http_extra and nginx_server_extra are read by lib.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck disable=SC2034  # root and the nginx_* settings are read by lib.sh
root="$(cd "$here/../.." && pwd)"
DURATION="${DURATION:-5}"
ROUNDS="${ROUNDS:-3}"
CONNECTIONS="${CONNECTIONS:-20}"
BASE_PORT="${BASE_PORT:-18680}"
# shellcheck source=lib.sh
source "$here/lib.sh"
make_temp_dir
clk_tck="$(getconf CLK_TCK)"

build_stet
make_static_dir

declare -A server_port=([stet]="$BASE_PORT" [cached]=$((BASE_PORT + 1)) [nginx]=$((BASE_PORT + 2))
                        [proxy]=$((BASE_PORT + 3)) [upstream]=$((BASE_PORT + 4)))
# shellcheck disable=SC2154  # stet_bin is set by build_stet (lib.sh)
start_plain_stet() {  # name [flags...]
  local name="$1"
  shift
  taskset -c 0 "$stet_bin" --host 127.0.0.1 --port "${server_port[$name]}" --threads 1 --no-access-log "$@" \
    2>>"$tmp/$name.log" &
  server_pid[$name]=$!
  wait_listening "$!" "${server_port[$name]}" || die "stet-server $name did not start (see $tmp/$name.log)"
}
start_plain_stet stet
start_plain_stet cached --cache-ms 600000
start_plain_stet upstream

# nginx sends stet's own bytes: the document, and its gzip variant from the cache.
pre="$tmp/pre"
mkdir -p "$pre"
curl -sf "http://127.0.0.1:${server_port[stet]}/report.json" > "$pre/report.json"
curl -sf -H 'Accept-Encoding: gzip' "http://127.0.0.1:${server_port[cached]}/report.json" > "$pre/report.json.gz"
chmod 755 "$pre"
chmod 644 "$pre"/*

nginx_http_extra="gzip_static on;"
nginx_server_extra="location = /report.json { root $pre; }"
write_nginx_conf "$tmp/nginx" "${server_port[nginx]}" on
# shellcheck disable=SC2046  # nginx_command's words are meant to split
taskset -c 0 $(nginx_command "$tmp/nginx") 2>>"$tmp/nginx/stderr.log" &
server_pid[nginx]=$!
wait_listening "$!" "${server_port[nginx]}" || die "nginx did not start (see $tmp/nginx/error.log)"

# Micro-caching in front of stet: the anchor a user would reach for today.
nginx_http_extra="proxy_cache_path $tmp/nginx-proxy/cache levels=1:2 keys_zone=responses:10m;"
nginx_server_extra="location / { proxy_pass http://127.0.0.1:${server_port[upstream]};
      proxy_http_version 1.1; proxy_set_header Connection '';
      proxy_cache responses; proxy_cache_valid 200 10m; proxy_cache_lock on; }"
write_nginx_conf "$tmp/nginx-proxy" "${server_port[proxy]}" on
# shellcheck disable=SC2046
taskset -c 0 $(nginx_command "$tmp/nginx-proxy") 2>>"$tmp/nginx-proxy/stderr.log" &
server_pid[proxy]=$!
wait_listening "$!" "${server_port[proxy]}" || die "nginx proxy did not start (see $tmp/nginx-proxy/error.log)"

for name in stet cached nginx proxy; do
  got="$(curl -sf "http://127.0.0.1:${server_port[$name]}/report.json" | cmp - "$pre/report.json" && echo same)"
  [ "$got" = same ] || die "$name does not send stet's /report.json bytes"
done

results="$tmp/results.tsv"  # round cell coding requests cpu_us rps
: > "$results"
run_cell() {  # round cell coding name [also-counted...]
  local round="$1" cell="$2" coding="$3" name="$4" before=0 after=0 p out line
  shift 4
  local counted=("$name" "$@")
  for p in "${counted[@]}"; do before=$((before + $(cpu_ticks "${server_pid[$p]}"))); done
  out="$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency --timeout 10s -s "$here/report.lua" \
    -H "Accept-Encoding: $coding" "http://127.0.0.1:${server_port[$name]}/report.json" 2>&1)" ||
    die "wrk failed against $name: $out"
  for p in "${counted[@]}"; do after=$((after + $(cpu_ticks "${server_pid[$p]}"))); done
  [ "$round" = warmup ] && return 0
  line="$(grep '^e2e-result ' <<<"$out" | tail -n1)"
  [ -n "$line" ] || die "no result line from wrk against $name: $out"
  awk -v round="$round" -v cell="$cell" -v coding="$coding" -v ticks=$((after - before)) -v hz="$clk_tck" '
    { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END {
      req = v["requests"]; secs = v["duration_us"] / 1e6
      if (v["errors"] > 0) { print "errors in " cell > "/dev/stderr"; exit 1 }
      printf "%s\t%s\t%s\t%d\t%.2f\t%.0f\n", round, cell, coding, req, ticks * 1e6 / hz / req, req / secs
    }' <<<"$line" >> "$results"
}

# cell coding server [also counted]
cells=(
  "stet-uncached identity stet"
  "stet-cached identity cached"
  "nginx-file identity nginx"
  "nginx-proxy_cache+stet identity proxy upstream"
  "stet-uncached gzip stet"
  "stet-cached gzip cached"
  "nginx-gzip_static gzip nginx"
)
for c in "${cells[@]}"; do
  read -r cell coding name extra <<<"$c"
  # shellcheck disable=SC2086  # extra is zero or one name
  run_cell warmup "$cell" "$coding" "$name" $extra
done
for round in $(seq "$ROUNDS"); do
  log "round $round/$ROUNDS"
  for c in "${cells[@]}"; do
    read -r cell coding name extra <<<"$c"
    # shellcheck disable=SC2086
    run_cell "$round" "$cell" "$coding" "$name" $extra
  done
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
stat_of() { awk -F'\t' -v c="$1" -v k="$2" -v col="$3" '$2 == c && $3 == k { print $col }' "$results" | median; }

provenance "$(reproduce_command bench/e2e/response_cache.sh "" DURATION ROUNDS CONNECTIONS STET_SERVER)" nginx wrk
echo
echo "| GET /report.json | Accept-Encoding | server CPU µs/resp | req/s |"
echo "|---|---|---|---|"
for c in "${cells[@]}"; do
  read -r cell coding _ <<<"$c"
  echo "| $cell | $coding | $(stat_of "$cell" "$coding" 5) | $(stat_of "$cell" "$coding" 6) |"
done
echo
echo "$(nginx -v 2>&1 | sed 's/^nginx version: //'); DURATION=$DURATION ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS;" \
  "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
