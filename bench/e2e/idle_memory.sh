#!/usr/bin/env bash
# bench/e2e/idle_memory.sh: resident memory per idle connection, stet-server
# against nginx in the same run. For each server: COUNT (10000) connections
# each send one keep-alive GET /plaintext, read the answer and then stay open
# and idle; the server's RSS growth (all its processes) / COUNT is reported.
# With SILENT=1 the connections send nothing at all (accepted, never spoken).
# With TLS=1 every connection is HTTPS (a self-signed certificate made for the
# run; nginx with ssl_session_cache shared:SSL:10m and session tickets on).
#
#   bench/e2e/idle_memory.sh                    # stet (build-release) and nginx
#   COUNT=3000 SERVERS=stet bench/e2e/idle_memory.sh
#   STET_SERVER=/path/to/stet-server bench/e2e/idle_memory.sh
#   STET_FLAGS="" STET_SERVER=/an/older/stet-server ...   # one without the timeout flags
#
# Every server is started on 127.0.0.1, one worker, and stopped by its PID.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
COUNT="${COUNT:-10000}"
SERVERS="${SERVERS:-stet nginx}"
BASE_PORT="${BASE_PORT:-18580}"
tmp="$(mktemp -d /tmp/stet-idle.XXXXXX)"
static="$tmp/static"
mkdir -p "$static"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
trap 'stop_all_servers; [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"' EXIT
# The server and the client are separate processes: each needs COUNT descriptors.
fds=$((COUNT + 1000))
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge "$fds" ] || die "need $fds open files (ulimit -Hn is $(ulimit -Hn))"
ulimit -n "$fds"

stet_bin="${STET_SERVER:-}"
if [ -z "$stet_bin" ]; then
  cmake -S "$root" -B "$root/build-release" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DSTET_BUILD_TESTS=OFF -DSTET_BUILD_BENCH=OFF -DSTET_BUILD_EXAMPLES=ON >/dev/null
  cmake --build "$root/build-release" --target stet-server -j"$(nproc)" >/dev/null
  stet_bin="$root/build-release/examples/stet-server"
fi
long=600000  # no timeout may close an idle connection during the measurement
silent=()
[ "${SILENT:-0}" = 1 ] && silent=(--silent)
tls_client=()
if [ "${TLS:-0}" = 1 ]; then
  "$root/scripts/self-signed-cert.sh" "$tmp/tls" localhost >/dev/null
  tls_client=(--tls)
fi

# shellcheck disable=SC2046  # the peer names are words
provenance "$(reproduce_command bench/e2e/idle_memory.sh "" COUNT SERVERS SILENT TLS STET_FLAGS STET_SERVER)" \
  $([[ " $SERVERS " == *" nginx "* ]] && echo nginx)
echo
port=$BASE_PORT
for name in $SERVERS; do
  port=$((port + 1))
  case "$name" in
    stet)
      # shellcheck disable=SC2086  # STET_FLAGS is a list of flags
      stet_tls=()
      if [ "${TLS:-0}" = 1 ]; then
        # The plain listener moves aside; the TLS one takes the measured port.
        stet_tls=(--tls-cert "$tmp/tls/cert.pem" --tls-key "$tmp/tls/key.pem" --tls-port "$port")
        port_plain=$((port + 100))
      else
        port_plain=$port
      fi
      "$stet_bin" --host 127.0.0.1 --port "$port_plain" --threads 1 --no-access-log "${stet_tls[@]}" \
        ${STET_FLAGS---max-connections $((COUNT + 100)) --idle-timeout-ms $long --header-timeout-ms $long} \
        2>>"$tmp/stet.log" &
      server_pid[stet]=$!
      pids=("$!")
      ;;
    nginx)
      write_nginx_conf "$tmp/nginx" "$port" on
      sed -i "s/worker_connections [0-9]*;/worker_connections $((COUNT * 2));/; s/^http {/http {\n  keepalive_timeout 600s;\n  client_header_timeout 600s;/" "$tmp/nginx/nginx.conf"
      echo "worker_rlimit_nofile $fds;" >> "$tmp/nginx/nginx.conf"
      if [ "${TLS:-0}" = 1 ]; then
        nginx_tls_listen "$tmp/nginx" "$port" "$tmp/tls/cert.pem" "$tmp/tls/key.pem"
      fi
      # shellcheck disable=SC2046
      $(nginx_command "$tmp/nginx") 2>>"$tmp/nginx/stderr.log" &
      server_pid[nginx]=$!
      ;;
    *) die "unknown server '$name'" ;;
  esac
  wait_listening "${server_pid[$name]}" "$port" || die "$name did not start"
  if [ "$name" = nginx ]; then
    sleep 0.3
    mapfile -t pids < <(echo "${server_pid[nginx]}"; pgrep -P "${server_pid[nginx]}")
  fi
  result="$(python3 "$here/idle_clients.py" "$port" "$COUNT" "${pids[@]}" "${silent[@]}" "${tls_client[@]}")"
  echo "$name ${result#idle-result }"
  stop_server "$name"
done
