# shellcheck shell=bash
# scripts/lib/fuzz_targets.sh: the libFuzzer targets, their dictionaries and
# their build, shared by scripts/fuzz.sh (bounded, CI) and scripts/fuzz_long.sh
# (long runs). Sourced, not run; expects $root and `set -euo pipefail`.

# shellcheck disable=SC2034  # dict and all_targets are read by the callers

# Which dictionary (fuzz/dict/) each target reads.
declare -A dict=(
  [request_path]=http.dict [chunked]=http.dict
  [safe_path]=url.dict [router]=url.dict [form]=url.dict [cookie]=url.dict
  [accept_encoding]=accept_encoding.dict [multipart]=multipart.dict [websocket_frame]=websocket.dict
  [forwarded]=forwarded.dict [proxy_protocol]=proxy_protocol.dict
  [server]=server.dict [body_decoder]=body_decoder.dict [websocket_upgrade]=websocket_upgrade.dict
  [content_type]=content_type.dict [cors]=cors.dict
)
all_targets=(request_path chunked safe_path router cookie form accept_encoding multipart websocket_frame forwarded
             proxy_protocol server body_decoder websocket_upgrade content_type cors)

# Fails unless every name in "$@" is a known target.
check_fuzz_targets() {
  local t
  for t in "$@"; do
    if [ -z "${dict[$t]:-}" ]; then
      echo "fuzz: unknown target '$t' (known: ${all_targets[*]})" >&2
      exit 2
    fi
  done
}

# Builds the targets named in "$@" with clang (ASan + UBSan) into $1's build dir.
#   build_fuzz_targets BUILD_DIR JOBS TARGET...
build_fuzz_targets() {
  local build="$1" jobs="$2"
  shift 2
  export CCACHE_DIR="${CCACHE_DIR:-$root/.cache/ccache}"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSTET_BUILD_FUZZ=ON \
        -DSTET_BUILD_TESTS=OFF -DSTET_BUILD_BENCH=OFF -DSTET_BUILD_EXAMPLES=OFF -DSTET_INSTALL=OFF >/dev/null
  cmake --build "$build" -j"$jobs" --target "${@/%/_fuzz}"
}

# The sanitizer options every run uses: UBSan stops at the first report, with
# its stack. ASan zero-fills the shadow of large regions with memset rather
# than by remapping them (clear_shadow_mmap_threshold, 64 KiB by default): the
# body decoder's 8 MiB windows were remapped, system call and page faults, on
# every input (1.4x faster, same checks). Either may be added to by the caller.
export_sanitizer_options() {
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
  export ASAN_OPTIONS="clear_shadow_mmap_threshold=67108864${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
}
