#!/usr/bin/env bash
# Installs what is missing, builds stet with its tests and runs the whole suite.
#   STET_SANITIZE=address,undefined scripts/test.sh   # the suite under ASan+UBSan
#   STET_SANITIZE=thread scripts/test.sh              # the suite under TSan
#   STET_TEST_FILTER='Router|Stop' scripts/test.sh    # only tests whose names match
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"

sanitize="${STET_SANITIZE:-}"
build="$root/build"
extras=ON
if [ -n "$sanitize" ]; then
  build="$root/build-${sanitize//,/-}"
  extras=OFF  # benchmarks and examples are not tests: no need to instrument them
fi
ctest_args=(--output-on-failure -j"$(nproc)")
if [ -n "${STET_TEST_FILTER:-}" ]; then
  ctest_args+=(-R "$STET_TEST_FILTER")
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSTET_BUILD_TESTS=ON -DSTET_BUILD_BENCH="$extras" -DSTET_BUILD_EXAMPLES="$extras" \
      -DSTET_SANITIZE="$sanitize" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest "${ctest_args[@]}"
