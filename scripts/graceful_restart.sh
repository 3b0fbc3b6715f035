#!/usr/bin/env bash
# Graceful restart: SIGTERM to stet-server while wrk and a checking client
# (scripts/graceful_restart_client.py) keep requests in flight. Passes when
#   - the server exits by itself with code 0 (within its 10 s drain deadline),
#   - no response was cut off part-way ("broken"),
#   - every request the server's access log says it answered reached the
#     checking client whole (the exact test: the log knows what was in flight),
#   - a connect after the exit is refused.
# Requests closed before any byte of their answer ("unanswered": idle at the
# drain, or pipelined behind a Connection: close) are reported, not failed;
# wrk counts those as socket errors too.
#
#   scripts/graceful_restart.sh                                   # Release build
#   STET_SANITIZE=address,undefined scripts/graceful_restart.sh   # ASan+UBSan build
#   STET_SERVER=build/examples/stet-server scripts/graceful_restart.sh
# Knobs: RESTART_AFTER (3 s of load before SIGTERM), RESTART_CONNECTIONS (32
# checking connections), SOAK_CONNECTIONS (64 wrk connections).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
script_name=graceful-restart
tmp="$(mktemp -d /tmp/stet-restart.XXXXXX)"
server_pid=""
wrk_pid=""
client_pid=""
# shellcheck source=lib/stet_server.sh source-path=SCRIPTDIR
. "$root/scripts/lib/stet_server.sh"
cleanup() {
  stop_server 5
  local pid
  for pid in $wrk_pid $client_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  if [ "${KEEP_TMP:-0}" = 1 ]; then say "temp dir kept: $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

command -v wrk >/dev/null || die "wrk is not installed (apt-get install wrk)"
command -v curl >/dev/null || die "curl is not installed (apt-get install curl)"
python=/usr/bin/python3  # Debian's own; only the standard library is used
[ -x "$python" ] || python="$(command -v python3)" || die "python3 is not installed"
build_server
make_static
start_server --access-log "$tmp/access.log"
cookie="$(login_cookie)"

after="${RESTART_AFTER:-3}"
# Both loads are bounded: wrk by -d, the client by its own deadline; both end
# early once the server is gone.
wrk -t2 -c"${SOAK_CONNECTIONS:-64}" -d$((after + 15))s --timeout 10s -s "$root/scripts/soak.lua" \
  "http://127.0.0.1:$port" -- "$cookie" > "$tmp/wrk.txt" 2>&1 &
wrk_pid=$!
"$python" "$root/scripts/graceful_restart_client.py" "$port" "${RESTART_CONNECTIONS:-32}" $((after + 20)) \
  "$tmp/complete.txt" "$tmp/ready" > "$tmp/client.json" &
client_pid=$!
for _ in $(seq 200); do
  [ -e "$tmp/ready" ] && break
  kill -0 "$client_pid" 2>/dev/null || die "the checking client ended before it was ready"
  sleep 0.1
done
[ -e "$tmp/ready" ] || die "the checking client's connections did not all get going within 20 s"
sleep "$after"

say "SIGTERM to stet-server (pid $server_pid) under load"
sigterm_at="$(date +%s.%N)"
stop_server 15
exited_at="$(date +%s.%N)"
refused=no
if ! curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port/healthz"; then refused=yes; fi
# wrk would keep retrying connects until its -d ends; SIGINT makes it report now.
kill -INT "$wrk_pid" 2>/dev/null || true
wait "$wrk_pid" || true
wrk_pid=""
wait "$client_pid" || die "the checking client failed"
client_pid=""

# Requests of the checking client that the server answered (it logs each one).
{ grep -o 'id=[0-9]*-[0-9]*' "$tmp/access.log" || true; } | sed 's/^id=//' | sort -u > "$tmp/logged.txt"
sed -n 's/.*id=//p' "$tmp/complete.txt" | sort -u > "$tmp/received.txt"
lost="$(comm -23 "$tmp/logged.txt" "$tmp/received.txt" | wc -l)"
reports="$(sanitizer_reports)"
counts="$(cat "$tmp/client.json")"
broken="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["broken"])' "$counts")"
bad_status="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["bad_status"])' "$counts")"

say "server exit code $server_status, $(awk -v a="$sigterm_at" -v b="$exited_at" 'BEGIN { printf "%.2f", b - a }') s after SIGTERM"
say "checking client: $counts"
say "answered per the access log: $(wc -l < "$tmp/logged.txt"), of those not received whole: $lost"
say "wrk: $(grep '^soak-result' "$tmp/wrk.txt" || echo 'no result')"
say "connect after exit refused: $refused; sanitizer reports: $reports"
failures=()
[ "$server_status" = 0 ] || failures+=("server exit code $server_status")
[ "$broken" = 0 ] || failures+=("$broken responses cut off")
[ "$bad_status" = 0 ] || failures+=("$bad_status non-200 answers to the checking client")
[ "$lost" = 0 ] || failures+=("$lost answered requests lost")
[ "$(wc -l < "$tmp/logged.txt")" -gt 0 ] || failures+=("the access log shows no request of the checking client")
[ "$refused" = yes ] || failures+=("a connect after the exit was not refused")
[ "$reports" = 0 ] || failures+=("sanitizer reports")
if [ "${#failures[@]}" -gt 0 ]; then
  [ "$reports" = 0 ] || cat "$tmp/server.log" >&2
  die "$(IFS=';'; echo "${failures[*]}")"
fi
say "ok"
