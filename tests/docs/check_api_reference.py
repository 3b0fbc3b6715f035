#!/usr/bin/env python3
"""The generated API reference (scripts/docs.sh, ctest docs.api) shows the
routing interface: every member that adds routes, middleware, WebSocket
routes, groups and mounts is listed, with its description, on the pages of
stet::router and stet::route_group; and the reference opens on the
getting-started guide.

    check_api_reference.py API_DIR
"""

import html
import os
import re
import sys

ROUTING = ["add", "get", "post", "put", "patch", "del", "before", "after", "use", "websocket", "group", "mount"]
ROUTER_OWN = ["freeze", "find", "handle", "url_for", "on_error"]
PAGES = {"classstet_1_1router.html": ROUTING + ROUTER_OWN, "classstet_1_1route__group.html": ROUTING}


def text(fragment):
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


def listed_members(page):
    """Names in the member summary, each with whether it carries a brief description."""
    members = {}
    for row, brief in re.findall(r'<td class="memItemRight"[^>]*>(.*?)</td></tr>\s*'
                                 r'(?:<tr class="memdesc[^"]*"><td class="mdescLeft">&#160;</td>'
                                 r'<td class="mdescRight">(.*?)</td>)?', page, re.S):
        name = re.match(r"[~\w]+", text(row))
        if name:
            members[name.group(0)] = members.get(name.group(0)) or bool(text(brief or ""))
    return members


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    api = sys.argv[1]
    failures = []
    for file, expected in PAGES.items():
        path = os.path.join(api, file)
        if not os.path.exists(path):
            failures.append(f"{file}: missing (did scripts/docs.sh run?)")
            continue
        with open(path, encoding="utf-8") as f:
            members = listed_members(f.read())
        for name in expected:
            if name not in members:
                failures.append(f"{file}: {name}() is not listed (found: {', '.join(sorted(members))})")
            elif not members[name]:
                failures.append(f"{file}: {name}() is listed without a description")
    with open(os.path.join(api, "index.html"), encoding="utf-8") as f:
        index = f.read()
    if "Getting started" not in index or "run_until_signal" not in index:
        failures.append("index.html is not the getting-started guide")
    for failure in failures:
        print(f"FAIL {failure}")
    if not failures:
        print(f"api reference: {len(ROUTING)} routing members on {len(PAGES)} pages, the guide as the main page")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
