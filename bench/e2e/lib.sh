# shellcheck shell=bash
# bench/e2e/lib.sh: shared by the bench/e2e scripts (sourced, not run).
# Expects: $root (the repository), $here (bench/e2e) and $tmp (a private temp
# dir that the caller removes) to be set, and `set -euo pipefail`.
# shellcheck disable=SC2154  # root, here, tmp and stet_bin come from the caller
# shellcheck disable=SC2034  # static, stet_bin, stet_static_flag, ws_*, hs_*, tls_* are read by the caller

log() { printf 'e2e: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# ---------------------------------------------------------------- processes --
# Every server a script starts is recorded in server_pid and stopped by its
# own PID (stop_all_servers, from the caller's EXIT trap); nothing else is
# ever signalled.
declare -A server_pid=()

stop_server() {
  local name="$1" pid="${server_pid[$1]:-}" i
  [ -n "$pid" ] || return 0
  unset "server_pid[$name]"
  kill -TERM "$pid" 2>/dev/null || return 0
  # Graceful first (stet drains, nginx's master stops its worker; under
  # valgrind the tool writes its output then), forced after ${STOP_WAIT:-5} s.
  for i in $(seq $((${STOP_WAIT:-5} * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

stop_all_servers() {
  local name
  for name in "${!server_pid[@]}"; do stop_server "$name"; done
}

# A scratch directory, $tmp, removed when the script exits (kept with
# KEEP_TMP=1), after every server the script started is stopped.
make_temp_dir() {
  tmp="$(mktemp -d)"
  trap 'stop_all_servers; if [ -z "${KEEP_TMP:-}" ]; then rm -rf "$tmp"; fi' EXIT
}

port_in_use() { [ -n "$(ss -Hltn "sport = :$1" 2>/dev/null)" ]; }

# Waits until PID listens on PORT, up to SECONDS (default 10). It looks at the
# socket table, so no request is sent (instructions.sh counts them).
wait_listening() {
  local pid="$1" port="$2" seconds="${3:-10}" i
  for i in $(seq $((seconds * 10))); do
    kill -0 "$pid" 2>/dev/null || return 1
    if port_in_use "$port"; then return 0; fi
    sleep 0.1
  done
  return 1
}

# Waits until PID has used no CPU for two looks in a row (up to 60 s): a
# server under valgrind may listen before its signal handlers are installed
# (nginx opens its sockets first), and a SIGTERM then would kill it before
# callgrind writes its profile.
wait_idle() {
  local pid="$1" last=-1 now still=0 i
  for i in $(seq 200); do
    now="$(cpu_ticks "$pid")"
    if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; fi
    if [ "$still" -ge 2 ]; then return 0; fi
    last="$now"
    sleep 0.3
  done
}

# utime+stime, in clock ticks, of PID and its children (nginx's worker is a
# child of the master we hold; the kernel already sums a process's threads).
cpu_ticks() {
  local pid="$1" total=0 p fields children
  children="$(pgrep -P "$pid" || true)"
  for p in "$pid" $children; do
    # The fields after the ")" closing the command name: utime is the 12th, stime the 13th.
    fields="$(sed 's/.*) //' /proc/"$p"/stat 2>/dev/null)" || continue
    total=$((total + $(awk '{print $12 + $13}' <<<"$fields")))
  done
  echo "$total"
}

# ------------------------------------------------------------------ install --
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

# Installs the Debian packages that are missing, and only those.
install_packages() {
  local missing=() p as_root=()
  for p in "$@"; do have_pkg "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root or sudo to install: ${missing[*]}"
    as_root=(sudo)
  fi
  log "installing ${missing[*]}"
  # On a machine with a running init, Debian's nginx package starts the system
  # nginx (port 80); the harness never uses or stops that one.
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ------------------------------------------------------------------- builds --
# Sets stet_bin: $STET_SERVER if given (CI passes the one it already built),
# else a Release build in build-release/ (what scripts/serve.sh builds too).
build_stet() {
  if [ -n "${STET_SERVER:-}" ]; then
    [ -x "$STET_SERVER" ] || die "STET_SERVER=$STET_SERVER is not executable"
    stet_bin="$STET_SERVER"
    return 0
  fi
  "$root/scripts/install-deps.sh"
  log "building stet-server (Release)"
  cmake -S "$root" --preset release >/dev/null  # build-release/ (CMakePresets.json)
  cmake --build "$root/build-release" --target stet-server -j"$(nproc)" >/dev/null
  stet_bin="$root/build-release/examples/stet-server"
}

# ------------------------------------------------------------ static files --
# Sets static: the directory that stet and nginx both serve under /static/.
# A 100 B text file, a ~83 KB stylesheet (stet's memory cache), and 1 MiB and
# 10 MiB files (the sendfile path). Deterministic content, made fresh each run.
make_static_dir() {
  static="$tmp/static"
  mkdir -p "$static"
  head -c 100 < <(yes 'stet end-to-end benchmark: a small text file of exactly one hundred bytes.') > "$static/small.txt"
  local i
  for i in $(seq 0 2000); do
    printf '.c%d { color: #%06x; margin: %dpx %dpx; padding: 0 %dpx; }\n' \
      "$i" $((i * 2654435761 % 16777216)) $((i % 17)) $((i % 11)) $((i % 7))
  done > "$static/app.css"
  truncate -s 84992 "$static/app.css"  # 83 KiB: a big stylesheet, well under stet's 1 MiB cache limit
  # (yes | head: head closing the pipe is the normal end, hence "|| true" under pipefail.)
  yes 'stet e2e benchmark payload 0123456789abcdefghijklmnopqrstuvwxyz' | head -c 1048576 > "$static/1mib.bin" || true
  yes 'stet e2e benchmark payload 0123456789abcdefghijklmnopqrstuvwxyz' | head -c 10485760 > "$static/10mib.bin" || true
  # nginx's worker may run as another user than ours: let it read.
  chmod 755 "$tmp" "$static"
  chmod 644 "$static"/*
}

# ------------------------------------------------------------------ servers --
# Starts stet-server as NAME on PORT with one worker thread and no access log,
# prefixed by the command words in the array named by $3 (taskset, valgrind).
# --static is probed: a stet-server that refuses it (exit 2) is started again
# without it, and its static endpoints then answer 404 (n/a). Sets
# stet_static_flag to what was used.
# STET_REVALIDATE_MS, when set, is passed as --static-revalidate-ms; the
# words of the array stet_flags (empty unless the caller sets it: TLS) follow.
stet_flags=()
start_stet() {
  local name="$1" port="$2" log_file="$tmp/stet.log" wait_s="${4:-10}" revalidate=()
  local -n prefix="$3"
  if [ -n "${STET_REVALIDATE_MS:-}" ]; then revalidate=(--static-revalidate-ms "$STET_REVALIDATE_MS"); fi
  # STET_STATIC_WATCH=0: no inotify, a stat per hit (the fallback mode).
  if [ "${STET_STATIC_WATCH:-1}" = 0 ]; then revalidate+=(--no-static-watch); fi
  "${prefix[@]}" "$stet_bin" --host 127.0.0.1 --port "$port" --threads 1 --no-access-log \
    --static "$static" "${revalidate[@]}" "${stet_flags[@]}" 2>>"$log_file" &
  server_pid[$name]=$!
  stet_static_flag=" --static DIR${revalidate[*]:+ ${revalidate[*]}}"
  if ! wait_listening "$!" "$port" "$wait_s"; then
    stet_static_flag=""
    stop_server "$name"
    log "stet-server refused --static; running it without static files"
    "${prefix[@]}" "$stet_bin" --host 127.0.0.1 --port "$port" --threads 1 --no-access-log "${stet_flags[@]}" \
      2>>"$log_file" &
    server_pid[$name]=$!
    wait_listening "$!" "$port" "$wait_s" || die "stet-server did not start (see $log_file)"
  fi
}

# Writes an nginx config to DIR/nginx.conf: one worker, 127.0.0.1:PORT only,
# no access log, foreground (so we hold the PID), pid/logs/temp files in DIR.
# MASTER=off runs a single process (for valgrind and strace; nginx calls that
# mode a development aid, so run.sh keeps the usual master + one worker).
# Optional lines from the caller's variables: nginx_main_extra (top level,
# e.g. load_module), nginx_http_extra (http block), nginx_server_extra (server block).
write_nginx_conf() {
  local dir="$1" port="$2" master="${3:-on}" user_line=""
  mkdir -p "$dir"
  # As root, nginx would switch its worker to "nobody": keep the current user.
  if [ "$(id -u)" -eq 0 ]; then user_line="user $(id -un) $(id -gn);"; fi
  cat > "$dir/nginx.conf" <<CONF
# Generated by bench/e2e (lib.sh): one worker, 127.0.0.1 only, no access log.
$user_line
${nginx_main_extra:-}
worker_processes 1;
master_process $master;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  open_file_cache max=1000;
  # nginx closes a keep-alive connection after 1000 requests by default; stet
  # does not, so lift it: every server runs pure keep-alive.
  keepalive_requests 100000000;
  types { text/plain txt; text/css css; text/html html; application/json json; application/octet-stream bin; }
  default_type application/octet-stream;
  ${nginx_http_extra:-}
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  server {
    listen 127.0.0.1:$port;
    location = /plaintext { default_type text/plain; charset utf-8; return 200 "Hello, World!"; }
    location = /json { default_type application/json; return 200 '{"message":"Hello, World!"}'; }
    location /static/ { alias $static/; }
    ${nginx_server_extra:-}
  }
}
CONF
}

# Makes the server of DIR/nginx.conf (write_nginx_conf) listen on PORT with
# TLS: certificate CERT and key KEY, a shared session cache and tickets,
# TLS 1.2-1.3 (what the HTTPS benchmarks compare stet with). With TLS_PORT,
# PORT stays plain HTTP and TLS_PORT is added (one nginx serves both).
nginx_tls_listen() {
  local dir="$1" port="$2" cert="$3" key="$4" tls_port="${5:-}" listen
  listen="listen 127.0.0.1:$port ssl;"
  if [ -n "$tls_port" ]; then listen="listen 127.0.0.1:$port;\n    listen 127.0.0.1:$tls_port ssl;"; fi
  sed -i "s|listen 127.0.0.1:$port;|$listen\n    ssl_certificate $cert;\n    ssl_certificate_key $key;\n    ssl_session_cache shared:SSL:10m;\n    ssl_session_tickets on;\n    ssl_protocols TLSv1.2 TLSv1.3;|" "$dir/nginx.conf"
}

# Writes h2o's config (bench/e2e/peers/h2o.conf.in) to DIR/h2o.conf: one
# thread on 127.0.0.1:PORT, the static directory of make_static_dir. With
# TLS_PORT CERT KEY, the host also listens with TLS on TLS_PORT (h2o's
# defaults: session cache and tickets; no OCSP stapling, whose fetcher is a
# child process that would count as the server's CPU).
write_h2o_conf() {
  local dir="$1" port="$2" tls_port="${3:-}" cert="${4:-}" key="${5:-}"
  mkdir -p "$dir"
  sed -e "s|@USER@|$(id -un)|; s|@DIR@|$dir|g; s|@PORT@|$port|; s|@STATIC@|$static|" \
    "$here/peers/h2o.conf.in" > "$dir/h2o.conf"
  [ -n "$tls_port" ] || return 0
  sed -i "/^  default:\$/a\\    listen:\n      host: 127.0.0.1\n      port: $tls_port\n      ssl:\n        certificate-file: $cert\n        key-file: $key\n        ocsp-update-interval: 0" \
    "$dir/h2o.conf"
}

# nginx's command line for a config written by write_nginx_conf DIR.
nginx_command() { echo nginx -p "$1/" -e "$1/error.log" -c "$1/nginx.conf"; }

# ---------------------------------------------------------- measured clients --
# Runs a client (the command "$@") pinned to core 1 while reading the CPU of
# server PID around it. Sets client_out (its output, stderr included),
# client_status (its exit status), client_ticks (the server's utime+stime
# meanwhile, in clock ticks) and client_seconds (wall clock).
measure_client() {
  local pid="$1" before after start end
  shift
  before="$(cpu_ticks "$pid")"
  start="$(date +%s%N)"
  client_status=0
  client_out="$(taskset -c 1 "$@" 2>&1)" || client_status=$?
  end="$(date +%s%N)"
  after="$(cpu_ticks "$pid")"
  client_ticks=$((after - before))
  client_seconds="$(awk -v ns=$((end - start)) 'BEGIN { printf "%.3f", ns / 1e9 }')"
}

# ---------------------------------------------------------------- WebSocket --
# The WebSocket cells (websocket.sh, run.sh): ws_load's mode, the message size
# and frame type (a JavaScript peer turns a text message into a string and
# back, a binary one only into a buffer). publish32 is one room's fan-out,
# counted per delivered message; the others are echoes.
declare -A ws_cell_mode=([echo32]=echo [echo16k]=echo [echo16kbin]=echo [publish32]=publish)
declare -A ws_cell_size=([echo32]=32 [echo16k]=16384 [echo16kbin]=16384 [publish32]=32)
declare -A ws_cell_frame=([echo16kbin]=binary)
declare -A ws_cell_label=([echo32]="echo 32 B" [echo16k]="echo 16 KiB" [echo16kbin]="echo 16 KiB binary"
                          [publish32]="publish 32 B, per delivered message")

# ws_serves SERVER CELL: stet and bun echo and publish; Beast's peer
# (peers/beast_ws_server.cpp) echoes and has no rooms; the others serve no WebSocket.
ws_serves() {
  case "$1" in
    stet | stet_b | bun) return 0 ;;
    beast) [ "${ws_cell_mode[$2]}" = echo ] ;;
    *) return 1 ;;
  esac
}

# ws_path SERVER CELL: the path the cell opens (Beast's peer echoes on any).
ws_path() {
  if [ "${ws_cell_mode[$2]}" = publish ]; then echo /ws/chat/bench
  elif [ "$1" = beast ]; then echo /
  else echo /ws/echo; fi
}

# Builds the named programs of bench/e2e/peers (ws_load, beast_ws_server:
# header-only Beast and Asio, one compiler call each, through ccache when
# there is one) into $root/build-e2e-ws unless up to date. Sets ws_tools.
build_ws_tools() {
  local p cxx=(c++)
  ws_tools="$root/build-e2e-ws"
  mkdir -p "$ws_tools"
  if command -v ccache >/dev/null; then cxx=(ccache c++); fi
  for p in "$@"; do
    if [ ! -x "$ws_tools/$p" ] || [ "$here/peers/$p.cpp" -nt "$ws_tools/$p" ]; then
      log "building $p"
      "${cxx[@]}" -std=c++20 -O2 -DNDEBUG -o "$ws_tools/$p" "$here/peers/$p.cpp" -pthread
    fi
  done
}

# ws_measure PID PORT PATH CELL CONNECTIONS PIPELINE SECONDS: one interval of
# ws_load against the server PID (measure_client); sets ws_messages (received
# over all connections) and ws_seconds (ws_load's own clock).
ws_measure() {
  local pid="$1" port="$2" path="$3" cell="$4" conns="$5" pipeline="$6" seconds="$7" line
  # shellcheck disable=SC2086  # the frame type is one word or none
  measure_client "$pid" "$ws_tools/ws_load" "${ws_cell_mode[$cell]}" "$port" "$path" "$conns" \
    "${ws_cell_size[$cell]}" "$pipeline" "$seconds" ${ws_cell_frame[$cell]:-}
  line="$(grep '^messages [0-9]* seconds ' <<<"$client_out" | tail -n1 || true)"
  if [ "$client_status" != 0 ] || [ -z "$line" ]; then die "ws_load failed against 127.0.0.1:$port$path: $client_out"; fi
  read -r _ ws_messages _ ws_seconds <<<"$line"
}

# ---------------------------------------------------------------------- TLS --
# A self-signed EC P-256 certificate for localhost, made for the run in DIR
# (scripts/self-signed-cert.sh): sets tls_cert and tls_key.
make_tls_cert() {
  "$root/scripts/self-signed-cert.sh" "$1" localhost >/dev/null
  tls_cert="$1/cert.pem"
  tls_key="$1/key.pem"
}

# The handshake cells, as openssl s_time options: a full handshake per
# connection (TLS 1.3, TLS 1.2), or TLS 1.2 session-ID resumption (s_time does
# not resume TLS 1.3; the integration tests check that 1.3 tickets resume).
declare -A s_time_options=([tls13_full]="-new -tls1_3" [tls12_full]="-new -tls1_2" [tls12_resumed]="-reuse -tls1_2")

# s_time_measure PID PORT CELL SECONDS: openssl s_time against 127.0.0.1:PORT
# around the CPU of server PID (measure_client). Sets hs_count (connections
# completed) and hs_fresh (those not resumed: s_time prints "r" for a resumed
# connection, another mark for a full handshake).
s_time_measure() {
  local pid="$1" port="$2" cell="$3" seconds="$4"
  # shellcheck disable=SC2086  # the options are words
  measure_client "$pid" openssl s_time -connect "127.0.0.1:$port" ${s_time_options[$cell]} -time "$seconds"
  hs_count="$(awk '/connections in [0-9.]+ real seconds/ { print $1; exit }' <<<"$client_out")"
  hs_fresh="$(awk '/^[rt3*]+$/ { n += gsub(/[t3*]/, "") } END { print n + 0 }' <<<"$client_out")"
  if [ -z "$hs_count" ] || [ "$hs_count" -eq 0 ]; then
    die "openssl s_time ${s_time_options[$cell]} completed no handshake against 127.0.0.1:$port: $client_out"
  fi
}

# ------------------------------------------------------------------ reports --
# What a published figure names (docs/benchmarks.md, "Provenance"): the binary
# that was measured, as that binary reports itself, and the command that
# reproduces the run. Never the checkout's HEAD: STET_SERVER may point at a
# binary built from any commit.

# Prints "stet VERSION (commit C)" from `$stet_bin --version` ("stet-server
# 0.1.0 (commit abcdef1-dirty)"); a binary that cannot say is labelled so.
stet_label() {
  local line=""
  line="$("$stet_bin" --version 2>/dev/null | head -n1)" || true
  if [[ "$line" =~ ^stet-server\ ([^ ]+)\ \(commit\ ([^\)]+)\)$ ]]; then
    echo "stet ${BASH_REMATCH[1]} (commit ${BASH_REMATCH[2]})"
  else
    echo "stet, commit unknown (\`$stet_bin --version\` said: '${line:-nothing}')"
  fi
}

# The peers that bench/e2e/peers builds come from this checkout, not from the
# stet binary: their label is the checkout's commit (peer_versions adds it).
checkout_label() {
  git -C "$root" describe --always --abbrev=7 --dirty=-dirty --match=NONE 2>/dev/null || echo unknown
}

# Prints the command that reproduces this run: NAME=value for every variable
# named that is set (after the script's defaults, so every value is explicit),
# then the script (relative to the repository) and its arguments.
#   reproduce_command "bench/e2e/run.sh" "$*" DURATION ROUNDS SERVERS STET_SERVER ...
reproduce_command() {
  local script="$1" args="$2" name value words=()
  shift 2
  for name in "$@"; do
    [ -n "${!name+set}" ] || continue
    value="${!name}"
    if [[ "$value" =~ ^[A-Za-z0-9_./:,+=-]*$ ]]; then words+=("$name=$value"); else words+=("$name=\"$value\""); fi
  done
  echo "${words[*]}${words[*]:+ }$script${args:+ $args}"
}

# The versions of the named peers and tools, "; "-separated (one line).
peer_versions() {
  local name line="" versions=()
  for name in "$@"; do
    case "$name" in
      nginx) versions+=("$( (nginx -v 2>&1 || true) | sed 's/^nginx version: //')") ;;
      h2o) versions+=("$( (h2o --version 2>/dev/null || true) | head -n1 | sed 's/^h2o version /h2o\//')") ;;
      beast) versions+=("Boost.Beast $(sed -n 's/^#define BOOST_LIB_VERSION "\(.*\)"/\1/p' /usr/include/boost/version.hpp |
                                  tr _ .) (bench/e2e/peers at $(checkout_label))") ;;
      restinio) versions+=("RESTinio $(dpkg-query -W -f='${Version}' librestinio-dev 2>/dev/null || echo '?') on Boost.Asio (bench/e2e/peers at $(checkout_label))") ;;
      httplib) versions+=("cpp-httplib $(dpkg-query -W -f='${Version}' libcpp-httplib-dev 2>/dev/null || echo '?') (bench/e2e/peers at $(checkout_label))") ;;
      bun) versions+=("bun $(bun --version 2>/dev/null || echo '?') (uWebSockets; bench/e2e/peers at $(checkout_label))") ;;
      floor) versions+=("floor (bench/e2e/peers at $(checkout_label))") ;;
      wrk) versions+=("$( (wrk -v 2>&1 || true) | head -n1 | awk '{print $1, $2}')") ;;
      openssl) versions+=("$(openssl version 2>/dev/null || echo 'OpenSSL ?')") ;;
      valgrind) versions+=("$(valgrind --version 2>/dev/null || echo 'valgrind ?')") ;;
      strace) versions+=("strace $( (strace -V 2>/dev/null || echo '?') | head -n1 | awk '{print $NF}')") ;;
      *) versions+=("$name") ;;
    esac
  done
  for name in "${versions[@]}"; do line+="${line:+; }$name"; done
  echo "$line"
}

# The lines a printed table starts with: measured binary, command, peers, machine.
#   provenance "$command" nginx wrk
provenance() {
  local command="$1"
  shift
  echo "- Measured: $(stet_label)"
  echo "- Command: \`$command\`"
  if [ $# -gt 0 ]; then echo "- Peers and tools: $(peer_versions "$@")"; fi
  echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores," \
       "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), Linux $(uname -r);" \
       "load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# Replaces the block between "<!-- MARK:begin" and "<!-- MARK:end" lines in
# FILE by the contents of BLOCK (which carries its own marker lines), keeping
# everything else: the history written by hand around it stays. A file without
# the block gets it appended; a missing file gets a title first.
replace_block() {
  local file="$1" mark="$2" block="$3"
  mkdir -p "$(dirname "$file")"
  if [ ! -f "$file" ]; then
    printf '# End-to-end benchmarks\n\n' > "$file"
  fi
  if grep -q "^<!-- $mark:begin" "$file" && grep -q "^<!-- $mark:end" "$file"; then
    awk -v block="$block" -v b="^<!-- $mark:begin" -v e="^<!-- $mark:end" '
      $0 ~ b { while ((getline l < block) > 0) print l; skip = 1; next }
      $0 ~ e { skip = 0; next }
      !skip { print }' "$file" > "$file.new"
    mv "$file.new" "$file"
  else
    { echo; cat "$block"; } >> "$file"
  fi
}
