#!/usr/bin/env bash
# bench/e2e/websocket.sh: WebSocket echo and publish, stet-server against
# uWebSockets (bun, bench/e2e/peers/bun_server.js) and a Boost.Beast echo
# server (bench/e2e/peers/beast_ws_server.cpp, tuned as Beast's own
# websocket_server_fast is), side by side in one run.
#
#   bench/e2e/websocket.sh                                  # SECONDS_PER_CELL=5 ROUNDS=3
#   SECONDS_PER_CELL=2 ROUNDS=5 SERVERS="stet bun" bench/e2e/websocket.sh
#
# Cells: echo of 32-byte and 16 KiB text messages, and of 16 KiB binary ones
# (echo16kbin: bun hands a text message to JavaScript as a string, converted
# from UTF-8 and back, a binary one as a buffer), over CONNECTIONS connections
# (each keeps PIPELINE messages in flight), for stet (/ws/echo), bun
# (/ws/echo) and Beast (any path); publish of a 32-byte message to
# SUBSCRIBERS members of one room (/ws/chat/bench; the publisher keeps
# PIPELINE messages in flight, its own copies pacing it), for stet and bun
# (Beast has no rooms). Each server runs one thread pinned to core 0, the load
# client (bench/e2e/peers/ws_load.cpp) to core 1; the cells are interleaved
# round by round (for each round, for each cell: every server), so noise from
# the rest of the machine hits every server alike. Reported: the median over
# the rounds of messages/s received by the client and of server CPU µs per
# message = (utime+stime of the server, all its threads, from /proc/PID/stat,
# after - before) / messages received, with the lowest and highest round; and
# stet ÷ peer of the medians. On a shared machine the CPU figure is the steady one.
#
# Environment: STET_SERVER=path (default: build/examples/stet-server),
# STET_SERVER_B=path (a second stet-server, the server "stet_b" of SERVERS: two
# builds side by side, e.g. before and after a change),
# SERVERS="stet bun beast", ROUNDS=3, BASE_PORT=18580, PIPELINE=8,
# CONNECTIONS=100, SUBSCRIBERS=1000, CELLS="echo32 echo16k echo16kbin publish32".
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
SECONDS_PER_CELL="${SECONDS_PER_CELL:-5}"
ROUNDS="${ROUNDS:-3}"
SERVERS="${SERVERS:-stet bun beast}"
CELLS="${CELLS:-echo32 echo16k echo16kbin publish32}"
BASE_PORT="${BASE_PORT:-18580}"
PIPELINE="${PIPELINE:-8}"
CONNECTIONS="${CONNECTIONS:-100}"
SUBSCRIBERS="${SUBSCRIBERS:-1000}"
STET_SERVER="${STET_SERVER:-$root/build/examples/stet-server}"
stet_bin="$STET_SERVER"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"  # the WebSocket cells and client, cpu_ticks, server_pid/stop_all_servers, the provenance lines
make_temp_dir
trap 'exit 130' INT TERM

build_ws_tools beast_ws_server ws_load

ticks_per_second="$(getconf CLK_TCK)"
declare -A port=() label=([stet]=stet [stet_b]="stet B" [bun]="uWebSockets (bun)" [beast]=Beast)
declare -A cell_conns=()
for c in echo32 echo16k echo16kbin; do cell_conns[$c]="$CONNECTIONS"; done
cell_conns[publish32]="$SUBSCRIBERS"
declare -A rate=() cpu=()  # "CELL SERVER" -> the rounds' figures, space-separated

