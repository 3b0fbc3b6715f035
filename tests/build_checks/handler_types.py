#!/usr/bin/env python3
"""Which types a typed route handler's parameters may have, checked with the
compiler: integer_handlers.cpp (every integer type, by value and by const&,
in each kind of handler) must compile with -Werror, and each refused type
must fail with exactly one error, the static_assert of stet::routing_api::add()
that names the accepted types.

    handler_types.py --cxx COMPILER -I DIR [-I DIR...]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGS = ["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Wshadow", "-Wold-style-cast", "-Werror"]
NOT_A_HANDLER = ("not a route handler: it must be callable as response(request&, A...), void(request&, responder, "
                 "A...) or task<response>(request&, A...), where each route parameter A (by value or const&) is "
                 "std::string_view, a signed integer type for {x:int}")
DOES_NOT_FIT = "the handler's parameters after request& do not fit the pattern"

# (what, parameter declaration, pattern, the static_assert text expected)
REFUSED = [
    ("double", "double x", '"/x/{x:int}"', NOT_A_HANDLER),
    ("bool", "bool x", '"/x/{x:int}"', NOT_A_HANDLER),
    ("char", "char x", '"/x/{x:int}"', NOT_A_HANDLER),
    ("std::string", "const std::string& x", '"/x/{x}"', NOT_A_HANDLER),
    ("unsigned for {x:int}", "unsigned x", '"/x/{x:int}"_route', DOES_NOT_FIT),
]

SNIPPET = """#include <stet/stet.hpp>
#include <string>
using namespace stet::literals;
int main() {{
  stet::router routes;
  routes.get({pattern}, [](stet::request&, [[maybe_unused]] {param}) {{ return stet::response::text("x"); }});
}}
"""


def compile_file(cxx, includes, path):
    cmd = [cxx, *FLAGS, *[f"-I{d}" for d in includes], path]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def errors_of(output):
    return [line for line in output.splitlines() if re.search(r"\berror\b:", line)]


def check_refused(cxx, includes, work, case):
    what, param, pattern, expected = case
    path = os.path.join(work, re.sub(r"\W+", "_", what) + ".cpp")
    with open(path, "w") as f:
        f.write(SNIPPET.format(pattern=pattern, param=param))
    out = compile_file(cxx, includes, path)
    errors = errors_of(out.stderr)
    if out.returncode == 0:
        return f"{what}: compiled, expected the static_assert"
    if len(errors) != 1 or expected not in errors[0]:
        return f"{what}: expected one error with {expected!r}, got {len(errors)}:\n" + "\n".join(errors[:10])
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", required=True)
    parser.add_argument("-I", dest="includes", action="append", required=True)
    args = parser.parse_args()
    failures = []
    out = compile_file(args.cxx, args.includes, os.path.join(HERE, "integer_handlers.cpp"))
    if out.returncode != 0:
        failures.append("integer_handlers.cpp does not compile:\n" + out.stderr[-4000:])
    else:
        print("ok: every integer type, by value and by const&, in plain, async and coroutine handlers")
    with tempfile.TemporaryDirectory(prefix="stet-handler-types-") as work:
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda c: check_refused(args.cxx, args.includes, work, c), REFUSED))
    for case, failure in zip(REFUSED, results):
        if failure:
            failures.append(failure)
        else:
            print(f"ok: {case[0]} refused with one static_assert")
    for f in failures:
        print(f"FAIL {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
