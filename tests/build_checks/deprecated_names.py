#!/usr/bin/env python3
"""The option structs renamed by #26 keep their earlier names for one release:
deprecated_names.cpp, which uses each, must compile under -Werror with only
deprecations let through, and each earlier name must draw a deprecation
warning that names its replacement (so code using it deliberately compiles,
and nobody uses it unknowingly).

    deprecated_names.py --cxx COMPILER -I DIR [-I DIR...]
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
         "-Wno-error=deprecated-declarations"]
RENAMED = {
    "compression_settings": "compression_options",
    "settings": "writer_options",
    "multipart_limits": "multipart_options",
    "multipart_form_limits": "multipart_form_options",
    "websocket_compression": "websocket_compression_options",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", required=True)
    parser.add_argument("-I", dest="includes", action="append", required=True)
    args = parser.parse_args()
    cmd = [args.cxx, *FLAGS, *[f"-I{d}" for d in args.includes], os.path.join(HERE, "deprecated_names.cpp")]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    failures = []
    if out.returncode != 0:
        failures.append("deprecated_names.cpp does not compile:\n" + out.stderr[-4000:])
    warnings = [line for line in out.stderr.splitlines() if "deprecated" in line and "warning" in line]
    for old, new in RENAMED.items():
        # GCC: "'using OLD = struct stet::NEW' is deprecated: renamed NEW"; clang: "'OLD' is deprecated: ..."
        said = re.compile(rf"[‘']({re.escape(old)}|using {re.escape(old)} = [^‘’']*)[’'] is deprecated: renamed {new}\b")
        if not any(said.search(w) for w in warnings):
            failures.append(f"{old}: no deprecation warning naming {new}")
    for f in failures:
        print(f"deprecated_names: {f}", file=sys.stderr)
    if not failures:
        print(f"ok: {len(RENAMED)} earlier names compile, each with a deprecation warning naming its replacement")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
