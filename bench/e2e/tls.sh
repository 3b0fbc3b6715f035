#!/usr/bin/env bash
# bench/e2e/tls.sh: HTTPS costs of stet-server against nginx, in one run, on
# the same self-signed certificate (EC P-256, made for the run). Per server:
#   keep-alive  wrk over https, GET /plaintext (one connection set, reused)
#   full        openssl s_time -new  (TLS 1.3 and TLS 1.2): a full handshake per connection
#   resumed     openssl s_time -reuse -tls1_2: session-ID resumption (s_time does
#               not resume TLS 1.3; the integration tests check 1.3 tickets resume)
# Reported: operations per second and server CPU µs per operation =
# (utime+stime from /proc/PID/stat, after - before) / operations. nginx runs
# with ssl_session_cache shared:SSL:10m, ssl_session_tickets on and TLS 1.2-1.3; both
# servers one worker, pinned to core 0, the clients to core 1.
#
#   bench/e2e/tls.sh                  # DURATION=5, both servers
#   DURATION=2 SERVERS=stet STET_SERVER=build/examples/stet-server bench/e2e/tls.sh
#
# Prints a markdown table; it writes nothing to docs/ (the lead copies a quiet
# run's table into docs/benchmarks.md).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
DURATION="${DURATION:-5}"
SERVERS="${SERVERS:-stet nginx}"
BASE_PORT="${BASE_PORT:-18680}"
tmp="$(mktemp -d /tmp/stet-tls-bench.XXXXXX)"
static="$tmp/static"
mkdir -p "$static"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
trap 'stop_all_servers; [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"' EXIT

stet_bin="${STET_SERVER:-}"
if [ -z "$stet_bin" ]; then
  cmake -S "$root" -B "$root/build-release" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DSTET_BUILD_TESTS=OFF -DSTET_BUILD_BENCH=OFF -DSTET_BUILD_EXAMPLES=ON >/dev/null
  cmake --build "$root/build-release" --target stet-server -j"$(nproc)" >/dev/null
  stet_bin="$root/build-release/examples/stet-server"
fi
make_tls_cert "$tmp/tls"
cert="$tls_cert"
key="$tls_key"
ticks_per_s="$(getconf CLK_TCK)"

start() {
  local name="$1" port="$2"
  case "$name" in
    stet)
      taskset -c 0 "$stet_bin" --host 127.0.0.1 --port $((port + 100)) --tls-port "$port" --threads 1 \
        --no-access-log --tls-cert "$cert" --tls-key "$key" 2>>"$tmp/stet.log" &
      server_pid[stet]=$!
      ;;
    nginx)
      write_nginx_conf "$tmp/nginx" "$port" on
      nginx_tls_listen "$tmp/nginx" "$port" "$cert" "$key"
      # shellcheck disable=SC2046
      taskset -c 0 $(nginx_command "$tmp/nginx") 2>>"$tmp/nginx/stderr.log" &
      server_pid[nginx]=$!
      ;;
    *) die "unknown server '$name'" ;;
  esac
  wait_listening "${server_pid[$name]}" "$port" || die "$name did not start"
}

# measure NAME wrk|CELL: wrk over https (GET /plaintext), or the handshake
# cell CELL of lib.sh (s_time_measure), pinned to core 1 around server NAME's
# CPU; prints "OPS_PER_S CPU_US_PER_OP". wrk's count is its "Requests/sec".
measure() {
  local name="$1" kind="$2" port="$3" ops
  if [ "$kind" = wrk ]; then
    measure_client "${server_pid[$name]}" wrk -t1 -c50 -d"${DURATION}s" "https://127.0.0.1:$port/plaintext"
    ops="$(awk '/^Requests\/sec/ {print $2 * '"$DURATION"'}' <<<"$client_out")"
  else
    s_time_measure "${server_pid[$name]}" "$port" "$kind" "$DURATION"
    ops="$hs_count"
  fi
  [ -n "$ops" ] && [ "${ops%.*}" -gt 0 ] || { log "$name $kind: no result: $client_out"; echo "n/a n/a"; return; }
  awk -v ops="$ops" -v t="$client_ticks" -v hz="$ticks_per_s" -v d="$DURATION" \
    'BEGIN { printf "%.0f %.1f\n", ops / d, t / hz * 1e6 / ops }'
}

# shellcheck disable=SC2046  # the peer names are words
provenance "$(reproduce_command bench/e2e/tls.sh "" DURATION SERVERS STET_SERVER)" \
  $([[ " $SERVERS " == *" nginx "* ]] && echo nginx) openssl
echo
printf '| server | keep-alive req/s | µs CPU/req | full TLS 1.3 hs/s | µs CPU/hs | full TLS 1.2 hs/s | µs CPU/hs | resumed TLS 1.2 hs/s | µs CPU/hs | resumed/full CPU (1.2) |\n'
printf '|---|---|---|---|---|---|---|---|---|---|\n'
port=$BASE_PORT
for name in $SERVERS; do
  port=$((port + 1))
  start "$name" "$port"
  read -r ka ka_cpu < <(measure "$name" wrk "$port")
  read -r f13 f13_cpu < <(measure "$name" tls13_full "$port")
  read -r f12 f12_cpu < <(measure "$name" tls12_full "$port")
  read -r r12 r12_cpu < <(measure "$name" tls12_resumed "$port")
  ratio="$(awk -v r="$r12_cpu" -v f="$f12_cpu" 'BEGIN { if (f + 0 > 0 && r + 0 > 0) printf "%.2f", r / f; else print "n/a" }')"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$ka" "$ka_cpu" "$f13" "$f13_cpu" \
    "$f12" "$f12_cpu" "$r12" "$r12_cpu" "$ratio"
  stop_server "$name"
done
