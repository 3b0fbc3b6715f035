#!/usr/bin/env bash
# bench/e2e/run.sh: the end-to-end benchmark of stet-server against nginx, h2o,
# uWebSockets (bun), Boost.Beast, RESTinio and the floor peer, on this machine,
# in one run: HTTP endpoints, WebSocket messages and TLS (keep-alive requests
# and handshakes) in one table and one plot.
#
#   bench/e2e/run.sh                           # full run (DURATION=5 ROUNDS=3): writes
#                                              #   docs/benchmarks.md and docs/benchmarks-cpu.png
#   OUT= PLOT= DURATION=2 bench/e2e/run.sh     # prints the block, writes no file
#   bench/e2e/run.sh --smoke                   # CI: stet alone, 1 s, 1 round, no peer
#                                              #   install, writes no file unless OUT names
#                                              #   one; exits non-zero unless the table is
#                                              #   well formed (never judges a timing)
#   SERVERS="stet nginx h2o bun beast restinio floor" DURATION=3 bench/e2e/run.sh
#                                              # the published run: every server, every row
#
# What it does: installs the peers from Debian packages when missing (nginx,
# librestinio-dev, gnuplot-nox, wrk, curl, openssl), builds stet-server
# (Release), the peers (bench/e2e/peers, a separate CMake project) and, for the
# WebSocket rows, the load client bench/e2e/peers/ws_load.cpp and Beast's
# WebSocket peer (build-e2e-ws/), generates a static directory and a
# self-signed certificate, starts every server on 127.0.0.1 pinned to core 0
# (one worker/thread each; a server with TLS serves it from the same process on
# a second port) and runs the clients pinned to core 1: wrk (HTTP, and HTTPS
# keep-alive), ws_load (WebSocket), openssl s_time (handshakes). Cells are
# interleaved round by round (for each round, for each endpoint: every server),
# so a burst of noise from the rest of the machine hits every server alike.
# Reported per server and endpoint: median operations/s, p50/p99 latency
# (wrk's rows), and server CPU µs per operation = (utime+stime of the server,
# from /proc/PID/stat, after - before) / operations completed, an operation
# being a response, a message the client received, or a handshake. That last
# figure is the steady one on a shared, noisy machine: it does not care how
# much of the core we were given.
#
# An endpoint a server answers with 404 is skipped and shown "n/a", so the table
# fills in by itself as stet grows (static files, /-/actor.json, /users/{id}).
# WebSocket rows: stet, bun and Beast (echo; Beast has no rooms, so no
# publish); TLS rows: stet, nginx, h2o and bun; n/a for the others.
#
# Endpoint ids (ENDPOINTS), in table order:
#   HTTP       plaintext json pipelined close small css css_hash css_304 file_1m
#              file_10m actor users
#   WebSocket  ws_echo32 ws_echo16k ws_echo16kbin (echo of 32 B, 16 KiB, 16 KiB
#              binary messages over CONNECTIONS connections), ws_publish (32 B to a
#              room of WS_SUBSCRIBERS members, per delivered message)
#   TLS        tls_keepalive (/plaintext over TLS, wrk), tls13_full tls12_full
#              (s_time -new: a full handshake per connection), tls12_resumed
#              (s_time -reuse: TLS 1.2 session-ID resumption)
#
# Environment:
#   DURATION=5       seconds per cell (whole)      ROUNDS=3        rounds (>= 1)
#   CONNECTIONS=50   wrk connections (-t1), and WebSocket echo connections
#   WARMUP=1         seconds per cell, once, unrecorded
#   SERVERS="stet nginx beast restinio floor"      BASE_PORT=18480 ports BASE, BASE+1, ...;
#                    (h2o and bun too, when named)  TLS on BASE+20+i, Beast's WebSocket peer BASE+40
#   WS_PIPELINE=8    WebSocket messages in flight per sending connection
#   WS_SUBSCRIBERS=1000  members of the publish row's room (--smoke: 100)
#   STET_SERVER=path a prebuilt stet-server (default: build build-release/)
#   STET_SERVER_B=path  a second stet-server, run as the server "stet_b" (name it in
#                    SERVERS): two builds side by side in one run, e.g. the io_uring
#                    build (-DSTET_IO_URING=ON) against the default epoll one
#   STET_REVALIDATE_MS=60000  stet's --static-revalidate-ms: nginx's open_file_cache
#                    checks a cached file every 60 s (open_file_cache_valid's
#                    default), so stet gets the same window; 0 = a stat per hit
#   STET_STATIC_WATCH=0  stet-server --no-static-watch: no inotify, so a stat per hit (with
#                    STET_REVALIDATE_MS=0); default 1: hits that no event touched skip the stat
#   ENDPOINTS="plaintext json ..."  a subset of the endpoint ids above, in table order
#   OUT=docs/benchmarks.md   the page whose e2e block is rewritten; OUT= (empty) writes
#                    no page (the block is printed either way); --smoke: no page unless set
#   PLOT=OUT's name with -cpu.png (docs/benchmarks-cpu.png); PLOT= (empty) draws none;
#                    --smoke: none unless set
#   KEEP_TMP=1 keeps the temp dir
# The block names the measured binary as it reports itself (`stet-server
# --version`: version and commit), not the checkout, and the command with every
# variable that shaped the table, so that the command reproduces it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
command_line="$*"

smoke=0
case "${1:-}" in
  --smoke) smoke=1 ;;
  "") ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "run.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

if [ "$smoke" = 1 ]; then
  # CI: stet alone, short, nothing installed but the client tools, no page
  # written unless OUT names one (a smoke run never overwrites the results).
  DURATION=1 ROUNDS=1 WARMUP=0 SERVERS=stet
  # A room of 100 shows the form as well as one of 1000, and connects sooner.
  WS_SUBSCRIBERS="${WS_SUBSCRIBERS:-100}"