i=0
for s in $SERVERS; do
  port[$s]="$((BASE_PORT + i))"
  i=$((i + 1))
  case "$s" in
    stet) taskset -c 0 "$STET_SERVER" --host 127.0.0.1 --port "${port[$s]}" --threads 1 --no-access-log 2>>"$tmp/stet.log" & ;;
    stet_b)
      [ -x "${STET_SERVER_B:-}" ] || die "SERVERS names stet_b: set STET_SERVER_B to an executable stet-server"
      taskset -c 0 "$STET_SERVER_B" --host 127.0.0.1 --port "${port[$s]}" --threads 1 --no-access-log 2>>"$tmp/stet_b.log" & ;;
    bun) taskset -c 0 bun "$here/peers/bun_server.js" "${port[$s]}" 2>>"$tmp/bun.log" & ;;
    beast) taskset -c 0 "$ws_tools/beast_ws_server" "${port[$s]}" 2>>"$tmp/beast.log" & ;;
    *) die "unknown server '$s' (stet, stet_b, bun, beast)" ;;
  esac
  server_pid[$s]=$!
  wait_listening "$!" "${port[$s]}" || die "$s did not start"
done

# measure CELL SERVER: one interval (lib.sh ws_measure), appended to rate/cpu.
measure() {
  local c="$1" s="$2"
  ws_measure "${server_pid[$s]}" "${port[$s]}" "$(ws_path "$s" "$c")" "$c" "${cell_conns[$c]}" "$PIPELINE" "$SECONDS_PER_CELL"
  rate["$c $s"]+="$(awk -v m="$ws_messages" -v s="$ws_seconds" 'BEGIN { printf "%.0f ", m / s }')"
  cpu["$c $s"]+="$(awk -v m="$ws_messages" -v t="$client_ticks" -v hz="$ticks_per_second" \
                   'BEGIN { printf "%.3f ", (m > 0 ? t / hz * 1e6 / m : 0) }')"
}

for r in $(seq "$ROUNDS"); do
  log "round $r of $ROUNDS"
  for c in $CELLS; do
    for s in $SERVERS; do
      if ws_serves "$s" "$c"; then measure "$c" "$s"; fi
    done
  done
done

median() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
range() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s–%s", lo, hi }'; }

peers=() tools=()
for s in $SERVERS; do
  [ "$s" = stet ] || peers+=("$s")
  case "$s" in stet | stet_b) ;; *) tools+=("$s") ;; esac
done
provenance "$(reproduce_command bench/e2e/websocket.sh "" SECONDS_PER_CELL ROUNDS SERVERS CELLS PIPELINE CONNECTIONS \
              SUBSCRIBERS STET_SERVER STET_SERVER_B)" "${tools[@]}"
if [[ " $SERVERS " == *" stet_b "* ]]; then echo "- stet B: $(stet_bin="$STET_SERVER_B" stet_label)"; fi
echo "- Placement: every server one thread \`taskset -c 0\` on 127.0.0.1, no permessage-deflate; \`ws_load\` \`taskset -c 1\`," \
     "$PIPELINE messages in flight per connection; cells interleaved round by round"
echo
echo "Medians of $ROUNDS round(s) of $SECONDS_PER_CELL s; the range is the lowest and highest round."
echo
echo "| cell | server | messages/s | server CPU µs/message | range |"
echo "|---|---|---:|---:|---|"
for c in $CELLS; do
  for s in $SERVERS; do
    ws_serves "$s" "$c" || continue
    printf '| %s ×%s | %s | %.0f | %.2f | %s |\n' "${ws_cell_label[$c]}" "${cell_conns[$c]}" "${label[$s]}" \
      "$(median "${rate["$c $s"]}")" "$(median "${cpu["$c $s"]}")" "$(range "${cpu["$c $s"]}")"
  done
done
if [ ${#peers[@]} -gt 0 ] && [[ " $SERVERS " == *" stet "* ]]; then
  echo
  echo "stet server CPU/message ÷ peer's (medians; lower is better for stet):"
  echo
  head="| cell |"
  rule="|---|"
  for p in "${peers[@]}"; do head+=" ÷ ${label[$p]} |"; rule+="---:|"; done
  echo "$head"
  echo "$rule"
  for c in $CELLS; do
    line="| ${ws_cell_label[$c]} |"
    for p in "${peers[@]}"; do
      if ws_serves "$p" "$c"; then
        line+=" $(awk -v a="$(median "${cpu["$c stet"]}")" -v b="$(median "${cpu["$c $p"]}")" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }') |"
      else
        line+=" n/a |"
      fi
    done
    echo "$line"
  done
fi
