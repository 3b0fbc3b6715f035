#!/usr/bin/env bash
# Installs what is missing, builds stet with its tests and runs the whole suite.
#   STET_SANITIZE=address,undefined scripts/test.sh   # the suite under ASan+UBSan
#   STET_SANITIZE=thread scripts/test.sh              # the suite under TSan
#   STET_TEST_FILTER='Router|Stop' scripts/test.sh    # only tests whose names match
#   STET_TEST_EXCLUDE='Timeouts' scripts/test.sh       # all but tests whose names match
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"

# One configure preset per kind of build (CMakePresets.json; rules.presets
# checks that each preset's folder is the one named here, which .ci/run and
# the other scripts use). The sanitized ones leave out the benchmarks and
# examples: they are not tests, no need to instrument them.
sanitize="${STET_SANITIZE:-}"
case "$sanitize" in
  "") preset=dev build="$root/build" ;;
  address,undefined) preset=asan build="$root/build-address-undefined" ;;
  thread) preset=tsan build="$root/build-thread" ;;
  *) echo "STET_SANITIZE: '$sanitize' is none of address,undefined or thread" >&2; exit 2 ;;
esac
# --no-tests=error: a filter that matches nothing (a suite renamed) fails
# rather than passing with zero tests run.
ctest_args=(--output-on-failure --no-tests=error -j"$(nproc)")
if [ -n "${STET_TEST_FILTER:-}" ]; then
  ctest_args+=(-R "$STET_TEST_FILTER")
fi
if [ -n "${STET_TEST_EXCLUDE:-}" ]; then
  ctest_args+=(-E "$STET_TEST_EXCLUDE")
fi

cmake -S "$root" --preset "$preset" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
# --no-tests=error only catches a filter that matches nothing at all; each
# alternative of a plain 'A|B|C' filter must match a test of its own.
if [ -n "${STET_TEST_FILTER:-}" ] && [[ "$STET_TEST_FILTER" != *[\(\)]* ]]; then
  IFS='|' read -ra alternatives <<< "$STET_TEST_FILTER"
  for alternative in "${alternatives[@]}"; do
    if ! ctest -N -R "$alternative" | grep -q '^Total Tests: [1-9]'; then
      echo "STET_TEST_FILTER: '$alternative' matches no test" >&2
      exit 1
    fi
  done
fi
ctest "${ctest_args[@]}"
