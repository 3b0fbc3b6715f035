#!/usr/bin/env bash
# bench/e2e/compression.sh: server CPU per compressed response, stet-server vs
# nginx (Debian's, gzip and ngx_brotli), and the compressed sizes, in one run.
#
#   bench/e2e/compression.sh                   # DURATION=5 ROUNDS=3; prints a markdown table
#   DURATION=2 ROUNDS=1 bench/e2e/compression.sh
#   STET_SERVER=build/examples/stet-server bench/e2e/compression.sh
#
# Cells (wrk -t1 on core 1, the server pinned to core 0 with one worker, the
# request's Accept-Encoding set with wrk -H):
#   report.json  stet builds the ~60 KB document per request with its JSON
#                writer and compresses it; nginx compresses the same bytes
#                (saved from stet once) from a static location (gzip on / brotli on)
#   app.css      83 KiB: stet sends the variant made once in its static cache;
#                nginx compresses on the fly (gzip on / brotli on), and, as a
#                second row, sends precompressed siblings (gzip_static /
#                brotli_static; the .gz/.br files are stet's own bytes)
# Same parameters on both sides: gzip level 1 (nginx's default gzip_comp_level),
# brotli quality 6 and window 512k (ngx_brotli's defaults), min length 1024.
# Reported: median server CPU µs per response over the rounds, req/s, the
# ratio stet / nginx, and the body bytes each sends; and report.json without
# compression, which shows what building the document costs stet.
#
# Environment: DURATION=5 ROUNDS=3 CONNECTIONS=20 BASE_PORT=18580 STET_SERVER=path
# KEEP_TMP=1 keeps the temp dir. Installs nginx and its brotli modules
# (scripts/install-deps.sh --bench) when missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
DURATION="${DURATION:-5}"
ROUNDS="${ROUNDS:-3}"
CONNECTIONS="${CONNECTIONS:-20}"
BASE_PORT="${BASE_PORT:-18580}"
# shellcheck source=lib.sh
source "$here/lib.sh"
make_temp_dir
clk_tck="$(getconf CLK_TCK)"

"$root/scripts/install-deps.sh" --bench
build_stet
make_static_dir

stet_port="$BASE_PORT"
nginx_port=$((BASE_PORT + 1))
declare -A server_port=([stet]="$stet_port" [nginx]="$nginx_port")
no_prefix=()
start_stet stet "$stet_port" no_prefix

