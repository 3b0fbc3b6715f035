#!/usr/bin/env python3
"""The include rules of docs/architecture.md, checked from the #include lines.

Data moves one way (socket -> connection -> parser -> request -> router ->
handler -> response -> writer -> socket), so some folders must never see
others. Each rule below names the files it binds, the includes they may not
reach, and why. A rule with `transitive` also follows the repository's own
headers, so an include chain through a third folder counts too.

    tests/rules/include_rules.py [--root DIR]   # exit 1 on any violation
    tests/rules/include_rules.py --self-test    # each rule fires on a bad tree

A violation is reported as `file:line: #include ... breaks rule 'name': why`.
The folder-level include graph of src/ must also be a DAG: every cycle is
reported with one include line per edge.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Rule:
    name: str
    files: tuple[str, ...]  # globs (fnmatch: `*` also crosses `/`) of the files bound
    forbid: tuple[str, ...]  # globs of what they may not include: repo paths, or `<...>` for others
    why: str
    unless: tuple[str, ...] = ()  # globs of files exempt from `files`
    transitive: bool = True


RULES = (
    Rule("route-static-no-net", ("src/route/*", "src/static/*"), ("src/net/*",),
         "src/route and src/static never include src/net: the router never touches a socket"),
    Rule("asio-only-in-net", ("src/*", "include/*"), ("<boost/asio*", "src/net/asio.hpp"),
         "only src/net sees Asio (it alone gets the Asio precompiled header)", unless=("src/net/*",)),
    Rule("parser-no-router", ("src/http/request_parser.*",),
         ("src/route/*", "include/stet/router.hpp", "include/stet/route_params.hpp", "include/stet/detail/route_*"),
         "the parser never includes the router"),
    Rule("writer-no-routes", ("src/http/response_writer.*",),
         ("src/route/*", "include/stet/router.hpp", "include/stet/route_params.hpp", "include/stet/detail/route_*"),
         "the response writer never looks at routes"),
    Rule("public-no-src", ("include/*",), ("src/*",),
         "public headers never include src/: an installed header cannot reach it"),
)

SOURCE_GLOBS = ("src/**/*.hpp", "src/**/*.cpp", "include/**/*.hpp")
INCLUDE_LINE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


@dataclass(frozen=True)
class Include:
    file: str  # repo-relative path of the including file
    line: int
    text: str  # as written: "x/y.hpp" or <x/y.hpp>
    target: str  # repo-relative path when it resolves inside the repo, else `<...>`


def resolve(root: Path, file: str, quote: str, name: str) -> str:
    """Where the compiler finds `name`: quoted includes look beside the file,
    then in src/ and include/ (the library's include path); <stet/...> is the
    public tree; anything else is outside the repository."""
    candidates = []
    if quote == '"':
        candidates.append((root / file).parent / name)
    candidates += [root / "src" / name, root / "include" / name]
    for c in candidates:
        if c.is_file():
            return c.resolve().relative_to(root.resolve()).as_posix()
    return f"<{name}>"


def scan(root: Path) -> dict[str, list[Include]]:
    files = sorted({p.relative_to(root).as_posix() for g in SOURCE_GLOBS for p in root.glob(g)})
    graph: dict[str, list[Include]] = {}
    for f in files:
        found = []
        for n, line in enumerate((root / f).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            m = INCLUDE_LINE.match(line)
            if m:
                text = f"{m[1]}{m[2]}{'>' if m[1] == '<' else chr(34)}"
                found.append(Include(f, n, text, resolve(root, f, m[1], m[2])))
        graph[f] = found
    return graph


def matches(path: str, globs: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(path, g) for g in globs)


def reached(graph: dict[str, list[Include]], first: Include, forbid: tuple[str, ...]) -> list[str] | None:
    """The chain of targets from `first` to a forbidden include, or None."""
    seen: set[str] = set()
    stack = [(first.target, [first.target])]
    while stack:
        target, chain = stack.pop()
        if matches(target, forbid):
            return chain
        if target in seen or target not in graph:
            continue
        seen.add(target)
        stack += [(inc.target, chain + [inc.target]) for inc in reversed(graph[target])]
    return None


def check_rules(graph: dict[str, list[Include]]) -> list[str]:
    errors = []
    for rule in RULES:
        for f, includes in graph.items():
            if not matches(f, rule.files) or matches(f, rule.unless):
                continue
            for inc in includes:
                chain = reached(graph, inc, rule.forbid) if rule.transitive else (
                    [inc.target] if matches(inc.target, rule.forbid) else None)
                if chain is None:
                    continue
                via = f" (reaches {' -> '.join(chain)})" if len(chain) > 1 else ""
                errors.append(f"{f}:{inc.line}: #include {inc.text}{via} breaks rule '{rule.name}': {rule.why}")
    return errors


def folder(path: str) -> str | None:
    parts = path.split("/")
    return parts[1] if parts[0] == "src" and len(parts) > 2 else None


def folder_edges(graph: dict[str, list[Include]]) -> dict[tuple[str, str], list[Include]]:
    edges: dict[tuple[str, str], list[Include]] = {}
    for includes in graph.values():
        for inc in includes:
            a, b = folder(inc.file), folder(inc.target)
            if a and b and a != b:
                edges.setdefault((a, b), []).append(inc)
    return edges


def strongly_connected(nodes: set[str], edges) -> list[list[str]]:
    """Tarjan's algorithm; returns the components with more than one folder."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for (a, b) in edges:
            if a != v:
                continue
            if b not in index:
                visit(b)
                low[v] = min(low[v], low[b])
            elif b in stack:
                low[v] = min(low[v], index[b])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def simple_cycles(comp: list[str], edges) -> list[list[str]]:
    """Every elementary cycle inside one component, each from its least folder."""
    cycles = []

    def walk(start: str, v: str, path: list[str]) -> None:
        for b in sorted(b for (a, b) in edges if a == v and b in comp):
            if b == start:
                cycles.append(path + [start])
            elif b > start and b not in path:
                walk(start, b, path + [b])

    for start in comp:
        walk(start, start, [start])
    return cycles


def check_cycles(graph: dict[str, list[Include]]) -> list[str]:
    edges = folder_edges(graph)
    nodes = {f for f in map(folder, graph) if f}
    errors = []
    for comp in strongly_connected(nodes, edges):
        cycles = simple_cycles(comp, edges)
        lines = [f"src/ folders {', '.join(comp)} include each other (rule 'folder-dag': the folder-level "
                 f"include graph of src/ is a DAG); cycles: {'; '.join(' -> '.join(c) for c in cycles)}; "
                 "an include on each edge:"]
        on_cycle = sorted({(a, b) for c in cycles for a, b in zip(c, c[1:])})
        for a, b in on_cycle:
            first, more = edges[(a, b)][0], len(edges[(a, b)]) - 1
            lines.append(f"  {first.file}:{first.line}: #include {first.text}  [{a} -> {b}]"
                         + (f" and {more} more" if more else ""))
        errors.append("\n".join(lines))
    return errors


def topological(graph: dict[str, list[Include]]) -> list[str]:
    edges = folder_edges(graph)
    nodes = sorted({f for f in map(folder, graph) if f})
    order, done = [], set()

    def visit(v: str) -> None:
        done.add(v)
        for b in sorted(b for (a, b) in edges if a == v):
            if b not in done:
                visit(b)
        order.append(v)

    for v in nodes:
        if v not in done:
            visit(v)
    return order


def run(root: Path) -> int:
    graph = scan(root)
    errors = check_rules(graph) + check_cycles(graph)
    for e in errors:
        print(e)
    n_inc = sum(len(v) for v in graph.values())
    if errors:
        print(f"include rules: {len(errors)} violation(s) in {len(graph)} files")
        return 1
    print(f"include rules: {len(RULES)} rules and the folder DAG hold over {len(graph)} files, {n_inc} includes")
    print(f"src/ folders, each including only those before it: {' < '.join(topological(graph))}")
    return 0


# A tree that obeys every rule, and one file per rule that breaks it.
CLEAN = {
    "include/stet/api.hpp": "#pragma once\n#include <string>\n",
    "src/http/request_parser.hpp": "#pragma once\n#include <stet/api.hpp>\n",
    "src/http/response_writer.cpp": '#include "http/request_parser.hpp"\n',
    "src/route/table.cpp": "#include <stet/api.hpp>\n",
    "src/net/asio.hpp": "#pragma once\n#include <boost/asio/io_context.hpp>\n",
    "src/net/http1/connection.cpp": '#include "net/asio.hpp"\n#include "route/table.hpp"\n',
    "src/route/table.hpp": "#pragma once\n",
}
BROKEN = {
    "route-static-no-net": ("src/static/mount.cpp", '#include <vector>\n#include "log/relay.hpp"\n',
                            {"src/log/relay.hpp": '#pragma once\n#include "net/connection.hpp"\n',
                             "src/net/http1/connection.hpp": "#pragma once\n"}),
    "asio-only-in-net": ("src/route/timer.cpp", "#include <boost/asio/steady_timer.hpp>\n", {}),
    "parser-no-router": ("src/http/request_parser.cpp", '#include "route/table.hpp"\n', {}),
    "writer-no-routes": ("src/http/response_writer.hpp", "#include <stet/router.hpp>\n",
                         {"include/stet/router.hpp": "#pragma once\n"}),
    "public-no-src": ("include/stet/leak.hpp", '#include "../../src/route/table.hpp"\n', {}),
    "folder-dag": ("src/http/date.cpp", '#include "route/table.hpp"\n',
                   {"src/route/table.hpp": '#pragma once\n#include "http/request_parser.hpp"\n'}),
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def self_test() -> int:
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), CLEAN)
        if errors := check_rules(scan(Path(tmp))) + check_cycles(scan(Path(tmp))):
            failures.append(f"clean tree reported: {errors}")
    for rule, (path, text, extra) in BROKEN.items():
        with tempfile.TemporaryDirectory() as tmp:
            write_tree(Path(tmp), {**CLEAN, **extra, path: text})
            graph = scan(Path(tmp))
            errors = check_rules(graph) + check_cycles(graph)
            hit = [e for e in errors if f"'{rule}'" in e]
            if not hit or len(errors) != len(hit) or (rule != "folder-dag" and path not in hit[0]):
                failures.append(f"{rule}: expected a violation in {path}, got {errors}")
            else:
                print(f"ok {rule}: {hit[0].splitlines()[0]}")
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(BROKEN) + 1 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--self-test", action="store_true", help="check that every rule fires on a broken tree")
    args = parser.parse_args()
    return self_test() if args.self_test else run(args.root)


if __name__ == "__main__":
    sys.exit(main())
