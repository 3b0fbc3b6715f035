#!/usr/bin/env python3
"""Only files that write JSON pay for the JSON writer (#26 point 8), checked with
the compiler:
- no public header but <stet/json.hpp> and the umbrella <stet/stet.hpp> brings
  in <stet/json.hpp> or <ranges> (a hello-world includes <stet/server.hpp> and
  <stet/run.hpp>, and would compile both for nothing);
- stet::response::json() called without <stet/json.hpp> fails with the one
  static_assert that names the header to include, and compiles once it is
  included (with the value and the fill forms).

    json_include.py --cxx COMPILER -I DIR [-I DIR...]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FLAGS = ["-std=c++20", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
ALLOWED = {"json.hpp", "stet.hpp"}  # the writer itself, and the header that includes everything
NEEDS_INCLUDE = "stet::response::json needs #include <stet/json.hpp> (or <stet/stet.hpp>)"
CALL = """#include <stet/response.hpp>
{extra}
stet::response answer() {{ return stet::response::json({argument}); }}
stet::response filled() {{
  return stet::response::json([](auto& w) {{ w.begin_object().member("id", 7).end_object(); }}, stet::status::created);
}}
"""


def public_headers(includes):
    for d in includes:
        folder = os.path.join(d, "stet")
        if os.path.isdir(folder) and os.path.exists(os.path.join(folder, "response.hpp")):
            return sorted(f for f in os.listdir(folder) if f.endswith(".hpp"))
    sys.exit("json_include: no include/stet/response.hpp under the -I folders")


def heavy_includes(cxx, flags, header):
    """The files among <stet/json.hpp> and <ranges> that `header` preprocesses."""
    out = subprocess.run([cxx, *flags, "-x", "c++", "-E", "-"], input=f"#include <stet/{header}>\n",
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        return {f"(does not preprocess: {out.stderr.strip()[:300]})"}
    marker = re.compile(r'^# \d+ "([^"]+)"', re.M)
    found = set()
    for path in marker.findall(out.stdout):
        if path.endswith("/stet/json.hpp"):
            found.add("<stet/json.hpp>")
        elif path.endswith("/ranges"):
            found.add("<ranges>")
    return found


def compile_snippet(cxx, flags, source):
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write(source)
        path = f.name
    try:
        return subprocess.run([cxx, *flags, "-fsyntax-only", path], capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", required=True)
    parser.add_argument("-I", dest="includes", action="append", required=True)
    args = parser.parse_args()
    flags = [*FLAGS, *[f"-I{d}" for d in args.includes]]
    failures = []

    headers = [h for h in public_headers(args.includes) if h not in ALLOWED]
    with ThreadPoolExecutor(2) as pool:
        for header, found in zip(headers, pool.map(lambda h: heavy_includes(args.cxx, flags, h), headers)):
            if found:
                failures.append(f"<stet/{header}> brings in {', '.join(sorted(found))}")

    without = compile_snippet(args.cxx, flags, CALL.format(extra="", argument="42"))
    if without.returncode == 0:
        failures.append("response::json compiled without <stet/json.hpp>")
    elif NEEDS_INCLUDE not in without.stderr:
        failures.append("response::json without <stet/json.hpp>: no static_assert naming the header:\n"
                        + without.stderr[-2000:])
    with_it = compile_snippet(args.cxx, flags, CALL.format(extra="#include <stet/json.hpp>", argument="42"))
    if with_it.returncode != 0:
        failures.append("response::json with <stet/json.hpp> does not compile:\n" + with_it.stderr[-2000:])
    for f in failures:
        print(f"json_include: {f}", file=sys.stderr)
    if not failures:
        print(f"ok: {len(headers)} public headers without <stet/json.hpp> or <ranges>; response::json names "
              "the header when it is missing and compiles when it is there")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
