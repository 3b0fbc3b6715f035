#!/usr/bin/env python3
"""The include rules of docs/architecture.md, checked from the #include lines.

Data moves one way (socket -> connection -> parser -> request -> router ->
handler -> response -> writer -> socket), so some folders must never see
others. Each rule below names the files it binds, the includes they may not
reach, and why. A rule with `transitive` also follows the repository's own
headers, so an include chain through a third folder counts too.

Beyond these rules, every include from one src/ folder into another must be
allowed by the folder map (tests/rules/folder_map.py, rule 'folder-allow-list':
which folders each folder may include; it also says what a folder is), and the
folder-level include graph must be a DAG apart from the arrows the map allows
back up the order by name (rule 'folder-dag'). The folder table and order of
docs/architecture.md are written from the map (rule 'folder-map' checks the
map itself: a row per folder, real file names).

    tests/rules/include_rules.py [--root DIR]   # exit 1 on any violation
    tests/rules/include_rules.py --self-test    # each rule fires on a bad tree
    tests/rules/include_rules.py --write-docs   # rewrite the map block of docs/architecture.md
    tests/rules/include_rules.py --check-docs   # exit 1 when that block differs from the map

A violation is reported as `file:line: #include ... breaks rule 'name': why`.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import architecture_doc
from folder_map import BACK_EDGES, FOLDERS, Folder, folder


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


def folder_edges(graph: dict[str, list[Include]], skip=frozenset()) -> dict[tuple[str, str], list[Include]]:
    """The includes from one src/ folder into another, by (from, to); `skip` leaves arrows out."""
    edges: dict[tuple[str, str], list[Include]] = {}
    for includes in graph.values():
        for inc in includes:
            a, b = folder(inc.file), folder(inc.target)
            if a and b and a != b and (a, b) not in skip:
                edges.setdefault((a, b), []).append(inc)
    return edges


def check_map(root: Path, graph: dict[str, list[Include]], folders: tuple[Folder, ...],
              back_edges: dict[tuple[str, str], str]) -> list[str]:
    """The map itself: one row per folder on disk and no other, arrows between
    rows, arrows back up the order also allowed, file names that exist."""
    why = "tests/rules/folder_map.py has one row per src/ folder, and names only what is there"
    rows = {f.name: f for f in folders}
    on_disk: dict[str, set[str]] = {}
    for path in graph:
        if name := folder(path):
            rel = Path(path).relative_to(Path("src", name))
            names = on_disk.setdefault(name, set())
            names |= {rel.name, rel.name.split(".")[0]} if len(rel.parts) == 1 else {f"{rel.parts[0]}/"}
    errors = [f"src/{n}/: no row in FOLDERS (rule 'folder-map': {why})" for n in sorted(set(on_disk) - set(rows))]
    errors += [f"FOLDERS['{n}']: src/{n}/ has no sources (rule 'folder-map': {why})"
               for n in sorted(set(rows) - set(on_disk))]
    for f in folders:
        errors += [f"FOLDERS['{f.name}'] allows '{b}', which is no row (rule 'folder-map': {why})"
                   for b in f.may_include if b not in rows or b == f.name]
        for name in re.findall(r"`([^`]+)`", f.holds):
            if re.fullmatch(r"[a-z0-9_]+(\.[a-z]+)?/?", name) and name not in on_disk.get(f.name, set()):
                errors.append(f"FOLDERS['{f.name}'] names `{name}`, which is no file or folder of src/{f.name}/ "
                              f"(rule 'folder-map': {why}; write other words without backticks)")
    errors += [f"BACK_EDGES has {a} -> {b}, which FOLDERS['{a}'] does not allow (rule 'folder-map': {why})"
               for (a, b) in back_edges if b not in (rows[a].may_include if a in rows else ())]
    return errors


def check_allowed(graph: dict[str, list[Include]], folders: tuple[Folder, ...]) -> list[str]:
    """Every include from one folder into another is on the including folder's allow-list."""
    allowed = {f.name: set(f.may_include) for f in folders}
    errors = []
    for (a, b), includes in sorted(folder_edges(graph).items()):
        if b in allowed.get(a, {b}):  # a folder without a row: check_map says so, once
            continue
        may = f"only {', '.join(sorted(allowed[a]))}" if allowed[a] else "no other folder"
        errors += [f"{inc.file}:{inc.line}: #include {inc.text} breaks rule 'folder-allow-list': src/{a}/ may "
                   f"include {may}, not src/{b}/ (if the arrow is meant, add it to FOLDERS['{a}'] in "
                   "tests/rules/folder_map.py and run include_rules.py --write-docs)" for inc in includes]
    return errors


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


