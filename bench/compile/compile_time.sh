#!/usr/bin/env bash
# Compile cost of a user's translation unit, stet against cpp-httplib
# (libcpp-httplib-dev): the README's hello (examples/hello/main.cpp against
# bench/compile/hello_httplib.cpp), and a ten-route JSON service
# (bench/compile/ten_routes_stet.cpp against ten_routes_httplib.cpp, whose JSON
# is nlohmann/json: scripts/install-deps.sh --bench). Each file is compiled
# RUNS times (default 5) with g++ -std=c++20 -O2 -c, no ccache.
# Prints the median wall and CPU (user + sys) seconds of each and the
# preprocessed size (lines). Never a test: a figure for docs/benchmarks.md.
#   bench/compile/compile_time.sh [BUILD_DIR]   # BUILD_DIR: where <stet/config.hpp> was generated (build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
runs="${RUNS:-5}"
cxx="${CXX:-g++}"
flags=(-std=c++20 -O2)
for header in httplib.h nlohmann/json.hpp; do
  [ -f "/usr/include/$header" ] || { echo "compile_time: /usr/include/$header missing (scripts/install-deps.sh --bench)" >&2; exit 1; }
done
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
  printf '%-20s wall %6.2f s   cpu %6.2f s   preprocessed %7d lines   (median of %d; %s)\n' "$name" \
    "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" \
    "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" "$lines" "$runs" "$("$cxx" --version | head -1)"
}

stet_include=(-I"$root/include" -I"$build/include")
measure "stet hello" "$root/examples/hello/main.cpp" "${stet_include[@]}"
measure "cpp-httplib hello" "$root/bench/compile/hello_httplib.cpp"
measure "stet 10 routes" "$root/bench/compile/ten_routes_stet.cpp" "${stet_include[@]}"
measure "cpp-httplib 10 routes" "$root/bench/compile/ten_routes_httplib.cpp"
