#!/usr/bin/env python3
"""The names and forms #26 replaced keep working for one release:
deprecated_names.cpp, which uses each, must compile under -Werror with only
deprecations let through, and each must draw a deprecation warning that names
its replacement (so code using it deliberately compiles, and nobody uses it
unknowingly).

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
    "start_error": "config_error",
}
# Forms other than a renamed type: (what, the deprecation message's text).
REPLACED = [
    ("response::json(status, fill)", "is deprecated: the status goes last: json(fill, status)"),
    ("server_options::host", "is deprecated: say listeners = {{.address = \"HOST:PORT\"}}"),
    ("server_options::port", "is deprecated: say listeners = {{.address = \"HOST:PORT\"}}"),
    ("static_options::url_prefix", "is deprecated: static_url() uses the prefix given to stet::mount()"),
]


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
    for what, text in REPLACED:
        # host and port share their text: each of the two lines must draw its own warning.
        wanted = sum(1 for w, t in REPLACED if t == text)
        if sum(1 for w in warnings if text in w) < wanted:
            failures.append(f"{what}: no deprecation warning saying '{text}'")
    for f in failures:
        print(f"deprecated_names: {f}", file=sys.stderr)
    if not failures:
        print(f"ok: {len(RENAMED)} earlier names and {len(REPLACED)} earlier forms compile, each with a "
              "deprecation warning naming its replacement")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
