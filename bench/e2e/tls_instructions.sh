#!/usr/bin/env bash
# bench/e2e/tls_instructions.sh: user-space instructions per TLS handshake,
# full and resumed, stet-server against nginx, counted by valgrind (callgrind)
# and so the same on a loaded machine as on a quiet one: what
# bench/e2e/tls.sh's CPU µs cannot be on a shared 2-core box. Both servers run
# under callgrind (one worker, the same self-signed EC P-256 certificate, nginx
# with ssl_session_cache shared:SSL:10m and ssl_session_tickets on). The client
# is bench/e2e/peers/tls_resume_client (built here), which makes an exact
# number of connections the way `openssl s_time` does (a handshake, then close
# without close_notify); each row is counted twice, LOW and HIGH handshakes,
# with the counters zeroed before and dumped after, and reports
# (Ir(HIGH) - Ir(LOW)) / (HIGH - LOW): the first (full) handshake of a
# resumption run, warm-up and start-up costs cancel out. Rows:
#   full TLS 1.3, full TLS 1.2      a new session per connection
#   resumed TLS 1.2 (ticket)        what `openssl s_time -reuse -tls1_2` does:
#                                   both servers issue tickets, so it resumes by ticket
#   resumed TLS 1.2 (session ID)    tickets refused by the client: the server's cache
# Kernel time (system calls) is not counted: compare syscall counts with
# `strace -c -f -p PID` for that part.
#
#   STET_SERVER=build-release/examples/stet-server bench/e2e/tls_instructions.sh
#   LOW=20 HIGH=120 RESUMED_LOW=100 RESUMED_HIGH=600 SERVERS=stet ... bench/e2e/tls_instructions.sh
#
# Prints a markdown table: instructions (Ir) per handshake.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
LOW="${LOW:-20}"
HIGH="${HIGH:-120}"
RESUMED_LOW="${RESUMED_LOW:-100}"
RESUMED_HIGH="${RESUMED_HIGH:-600}"
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
command -v c++ >/dev/null || die "a C++ compiler is needed (for the client)"
client="$tmp/tls_resume_client"
c++ -std=c++20 -O2 -o "$client" "$here/peers/tls_resume_client.cpp" -lssl -lcrypto ||
  die "cannot build bench/e2e/peers/tls_resume_client.cpp"
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

# Instructions of server NAME over one client run ("$@": the client's options,
# then N); the client's own line goes to stderr.
run_ir() {
  local name="$1" port="$2" pid file
  shift 2
  pid="${server_pid[$name]}"
  callgrind_control -z "$pid" >/dev/null 2>&1
  taskset -c 1 "$client" "${@:1:$#-1}" 127.0.0.1 "$port" "${!#}" >&2 || die "$name: the client failed"
  sleep 0.5
  callgrind_control -d "$name" "$pid" >/dev/null 2>&1
  # callgrind numbers its dumps 1, 2, ... per process: the last is the count.
  file="$tmp/callgrind.$pid.$(find "$tmp" -maxdepth 1 -name "callgrind.$pid.*" | wc -l)"
  awk '/^summary:/ { print $2; exit }' "$file"
}

# Prints instructions per handshake for server NAME: (Ir(HIGH) - Ir(LOW)) / (HIGH - LOW).
count() {
  local name="$1" port="$2" low="$3" high="$4" a b
  shift 4
  a="$(run_ir "$name" "$port" "$@" "$low")"
  b="$(run_ir "$name" "$port" "$@" "$high")"
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo n/a
    return
  fi
  awk -v a="$a" -v b="$b" -v n=$((high - low)) 'BEGIN { printf "%.0f\n", (b - a) / n }'
}

# shellcheck disable=SC2046  # the peer names are words
provenance "$(reproduce_command bench/e2e/tls_instructions.sh "" LOW HIGH RESUMED_LOW RESUMED_HIGH SERVERS STET_SERVER)" \
  $([[ " $SERVERS " == *" nginx "* ]] && echo nginx) openssl valgrind
echo
printf '| server | full TLS 1.3 Ir/handshake | full TLS 1.2 Ir/handshake | resumed TLS 1.2 (ticket) Ir/handshake | resumed TLS 1.2 (session ID) Ir/handshake |\n'
printf '|---|---|---|---|---|\n'
port=$BASE_PORT
for name in $SERVERS; do
  port=$((port + 1))
  start "$name" "$port"
  run_ir "$name" "$port" --tls1_3 --new 5 >/dev/null  # warm-up: first-use caches, the thread arena
  f13="$(count "$name" "$port" "$LOW" "$HIGH" --tls1_3 --new)"
  f12="$(count "$name" "$port" "$LOW" "$HIGH" --tls1_2 --new)"
  r12="$(count "$name" "$port" "$RESUMED_LOW" "$RESUMED_HIGH" --tls1_2)"
  s12="$(count "$name" "$port" "$RESUMED_LOW" "$RESUMED_HIGH" --tls1_2 --session-id)"
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$f13" "$f12" "$r12" "$s12"
  stop_server "$name"
done