fi
DURATION="${DURATION:-5}"
ROUNDS="${ROUNDS:-3}"
CONNECTIONS="${CONNECTIONS:-50}"
WARMUP="${WARMUP:-1}"
SERVERS="${SERVERS:-stet nginx beast restinio floor}"
BASE_PORT="${BASE_PORT:-18480}"
STET_REVALIDATE_MS="${STET_REVALIDATE_MS-60000}"
PIPELINE_DEPTH=16  # fixed in pipeline.lua
WS_PIPELINE="${WS_PIPELINE:-8}"
WS_SUBSCRIBERS="${WS_SUBSCRIBERS:-1000}"

# Set but empty means "write nothing" (":-" would turn it into the default and
# overwrite the published page); a smoke run writes nowhere unless told.
if [ "$smoke" = 1 ]; then
  OUT="${OUT-}" PLOT="${PLOT-}"
else
  OUT="${OUT-$root/docs/benchmarks.md}"
  if [ -n "$OUT" ]; then PLOT="${PLOT-$(dirname "$OUT")/$(basename "$OUT" .md)-cpu.png}"; else PLOT="${PLOT-}"; fi
fi
tmp="$(mktemp -d /tmp/stet-e2e.XXXXXX)"

# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"

cleanup() {
  stop_all_servers
  if [ "${KEEP_TMP:-0}" = 1 ]; then log "temp dir kept: $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_peers() {
  local build="$root/build-e2e/peers" launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  # Only the peers this run starts (Beast and RESTinio take minutes to compile).
  local name targets=()
  for name in $SERVERS; do
    case "$name" in beast | restinio | floor) targets+=("${name}_server") ;; esac
  done
  log "building the peers: ${targets[*]}"
  cmake -S "$here/peers" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  cmake --build "$build" --target "${targets[@]}" -j"$(nproc)" >/dev/null
  beast_bin="$build/beast_server"
  floor_bin="$build/floor_server"
  restinio_bin="$build/restinio_server"
}

# ------------------------------------------------------------------ servers --
declare -A server_port=() tls_port=()

start_nginx() {
  local port="$1" dir="$tmp/nginx"
  write_nginx_conf "$dir" "$port" on
  if [ -n "${tls_port[nginx]:-}" ]; then nginx_tls_listen "$dir" "$port" "$tls_cert" "$tls_key" "${tls_port[nginx]}"; fi
  # shellcheck disable=SC2046
  taskset -c 0 $(nginx_command "$dir") 2>>"$dir/stderr.log" &
  server_pid[nginx]=$!
  wait_listening "$!" "$port" || die "nginx did not start (see $dir/error.log)"
}

start_h2o() {
  local port="$1" dir="$tmp/h2o"
  write_h2o_conf "$dir" "$port" "${tls_port[h2o]:-}" "${tls_cert:-}" "${tls_key:-}"
  taskset -c 0 h2o -c "$dir/h2o.conf" >>"$dir/stderr.log" 2>&1 &
  server_pid[h2o]=$!
  wait_listening "$!" "$port" || die "h2o did not start (see $dir/stderr.log)"
}

start_peer() {
  local name="$1" bin="$2" port="$3"
  taskset -c 0 "$bin" "$port" 2>>"$tmp/$name.log" &
  server_pid[$name]=$!
  wait_listening "$!" "$port" || die "$name did not start (see $tmp/$name.log)"
}

# bun's HTTP server is uWebSockets (npm install -g bun).
start_bun() {
  local port="$1" tls=()
  command -v bun >/dev/null || die "bun is not installed (npm install -g bun)"
  if [ -n "${tls_port[bun]:-}" ]; then tls=("${tls_port[bun]}" "$tls_cert" "$tls_key"); fi
  taskset -c 0 bun "$here/peers/bun_server.js" "$port" "${tls[@]}" 2>>"$tmp/bun.log" &
  server_pid[bun]=$!
  wait_listening "$!" "$port" || die "bun did not start (see $tmp/bun.log)"
}

# The second stet binary (STET_SERVER_B), started exactly as the first.
start_stet_b() {
  # shellcheck disable=SC2034  # used through a nameref by start_stet
  local port="$1" core0=(taskset -c 0) first="$stet_bin"
  [ -x "${STET_SERVER_B:-}" ] || die "SERVERS names stet_b: set STET_SERVER_B to an executable stet-server"
  stet_bin="$STET_SERVER_B"
  start_stet stet_b "$port" core0
  stet_bin="$first"
}

# A server that serves the TLS cells listens with TLS on BASE_PORT + 20 + its
# index too (the same process as its plain port, so one PID's CPU); Beast's
# WebSocket peer is a process of its own on BASE_PORT + 40.
start_servers() {
  # shellcheck disable=SC2034  # used through a nameref by start_stet
  local i=0 name port core0=(taskset -c 0)
  for name in $SERVERS; do
    port=$((BASE_PORT + i))
    i=$((i + 1))
    port_in_use "$port" && die "port $port is in use (set BASE_PORT)"
    server_port[$name]=$port
    if [ "$need_tls" = 1 ] && tls_serves "$name"; then
      tls_port[$name]=$((BASE_PORT + 20 + i - 1))
      port_in_use "${tls_port[$name]}" && die "port ${tls_port[$name]} is in use (set BASE_PORT)"
    fi
    stet_flags=()
    if [ -n "${tls_port[$name]:-}" ]; then
      stet_flags=(--tls-cert "$tls_cert" --tls-key "$tls_key" --tls-port "${tls_port[$name]}")
    fi
    case "$name" in
      stet) start_stet stet "$port" core0 ;;
      stet_b) start_stet_b "$port" ;;
      nginx) start_nginx "$port" ;;
      h2o) start_h2o "$port" ;;
      beast) start_peer beast "$beast_bin" "$port" ;;
      restinio) start_peer restinio "$restinio_bin" "$port" ;;
      floor) start_peer floor "$floor_bin" "$port" ;;
      bun) start_bun "$port" ;;
      *) die "unknown server '$name' in SERVERS" ;;
    esac
    log "$name listening on 127.0.0.1:$port${tls_port[$name]:+ and with TLS on ${tls_port[$name]}} (pid ${server_pid[$name]}, core 0)"
  done
  if [ "$need_ws" = 1 ] && [[ " $SERVERS " == *" beast "* ]]; then
    server_port[beast_ws]=$((BASE_PORT + 40))
    port_in_use "${server_port[beast_ws]}" && die "port ${server_port[beast_ws]} is in use (set BASE_PORT)"
    start_peer beast_ws "$ws_tools/beast_ws_server" "${server_port[beast_ws]}"
    log "Beast's WebSocket peer listening on 127.0.0.1:${server_port[beast_ws]} (pid ${server_pid[beast_ws]}, core 0)"
  fi
}

