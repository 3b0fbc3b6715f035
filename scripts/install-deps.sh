#!/usr/bin/env bash
# Installs, from Debian 12 packages, exactly what stet needs to build, test,
# document and benchmark; skips what is already installed. Idempotent. Root, or sudo.
#   scripts/install-deps.sh              # build, test, benchmark (what scripts/test.sh and CI use)
#   scripts/install-deps.sh --build-only # only what builds the library and its examples (scripts/serve.sh)
#   scripts/install-deps.sh --fuzz       # and clang with libFuzzer (scripts/fuzz.sh)
#   scripts/install-deps.sh --tidy       # and clang-tidy with run-clang-tidy (scripts/tidy.sh)
#   scripts/install-deps.sh --bench      # and the benchmark peers: nginx (brotli, nchan), h2o; liburing
# --build-only combines with the others (--build-only --tidy: build and lint, no test peers).
set -euo pipefail

# The library and every example: a compiler, the build tools and the libraries
# stet links (DESIGN.md's dependency table).
build=(
  build-essential cmake ninja-build ccache pkg-config
  libboost1.81-dev node-llhttp libsimdjson-dev libfmt-dev libssl-dev
  zlib1g-dev libbrotli-dev libzstd-dev
  # the SQLite example's blocking query (examples/sqlite_users, docs/handlers.md)
  libsqlite3-dev
  # the Redis pub/sub backend (topics across instances, docs/events.md)
  libhiredis-dev
)
# The tests, the micro-benchmarks and the real peers the tests start.
tests=(
  libgtest-dev libgmock-dev libbenchmark-dev
  wrk curl python3
  # TLS tests and benchmarks: the openssl CLI (s_client, s_time, scripts/self-signed-cert.sh), nginx to compare
  openssl nginx
  # docs and browser tests: the API reference (scripts/docs.sh), headless
  # Chromium driven over the DevTools protocol (tests/browser/cdp.py)
  doxygen chromium python3-websockets
  # deployment tests with real peers (tests/deploy/): a reverse proxy, a
  # layer-4 balancer speaking PROXY v2, systemd-socket-activate
  haproxy systemd
  # topics across instances: the Redis the pub/sub tests start on loopback
  redis-server
  # bench/e2e/upload.sh's cpp-httplib peer (bench/e2e/peers: httplib.h and libcpp-httplib.so)
  libcpp-httplib-dev
)

packages=("${build[@]}")
with_tests=1
for arg in "$@"; do
  case "$arg" in
    --build-only) with_tests=0 ;;
    # libFuzzer and the sanitizer runtimes come with clang's runtime package,
    # which clang only recommends: name it, since recommends are not installed.
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    --tidy) packages+=(clang-tidy) ;;
    # The benchmark peers: nginx with brotli (compression) and nchan (pub/sub
    # over SSE/WebSocket), h2o; liburing for the io_uring experiment;
    # nlohmann/json for bench/compile's cpp-httplib service (it has no JSON).
    --bench) packages+=(nginx libnginx-mod-http-brotli-filter libnginx-mod-http-brotli-static
                        libnginx-mod-nchan h2o liburing-dev nlohmann-json3-dev) ;;
    *) echo "install-deps: unknown option $arg (--build-only, --fuzz, --tidy, --bench)" >&2; exit 2 ;;
  esac
done
if [ "$with_tests" = 1 ]; then
  packages+=("${tests[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "install-deps: need root or sudo to install: ${missing[*]}" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
