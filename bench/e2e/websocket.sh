#!/usr/bin/env bash
# bench/e2e/websocket.sh: WebSocket echo and publish, stet-server against a
# Boost.Beast echo server (bench/e2e/peers/beast_ws_server.cpp), one run.
#
#   bench/e2e/websocket.sh                 # SECONDS_PER_CELL=5
#   SECONDS_PER_CELL=2 bench/e2e/websocket.sh
#
# The Beast peer is NOT tuned the way Beast's own fast examples are (every
# operation goes through a strand with a timeout, one read then one write per
# message): its figures say what that straightforward server costs, and no
# stet ÷ Beast ratio from this script is to be quoted (docs/benchmarks.md).
#
# Cells: echo of 32-byte and 16 KiB text messages over 100 connections (each
# keeps PIPELINE=8 messages in flight), for stet (/ws/echo) and Beast; publish
# of a 32-byte message to 1,000 subscribers of one stet room (/ws/chat/bench;
# the publisher keeps PIPELINE messages in flight, its own copies pacing it).
# Each server runs one thread pinned to core 0, the load client
# (bench/e2e/peers/ws_load.cpp) to core 1. Reported: messages/s received by the
# client and server CPU µs per message = (utime+stime of the server, from
# /proc/PID/stat, after - before) / messages received. On a shared machine
# the CPU figure is the steady one.
#
# Environment: STET_SERVER=path (default: build/examples/stet-server),
# BASE_PORT=18580, PIPELINE=8, CONNECTIONS=100, SUBSCRIBERS=1000.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
SECONDS_PER_CELL="${SECONDS_PER_CELL:-5}"
BASE_PORT="${BASE_PORT:-18580}"
PIPELINE="${PIPELINE:-8}"
CONNECTIONS="${CONNECTIONS:-100}"
SUBSCRIBERS="${SUBSCRIBERS:-1000}"
STET_SERVER="${STET_SERVER:-$root/build/examples/stet-server}"
stet_bin="$STET_SERVER"
out="$root/build-e2e-ws"
mkdir -p "$out"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"  # cpu_ticks and the provenance lines

# The peers: header-only Beast and Asio, so one compiler call each.
for p in beast_ws_server ws_load; do
  if [ ! -x "$out/$p" ] || [ "$here/peers/$p.cpp" -nt "$out/$p" ]; then
    c++ -std=c++20 -O2 -DNDEBUG -o "$out/$p" "$here/peers/$p.cpp" -pthread
  fi
done

ticks_per_second="$(getconf CLK_TCK)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_port() {
  for _ in $(seq 100); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "websocket.sh: nothing listens on port $1" >&2
  exit 1
}

# cell NAME PID PORT MODE PATH CONNECTIONS SIZE
cell() {
  local name="$1" pid="$2" port="$3" mode="$4" path="$5" conns="$6" size="$7" before after result messages took
  before="$(cpu_ticks "$pid")"
  result="$(taskset -c 1 "$out/ws_load" "$mode" "$port" "$path" "$conns" "$size" "$PIPELINE" "$SECONDS_PER_CELL")"
  after="$(cpu_ticks "$pid")"
  messages="$(awk '{print $2}' <<<"$result")"
  took="$(awk '{print $4}' <<<"$result")"
  awk -v n="$name" -v m="$messages" -v s="$took" -v t="$((after - before))" -v hz="$ticks_per_second" \
    'BEGIN { printf "| %s | %.0f | %.2f |\n", n, m / s, (m > 0 ? t / hz * 1e6 / m : 0) }'
}

stet_port="$BASE_PORT"
beast_port="$((BASE_PORT + 1))"
taskset -c 0 "$STET_SERVER" --host 127.0.0.1 --port "$stet_port" --threads 1 --no-access-log 2>/dev/null &
pids+=("$!")
stet_pid="$!"
taskset -c 0 "$out/beast_ws_server" "$beast_port" 2>/dev/null &
pids+=("$!")
beast_pid="$!"
wait_port "$stet_port"
wait_port "$beast_port"

provenance "$(reproduce_command bench/e2e/websocket.sh "" SECONDS_PER_CELL PIPELINE CONNECTIONS SUBSCRIBERS \
              STET_SERVER)" beast
echo "- The Beast peer (bench/e2e/peers/beast_ws_server.cpp) is not tuned: no stet ÷ Beast ratio from this table"
echo
echo "| cell | messages/s | server CPU µs/message |"
echo "|---|---|---|"
cell "stet echo 32 B x$CONNECTIONS" "$stet_pid" "$stet_port" echo /ws/echo "$CONNECTIONS" 32
cell "beast echo 32 B x$CONNECTIONS" "$beast_pid" "$beast_port" echo / "$CONNECTIONS" 32
cell "stet echo 16 KiB x$CONNECTIONS" "$stet_pid" "$stet_port" echo /ws/echo "$CONNECTIONS" 16384
cell "beast echo 16 KiB x$CONNECTIONS" "$beast_pid" "$beast_port" echo / "$CONNECTIONS" 16384
cell "stet publish 32 B to $SUBSCRIBERS (+1)" "$stet_pid" "$stet_port" publish /ws/chat/bench "$SUBSCRIBERS" 32