# tls_serves SERVER: the servers with a TLS listener here (RESTinio, Beast
# and the floor peer are built without one).
tls_serves() { case "$1" in stet | stet_b | nginx | h2o | bun) return 0 ;; *) return 1 ;; esac; }

# The process and port a cell measures (target_pid, target_port): Beast's
# WebSocket peer for its WebSocket cells, the TLS port for the TLS cells.
cell_target() {
  local name="$1" id="$2"
  target_pid="${server_pid[$name]}" target_port="${server_port[$name]}"
  case "$id" in
    ws_*) if [ "$name" = beast ]; then target_pid="${server_pid[beast_ws]}" target_port="${server_port[beast_ws]}"; fi ;;
    tls*) target_port="${tls_port[$name]}" ;;
  esac
}

# ---------------------------------------------------------------- endpoints --
# Every endpoint, in table order, with its label and path. @HASHED_CSS@ is
# replaced by discover() with the URL stet's page links (or the cell is n/a).
# ws_*: WebSocket cells (bench/e2e/peers/ws_load.cpp, per message received);
# tls_keepalive: /plaintext over TLS (wrk); tls1*_*: handshakes (openssl s_time).
all_ep_ids=(plaintext json pipelined close small css css_hash css_304 file_1m file_10m actor users
            ws_echo32 ws_echo16k ws_echo16kbin ws_publish tls_keepalive tls13_full tls12_full tls12_resumed)
ep_ids=()
for id in "${all_ep_ids[@]}"; do
  if [ -z "${ENDPOINTS:-}" ] || [[ " $ENDPOINTS " == *" $id "* ]]; then ep_ids+=("$id"); fi