def check_cycles(graph: dict[str, list[Include]], back_edges=frozenset()) -> list[str]:
    edges = folder_edges(graph, frozenset(back_edges))
    nodes = {f for f in map(folder, graph) if f}
    errors = []
    for comp in strongly_connected(nodes, edges):
        cycles = simple_cycles(comp, edges)
        lines = [f"src/ folders {', '.join(comp)} include each other (rule 'folder-dag': the folder-level "
                 f"include graph of src/ is a DAG but for BACK_EDGES); cycles: {'; '.join(' -> '.join(c) for c in cycles)}; "
                 "an include on each edge:"]
        on_cycle = sorted({(a, b) for c in cycles for a, b in zip(c, c[1:])})
        for a, b in on_cycle:
            first, more = edges[(a, b)][0], len(edges[(a, b)]) - 1
            lines.append(f"  {first.file}:{first.line}: #include {first.text}  [{a} -> {b}]"
                         + (f" and {more} more" if more else ""))
        errors.append("\n".join(lines))
    return errors


def topological(graph: dict[str, list[Include]], back_edges=frozenset()) -> list[str]:
    """The folders, each after every folder it includes (ties in name order)."""
    edges = folder_edges(graph, frozenset(back_edges))
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


def check_all(root: Path, graph: dict[str, list[Include]], folders: tuple[Folder, ...] = FOLDERS,
              back_edges: dict[tuple[str, str], str] = BACK_EDGES) -> list[str]:
    return (check_rules(graph) + check_map(root, graph, folders, back_edges) + check_allowed(graph, folders)
            + check_cycles(graph, back_edges))


def doc_block(graph: dict[str, list[Include]]) -> str:
    return architecture_doc.render(FOLDERS, topological(graph, BACK_EDGES), BACK_EDGES)


def run(root: Path) -> int:
    graph = scan(root)
    errors = check_all(root, graph)
    for e in errors:
        print(e)
    n_inc = sum(len(v) for v in graph.values())
    if errors:
        print(f"include rules: {len(errors)} violation(s) in {len(graph)} files")
        return 1
    # An allowed arrow no include uses yet is no error (the map says what may be), but worth seeing.
    used = folder_edges(graph)
    for f in FOLDERS:
        for b in f.may_include:
            if (f.name, b) not in used:
                print(f"note: FOLDERS['{f.name}'] allows {b}, which no include uses")
    print(f"include rules: {len(RULES)} rules, the allow-lists of {len(FOLDERS)} folders and the folder DAG hold "
          f"over {len(graph)} files, {n_inc} includes")
    print(f"src/ folders, each including only those before it: {' < '.join(topological(graph, BACK_EDGES))}")
    return 0


def docs(root: Path, page: Path, write: bool) -> int:
    """--write-docs and --check-docs: the map block of the page against the map."""
    graph = scan(root)
    if errors := check_all(root, graph):
        print("\n".join(errors) + "\nthe include rules fail: fix them before writing the map into the page")
        return 1
    block = doc_block(graph)
    try:
        return check_page(page, block, write)
    except ValueError as e:  # the page lost its markers
        print(e)
        return 1


def check_page(page: Path, block: str, write: bool) -> int:
    if write:
        print(f"{page}: {'rewritten' if architecture_doc.write(page, block) else 'already up to date'}")
        return 0
    if diff := architecture_doc.differences(page, block):
        print("\n".join(diff))
        print(f"{page}: the folder map differs from tests/rules/folder_map.py and the includes; "
              "run tests/rules/include_rules.py --write-docs (rule 'docs-map')")
        return 1
    print(f"{page}: the folder table and order match the map and the includes")
    return 0


# A tree that obeys every rule, its map, and one file per rule that breaks it.
CLEAN = {
    "include/stet/api.hpp": "#pragma once\n#include <string>\n",
    "src/http/request_parser.hpp": "#pragma once\n#include <stet/api.hpp>\n",
    "src/http/response_writer.cpp": '#include "http/request_parser.hpp"\n',
    "src/route/table.cpp": "#include <stet/api.hpp>\n",
    "src/net/asio.hpp": "#pragma once\n#include <boost/asio/io_context.hpp>\n",
    "src/net/http1/connection.cpp": '#include "net/asio.hpp"\n#include "route/table.hpp"\n',
    "src/net/server/worker.cpp": '#include "net/http1/connection.hpp"\n',
    "src/net/http1/connection.hpp": '#pragma once\n#include "net/server/worker.hpp"\n',
    "src/net/server/worker.hpp": "#pragma once\n",
    "src/route/table.hpp": "#pragma once\n",
}
CLEAN_MAP = (
    Folder("net/server", "start", "`worker`", ("net/http1",)),
    Folder("net/http1", "the connection", "`connection`", ("net", "net/server", "route")),
    Folder("http", "wire", "`request_parser`, `response_writer.cpp`"),
    Folder("route", "routing", "`table`"),
    Folder("net", "Asio", "`asio.hpp`"),
)
CLEAN_BACK = {("net/http1", "net/server"): "a connection reaches its worker"}


@dataclass(frozen=True)
class Broken:
    path: str  # the file that breaks the rule
    text: str
    extra: dict[str, str]  # other files the case needs
    allow: tuple[tuple[str, str], ...] = ()  # arrows the case's map allows besides CLEAN_MAP's
    folders: tuple[Folder, ...] = ()  # rows the case's map has besides CLEAN_MAP's


