#!/usr/bin/env python3
"""CMakePresets.json against the scripts that configure builds.

Checks that `cmake --list-presets` lists exactly dev, release, asan and tsan;
that scripts/test.sh configures with `--preset` and that each STET_SANITIZE
value it maps to a preset gets that preset's folder (build/,
build-address-undefined/, build-thread/: the names .ci/run and the docs use)
and sanitizers; that scripts/serve.sh and bench/e2e/lib.sh configure the
release preset and run from its folder. Exits 1 listing every mismatch.
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

WANTED = ["dev", "release", "asan", "tsan"]


def resolved(presets, name):
    """The preset `name` with what it inherits folded in (its own values win)."""
    p = presets[name]
    out = {"cacheVariables": {}}
    parents = p.get("inherits", [])
    for parent in [parents] if isinstance(parents, str) else parents:
        base = resolved(presets, parent)
        out["cacheVariables"].update(base["cacheVariables"])
        out.update({k: v for k, v in base.items() if k != "cacheVariables"})
    out.update({k: v for k, v in p.items() if k not in ("cacheVariables", "inherits", "hidden")})
    out["cacheVariables"].update(p.get("cacheVariables", {}))
    return out


def folder(preset):
    return preset.get("binaryDir", "").replace("${sourceDir}/", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--cmake", default="cmake")
    args = ap.parse_args()
    root = Path(args.root)
    errors = []

    listed = subprocess.run([args.cmake, "--list-presets"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        errors.append(f"cmake --list-presets failed: {listed.stderr.strip()}")
    names = re.findall(r'^\s+"([^"]+)"', listed.stdout, re.M)
    if names != WANTED:
        errors.append(f"cmake --list-presets lists {names}, wanted {WANTED}")

    data = json.loads((root / "CMakePresets.json").read_text())
    presets = {p["name"]: p for p in data["configurePresets"]}
    got = {n: resolved(presets, n) for n in WANTED if n in presets}

    test_sh = (root / "scripts/test.sh").read_text()
    if not re.search(r'^cmake -S "\$root" --preset "\$preset"', test_sh, re.M):
        errors.append("scripts/test.sh does not configure with --preset \"$preset\"")
    cases = re.findall(r'^\s+("?)([a-z,]*)\1\) preset=(\w+) build="\$root/([\w-]+)"', test_sh, re.M)
    if sorted(c[2] for c in cases) != ["asan", "dev", "tsan"]:
        errors.append(f"scripts/test.sh maps STET_SANITIZE to presets {[c[2] for c in cases]}, wanted dev, asan, tsan")
    for _, sanitize, name, build in cases:
        p = got.get(name)
        if p is None:
            errors.append(f"scripts/test.sh uses preset {name}, which CMakePresets.json lacks")
            continue
        if folder(p) != build:
            errors.append(f"preset {name} builds in {folder(p)!r}, scripts/test.sh runs ctest in {build!r}")
        expected = "build" if not sanitize else "build-" + sanitize.replace(",", "-")
        if build != expected:
            errors.append(f"STET_SANITIZE={sanitize!r} builds in {build!r}; .ci/run and the docs expect {expected!r}")
        if p["cacheVariables"].get("STET_SANITIZE", "") != sanitize:
            errors.append(f"preset {name} has STET_SANITIZE={p['cacheVariables'].get('STET_SANITIZE')!r}, "
                          f"scripts/test.sh means {sanitize!r}")
        if p["cacheVariables"].get("STET_BUILD_TESTS") != "ON":
            errors.append(f"preset {name} does not build the tests")

    release = got.get("release", {})
    if folder(release) != "build-release" or release.get("cacheVariables", {}).get("CMAKE_BUILD_TYPE") != "Release":
        errors.append("preset release is not a Release build in build-release/")
    for script in ("scripts/serve.sh", "bench/e2e/lib.sh"):
        text = (root / script).read_text()
        if "--preset release" not in text or "build-release/examples/stet-server" not in text:
            errors.append(f"{script} does not configure the release preset and run build-release/'s stet-server")

    for e in errors:
        print(f"presets: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
