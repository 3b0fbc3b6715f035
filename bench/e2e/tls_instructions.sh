#!/usr/bin/env bash
# bench/e2e/tls_instructions.sh: user-space instructions per full TLS
# handshake, stet-server against nginx, counted by valgrind (callgrind) and so
# the same on a loaded machine as on a quiet one: what bench/e2e/tls.sh's CPU
# µs cannot be on a shared 2-core box. Both servers run under callgrind (one
# worker, the same self-signed EC P-256 certificate, nginx with
# ssl_session_cache shared:SSL:10m and ssl_session_tickets on); per protocol,
# `openssl s_time -new` runs SECONDS against each with the counters zeroed
# before and dumped after. Kernel time (system calls) is not counted: compare
# syscall counts with `strace -c -f -p PID` for that part.
#
#   STET_SERVER=build-release/examples/stet-server bench/e2e/tls_instructions.sh
#   SECONDS_PER_RUN=8 SERVERS=stet ... bench/e2e/tls_instructions.sh
#
# Prints a markdown table: handshakes run and instructions (Ir) per handshake.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-8}"
SERVERS="${SERVERS:-stet nginx}"
BASE_PORT="${BASE_PORT:-18780}"
tmp="$(mktemp -d /tmp/stet-tls-ir.XXXXXX)"
static="$tmp/static"
mkdir -p "$static"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
trap 'stop_all_servers; [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"' EXIT
if ! command -v valgrind >/dev/null || ! command -v callgrind_control >/dev/null; then
  die "valgrind (callgrind) is needed"
fi

stet_bin="${STET_SERVER:-$root/build-release/examples/stet-server}"
[ -x "$stet_bin" ] || die "no stet-server at $stet_bin (build-release, or set STET_SERVER)"
"$root/scripts/self-signed-cert.sh" "$tmp/tls" localhost >/dev/null
cert="$tmp/tls/cert.pem"
key="$tmp/tls/key.pem"
grind=(valgrind --tool=callgrind --callgrind-out-file="$tmp/callgrind.%p")

start() {
  local name="$1" port="$2"
  case "$name" in
    stet)
      taskset -c 0 "${grind[@]}" "$stet_bin" --host 127.0.0.1 --port $((port + 100)) --tls-port "$port" \
        --threads 1 --no-access-log --tls-cert "$cert" --tls-key "$key" 2>>"$tmp/stet.log" &
      server_pid[stet]=$!
      ;;
    nginx)
      write_nginx_conf "$tmp/nginx" "$port" off
      nginx_tls_listen "$tmp/nginx" "$port" "$cert" "$key"
      # shellcheck disable=SC2046
      taskset -c 0 "${grind[@]}" $(nginx_command "$tmp/nginx") 2>>"$tmp/nginx/stderr.log" &
      server_pid[nginx]=$!
      ;;
    *) die "unknown server '$name'" ;;
  esac
  # Under valgrind a start takes seconds.
  local i
  for i in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  die "$name did not start"
}

declare -A dumps=()  # callgrind numbers its dumps 1, 2, ... per process

# Prints "HANDSHAKES IR_PER_HANDSHAKE" for one s_time run against server NAME.
count() {
  local name="$1" port="$2" version="$3" pid out n file
  pid="${server_pid[$name]}"
  callgrind_control -z "$pid" >/dev/null 2>&1
  out="$(taskset -c 1 openssl s_time -connect "127.0.0.1:$port" -new "$version" -time "$SECONDS_PER_RUN" 2>&1 || true)"
  n="$(awk '/connections in [0-9.]+ real seconds/ {print $1; exit}' <<<"$out")"
  sleep 0.5
  callgrind_control -d "$name$version" "$pid" >/dev/null 2>&1
  dumps[$name]=$((${dumps[$name]:-0} + 1))
  file="$tmp/callgrind.$pid.${dumps[$name]}"
  awk -v n="$n" '/^(summary|totals):/ { if (n > 0) printf "%d %.0f\n", n, $2 / n; else print "0 n/a"; exit }' "$file"
}

# shellcheck disable=SC2046  # the peer names are words
provenance "$(reproduce_command bench/e2e/tls_instructions.sh "" SECONDS_PER_RUN SERVERS STET_SERVER)" \
  $([[ " $SERVERS " == *" nginx "* ]] && echo nginx) openssl valgrind
echo
printf '| server | full TLS 1.3 handshakes | Ir/handshake | full TLS 1.2 handshakes | Ir/handshake |\n'
printf '|---|---|---|---|---|\n'
port=$BASE_PORT
for name in $SERVERS; do
  port=$((port + 1))
  start "$name" "$port"
  count "$name" "$port" -tls1_3 >/dev/null  # warm-up: first-use caches, the thread arena
  # Not in a subshell: count() keeps its dump numbers in this shell.
  count "$name" "$port" -tls1_3 >"$tmp/tls13"
  count "$name" "$port" -tls1_2 >"$tmp/tls12"
  read -r n13 ir13 <"$tmp/tls13"
  read -r n12 ir12 <"$tmp/tls12"
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$n13" "$ir13" "$n12" "$ir12"
  stop_server "$name"
done