done
[ ${#ep_ids[@]} -gt 0 ] || die "ENDPOINTS='$ENDPOINTS' names none of: ${all_ep_ids[*]}"
need_ws=0 need_tls=0
[[ " ${ep_ids[*]} " == *" ws_"* ]] && need_ws=1
[[ " ${ep_ids[*]} " == *" tls"* ]] && need_tls=1
# The WebSocket cells of lib.sh behind the ws_* endpoints.
declare -A ws_cell_of=([ws_echo32]=echo32 [ws_echo16k]=echo16k [ws_echo16kbin]=echo16kbin [ws_publish]=publish32)
declare -A ep_label=(
  [plaintext]="/plaintext" [json]="/json" [pipelined]="/plaintext pipelined x$PIPELINE_DEPTH"
  [close]="/plaintext, Connection: close (a connection per request)"
  [small]="small.txt (100 B)" [css]="app.css (83 KB)" [css_hash]="app.css?_hash=…"
  [css_304]="app.css 304 (If-None-Match)" [file_1m]="1 MiB file" [file_10m]="10 MiB file"
  [actor]="/-/actor.json (signed cookie)" [users]="/users/42"
  [ws_echo32]="WebSocket echo 32 B" [ws_echo16k]="WebSocket echo 16 KiB" [ws_echo16kbin]="WebSocket echo 16 KiB binary"
  [ws_publish]="WebSocket publish 32 B to $WS_SUBSCRIBERS (per delivered message)"
  [tls_keepalive]="/plaintext over TLS (keep-alive)" [tls13_full]="TLS 1.3 full handshake"
  [tls12_full]="TLS 1.2 full handshake" [tls12_resumed]="TLS 1.2 resumed handshake (s_time -reuse: a ticket)"
)
declare -A ep_path=(
  [plaintext]=/plaintext [json]=/json [pipelined]=/plaintext [close]=/plaintext
  [small]=/static/small.txt [css]=/static/app.css [css_hash]=@HASHED_CSS@
  [css_304]=/static/app.css [file_1m]=/static/1mib.bin [file_10m]=/static/10mib.bin
  [actor]=/-/actor.json [users]=/users/42 [tls_keepalive]=/plaintext
)

declare -A ep_header=() skip_reason=()
hashed_css=""
actor_cookie=""

# Values that need stet's cooperation: the hashed stylesheet URL (from the
# page at /) and a signed actor cookie (from POST /-/login). When stet cannot
# give them yet, the endpoints are n/a for everyone.
discover() {
  local stet_url="http://127.0.0.1:${server_port[stet]:-0}"
  if [ -n "${server_port[stet]:-}" ]; then
    hashed_css="$(curl -s --max-time 5 "$stet_url/" | grep -o '[^"'\'' ]*app\.css?_hash=[^"'\'' >]*' | head -n1 || true)"
    actor_cookie="$(curl -s --max-time 5 -o /dev/null -D - -X POST -H 'Content-Type: application/json' \
                      --data '{"id":"bench"}' "$stet_url/-/login" |
                    tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: *\(actor=[^;]*\).*/\1/p' | head -n1 || true)"
  fi
  [ -n "$hashed_css" ] && log "hashed stylesheet URL: $hashed_css"
  [ -n "$actor_cookie" ] && log "signed cookie obtained from POST /-/login"
  return 0
}

# Decides, per server and endpoint, whether the cell runs: the server must
# answer the exact request wrk will send with the expected status (and, for
# fixed bodies, the expected size). 404 means "not implemented here": n/a.
probe() {
  local name="$1" id="$2" path="$3" url status size etag expect_status=200 expect_size="" header="" insecure=()
  url="http://127.0.0.1:${server_port[$name]}$path"
  case "$id" in
    ws_*)
      ws_serves "$name" "${ws_cell_of[$id]}" || skip_reason[$name,$id]="n/a"
      return
      ;;
    tls1*)
      probe_handshake "$name" "$id"
      return
      ;;
    tls_keepalive)
      if [ -z "${tls_port[$name]:-}" ]; then skip_reason[$name,$id]="n/a"; return; fi
      url="https://127.0.0.1:${tls_port[$name]}$path" insecure=(-k) expect_size=13
      ;;
    plaintext | pipelined) expect_size=13 ;;
    close)
      expect_size=13
      header="Connection: close"
      ;;
    json) expect_size=27 ;;
    small) expect_size=$(stat -c %s "$static/small.txt") ;;
    css | css_hash) expect_size=$(stat -c %s "$static/app.css") ;;
    file_1m) expect_size=$(stat -c %s "$static/1mib.bin") ;;
    file_10m) expect_size=$(stat -c %s "$static/10mib.bin") ;;
    css_304)
      # Revalidate with the ETag this very server gave for the file.
      etag="$(curl -s --max-time 5 -o /dev/null -D - "$url" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' | head -n1)"
      if [ -z "$etag" ]; then skip_reason[$name,$id]="n/a"; return; fi
      header="If-None-Match: $etag"
      expect_status=304
      ;;
    actor)
      if [ -z "$actor_cookie" ]; then skip_reason[$name,$id]="n/a"; return; fi
      header="Cookie: $actor_cookie"
      ;;
  esac
  if [ "$path" = "@HASHED_CSS@" ]; then skip_reason[$name,$id]="n/a"; return; fi
  local args=(-s --max-time 30 -o /dev/null -w '%{http_code} %{size_download}' "${insecure[@]}")
  [ -n "$header" ] && args+=(-H "$header")
  local answer
  answer="$(curl "${args[@]}" "$url" || true)"
  read -r status size <<<"${answer:-000 0}"
  if [ "$status" = 404 ]; then
    skip_reason[$name,$id]="n/a"
  elif [ "$status" != "$expect_status" ]; then
    skip_reason[$name,$id]="n/a (HTTP $status)"
    log "warning: $name $path answered $status, expected $expect_status: skipped"
  elif [ -n "$expect_size" ] && [ "$size" != "$expect_size" ]; then
    skip_reason[$name,$id]="n/a (body $size B)"
    log "warning: $name $path sent $size bytes, expected $expect_size: skipped"
  else
    ep_header[$name,$id]="$header"
  fi
}

# A handshake cell runs where the server completes that handshake and, for
# the resumed cell, resumes the session (s_client -reconnect reuses it 5 times).
probe_handshake() {
  local name="$1" id="$2" options=(-tls1_2) want="^New, TLSv1.2" out
  if [ -z "${tls_port[$name]:-}" ]; then skip_reason[$name,$id]="n/a"; return; fi
  case "$id" in
    tls13_full) options=(-tls1_3) want="^New, TLSv1.3" ;;
    tls12_resumed) options+=(-reconnect) want="^Reused, TLSv1.2" ;;
  esac
  out="$(timeout 20 openssl s_client -connect "127.0.0.1:${tls_port[$name]}" "${options[@]}" </dev/null 2>&1 || true)"
  if ! grep -q "$want" <<<"$out"; then
    skip_reason[$name,$id]="n/a (refused)"
    log "warning: $name: no ${ep_label[$id]} (openssl s_client ${options[*]}): skipped"
  fi
}

probe_all() {
  local id name
  if [ -n "$hashed_css" ]; then ep_path[css_hash]="$hashed_css"; fi
  for id in "${ep_ids[@]}"; do
    for name in $SERVERS; do probe "$name" "$id" "${ep_path[$id]:-}"; done
  done
}

# --------------------------------------------------------------------- runs --
results="$tmp/results.tsv"  # round id server requests rps p50_us p99_us cpu_us_per_req errors

