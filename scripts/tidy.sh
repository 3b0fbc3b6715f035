#!/usr/bin/env bash
# Runs clang-tidy with the repository's .clang-tidy over src/ and include/ (the
# public headers through the checkheaders translation units, one per header),
# in parallel, from the build's compile_commands.json. Prints every warning
# once (a header's warning is reported by each file including it), then the
# count per check and per file. Exits 1 on any warning or error.
#   scripts/tidy.sh                  # everything
#   scripts/tidy.sh src/log src/crypto   # only files under these paths (and their warnings only)
#   TIDY_BUILD=build-x TIDY_JOBS=4 scripts/tidy.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TIDY_BUILD:-$root/build}"
jobs="${TIDY_JOBS:-$(nproc)}"
"$root/scripts/install-deps.sh" --tidy
tidy_runner="$(command -v run-clang-tidy || command -v run-clang-tidy-14)"

# The same configuration as scripts/test.sh, its dev preset (checkheaders needs the tests on),
# so the compile commands are the ones CI builds.
if [ ! -f "$build/compile_commands.json" ]; then
  cmake -S "$root" --preset dev -B "$build" >/dev/null
fi

# clang cannot read GCC's precompiled header: drop the PCH flags. Every file
# includes the Asio headers it uses itself, so nothing goes missing.
db="$(mktemp -d)"
log="$db/tidy.log"
trap 'rm -rf "$db"' EXIT
python3 - "$build/compile_commands.json" "$db/compile_commands.json" <<'EOF'
import json, re, sys
entries = json.load(open(sys.argv[1]))
for e in entries:
    e["command"] = re.sub(r" -Winvalid-pch| -include \S+cmake_pch\.hxx", "", e["command"])
json.dump(entries, open(sys.argv[2], "w"))
EOF

only=""
if [ $# -gt 0 ]; then
  files=()
  for p in "$@"; do
    files+=("$(cd "$root" && realpath -m "$p")")
    only="$only $(cd "$root" && realpath -m --relative-to=. "$p")"
  done
else
  files=("$root/src/" "$build/checkheaders/")
fi

start=$(date +%s)
"$tidy_runner" -quiet -p "$db" -j "$jobs" -header-filter="^$root/(src|include/stet)/" "${files[@]}" >"$log" 2>&1 || true
elapsed=$(($(date +%s) - start))
if ! grep -Eq '^clang-tidy(-[0-9]+)? ' "$log"; then
  cat "$log" >&2
  echo "tidy.sh: clang-tidy ran on no file (paths: ${files[*]})" >&2
  exit 2
fi

python3 - "$log" "$root" "$elapsed" $only <<'EOF'
import collections, os, re, sys
log, root, elapsed, only = sys.argv[1], sys.argv[2], sys.argv[3], tuple(sys.argv[4:])
diag = re.compile(r"^(/[^:\s]+):(\d+):(\d+): (warning|error): (.*?)(?: \[([\w.,-]+)\])?$")
seen, by_check, by_file = set(), collections.Counter(), collections.Counter()
ansi = re.compile(r"\x1b\[[0-9;]*m")  # run-clang-tidy asks for colour
for line in open(log, errors="replace"):
    m = diag.match(ansi.sub("", line).rstrip("\n"))
    if not m:
        continue
    path, row, col, kind, text, check = m.groups()
    path = os.path.relpath(os.path.realpath(path), root)
    if only and not any(path == o or path.startswith(o.rstrip("/") + "/") or path.startswith(o + ".") for o in only):
        continue
    key = (path, row, col, check or kind)
    if key in seen:
        continue
    seen.add(key)
    print(f"{path}:{row}:{col}: {kind}: {text} [{check or kind}]")
    by_check[check or kind] += 1
    by_file[path] += 1
if seen:
    print(f"\nclang-tidy: {len(seen)} diagnostics in {len(by_file)} files ({elapsed} s)")
    print("by check:")
    for c, n in by_check.most_common():
        print(f"  {n:4} {c}")
    print("by file:")
    for f, n in by_file.most_common():
        print(f"  {n:4} {f}")
    sys.exit(1)
print(f"clang-tidy: no warnings ({elapsed} s)")
EOF