BROKEN = {
    "route-static-no-net": Broken("src/static/mount.cpp", '#include <vector>\n#include "log/relay.hpp"\n',
                                  {"src/log/relay.hpp": '#pragma once\n#include "net/http1/connection.hpp"\n'},
                                  (("static", "log"), ("log", "net/http1")),
                                  (Folder("static", "files", "`mount.cpp`"), Folder("log", "log", "`relay`"))),
    "asio-only-in-net": Broken("src/route/timer.cpp", "#include <boost/asio/steady_timer.hpp>\n", {}),
    "parser-no-router": Broken("src/http/request_parser.cpp", '#include "route/table.hpp"\n', {},
                               (("http", "route"),)),
    "writer-no-routes": Broken("src/http/response_writer.hpp", "#include <stet/router.hpp>\n",
                               {"include/stet/router.hpp": "#pragma once\n"}),
    "public-no-src": Broken("include/stet/leak.hpp", '#include "../../src/route/table.hpp"\n', {}),
    "folder-dag": Broken("src/http/date.cpp", '#include "route/table.hpp"\n',
                         {"src/route/table.hpp": '#pragma once\n#include "http/request_parser.hpp"\n'},
                         (("http", "route"), ("route", "http"))),
    # No rule but the allow-list forbids the parser's folder the connection's.
    "folder-allow-list": Broken("src/http/date.cpp", '#include <string>\n#include "net/http1/connection.hpp"\n', {}),
    "folder-map": Broken("src/cache/entry.cpp", '#include "http/request_parser.hpp"\n', {}),
}


def case_map(case: Broken) -> tuple[Folder, ...]:
    folders = {f.name: f for f in CLEAN_MAP + case.folders}
    for a, b in case.allow:
        folders[a] = replace(folders[a], may_include=folders[a].may_include + (b,))
    return tuple(folders.values())


def write_tree(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def self_test_docs() -> list[str]:
    """--write-docs fills the marked block, --check-docs then passes, and an edit of the block fails."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "architecture.md"
        page.write_text(f"# prose\n{architecture_doc.BEGIN}\nstale\n{architecture_doc.END}\nmore prose\n")
        block = architecture_doc.render(CLEAN_MAP, ["net", "route", "net/http1", "net/server", "http"], CLEAN_BACK)
        if architecture_doc.differences(page, block) == []:
            failures.append("docs-map: a stale block passed")
        architecture_doc.write(page, block)
        text = page.read_text()
        if architecture_doc.differences(page, block) or not text.startswith("# prose\n") or \
                not text.endswith("\nmore prose\n") or "`net < route < net/http1 < net/server < http`" not in text:
            failures.append(f"docs-map: the written page does not check, or lost its prose: {text!r}")
        page.write_text(text.replace("`src/route/` | `table`", "`src/route/` | `trie`"))
        if not architecture_doc.differences(page, block):
            failures.append("docs-map: an edited table row passed")
        else:
            print("ok docs-map: an edited row of the written table is reported")
    return failures


def self_test_names() -> list[str]:
    """A row naming a file its folder does not have is reported (a file moved, its row not)."""
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), CLEAN)
        folders = tuple(replace(f, holds="`trie`") if f.name == "route" else f for f in CLEAN_MAP)
        errors = check_all(Path(tmp), scan(Path(tmp)), folders, CLEAN_BACK)
    if len(errors) != 1 or "'folder-map'" not in errors[0] or "`trie`" not in errors[0]:
        return [f"folder-map: expected `trie` reported as no file of src/route/, got {errors}"]
    print(f"ok folder-map: {errors[0]}")
    return []


def self_test() -> int:
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), CLEAN)
        if errors := check_all(Path(tmp), scan(Path(tmp)), CLEAN_MAP, CLEAN_BACK):
            failures.append(f"clean tree reported: {errors}")
    for rule, case in BROKEN.items():
        with tempfile.TemporaryDirectory() as tmp:
            write_tree(Path(tmp), {**CLEAN, **case.extra, case.path: case.text})
            errors = check_all(Path(tmp), scan(Path(tmp)), case_map(case), CLEAN_BACK)
            hit = [e for e in errors if f"'{rule}'" in e]
            where = case.path if rule != "folder-map" else "src/cache/"
            if not hit or len(errors) != len(hit) or (rule != "folder-dag" and where not in hit[0]):
                failures.append(f"{rule}: expected a violation in {where}, got {errors}")
            else:
                print(f"ok {rule}: {hit[0].splitlines()[0]}")
    failures += self_test_names() + self_test_docs()
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(BROKEN) + 3 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--self-test", action="store_true", help="check that every rule fires on a broken tree")
    parser.add_argument("--write-docs", action="store_true", help="rewrite the folder map block of the page")
    parser.add_argument("--check-docs", action="store_true", help="exit 1 when the page's folder map is stale")
    parser.add_argument("--docs", type=Path, help="the page (default: ROOT/docs/architecture.md)")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if args.write_docs or args.check_docs:
        return docs(args.root, args.docs or args.root / "docs" / "architecture.md", args.write_docs)
    return run(args.root)


if __name__ == "__main__":
    sys.exit(main())
