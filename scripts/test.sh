#!/usr/bin/env bash
# Installs what is missing, builds stet with its tests and runs the whole suite.
#   STET_SANITIZE=address,undefined scripts/test.sh   # the same under ASan+UBSan
#   STET_SANITIZE=thread scripts/test.sh              # the multi-threaded tests under TSan
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"

sanitize="${STET_SANITIZE:-}"
build="$root/build"
ctest_args=()
if [ -n "$sanitize" ]; then
  build="$root/build-${sanitize//,/-}"
fi
if [ "$sanitize" = "thread" ]; then
  ctest_args=(-L "unit|integration")
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSTET_BUILD_TESTS=ON -DSTET_BUILD_BENCH=ON -DSTET_BUILD_EXAMPLES=ON \
      -DSTET_SANITIZE="$sanitize" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure -j"$(nproc)" "${ctest_args[@]}"