# The bytes nginx serves: stet's report (one deterministic document) and, for
# gzip_static/brotli_static, stet's own coded app.css in a directory stet does
# not serve (siblings there would be served by stet's precompressed path).
pre="$tmp/pre"
mkdir -p "$pre"
curl -sf "http://127.0.0.1:$stet_port/report.json" > "$static/report.json"
cp "$static/app.css" "$pre/app.css"
curl -sf -H 'Accept-Encoding: gzip' "http://127.0.0.1:$stet_port/static/app.css" > "$pre/app.css.gz"
curl -sf -H 'Accept-Encoding: br' "http://127.0.0.1:$stet_port/static/app.css" > "$pre/app.css.br"
chmod 755 "$pre"
chmod 644 "$static"/* "$pre"/*

dir="$tmp/nginx"
nginx_main_extra="load_module /usr/lib/nginx/modules/ngx_http_brotli_filter_module.so;
load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;"
nginx_http_extra="gzip on; gzip_comp_level 1; gzip_min_length 1024; gzip_vary on;
  gzip_types application/json text/css;
  brotli on; brotli_comp_level 6; brotli_window 512k; brotli_min_length 1024;
  brotli_types application/json text/css;"
nginx_server_extra="location = /report.json { root $static; }
    location /pre/ { alias $pre/; gzip_static on; brotli_static on; gzip off; brotli off; }"
write_nginx_conf "$dir" "$nginx_port" on
# shellcheck disable=SC2046  # nginx_command's words are meant to split
taskset -c 0 $(nginx_command "$dir") 2>>"$dir/stderr.log" &
server_pid[nginx]=$!
wait_listening "$!" "$nginx_port" || die "nginx did not start (see $dir/error.log)"
# stet-server was started by start_stet without taskset: pin its threads now.
taskset -a -p -c 0 "${server_pid[stet]}" >/dev/null

results="$tmp/results.tsv"  # round cell server coding requests cpu_us rps
: > "$results"
run_cell() {
  local round="$1" cell="$2" name="$3" path="$4" coding="$5" pid="${server_pid[$3]}" before after out line
  local url="http://127.0.0.1:${server_port[$name]}$path"
  before="$(cpu_ticks "$pid")"
  out="$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency --timeout 10s -s "$here/report.lua" \
    -H "Accept-Encoding: $coding" "$url" 2>&1)" || die "wrk failed against $name $url: $out"
  after="$(cpu_ticks "$pid")"
  [ "$round" = warmup ] && return 0
  line="$(grep '^e2e-result ' <<<"$out" | tail -n1)"
  [ -n "$line" ] || die "no result line from wrk against $name $url: $out"
  awk -v round="$round" -v cell="$cell" -v name="$name" -v coding="$coding" -v ticks=$((after - before)) \
      -v hz="$clk_tck" '
    { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
    END {
      req = v["requests"]; secs = v["duration_us"] / 1e6
      if (v["errors"] > 0) { print "errors against " name " " cell > "/dev/stderr"; exit 1 }
      printf "%s\t%s\t%s\t%s\t%d\t%.2f\t%.0f\n", round, cell, name, coding, req, ticks * 1e6 / hz / req, req / secs
    }' <<<"$line" >> "$results"
}

# cell id, server, path; each for gzip and br.
cells=(
  "report.json stet /report.json"
  "report.json nginx /report.json"
  "app.css stet /static/app.css"
  "app.css nginx /static/app.css"
  "app.css-static nginx /pre/app.css"
)
body_bytes() { curl -sf -H "Accept-Encoding: $2" "$1" | wc -c; }

for coding in gzip br; do
  for c in "${cells[@]}"; do
    read -r cell name path <<<"$c"
    got="$(curl -sf -o /dev/null -D - -H "Accept-Encoding: $coding" "http://127.0.0.1:${server_port[$name]}$path" |
      tr -d '\r' | awk -F': ' 'tolower($1) == "content-encoding" { print $2 }')"
    [ "$got" = "$coding" ] || die "$name $path answered Content-Encoding '$got' for $coding"
  done
done
log "${#cells[@]} cells x 2 codings x $ROUNDS rounds x ${DURATION}s, $CONNECTIONS connections"
for c in "${cells[@]}"; do
  read -r cell name path <<<"$c"
  for coding in gzip br; do run_cell warmup "$cell" "$name" "$path" "$coding"; done
done
for round in $(seq "$ROUNDS"); do
  log "round $round/$ROUNDS"
  for c in "${cells[@]}"; do
    read -r cell name path <<<"$c"
    for coding in gzip br; do run_cell "$round" "$cell" "$name" "$path" "$coding"; done
  done
  # What the report costs uncompressed: stet builds it, nginx sends a file.
  for name in stet nginx; do run_cell "$round" report.json "$name" /report.json identity; done
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
stat_of() {  # cell server coding column(6 cpu, 7 rps)
  awk -F'\t' -v c="$1" -v s="$2" -v k="$3" -v col="$4" '$2 == c && $3 == s && $4 == k { print $col }' "$results" | median
}

provenance "$(reproduce_command bench/e2e/compression.sh "" DURATION ROUNDS CONNECTIONS STET_SERVER)" nginx wrk
echo
echo "| body | coding | stet µs/resp | nginx µs/resp | stet / nginx | stet req/s | nginx req/s | stet bytes | nginx bytes |"
echo "|---|---|---|---|---|---|---|---|---|"
for pair in "report.json report.json /report.json /report.json" "app.css app.css /static/app.css /static/app.css" \
            "app.css app.css-static /static/app.css /pre/app.css"; do
  read -r stet_cell nginx_cell stet_path nginx_path <<<"$pair"
  for coding in gzip br; do
    s_cpu="$(stat_of "$stet_cell" stet "$coding" 6)"
    n_cpu="$(stat_of "$nginx_cell" nginx "$coding" 6)"
    s_rps="$(stat_of "$stet_cell" stet "$coding" 7)"
    n_rps="$(stat_of "$nginx_cell" nginx "$coding" 7)"
    s_bytes="$(body_bytes "http://127.0.0.1:$stet_port$stet_path" "$coding")"
    n_bytes="$(body_bytes "http://127.0.0.1:$nginx_port$nginx_path" "$coding")"
    label="$stet_cell"
    [ "$nginx_cell" = app.css-static ] && label="app.css (nginx ${coding/br/brotli}_static)"
    ratio="$(awk -v a="$s_cpu" -v b="$n_cpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    echo "| $label | $coding | $s_cpu | $n_cpu | ${ratio}× | $s_rps | $n_rps | $s_bytes | $n_bytes |"
  done
done
echo
echo "report.json uncompressed (Accept-Encoding: identity): stet $(stat_of report.json stet identity 6) µs/resp" \
  "(the JSON writer building it), nginx $(stat_of report.json nginx identity 6) µs/resp (a file)."
echo
echo "$(nginx -v 2>&1 | sed 's/^nginx version: //'), libnginx-mod-http-brotli-filter $(dpkg-query -W -f='${Version}' libnginx-mod-http-brotli-filter);" \
  "DURATION=$DURATION ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
