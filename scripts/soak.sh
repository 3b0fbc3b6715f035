#!/usr/bin/env bash
# Soak: stet-server under wrk for SOAK_SECONDS over a request mix (plaintext,
# json, small and large static files, a 404, the signed-cookie /-/actor.json).
# Compares RSS and open descriptors after a warm-up with the same at the end.
#
#   scripts/soak.sh                                    # Release build, 60 s
#   STET_SANITIZE=address,undefined scripts/soak.sh    # an ASan+UBSan build
#   SOAK_SECONDS=5 scripts/soak.sh                     # the CI smoke
#   STET_SERVER=build/examples/stet-server scripts/soak.sh   # a prebuilt binary
#
# Knobs: SOAK_SECONDS (60), SOAK_WARMUP (5 s), SOAK_CONNECTIONS (256),
# SOAK_WRK_THREADS (2), SERVER_THREADS (2), SOAK_RSS_SLACK_KB (allowed RSS
# growth from warm-up to end; default 8 MiB + 10% of the warm RSS, and 64 MiB +
# 10% with STET_SANITIZE, whose allocator keeps freed memory in quarantine and
# per-thread caches: there the leak check at exit is the sharper test).
# Fails when an answer was an error other than the 404 route's 404s (see
# scripts/soak.lua for how that is counted), on any socket error, when the
# signed cookie is not recognised before or after, on descriptor growth, on RSS growth past the
# slack, on a sanitizer report, or when the server's exit code is not 0.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
script_name=soak
tmp="$(mktemp -d /tmp/stet-soak.XXXXXX)"
server_pid=""
# shellcheck source=lib/stet_server.sh source-path=SCRIPTDIR
. "$root/scripts/lib/stet_server.sh"
cleanup() {
  stop_server 5
  if [ "${KEEP_TMP:-0}" = 1 ]; then say "temp dir kept: $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

seconds="${SOAK_SECONDS:-60}"
connections="${SOAK_CONNECTIONS:-256}"
command -v wrk >/dev/null || die "wrk is not installed (apt-get install wrk)"
command -v curl >/dev/null || die "curl is not installed (apt-get install curl)"
build_server
make_static
start_server --no-access-log
cookie="$(login_cookie)"
[ -n "$cookie" ] || die "POST /-/login set no actor cookie"
actor_seen() { [ "$(curl -sS -H "Cookie: $cookie" "http://127.0.0.1:$port/-/actor.json")" = '{"actor":"soak"}' ]; }
actor_seen || die "/-/actor.json did not recognise the signed cookie"

# One wrk run of the mix; prints its soak-result line.
run_wrk() {
  wrk -t"${SOAK_WRK_THREADS:-2}" -c"$connections" -d"$1"s --timeout 10s -s "$root/scripts/soak.lua" \
    "http://127.0.0.1:$port" -- "$cookie" > "$tmp/wrk-$2.txt"
  grep '^soak-result' "$tmp/wrk-$2.txt" || die "wrk printed no result: $(cat "$tmp/wrk-$2.txt")"
}
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$2"; }

say "warm-up: ${SOAK_WARMUP:-5} s, $connections connections (server $server_bin, port $port)"
run_wrk "${SOAK_WARMUP:-5}" warmup >/dev/null
settle_fds
rss_warm="$(rss_kb)"
fds_warm="$(fd_count)"

say "soak: $seconds s, $connections connections"
result="$(run_wrk "$seconds" soak)"
actor_after=yes
actor_seen || actor_after=no
settle_fds
rss_end="$(rss_kb)"
fds_end="$(fd_count)"
hwm="$(hwm_kb)"
stop_server 20

base_slack=8192
[ -z "${STET_SANITIZE:-}" ] || base_slack=65536
slack="${SOAK_RSS_SLACK_KB:-$((base_slack + rss_warm / 10))}"
reports="$(sanitizer_reports)"
say "$result"
say "RSS after warm-up ${rss_warm} kB, at the end ${rss_end} kB (growth $((rss_end - rss_warm)) kB, slack ${slack} kB, peak ${hwm} kB)"
say "descriptors after warm-up ${fds_warm}, at the end ${fds_end}"
say "server exit code ${server_status}, sanitizer reports ${reports}"
failures=()
status_errors="$(field status_errors "$result")"
sent_404="$(field sent_404 "$result")"
[ "$status_errors" -le "$sent_404" ] || failures+=("error answers beyond the expected 404s")
[ "$status_errors" -ge $((sent_404 - connections)) ] || failures+=("the 404 route was not answered 404")
[ "$(field socket_errors "$result")" = 0 ] || failures+=("socket errors")
[ "$actor_after" = yes ] || failures+=("the signed cookie was not recognised after the soak")
[ "$fds_end" -le "$fds_warm" ] || failures+=("descriptors grew")
[ $((rss_end - rss_warm)) -le "$slack" ] || failures+=("RSS grew past the slack")
[ "$reports" = 0 ] || failures+=("sanitizer reports (see below)")
[ "$server_status" = 0 ] || failures+=("server exit code $server_status")
if [ "${#failures[@]}" -gt 0 ]; then
  [ "$reports" = 0 ] || cat "$tmp/server.log" >&2
  die "$(IFS=';'; echo "${failures[*]}")"
fi
say "ok"
