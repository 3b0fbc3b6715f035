#!/usr/bin/env bash
# bench/e2e/instructions.sh: the counts that do not move when the machine is
# busy, for stet-server and nginx: user-space instructions per request
# (valgrind --tool=callgrind) and system calls per request (strace -c).
#
#   bench/e2e/instructions.sh            # prints Markdown and updates its block in docs/benchmarks.md
#   REQUESTS=5000 bench/e2e/instructions.sh
#
# Why callgrind: `perf stat -e instructions` is "not supported" on this VM (no
# PMU passthrough), and instruction counts are exact where wall time is not.
#
# Instructions: each server runs alone under callgrind (stet --threads 1; nginx
# one process, master_process off), twice per endpoint: once receiving 0
# requests and once receiving REQUESTS keep-alive requests on one connection
# (one curl process, sequential). Ir(N) - Ir(0), divided by N, removes
# start-up and shutdown; what remains is the cost of a request (plus one
# connection accept/close shared by all N). Readiness is read from the socket
# table, so the 0-request run really receives nothing.
#
# System calls: each server runs normally (nginx: master + one worker, strace
# on the worker); `strace -c -f -p PID` is attached while `wrk -t1 -c1` sends
# keep-alive requests for STRACE_SECONDS, then the counts are divided by the
# responses wrk completed. The pipelined load (16 requests per write) is
# reported per batch: the ideal is one read and one write per batch.
#
# System calls at full speed: strace slows a server down so much that the
# client's next request is already there when it reads, which hides a
# speculative read that fails with EAGAIN at full speed. So the same loads are
# also counted with perf's syscall tracepoints (no slowdown), the server on
# core 0 and `wrk -t1 -c$PERF_CONNECTIONS` on core 1, with failed reads counted
# apart (their return value is -EAGAIN). Skipped where perf or its tracepoints
# are missing.
#
# Environment: REQUESTS=2000  STRACE_SECONDS=2  PERF_SECONDS=3  PERF_CONNECTIONS=50
#              CALLGRIND=0 leaves the instruction table out (the system call
#              tables only: valgrind cannot run an io_uring build, -DSTET_IO_URING=ON)
#              SERVERS="stet nginx"  STET_SERVER=path  BASE_PORT=18490
#              OUT=docs/benchmarks.md (OUT= prints only)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
REQUESTS="${REQUESTS:-2000}"
CALLGRIND="${CALLGRIND:-1}"
STRACE_SECONDS="${STRACE_SECONDS:-2}"
PERF_SECONDS="${PERF_SECONDS:-3}"
PERF_CONNECTIONS="${PERF_CONNECTIONS:-50}"
SERVERS="${SERVERS:-stet nginx}"
BASE_PORT="${BASE_PORT:-18490}"
OUT="${OUT-$root/docs/benchmarks.md}"
PIPELINE_DEPTH=16  # fixed in pipeline.lua
STOP_WAIT=60  # read by lib.sh stop_server: callgrind writes its profile at exit, give it time

tmp="$(mktemp -d /tmp/stet-e2e-instr.XXXXXX)"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"

strace_pid=""
perf_pid=""
cleanup() {
  if [ -n "$strace_pid" ]; then kill -INT "$strace_pid" 2>/dev/null || true; wait "$strace_pid" 2>/dev/null || true; fi
  if [ -n "$perf_pid" ]; then kill -INT "$perf_pid" 2>/dev/null || true; wait "$perf_pid" 2>/dev/null || true; fi
  stop_all_servers
  if [ "${KEEP_TMP:-0}" = 1 ]; then log "temp dir kept: $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# endpoint id -> path
declare -A path_of=([plaintext]=/plaintext [css]=/static/app.css)

# Starts NAME on PORT with the command prefix in the array named by $3.
# MASTER (nginx only): "off" for callgrind (one process), "on" for strace.
start() {
  local name="$1" port="$2" prefix_name="$3" master="${4:-on}" wait_s=60
  local -n words="$prefix_name"
  port_in_use "$port" && die "port $port is in use (set BASE_PORT)"
  case "$name" in
    stet) start_stet stet "$port" "$prefix_name" "$wait_s" ;;
    nginx)
      write_nginx_conf "$tmp/nginx" "$port" "$master"
      # shellcheck disable=SC2046
      "${words[@]}" $(nginx_command "$tmp/nginx") 2>>"$tmp/nginx/stderr.log" &
      server_pid[nginx]=$!
      wait_listening "$!" "$port" "$wait_s" || die "nginx did not start (see $tmp/nginx/error.log)"
      ;;
    *) die "instructions.sh measures stet and nginx only, not '$name'" ;;
  esac
}

