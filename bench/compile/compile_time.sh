#!/usr/bin/env bash
# Compile cost of a user's translation unit: examples/hello/main.cpp (stet)
# against bench/compile/hello_httplib.cpp (cpp-httplib, libcpp-httplib-dev),
# each compiled RUNS times (default 5) with g++ -std=c++20 -O2 -c, no ccache.
# Prints the median wall and CPU (user + sys) seconds of each and the
# preprocessed size (lines). Never a test: a figure for docs/benchmarks.md.
#   bench/compile/compile_time.sh [BUILD_DIR]   # BUILD_DIR: where <stet/config.hpp> was generated (build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
runs="${RUNS:-5}"
cxx="${CXX:-g++}"
flags=(-std=c++20 -O2)
[ -f /usr/include/httplib.h ] || { echo "compile_time: /usr/include/httplib.h missing (libcpp-httplib-dev)" >&2; exit 1; }
[ -f "$build/include/stet/config.hpp" ] || { echo "compile_time: no $build/include/stet/config.hpp: configure first" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

measure() {  # name, source, extra flags...
  local name="$1" src="$2"
  shift 2
  local walls=() cpus=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$work/t" "$cxx" "${flags[@]}" "$@" -c "$src" -o "$work/o.o"
    read -r wall user sys < "$work/t"
    walls+=("$wall")
    cpus+=("$(echo "$user + $sys" | bc)")
  done
  local lines
  lines=$("$cxx" "${flags[@]}" "$@" -E "$src" | wc -l)
  printf '%-12s wall %6.2f s   cpu %6.2f s   preprocessed %7d lines   (median of %d; %s)\n' "$name" \
    "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" \
    "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" "$lines" "$runs" "$("$cxx" --version | head -1)"
}

measure stet "$root/examples/hello/main.cpp" -I"$root/include" -I"$build/include"
measure cpp-httplib "$root/bench/compile/hello_httplib.cpp"