# One cell: its client on core 1 against one server and endpoint, server CPU
# read around it (measure_client). Appends a line to $results unless round is
# "warmup". wrk's report.lua prints the line; for the WebSocket and handshake
# clients, which have no latency figures, it is written here in its form
# (requests = messages received, or handshakes; errors = for the resumed
# cell, connections that were not resumed).
run_cell() {
  local round="$1" name="$2" id="$3" seconds="$4" line url
  cell_target "$name" "$id"
  case "$id" in
    ws_*)
      ws_measure "$target_pid" "$target_port" "$(ws_path "$name" "${ws_cell_of[$id]}")" "${ws_cell_of[$id]}" \
        "$([ "$id" = ws_publish ] && echo "$WS_SUBSCRIBERS" || echo "$CONNECTIONS")" "$WS_PIPELINE" "$seconds"
      line="e2e-result requests=$ws_messages duration_us=$(awk -v s="$ws_seconds" 'BEGIN { printf "%d", s * 1e6 }') p50_us=0 p99_us=0 errors=0"
      ;;
    tls1*)
      s_time_measure "$target_pid" "$target_port" "$id" "$seconds"
      [ "$id" = tls12_resumed ] || hs_fresh=0
      line="e2e-result requests=$hs_count duration_us=$(awk -v s="$client_seconds" 'BEGIN { printf "%d", s * 1e6 }') p50_us=0 p99_us=0 errors=$hs_fresh"
      ;;
    *)
      local scheme=http script="$here/report.lua" args=()
      [ "$id" = tls_keepalive ] && scheme=https
      [ "$id" = pipelined ] && script="$here/pipeline.lua"
      [ -n "${ep_header[$name,$id]:-}" ] && args+=(-H "${ep_header[$name,$id]}")
      url="$scheme://127.0.0.1:$target_port${ep_path[$id]}"
      measure_client "$target_pid" wrk -t1 -c"$CONNECTIONS" -d"${seconds}s" --latency --timeout 10s -s "$script" "${args[@]}" "$url"
      [ "$client_status" = 0 ] || die "wrk failed against $name $url: $client_out"
      line="$(grep '^e2e-result ' <<<"$client_out" | tail -n1 || true)"
      [ -n "$line" ] || [ "$round" = warmup ] || die "no result line from wrk against $name $url: $client_out"
      ;;
  esac
  [ "$round" = warmup ] && return 0
  awk -v round="$round" -v id="$id" -v name="$name" -v ticks="$client_ticks" -v hz="$clk_tck" '
    { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END {
      req = v["requests"]; secs = v["duration_us"] / 1e6
      cpu = req > 0 ? ticks * 1e6 / hz / req : 0
      printf "%s\t%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.3f\t%d\n", round, id, name, req, req / secs, v["p50_us"], v["p99_us"], cpu, v["errors"]
    }' <<<"$line" >> "$results"
}

run_all() {
  local round id name cells=0
  for id in "${ep_ids[@]}"; do
    for name in $SERVERS; do
      if [ -z "${skip_reason[$name,$id]:-}" ]; then cells=$((cells + 1)); fi
    done
  done
  log "$cells cells x $ROUNDS rounds x ${DURATION}s (+ ${WARMUP}s warm-up each), $CONNECTIONS connections"
  if [ "$WARMUP" != 0 ]; then
    for id in "${ep_ids[@]}"; do
      for name in $SERVERS; do
        if [ -z "${skip_reason[$name,$id]:-}" ]; then run_cell warmup "$name" "$id" "$WARMUP"; fi
      done
    done
  fi
  : > "$results"
  for round in $(seq "$ROUNDS"); do
    log "round $round/$ROUNDS"
    for id in "${ep_ids[@]}"; do
      for name in $SERVERS; do
        if [ -z "${skip_reason[$name,$id]:-}" ]; then run_cell "$round" "$name" "$id" "$DURATION"; fi
      done
    done
  done
}

# ------------------------------------------------------------------- report --
# Medians over rounds per endpoint and server, already formatted for the
# table, loaded into arrays keyed "id,server": rps, p50, p99, cpu (formatted),
# cpu_raw (for the plot), errs; and ratios of stet to each peer keyed
# "id,peer": cpu_ratio (stet CPU/req ÷ peer's), rps_ratio (stet req/s ÷ peer's).
# (All in two awk passes: on a busy 2-core machine every fork counts.)
declare -A rps=() p50=() p99=() cpu=() cpu_raw=() errs=() cpu_ratio=() rps_ratio=()
summarise() {
  awk -F'\t' '
    function median(list,   n, a, i, j, t) {
      n = split(list, a, " ")
      for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function us(x) { return x >= 1000 ? sprintf("%.2f ms", x / 1000) : sprintf("%.0f µs", x) }
    function cpu(x) { return x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x) }
    { k = $2 "\t" $3; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
      r[k] = r[k] " " $5; a[k] = a[k] " " $6; b[k] = b[k] " " $7; c[k] = c[k] " " $8; e[k] += $9 }
    END { for (i = 1; i <= n; i++) { k = order[i]; m = median(c[k])
      printf "%s\t%.0f\t%s\t%s\t%s\t%.3f\t%d\n", k, median(r[k]), us(median(a[k])), us(median(b[k])), cpu(m), m, e[k] } }
  ' "$results" > "$tmp/summary.tsv"
  awk -F'\t' '
    { r[$1, $2] = $3; c[$1, $2] = $7; ids[$1] = 1; names[$2] = 1 }
    END { for (id in ids) for (p in names) if (p != "stet" && (id SUBSEP "stet") in r && (id SUBSEP p) in r)
      printf("%s\t%s\t%s\t%s\n", id, p, c[id, p] > 0 ? sprintf("%.2f", c[id, "stet"] / c[id, p]) : "n/a",
             r[id, p] > 0 ? sprintf("%.2f", r[id, "stet"] / r[id, p]) : "n/a")
      if (("actor" SUBSEP "stet") in c && ("json" SUBSEP "stet") in c && c["json", "stet"] > 0)
        printf "actor\tjson\t%.2f\t\n", c["actor", "stet"] / c["json", "stet"] }
  ' "$tmp/summary.tsv" > "$tmp/ratios.tsv"
  local id name a b c d e f
  while IFS=$'\t' read -r id name a b c d e f; do
    rps[$id,$name]="$a" p50[$id,$name]="$b" p99[$id,$name]="$c" cpu[$id,$name]="$d" cpu_raw[$id,$name]="$e" errs[$id,$name]="$f"
  done < "$tmp/summary.tsv"
  while IFS=$'\t' read -r id name a b; do
    cpu_ratio[$id,$name]="$a" rps_ratio[$id,$name]="$b"
  done < "$tmp/ratios.tsv"
}

declare -A server_label=([stet]=stet [stet_b]="stet B" [nginx]=nginx [h2o]=h2o [beast]=Beast [restinio]=RESTinio [floor]=floor [bun]="uWebSockets (bun)")

