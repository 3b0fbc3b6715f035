# shellcheck shell=bash
# scripts/lib/stet_server.sh: one stet-server process for scripts/soak.sh and
# scripts/graceful_restart.sh (sourced, not run). Expects $root, $tmp and
# $script_name to be set, and `set -euo pipefail`. Every process started here
# is stopped by its own PID (server_pid), never by name.

# shellcheck disable=SC2154  # root, tmp and script_name come from the caller
# shellcheck disable=SC2034  # server_bin, port and server_status are read by the caller

say() { printf '%s: %s\n' "$script_name" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Sets server_bin: $STET_SERVER if given, else stet-server built here. A plain
# build is Release in build-release/ (shared with bench/e2e); with
# STET_SANITIZE=address,undefined it is RelWithDebInfo in build-soak-address-undefined/.
build_server() {
  if [ -n "${STET_SERVER:-}" ]; then
    [ -x "$STET_SERVER" ] || die "STET_SERVER=$STET_SERVER is not executable"
    server_bin="$STET_SERVER"
    return 0
  fi
  local sanitize="${STET_SANITIZE:-}" build="$root/build-release" type=Release
  if [ -n "$sanitize" ]; then
    build="$root/build-soak-${sanitize//,/-}"
    type=RelWithDebInfo
  fi
  "$root/scripts/install-deps.sh"
  say "building stet-server ($type${sanitize:+, sanitizers: $sanitize}) in $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DSTET_BUILD_TESTS=OFF \
        -DSTET_BUILD_BENCH=OFF -DSTET_BUILD_EXAMPLES=ON -DSTET_SANITIZE="$sanitize" >/dev/null
  cmake --build "$build" --target stet-server -j"${STET_JOBS:-2}" >/dev/null
  server_bin="$build/examples/stet-server"
}

# Sanitizer reports must fail the run, not scroll by: UBSan halts, ASan's
# leak check runs at exit and changes the exit code. ASan's quarantine of
# freed memory (256 MiB by default) would read as RSS growth: 16 MiB still
# catches a use soon after free.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=16}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

# $tmp/static: small.txt (100 B: the memory cache) and large.bin (2 MiB: over
# the 1 MiB cache limit, so sent from the file by sendfile).
make_static() {
  mkdir -p "$tmp/static"
  head -c 100 < <(yes 'stet soak: a small static file of exactly one hundred bytes.') > "$tmp/static/small.txt"
  # (yes | head: head closing the pipe is the normal end, hence "|| true" under pipefail.)
  yes 'stet soak payload 0123456789abcdefghijklmnopqrstuvwxyz' | head -c 2097152 > "$tmp/static/large.bin" || true
}

# Starts stet-server on 127.0.0.1 with an ephemeral port (read back from its
# "listening on" line) and the extra flags given; sets server_pid and port.
start_server() {
  "$server_bin" --host 127.0.0.1 --port 0 --threads "${SERVER_THREADS:-2}" --static "$tmp/static" \
    --secret "$script_name-secret" "$@" 2>"$tmp/server.log" &
  server_pid=$!
  local i
  for i in $(seq 300); do
    port="$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$tmp/server.log")"
    [ -n "$port" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || die "stet-server exited at start: $(cat "$tmp/server.log")"
    sleep 0.1
  done
  die "stet-server did not start listening"
}

# SIGTERM, then up to $1 s (default 20) for the drain; SIGKILL after that.
# Sets server_status to the exit code (137 when it had to be killed).
stop_server() {
  local seconds="${1:-20}" i
  [ -n "${server_pid:-}" ] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  for i in $(seq $((seconds * 10))); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$server_pid" 2>/dev/null || true
  server_status=0
  wait "$server_pid" || server_status=$?
  server_pid=""
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status"; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$server_pid/status"; }
fd_count() { find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 | wc -l; }

# After a load run the server closes each connection as it sees the client's
# FIN; waits (up to 10 s) until its descriptor count holds still.
settle_fds() {
  local last=-1 now
  for _ in $(seq 50); do
    now="$(fd_count)"
    [ "$now" = "$last" ] && return 0
    last="$now"
    sleep 0.2
  done
}

# "actor=<signed value>" from POST /-/login, for the Cookie header.
login_cookie() {
  curl -sS -o /dev/null -D - -H 'Content-Type: application/json' --data '{"id":"soak"}' \
    "http://127.0.0.1:$port/-/login" | sed -n 's/^[Ss]et-[Cc]ookie: \(actor=[^;]*\).*/\1/p' | tr -d '\r'
}

# Sanitizer reports in the server's standard error (UBSan's "runtime error", ASan, LSan).
sanitizer_reports() { grep -c -E 'runtime error|ERROR: (Address|Leak)Sanitizer' "$tmp/server.log" || true; }
