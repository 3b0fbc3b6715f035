#!/usr/bin/env bash
# bench/e2e/events.sh: topic fan-out and cross-instance latency, stet-server
# against nginx + nchan (Debian libnginx-mod-nchan), side by side in one run.
#
#   nice -n 10 bench/e2e/events.sh
#   SUBSCRIBERS=2000 MESSAGES=20 bench/e2e/events.sh
#
# Fan-out (one instance, one worker thread each, pinned to core 0; the client,
# bench/e2e/peers/fanout_load.cpp, on core 1): SUBSCRIBERS connections
# subscribe to one room, one keep-alive connection POSTs MESSAGES messages of
# 32 bytes (at most WINDOW ahead of the slowest delivery). Cells: stet
# server-sent events (GET /events/chat/bench), stet WebSocket subscribers
# (/ws/chat/bench; the same POST /chat/bench publishes to both kinds), nchan
# server-sent events and nchan WebSocket (/sub/bench, POST /pub/bench).
# Reported: deliveries/s and server CPU µs per delivered event = (utime+stime
# of the server's processes, from /proc/PID/stat, over the publishing phase)
# / deliveries.
#
# Latency (two instances sharing one redis-server): LATENCY_SUBSCRIBERS event
# streams on instance B, RATE messages a second POSTed to instance A; each
# message carries its send time, the client takes publish-to-delivery p50/p99.
# stet: --pubsub redis://...; nchan: nchan_redis_url + nchan_use_redis.
#
# Environment: STET_SERVER (default build/examples/stet-server), BASE_PORT=18680,
# SUBSCRIBERS=10000, MESSAGES=50, WINDOW=4, LATENCY_SUBSCRIBERS=100, RATE=200,
# LATENCY_MESSAGES=1000. Everything on 127.0.0.1; every process stopped by PID.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
BASE_PORT="${BASE_PORT:-18680}"
SUBSCRIBERS="${SUBSCRIBERS:-10000}"
MESSAGES="${MESSAGES:-50}"
WINDOW="${WINDOW:-4}"
LATENCY_SUBSCRIBERS="${LATENCY_SUBSCRIBERS:-100}"
RATE="${RATE:-200}"
LATENCY_MESSAGES="${LATENCY_MESSAGES:-1000}"
STET_SERVER="${STET_SERVER:-$root/build/examples/stet-server}"
stet_bin="$STET_SERVER"
out="$root/build-e2e-events"
mkdir -p "$out"
tmp="$(mktemp -d)"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"  # processes, provenance
trap 'stop_all_servers; rm -rf "$tmp"' EXIT

# 10,000 subscribers are 10,000 sockets in the client and as many in the server.
ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge $((SUBSCRIBERS + 100)) ] || die "ulimit -n $(ulimit -n) is below $((SUBSCRIBERS + 100))"
command -v redis-server >/dev/null || die "redis-server is missing"
[ -f /usr/lib/nginx/modules/ngx_nchan_module.so ] || die "libnginx-mod-nchan is missing"

if [ ! -x "$out/fanout_load" ] || [ "$here/peers/fanout_load.cpp" -nt "$out/fanout_load" ]; then
  c++ -std=c++20 -O2 -DNDEBUG -o "$out/fanout_load" "$here/peers/fanout_load.cpp" -pthread
fi

start_stet() {  # NAME PORT [FLAGS...]
  local name="$1" port="$2"
  shift 2
  taskset -c 0 "$stet_bin" --listen "127.0.0.1:$port" --threads 1 --no-access-log --max-connections 30000 \
    --drain-delay-ms 0 "$@" 2>>"$tmp/$name.log" &
  server_pid[$name]=$!
  wait_listening "${server_pid[$name]}" "$port" || die "$name did not start: $(tail -3 "$tmp/$name.log")"
}

start_nchan() {  # NAME PORT REDIS_LINE
  local name="$1" port="$2" dir="$tmp/$1"
  mkdir -p "$dir"
  sed -e "s|@PORT@|$port|" -e "s|@DIR@|$dir|g" -e "s|@REDIS@|$3|" "$here/peers/nchan.conf.in" >"$dir/nginx.conf"
  taskset -c 0 nginx -p "$dir/" -e "$dir/error.log" -c "$dir/nginx.conf" 2>>"$dir/stderr.log" &
  server_pid[$name]=$!
  wait_listening "${server_pid[$name]}" "$port" || die "$name did not start: $(tail -3 "$dir/error.log")"
}

start_redis() {  # PORT
  redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --loglevel warning >"$tmp/redis.log" 2>&1 &
  server_pid[redis]=$!
  wait_listening "${server_pid[redis]}" "$1" || die "redis-server did not start"
}

