#!/usr/bin/env bash
# bench/e2e/tls_interleaved.sh: server CPU µs per TLS 1.2 handshake, full
# (`openssl s_time -new`) and resumed (`-reuse`: by ticket, as both servers
# issue them), of two stet-server binaries and nginx, measured in alternation:
# all three run at once, and each of ROUNDS rounds measures every one of them
# for DURATION seconds per kind, so a load that comes and goes on a shared
# machine falls on all three alike. Prints every round and the medians.
# CPU = utime+stime of the server (/proc/PID/stat) per handshake, as in
# bench/e2e/tls.sh (same certificate kind, nginx settings, one worker each,
# servers pinned to core 0, clients to core 1).
#
#   ROUNDS=5 DURATION=3 bench/e2e/tls_interleaved.sh BEFORE_BIN AFTER_BIN
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
ROUNDS="${ROUNDS:-5}"
DURATION="${DURATION:-3}"
BASE_PORT="${BASE_PORT:-18980}"
[ $# -eq 2 ] || { echo "usage: $0 BEFORE_STET_SERVER AFTER_STET_SERVER" >&2; exit 2; }
tmp="$(mktemp -d /tmp/stet-tls-interleaved.XXXXXX)"
static="$tmp/static"
mkdir -p "$static"
# shellcheck source=lib.sh source-path=SCRIPTDIR
. "$here/lib.sh"
trap 'stop_all_servers; [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$tmp"' EXIT
"$root/scripts/self-signed-cert.sh" "$tmp/tls" localhost >/dev/null
cert="$tmp/tls/cert.pem"
key="$tmp/tls/key.pem"
ticks_per_s="$(getconf CLK_TCK)"
declare -A bin=([before]="$1" [after]="$2") port=()
names=(before after nginx)

for i in "${!names[@]}"; do
  name="${names[$i]}"
  port[$name]=$((BASE_PORT + i))
  if [ "$name" = nginx ]; then
    write_nginx_conf "$tmp/nginx" "${port[$name]}" on
    nginx_tls_listen "$tmp/nginx" "${port[$name]}" "$cert" "$key"
    # shellcheck disable=SC2046
    taskset -c 0 $(nginx_command "$tmp/nginx") 2>>"$tmp/nginx/stderr.log" &
  else
    taskset -c 0 "${bin[$name]}" --host 127.0.0.1 --port $((port[$name] + 100)) --tls-port "${port[$name]}" \
      --threads 1 --no-access-log --tls-cert "$cert" --tls-key "$key" 2>>"$tmp/$name.log" &
  fi
  server_pid[$name]=$!
  wait_listening "${server_pid[$name]}" "${port[$name]}" || die "$name did not start"
done

# CPU µs per handshake of server NAME over one s_time run with MODE (-new or -reuse).
measure() {
  local name="$1" mode="$2" before after out n
  before="$(cpu_ticks "${server_pid[$name]}")"
  out="$(taskset -c 1 openssl s_time -connect "127.0.0.1:${port[$name]}" "$mode" -tls1_2 -time "$DURATION" 2>&1 || true)"
  after="$(cpu_ticks "${server_pid[$name]}")"
  n="$(awk '/connections in [0-9.]+ real seconds/ {print $1; exit}' <<<"$out")"
  if [ -z "$n" ] || [ "$n" -eq 0 ]; then die "$name $mode: no result: $out"; fi
  awk -v n="$n" -v t=$((after - before)) -v hz="$ticks_per_s" 'BEGIN { printf "%.1f\n", t / hz * 1e6 / n }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

stet_bin="$2"  # what provenance's "Measured" names; both binaries are named below it
provenance "$(reproduce_command bench/e2e/tls_interleaved.sh "$1 $2" ROUNDS DURATION)" nginx openssl
echo "- before: $("$1" --version 2>/dev/null | head -n1); after: $("$2" --version 2>/dev/null | head -n1)"
echo
echo '| round | before full µs CPU/hs | after full | nginx full | before resumed µs CPU/hs | after resumed | nginx resumed |'
echo '|---|---|---|---|---|---|---|'
declare -A series=() m=()
for round in $(seq "$ROUNDS"); do
  row="| $round"
  for mode in -new -reuse; do
    for name in "${names[@]}"; do
      v="$(measure "$name" "$mode")"
      series[$name$mode]+="$v "
      row+=" | $v"
    done
  done
  echo "$row |"
done
row="| median"
for mode in -new -reuse; do
  for name in "${names[@]}"; do
    # shellcheck disable=SC2086  # the series is words
    m[$name$mode]="$(printf '%s\n' ${series[$name$mode]} | median)"
    row+=" | **${m[$name$mode]}**"
  done
done
echo "$row |"
echo
for mode in -new -reuse; do
  awk -v b="${m[before$mode]}" -v a="${m[after$mode]}" -v n="${m[nginx$mode]}" -v k="$mode" \
    'BEGIN { printf "%s: before ÷ nginx %.2f×, after ÷ nginx %.2f×\n", (k == "-new" ? "full TLS 1.2" : "resumed TLS 1.2"), b / n, a / n }'
done
