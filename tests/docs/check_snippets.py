#!/usr/bin/env python3
"""The programs the docs show are the ones the tests run: the first program of
README.md and of docs/getting-started.md is examples/hello/main.cpp (whose
smoke test stops it with SIGTERM while a request is in flight), and the CORS
line of getting-started is the one examples/complete_service/main.cpp uses
(whose smoke test sends a browser's preflight for a JSON POST).

    check_snippets.py SOURCE_DIR
"""

import os
import re
import sys


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def first_cpp_block(text, heading):
    """The first ```cpp block after `heading`."""
    start = text.find(heading)
    if start < 0:
        return None
    match = re.compile(r"```cpp\n(.*?)```", re.S).search(text, start)
    return match.group(1) if match else None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    hello = read(root, "examples/hello/main.cpp").split("\n")
    while hello and hello[0].startswith("//"):
        hello.pop(0)  # the file's own header comment
    hello = "\n".join(hello)
    failures = []
    for path, heading in (("README.md", "## Embed it"), ("docs/getting-started.md", "## 2. The first program")):
        block = first_cpp_block(read(root, path), heading)
        if block != hello:
            failures.append(f"{path}: the program under {heading!r} is not examples/hello/main.cpp; paste it again")

    guide = read(root, "docs/getting-started.md")
    cors = [line.strip() for line in guide.splitlines() if "stet::cors(" in line]
    service = read(root, "examples/complete_service/main.cpp")
    if len(cors) != 1:
        failures.append(f"docs/getting-started.md: expected one stet::cors( line, found {len(cors)}")
    elif cors[0] not in service:
        failures.append(f"docs/getting-started.md's CORS line is not in examples/complete_service/main.cpp: {cors[0]}")
    elif cors[0] not in read(root, "docs/complete-service.md"):
        failures.append("docs/complete-service.md does not show the CORS line of examples/complete_service/main.cpp")
    for failure in failures:
        print(f"FAIL {failure}")
    if not failures:
        print("docs snippets: the hello program (README, getting-started) and the CORS line are the tested ones")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