# The PIDs whose CPU counts: stet's process; nginx's master and its worker.
pids_of() { echo "${server_pid[$1]}$(pgrep -P "${server_pid[$1]}" | sed 's/^/,/' | tr -d '\n')"; }

# fanout_load's line: "delivered D expected E seconds S cpu C p50_us P p99_us Q"
field() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}'; }

results="$tmp/results"
: >"$results"

fanout_cell() {  # LABEL SERVER PORT SUB_PATH KIND PUB_PATH
  local line
  line="$(taskset -c 1 "$out/fanout_load" "$3" "$4" "$5" "$SUBSCRIBERS" "$3" "$6" "$MESSAGES" "$WINDOW" 0 \
    "$(pids_of "$2")")" || die "$1: $line"
  echo "$1 $line" | tee -a "$results" >&2
}

latency_cell() {  # LABEL SERVER_A PORT_A SERVER_B PORT_B SUB_PATH PUB_PATH
  local line
  line="$(taskset -c 1 "$out/fanout_load" "$5" "$6" sse "$LATENCY_SUBSCRIBERS" "$3" "$7" "$LATENCY_MESSAGES" 0 "$RATE" \
    "$(pids_of "$2"),$(pids_of "$4")")" || die "$1: $line"
  echo "$1 $line" | tee -a "$results" >&2
}

port="$BASE_PORT"
log "fan-out: $SUBSCRIBERS subscribers, $MESSAGES messages"
start_stet stet "$port"
fanout_cell "stet-sse" stet "$port" /events/chat/bench sse /chat/bench
fanout_cell "stet-ws" stet "$port" /ws/chat/bench ws /chat/bench
stop_server stet
start_nchan nchan $((port + 1)) ""
fanout_cell "nchan-sse" nchan $((port + 1)) /sub/bench sse /pub/bench
fanout_cell "nchan-ws" nchan $((port + 1)) /sub/bench ws /pub/bench
stop_server nchan

log "latency across two instances through Redis: $LATENCY_SUBSCRIBERS subscribers, $RATE messages/s"
redis_port=$((port + 2))
start_redis "$redis_port"
start_stet stet-a $((port + 3)) --pubsub "redis://127.0.0.1:$redis_port"
start_stet stet-b $((port + 4)) --pubsub "redis://127.0.0.1:$redis_port"
sleep 0.5  # both buses connected
latency_cell "stet-redis" stet-a $((port + 3)) stet-b $((port + 4)) /events/chat/lat /chat/lat
stop_server stet-a
stop_server stet-b
redis_line="nchan_redis_url redis://127.0.0.1:$redis_port; nchan_use_redis on;"
start_nchan nchan-a $((port + 5)) "$redis_line"
start_nchan nchan-b $((port + 6)) "$redis_line"
sleep 0.5
latency_cell "nchan-redis" nchan-a $((port + 5)) nchan-b $((port + 6)) /sub/lat /pub/lat
stop_server nchan-a
stop_server nchan-b
stop_server redis

echo
echo "| cell | delivered | deliveries/s | server CPU µs per delivery |"
echo "|---|---:|---:|---:|"
while read -r label rest; do
  case "$label" in *-redis) continue ;; esac
  d="$(echo "$rest" | field delivered)"
  s="$(echo "$rest" | field seconds)"
  c="$(echo "$rest" | field cpu)"
  awk -v l="$label" -v d="$d" -v s="$s" -v c="$c" \
    'BEGIN { printf "| %s | %d | %.0f | %.3f |\n", l, d, d / s, c * 1e6 / d }'
done <"$results"
echo
echo "| two instances through Redis | delivered | p50 µs | p99 µs | CPU µs per delivery (both instances) |"
echo "|---|---:|---:|---:|---:|"
while read -r label rest; do
  case "$label" in *-redis) ;; *) continue ;; esac
  d="$(echo "$rest" | field delivered)"
  c="$(echo "$rest" | field cpu)"
  echo "| $label | $d | $(echo "$rest" | field p50_us) | $(echo "$rest" | field p99_us) |" \
    "$(awk -v d="$d" -v c="$c" 'BEGIN { printf "%.3f", c * 1e6 / d }') |"
done <"$results"
echo
settings="SUBSCRIBERS=$SUBSCRIBERS MESSAGES=$MESSAGES WINDOW=$WINDOW LATENCY_SUBSCRIBERS=$LATENCY_SUBSCRIBERS"
settings+=" RATE=$RATE LATENCY_MESSAGES=$LATENCY_MESSAGES STET_SERVER=$STET_SERVER"
provenance "$settings nice -n 10 bench/e2e/events.sh" nginx
echo "- nchan: $(dpkg-query -W -f '${Version}' libnginx-mod-nchan 2>/dev/null || echo unknown);" \
  "$(redis-server --version | awk '{print $1, $3}')"