# Sends COUNT keep-alive GETs for URL over one connection (one curl, one
# connection reused). Sets sent_ok and sent_404 to how many got 200 and 404.
send_requests() {
  local url="$1" count="$2" config="$tmp/curl.cfg" i
  : > "$config"
  for i in $(seq "$count"); do printf 'url = "%s"\noutput = "/dev/null"\n' "$url" >> "$config"; done
  curl -s -K "$config" -w '%{http_code}\n' > "$tmp/codes" || true
  sent_ok="$(grep -c '^200$' "$tmp/codes" || true)"
  sent_404="$(grep -c '^404$' "$tmp/codes" || true)"
}

# One callgrind run of NAME receiving COUNT requests for endpoint ID. Sets
# cg_ir (total instructions) and cg_status ("ok", "404", or "bad").
# (Globals, not output: a $(...) subshell could not stop the server on error.)
callgrind_run() {
  local name="$1" id="$2" count="$3" port="$BASE_PORT" out="$tmp/callgrind.$1.$2.$3"
  # shellcheck disable=SC2034  # used through a nameref by start
  local vg=(valgrind --tool=callgrind --callgrind-out-file="$out")
  start "$name" "$port" vg off
  wait_idle "${server_pid[$name]}"
  sent_ok=0 sent_404=0
  if [ "$count" -gt 0 ]; then send_requests "http://127.0.0.1:$port${path_of[$id]}" "$count"; fi
  stop_server "$name"
  cg_status=ok
  if [ "$count" -gt 0 ] && [ "$sent_ok" != "$count" ]; then
    cg_status=bad
    if [ "$sent_404" = "$count" ]; then cg_status=404; fi
  fi
  [ -s "$out" ] || die "callgrind wrote no profile for $name ($out)"
  cg_ir="$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$out" | head -n1)"
  [ -n "$cg_ir" ] || die "no summary line in $out"
}

instructions_table() {
  local name id base n per
  echo "### User-space instructions per request (callgrind)"
  echo
  echo "$REQUESTS keep-alive requests on one connection; Ir(with requests) − Ir(no request), ÷ $REQUESTS."
  echo "stet-server \`--threads 1 --no-access-log\`; nginx one process (\`master_process off\`), same config as run.sh."
  echo
  echo "| server | endpoint | Ir, 0 requests | Ir, $REQUESTS requests | instructions / request |"
  echo "|---|---|---:|---:|---:|"
  for name in $SERVERS; do
    for id in plaintext css; do
      log "callgrind: $name ${path_of[$id]} (0 and $REQUESTS requests)"
      callgrind_run "$name" "$id" 0
      base="$cg_ir"
      callgrind_run "$name" "$id" "$REQUESTS"
      n="$cg_ir"
      case "$cg_status" in
        ok) per="$(awk -v a="$n" -v b="$base" -v r="$REQUESTS" 'BEGIN { printf "%d", (a - b) / r + 0.5 }')"
            echo "| $name | \`${path_of[$id]}\` | $base | $n | **$per** |" ;;
        404) echo "| $name | \`${path_of[$id]}\` | $base | | n/a (404) |" ;;
        *) die "callgrind: $name ${path_of[$id]}: not all $REQUESTS requests were answered 200" ;;
      esac
    done
  done
  echo
}

# strace -c on PID (all its threads) while wrk runs; writes the summary to
# SUMMARY and sets measured_requests to the responses wrk completed.
strace_run() {
  local pid="$1" url="$2" script="$3" summary="$4" out
  strace -c -f -p "$pid" -o "$summary" 2>"$tmp/strace.stderr" &
  strace_pid=$!
  # Wait for the attach before sending anything, or the first requests go uncounted.
  local _
  for _ in $(seq 50); do
    if grep -q attached "$tmp/strace.stderr" 2>/dev/null; then break; fi
    sleep 0.1
  done
  sleep 0.2
  out="$(wrk -t1 -c1 -d"${STRACE_SECONDS}s" -s "$script" "$url" 2>&1)" || die "wrk failed: $out"
  kill -INT "$strace_pid" 2>/dev/null || true
  wait "$strace_pid" 2>/dev/null || true
  strace_pid=""
  measured_requests="$(sed -n 's/^e2e-result requests=\([0-9]*\).*/\1/p' <<<"$out")"
}