# The generated part of docs/benchmarks.md, between the e2e markers.
write_tables() {
  local id label name rate low high p
  echo "### Results (median of $ROUNDS round(s) of ${DURATION} s per cell; $CONNECTIONS connections)"
  echo
  echo "Every stet row is listed (n/a: stet answers 404 there today); a peer's row only where it serves"
  echo "the endpoint. An operation (op) is a response (HTTP rows, TLS keep-alive), a message the client"
  echo "received (WebSocket rows) or a connection's handshake (handshake rows). Pipelined latency is per"
  echo "batch of $PIPELINE_DEPTH and wrk's coordinated-omission correction garbles it, so it is left out (—),"
  echo "as for the WebSocket and handshake rows, whose clients measure no latency."
  echo
  echo "| endpoint | server | ops/s | p50 | p99 | server CPU µs/op |"
  echo "|---|---|---:|---:|---:|---:|"
  for id in "${ep_ids[@]}"; do
    label="${ep_label[$id]}"
    for name in $SERVERS; do
      if [ -n "${skip_reason[$name,$id]:-}" ]; then
        if [ "$name" = stet ]; then echo "| $label | stet | ${skip_reason[$name,$id]} | | | |"; fi
        continue
      fi
      rate="${rps[$id,$name]}"
      if [ "${errs[$id,$name]}" != 0 ]; then
        if [ "$id" = tls12_resumed ]; then rate="$rate (not resumed: ${errs[$id,$name]})"; else rate="$rate (errors: ${errs[$id,$name]})"; fi
      fi
      low="${p50[$id,$name]}" high="${p99[$id,$name]}"
      case "$id" in pipelined | ws_* | tls1*) low="—" high="—" ;; esac
      echo "| $label | ${server_label[$name]} | $rate | $low | $high | ${cpu[$id,$name]} |"
    done
  done
  echo
  local peers=()
  for p in $SERVERS; do [ "$p" != stet ] && peers+=("$p"); done
  [ ${#peers[@]} -gt 0 ] || return 0
  [[ " $SERVERS " == *" stet "* ]] || return 0

  echo "### Ratios: stet CPU/op ÷ peer CPU/op (lower is better for stet)"
  echo
  printf '| endpoint |'; for p in "${peers[@]}"; do printf ' ÷ %s |' "${server_label[$p]}"; done; echo
  printf '|---|'; for p in "${peers[@]}"; do printf -- '---:|'; done; echo
  for id in "${ep_ids[@]}"; do
    printf '| %s |' "${ep_label[$id]}"
    for p in "${peers[@]}"; do printf ' %s |' "${cpu_ratio[$id,$p]:-n/a}"; done
    echo
  done
  echo
  if [[ " ${ep_ids[*]} " == *" pipelined "* || " ${ep_ids[*]} " == *" file_10m "* ]]; then
    echo "### Ratios: stet req/s ÷ peer req/s (higher is better for stet)"
    echo
    printf '| endpoint |'; for p in "${peers[@]}"; do printf ' ÷ %s |' "${server_label[$p]}"; done; echo
    printf '|---|'; for p in "${peers[@]}"; do printf -- '---:|'; done; echo
    for id in pipelined file_10m; do
      [[ " ${ep_ids[*]} " == *" $id "* ]] || continue
      printf '| %s |' "${ep_label[$id]}"
      for p in "${peers[@]}"; do printf ' %s |' "${rps_ratio[$id,$p]:-n/a}"; done
      echo
    done
    echo
  fi
  echo "stet \`/-/actor.json\` CPU/request ÷ stet \`/json\` CPU/request:" \
       "${cpu_ratio[actor,json]:-n/a}."
}

write_environment() {
  local servers name peers=() tools=(wrk)
  servers="stet-server \`--threads 1 --no-access-log${stet_static_flag}${tls_port[stet]:+ --tls-cert C --tls-key K --tls-port P}\`"
  for name in $SERVERS; do
    case "$name" in
      nginx)
        servers+="; nginx \`worker_processes 1\`, \`return 200\` for /plaintext and /json, static directory with"
        servers+=" \`sendfile on; open_file_cache max=1000; access_log off\`"
        servers+=" (a cached file is checked every 60 s: \`open_file_cache_valid\`'s default)"
        if [ -n "${tls_port[nginx]:-}" ]; then
          servers+=", TLS on a second \`listen\` with \`ssl_session_cache shared:SSL:10m; ssl_session_tickets on; ssl_protocols TLSv1.2 TLSv1.3\`"
        fi ;;
      h2o)
        servers+="; h2o: \`bench/e2e/peers/h2o.conf.in\` (\`num-threads: 1\`, mruby for /plaintext and /json, \`file.dir\` with its defaults"
        servers+="${tls_port[h2o]:+; TLS on a host-level \`listen\` with its default session resumption, no OCSP stapling})" ;;
      beast)
        servers+="; Beast: \`bench/e2e/peers/beast_server.cpp\` (/plaintext, /json)"
        if [ -n "${server_pid[beast_ws]:-}" ]; then
          servers+=" and, a second process, \`bench/e2e/peers/beast_ws_server.cpp\` (WebSocket echo, as Beast's websocket_server_fast)"
        fi ;;
      floor)
        servers+="; floor: \`bench/e2e/peers/floor_server.cpp\` (not an HTTP server: one recv and one send per"
        servers+=" request, a fixed answer; the kernel's share of a request, which no server can remove)" ;;
      restinio)
        servers+="; RESTinio: \`bench/e2e/peers/restinio_server.cpp\` (/plaintext, /json)" ;;
      bun)
        servers+="; uWebSockets (bun): \`bench/e2e/peers/bun_server.js\` (Bun.serve, one thread; /plaintext, /json,"
        servers+=" WebSocket echo and rooms${tls_port[bun]:+; a second Bun.serve with \`tls\` in the same process})" ;;
      stet_b)
        servers+="; stet B: \`STET_SERVER_B\`, $(stet_bin="$STET_SERVER_B" stet_label), run as stet is" ;;
    esac
    if [ "$name" != stet ] && [ "$name" != stet_b ]; then peers+=("$name"); fi
  done
  if [ "$need_tls" = 1 ]; then tools+=(openssl); fi
  provenance "$run_command" "${peers[@]}" "${tools[@]}"
  echo "- Placement: every server \`taskset -c 0\` with one worker/thread on 127.0.0.1;" \
       "\`wrk -t1 -c$CONNECTIONS --latency\` \`taskset -c 1\`; cells interleaved server by server, round by round;" \
       "the machine is shared with other work, hence CPU/op as the steady figure"
  if [ "$need_ws" = 1 ]; then
    echo "- WebSocket: \`bench/e2e/peers/ws_load.cpp\` \`taskset -c 1\`, no permessage-deflate; echo over $CONNECTIONS" \
         "connections, publish to $WS_SUBSCRIBERS members of one room (per delivered message), $WS_PIPELINE messages" \
         "in flight per sending connection"
  fi
  if [ "$need_tls" = 1 ]; then
    echo "- TLS: a self-signed EC P-256 certificate made for the run (\`scripts/self-signed-cert.sh\`); keep-alive" \
         "with wrk over https; handshakes with \`openssl s_time\` (\`-new -tls1_3\`, \`-new -tls1_2\`, \`-reuse -tls1_2\`)," \
         "one connection at a time \`taskset -c 1\`"
  fi
  echo "- Servers: $servers"
  echo "- Server CPU µs/op = (utime+stime of the server from /proc/PID/stat, after − before) ÷ operations the" \
       "client completed (responses, messages received, handshakes). \"n/a\": that server answers 404 there" \
       "(not built yet, or not a feature of that peer)"
}

