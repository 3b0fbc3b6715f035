#!/usr/bin/env bash
# Builds the API reference (Doxygen over include/stet/, detail/ excluded) into
# docs/api/ (not committed), and fails on any warning: every warning comes from
# a public header. `docs.api` in ctest runs it.
#   scripts/docs.sh [OUTPUT_DIR [CONFIG_HPP]]
# CONFIG_HPP is the generated <stet/config.hpp>; by default build/'s, or one
# configured into build-docs/ when there is no build/ yet.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/docs/api}"
config="${2:-}"
command -v doxygen >/dev/null || { echo "docs.sh: doxygen is missing: run scripts/install-deps.sh" >&2; exit 1; }
if [ -z "$config" ]; then
  config="$root/build/include/stet/config.hpp"
  if [ ! -f "$config" ]; then
    cmake -S "$root" -B "$root/build-docs" -DSTET_BUILD_TESTS=OFF -DSTET_BUILD_BENCH=OFF \
          -DSTET_BUILD_EXAMPLES=OFF >/dev/null
    config="$root/build-docs/include/stet/config.hpp"
  fi
fi
[ -f "$config" ] || { echo "docs.sh: $config does not exist" >&2; exit 1; }

mkdir -p "$out"
log="$out/doxygen-warnings.txt"
# The reference opens on docs/getting-started.md. Its links to the other guides
# become plain HTML links (relative to docs/api/, the default output), so
# Doxygen does not try to resolve them as pages of the reference.
mainpage="$out/mainpage/getting-started.md"
mkdir -p "$(dirname "$mainpage")"
sed -E 's#\[([^]]+)\]\(([A-Za-z0-9_.-]+\.md)(\#[^)]*)?\)#<a href="../\2\3">\1</a>#g' \
  "$root/docs/getting-started.md" >"$mainpage"
{
  cat "$root/Doxyfile"
  echo "OUTPUT_DIRECTORY = $out"
  echo "INPUT += $config $mainpage"
  echo "USE_MDFILE_AS_MAINPAGE = $mainpage"
  echo "STRIP_FROM_PATH += $(dirname "$(dirname "$config")")"
  echo "WARN_LOGFILE = $log"
} | (cd "$root" && doxygen -)

# Headers listed in scripts/docs-pending.txt are reported, not failed on.
pending="$(grep -v -e '^#' -e '^$' "$root/scripts/docs-pending.txt" || true)"
failing="$log.failing"
cp "$log" "$failing"
for header in $pending; do
  count="$(grep -c "/include/$header:" "$log" || true)"
  if [ "$count" -eq 0 ]; then
    echo "docs.sh: $header no longer warns: remove it from scripts/docs-pending.txt" >&2
  else
    echo "docs.sh: $count pending warnings in $header (scripts/docs-pending.txt)" >&2
    grep -v "/include/$header:" "$failing" >"$failing.next" || true
    mv "$failing.next" "$failing"
  fi
done
if [ -s "$failing" ]; then
  echo "docs.sh: Doxygen warnings in the public headers ($(wc -l <"$failing") lines; fix the doc comments):" >&2
  cat "$failing" >&2
  exit 1
fi
echo "docs.sh: API reference in $out/index.html"