# "calls/unit" per syscall from a strace -c summary, for UNITS units of work:
# total, then a breakdown like "read 1.00, writev 1.00, epoll_wait 0.97 (EAGAIN: read 0.00)".
strace_per_unit() {
  local summary="$1" units="$2"
  awk -v u="$units" '
    /^-+ / { dashes++; next }
    dashes == 1 && NF >= 5 {
      name = $NF; calls = $4; errs = (NF == 6) ? $5 : 0
      total += calls
      part = sprintf("%s %.2f", name, calls / u)
      if (errs > 0) part = part sprintf(" (%.2f failed)", errs / u)
      if (calls / u >= 0.005) list = list (list == "" ? "" : ", ") part
    }
    END { printf "%.2f\t%s\n", total / u, list }' "$summary"
}

# The rows of a system call table: for each server and load, MEASURE_run
# (strace or perf) while wrk runs, then MEASURE_per_unit on what it wrote.
# The server is started with the command prefix in the array named by $2.
syscall_rows() {
  local measure="$1" prefix_name="$2" name id pid port="$BASE_PORT" units unit total breakdown summary
  for name in $SERVERS; do
    start "$name" "$port" "$prefix_name" on
    pid="${server_pid[$name]}"
    # nginx: the worker does the work; the master only waits for signals.
    if [ "$name" = nginx ]; then pid="$(pgrep -P "$pid" | head -n1)"; fi
    for id in plaintext css pipelined; do
      local path="${path_of[$id]:-/plaintext}" script="$here/report.lua"
      if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")" != 200 ]; then
        echo "| $name | \`$path\` keep-alive | | n/a (404) | |"
        continue
      fi
      unit="requests"
      if [ "$id" = pipelined ]; then script="$here/pipeline.lua"; unit="batches"; fi
      summary="$tmp/$measure.$name.$id"
      log "$measure: $name $path ($id)"
      "${measure}_run" "$pid" "http://127.0.0.1:$port$path" "$script" "$summary"
      if [ -z "$measured_requests" ] || [ "$measured_requests" -eq 0 ]; then
        die "$measure: no requests completed against $name $path"
      fi
      units="$measured_requests"
      if [ "$id" = pipelined ]; then units=$((measured_requests / PIPELINE_DEPTH)); fi
      IFS=$'\t' read -r total breakdown < <("${measure}_per_unit" "$summary" "$units")
      local load="\`$path\` keep-alive"
      if [ "$id" = pipelined ]; then load="\`$path\` pipelined x$PIPELINE_DEPTH"; fi
      echo "| $name | $load | $units $unit | **$total** | $breakdown |"
    done
    stop_server "$name"
  done
  echo
}

syscall_table() {
  # shellcheck disable=SC2034  # used through a nameref by start
  local none=()
  echo "### System calls per request (strace -c, steady keep-alive)"
  echo
  echo "\`wrk -t1 -c1 -d${STRACE_SECONDS}s\` against a server under \`strace -c -f -p PID\`; counts ÷ responses"
  echo "(pipelined: ÷ batches of $PIPELINE_DEPTH). Per syscall: calls per unit, and how many of those failed"
  echo "(for read/recvfrom that is EAGAIN: a speculative read that found nothing)."
  echo
  echo "| server | load | units | syscalls / unit | per syscall |"
  echo "|---|---|---:|---:|---|"
  syscall_rows strace none
}

# ------------------------------------------------- system calls, full speed --
perf_syscalls=(read recvfrom recvmsg write writev sendto sendmsg sendfile64 epoll_wait epoll_pwait epoll_ctl
               newfstatat statx openat close setsockopt io_uring_enter)
perf_failing_reads=(read recvfrom recvmsg)