# Writes the block to $block (always: it is printed and checked) and into OUT
# when OUT names a page.
block="$tmp/block.md"
write_report() {
  local image="$PLOT"
  # The page links the plot by a path relative to itself when they share a directory.
  if [ -n "$OUT" ] && [ "$(dirname "$PLOT")" = "$(dirname "$OUT")" ]; then image="$(basename "$PLOT")"; fi
  {
    echo "<!-- e2e:begin (generated by bench/e2e/run.sh; edit outside these markers) -->"
    write_environment
    echo
    write_tables
    if [ -n "$PLOT" ]; then echo; echo "![server CPU µs per operation]($image)"; fi
    echo "<!-- e2e:end -->"
  } > "$block"
  if [ -n "$OUT" ]; then
    replace_block "$OUT" e2e "$block"
    log "wrote $OUT"
  else
    log "OUT is empty: no page written"
  fi
}

# Server CPU µs per operation as clustered bars, one panel per kind of row
# (HTTP, WebSocket, TLS), each on its own log-scale axis: a handshake costs
# about a hundred requests and a 16 KiB message more than a small response,
# and an axis per panel keeps every row readable. A server keeps its colour
# in every panel; a panel shows only the servers that serve one of its rows.
declare -A server_colour=([stet]="#d62728" [stet_b]="#ff9896" [nginx]="#2ca02c" [h2o]="#9467bd"
                          [bun]="#ff7f0e" [beast]="#1f77b4" [restinio]="#8c564b" [floor]="#7f7f7f")

