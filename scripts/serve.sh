#!/usr/bin/env bash
# Installs what is missing, builds stet-server (Release) and runs it on
# 127.0.0.1:8080 with the bundled example site. Extra arguments go to stet-server.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh" --build-only
cmake -S "$root" --preset release >/dev/null  # build-release/ (CMakePresets.json)
cmake --build "$root/build-release" --target stet-server -j"$(nproc)"
exec "$root/build-release/examples/stet-server" --host 127.0.0.1 --port 8080 "$@"