# The perf stat arguments: one counter per system call entry, plus, for the
# reads, a counter of the exits that returned -EAGAIN (-11).
perf_events() {
  local s
  for s in "${perf_syscalls[@]}"; do printf -- '-e\nsyscalls:sys_enter_%s\n' "$s"; done
  for s in "${perf_failing_reads[@]}"; do printf -- '-e\nsyscalls:sys_exit_%s\n--filter\nret == -11\n' "$s"; done
}

perf_usable() {
  command -v perf >/dev/null || return 1
  local args=()
  mapfile -t args < <(perf_events)
  perf stat -x, "${args[@]}" -- true >/dev/null 2>&1
}

# perf stat on PID while wrk (core 1) runs; writes the CSV to OUT and sets
# measured_requests to the responses wrk completed.
perf_run() {
  local pid="$1" url="$2" script="$3" out_file="$4" out args=()
  mapfile -t args < <(perf_events)
  perf stat -x, -o "$out_file" "${args[@]}" -p "$pid" &
  perf_pid=$!
  sleep 0.5
  out="$(taskset -c 1 wrk -t1 -c"$PERF_CONNECTIONS" -d"${PERF_SECONDS}s" -s "$script" "$url" 2>&1)" || die "wrk failed: $out"
  kill -INT "$perf_pid" 2>/dev/null || true
  wait "$perf_pid" 2>/dev/null || true
  perf_pid=""
  measured_requests="$(sed -n 's/^e2e-result requests=\([0-9]*\).*/\1/p' <<<"$out")"
}

# "total<TAB>breakdown" per unit from a perf stat CSV (value,unit,event,...).
perf_per_unit() {
  awk -F, -v u="$2" '
    $3 ~ /^syscalls:sys_enter_/ { name = substr($3, 20); calls[name] = $1 + 0; order[++n] = name }
    $3 ~ /^syscalls:sys_exit_/ { failed[substr($3, 19)] = $1 + 0 }
    END {
      for (i = 1; i <= n; i++) {
        name = order[i]; c = calls[name]; total += c
        if (c / u < 0.005) continue
        part = sprintf("%s %.2f", name, c / u)
        if (failed[name] / u >= 0.005) part = part sprintf(" (%.2f EAGAIN)", failed[name] / u)
        list = list (list == "" ? "" : ", ") part
      }
      printf "%.2f\t%s\n", total / u, list
    }' "$1"
}

perf_syscall_table() {
  # shellcheck disable=SC2034  # used through a nameref by start
  local core0=(taskset -c 0)
  echo "### System calls per request at full speed (perf tracepoints)"
  echo
  if ! perf_usable; then
    echo "perf or its syscall tracepoints are not available here: skipped."
    echo
    return 0
  fi
  echo "Server on core 0, \`wrk -t1 -c$PERF_CONNECTIONS -d${PERF_SECONDS}s\` on core 1; \`perf stat\` counts the"
  echo "server's system call entries (and the reads that returned EAGAIN) while wrk runs; ÷ responses"
  echo "(pipelined: ÷ batches of $PIPELINE_DEPTH). Unlike strace, this does not slow the server down."
  echo
  echo "| server | load | units | syscalls / unit | per syscall |"
  echo "|---|---|---:|---:|---|"
  syscall_rows perf core0
}

main() {
  local packages=(valgrind strace linux-perf curl wrk iproute2 procps)
  if [[ " $SERVERS " == *" nginx "* ]]; then packages+=(nginx); fi
  install_packages "${packages[@]}"
  build_stet
  make_static_dir
  local block="$tmp/block.md" peers=(valgrind strace)
  if [[ " $SERVERS " == *" nginx "* ]]; then peers=(nginx "${peers[@]}"); fi
  {
    echo "<!-- e2e-counts:begin (generated by bench/e2e/instructions.sh; edit outside these markers) -->"
    provenance "$(reproduce_command bench/e2e/instructions.sh "" REQUESTS STRACE_SECONDS PERF_SECONDS PERF_CONNECTIONS \
                  SERVERS STET_SERVER CALLGRIND)" "${peers[@]}"
    echo
    if [ "$CALLGRIND" != 0 ]; then instructions_table; fi
    syscall_table
    perf_syscall_table
    echo "<!-- e2e-counts:end -->"
  } > "$block"
  sed '1d;$d' "$block"
  if [ -n "$OUT" ]; then
    replace_block "$OUT" e2e-counts "$block"
    log "wrote $OUT"
  fi
}

main