# plot_panel NAME TITLE ORIGIN_X ORIGIN_Y WIDTH HEIGHT IDS...: writes the
# panel's data file and prints its gnuplot commands.
plot_panel() {
  local panel="$1" title="$2" x="$3" y="$4" width="$5" height="$6" id name label shown=() colours=""
  shift 6
  local data="$tmp/plot-$panel.dat"
  for name in $SERVERS; do
    for id in "$@"; do
      if [ -n "${cpu_raw[$id,$name]:-}" ]; then shown+=("$name"); colours+="${colours:+ }${server_colour[$name]}"; break; fi
    done
  done
  [ ${#shown[@]} -gt 0 ] || return 0
  {
    printf 'endpoint'; for name in "${shown[@]}"; do printf '\t%s' "${server_label[$name]}"; done; echo
    for id in "$@"; do
      label="${ep_label[$id]// (signed cookie)/}"
      label="${label#WebSocket }"
      label="${label% (s_time -reuse: a ticket)}"
      label="${label% (a connection per request)}"
      printf '%s' "${label% (per delivered message)}"
      for name in "${shown[@]}"; do printf '\t%s' "${cpu_raw[$id,$name]:--}"; done
      echo
    done
  } > "$data"
  cat <<EOF
set origin $x, $y
set size $width, $height
set title "$title"
set xrange [-0.6:$# - 0.4]
n = ${#shown[@]}
w = 1.0 / (n + 1)
colours = "$colours"
plot for [c=2:n + 1] "$data" using c:xtic(1) title columnheader(c) linecolor rgb word(colours, c - 1), \\
     for [c=2:n + 1] "$data" using (\$0 + (c - 2 - (n - 1) / 2.0) * w):c:(sprintf(column(c) < 100 ? "%.1f" : "%.0f", column(c))) \\
       with labels font ",7" offset 0,0.6 notitle
EOF
}

write_plot() {
  [ -n "$PLOT" ] || return 0
  local id http=() ws=() tls=() panels="" height=720 low=1 x=0 width
  for id in "${ep_ids[@]}"; do
    case "$id" in ws_*) ws+=("$id") ;; tls*) tls+=("$id") ;; *) http+=("$id") ;; esac
  done
  # HTTP across the top; WebSocket and TLS side by side below it (or over the
  # whole height when there is no HTTP row).
  local lower=$(( (${#ws[@]} > 0) + (${#tls[@]} > 0) ))
  if [ ${#http[@]} -gt 0 ]; then
    if [ "$lower" -gt 0 ]; then low=0.45 height=1300; fi
    panels+="$(plot_panel http "HTTP: server CPU µs per request" 0 "$(awk -v l="$low" 'BEGIN { print l < 1 ? l : 0 }')" \
               1 "$(awk -v l="$low" 'BEGIN { print l < 1 ? 0.97 - l : 0.97 }')" "${http[@]}")"$'\n'
  fi
  if [ ${#http[@]} -eq 0 ]; then low=0.97; fi
  [ "$lower" -gt 0 ] || low=0
  width="$(awk -v n="$lower" 'BEGIN { print n ? 1 / n : 1 }')"
  if [ ${#ws[@]} -gt 0 ]; then
    panels+="$(plot_panel ws "WebSocket: server CPU µs per message received" "$x" 0 "$width" "$low" "${ws[@]}")"$'\n'
    x="$width"
  fi
  if [ ${#tls[@]} -gt 0 ]; then
    panels+="$(plot_panel tls "TLS: server CPU µs per request (keep-alive) or per handshake" "$x" 0 "$width" "$low" "${tls[@]}")"$'\n'
  fi
  gnuplot <<EOF
set terminal pngcairo size 1800,$height font "DejaVu Sans,11" noenhanced
set output "$PLOT"
set multiplot title "Server CPU per operation (µs, log scale, an axis per panel; lower is better), one core each; missing bar = n/a"
set datafile separator "\t"
set datafile missing "-"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set format y "%g"
set ylabel "server CPU µs / op"
set grid ytics
# Beside each panel, never over its bars; the room also takes the last rotated label.
set key outside right top vertical
set xtics rotate by -30 left
set bmargin 8
# Every plot reads line 1 as the header, so \$0 counts the same rows for bars and labels.
set key autotitle columnheader
$panels
unset multiplot
EOF
  log "wrote $PLOT"
}

# The smoke test's only judgement: the table is well formed (not how fast).
# stet's rows for /plaintext and for every WebSocket and TLS endpoint of the
# run must carry numbers: stet serves them all, so an n/a there is a broken
# cell, not a missing feature.
check_table() {
  local table="$tmp/table.md" id measured=""
  sed -n '/^| endpoint | server |/,/^$/p' "$block" > "$table"
  [ -s "$table" ] || die "smoke: no results table"
  for id in "${ep_ids[@]}"; do
    case "$id" in plaintext | ws_* | tls*) measured+="${ep_label[$id]}"$'\t' ;; esac
  done
  awk -F'|' -v measured="$measured" '
    BEGIN { n = split(measured, m, "\t"); for (i = 1; i < n; i++) want[" " m[i] " "] = 1 }
    NF == 0 { next }
    NR == 1 { cols = NF; next }
    NF != cols { print "smoke: row " NR " has " NF - 2 " cells, header has " cols - 2; bad = 1 }
    ($2 in want) && $3 ~ /^ stet $/ {
      seen[$2] = 1
      if ($4 !~ /^ [0-9]+( \((errors|not resumed): [0-9]+\))? $/ || $7 !~ /^ [0-9.]+ $/) { print "smoke: stet" $2 "has no numbers: " $0; bad = 1 }
    }
    END { for (l in want) if (!(l in seen)) { print "smoke: no stet row for" l; bad = 1 } exit bad }
  ' "$table" >&2 || die "smoke: malformed table"
  log "smoke: table well formed"
}

# --------------------------------------------------------------------- main --
main() {
  # Only what this run uses (the smoke run: the client tools alone).
  local packages=(wrk curl util-linux iproute2 procps)
  case " $SERVERS " in *" nginx "*) packages+=(nginx) ;; esac
  case " $SERVERS " in *" h2o "*) packages+=(h2o) ;; esac
  # bench/e2e/peers configures with RESTinio's headers whichever peer it builds.
  case " $SERVERS " in *" restinio "* | *" beast "* | *" floor "*) packages+=(librestinio-dev) ;; esac
  if [ -n "$PLOT" ]; then packages+=(gnuplot-nox); fi
  if [ "$need_tls" = 1 ]; then packages+=(openssl); fi
  install_packages "${packages[@]}"
  [[ " $SERVERS " == *" stet "* ]] || die "SERVERS must include stet (the ratios are stet's)"
  clk_tck="$(getconf CLK_TCK)"
  build_stet
  case " $SERVERS " in *" beast "* | *" restinio "* | *" floor "*) build_peers ;; esac
  if [ "$need_ws" = 1 ]; then
    local ws_programs=(ws_load)
    [[ " $SERVERS " == *" beast "* ]] && ws_programs+=(beast_ws_server)
    build_ws_tools "${ws_programs[@]}"
  fi
  if [ "$need_tls" = 1 ]; then make_tls_cert "$tmp/tls"; fi
  make_static_dir
  start_servers
  discover
  probe_all
  run_all
  summarise
  # Every variable that shapes the table, with its value (STET_SERVER and
  # ENDPOINTS only when given, the WebSocket ones when there are WebSocket
  # cells); where the page and plot go does not.
  local shaping=(DURATION ROUNDS CONNECTIONS WARMUP SERVERS STET_SERVER STET_SERVER_B STET_REVALIDATE_MS
                 STET_STATIC_WATCH ENDPOINTS)
  if [ "$need_ws" = 1 ]; then shaping+=(WS_PIPELINE WS_SUBSCRIBERS); fi
  run_command="$(reproduce_command bench/e2e/run.sh "$command_line" "${shaping[@]}")"
  write_report
  write_plot
  # Print the generated block for the log.
  sed '1d;$d' "$block"
  check_table
}

main
