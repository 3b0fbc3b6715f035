#!/usr/bin/env python3
"""Benchmark figures live in docs/benchmarks.md only; other pages link to it.

A figure written on two pages drifts (issue 29 found an idle connection at
"about 720 bytes" on one page and 0.75 KB on another, a report at 1.36 M
instructions and 1.30 M). So every measured performance figure sits in
docs/benchmarks.md, next to the binary it was measured on and the command that
reproduces it, and README.md, CHANGELOG.md and every other docs/*.md link there.

    tests/rules/figures_in_one_place.py [--root DIR]   # exit 1 on a figure outside
    tests/rules/figures_in_one_place.py --self-test    # each kind fires; bounds do not

What counts as a figure. The text of each page is cut into units (a table row;
else a paragraph or list item, joined across its line breaks, so a figure split
over two lines is still one), and a unit is reported for each match of:

  time        a number with ns, µs or us ("8.23 µs", "142 ns"): stet configures
              nothing in those units, so they are always a measured cost
  cpu-per     a number of ms of CPU per unit of work ("1.2 ms of CPU per MB",
              "0.48 ms/MB", "3 ms per request")
  rate        a number with req/s, requests/s, requests per second, hs/s,
              handshakes/s, msg/s, messages/s, MB/s, GB/s or ops/s
  instructions  a number (optionally with K or M) followed within three words by
              "instructions" or "Ir", or "instructions" followed within five
              words by a count written with a thousands separator or K/M
              ("7,684 instructions", "instructions (1.93 M → 1.36 M)")
  profile-share  a share of a profile: a percentage "of its CPU" or "in the
              kernel/libc/libcrypto/stet" ("73 % of its CPU", "55 % in libcrypto")
  syscall-count  a system call named with a count ("epoll_wait 0.02",
              "recvfrom 2"): system calls per request are measured figures
  peer-ratio  a ratio against a peer server or library: a number with × or x
              followed by nginx, h2o, Beast, RESTinio, uWebSockets, bun,
              httplib, floor or fmt ("0.92× nginx's")
  connection-memory  a byte size (B, bytes, KB, KiB, MB, MiB) within 60
              characters after "idle ... connection" or "per connection", or
              followed by "per (idle) connection" ("an idle keep-alive
              connection costs about 720 bytes")

  table       a table whose header names such a unit for a column ("ns/dispatch",
              "µs CPU/req", "instructions / request", "req/s") and a row with a
              number in that column: the cells carry the figures, the unit is
              in the header (reported at the header)

A size preceded by "at most", "up to", "≤", "<", "limit" or "budget" is a
bound the code enforces (and a test asserts), not a measurement: it is not a
figure. Sizes, timeouts and limits in ms, s, KiB or MiB that configure stet are
not figures either (none of the kinds above matches them).

Links into the page must land: every `benchmarks.md#anchor` on the pages
(docs/architecture.md included) names a heading of docs/benchmarks.md (GitHub's
anchors: lower case, punctuation dropped, spaces as hyphens).

PENDING lists figures on pages this change may not edit, each by its exact
text: they are reported as pending, never as failures, and an entry whose
text is gone fails the check, so the list empties as the pages are fixed.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HOME = "docs/benchmarks.md"
PAGES = ("README.md", "CHANGELOG.md", "docs/*.md")

NUM = r"(?<![\w.])[−-]?\d[\d,]*(?:\.\d+)?"
PEERS = r"(?:nginx|h2o|beast|restinio|uwebsockets|bun|cpp-httplib|httplib|floor|fmt)\b"
BYTES = r"\s*(?:B|bytes|KB|KiB|MB|MiB)\b"
BOUND = re.compile(r"(?:at most|up to|under|below|target|≤|<|limit(?:ed)? (?:of|to|at)|budget(?: of)?)\s*\(?~?\s*$", re.I)
# connection-memory: every size in the 60 characters (within one sentence)
# after "idle ... connection" or "per connection", and a size right before
# "per (idle) connection".
CONNECTION = re.compile(r"idle\b[^.]{0,40}?\bconnection|per connection", re.I)
SIZE = re.compile(NUM + BYTES)
SIZE_PER_CONNECTION = re.compile("(" + NUM + BYTES + r")\s+(?:of\s+\w+\s+)?per\s+(?:idle\s+)?connection", re.I)

KINDS = {
    "time": re.compile(NUM + r"\s*(?:ns|µs|μs|us)(?![\w/])"),
    "cpu-per": re.compile(NUM + r"\s*ms(?:\s+of\s+CPU)?\s*(?:/|per\s+)(?:MB|request|response|handshake|message)\b",
                          re.I),
    "rate": re.compile(NUM + r"\s*(?:req/s|requests/s|requests per second|hs/s|handshakes/s|msg/s|messages/s"
                       r"|MB/s|GB/s|ops/s)", re.I),
    "instructions": re.compile(NUM + r"\s*[KM]?\s+(?:\S+\s+){0,3}?(?:instructions|Ir)\b"
                               r"|\binstructions\b\W+(?:\S+\W+){0,5}?\d{1,3}(?:,\d{3})+(?!\d)"
                               r"|\binstructions\b\W+(?:\S+\W+){0,5}?\d+(?:\.\d+)?\s*[KM]\b"),
    "profile-share": re.compile(NUM + r"\s*%\s+(?:of\s+(?:its|the|a|stet's|the server's)\s+(?:server's\s+)?CPU"
                                r"|in\s+(?:the\s+)?(?:kernel|libc|libcrypto|stet))", re.I),
    "syscall-count": re.compile(r"\b(?:recvfrom|recvmsg|sendto|sendmsg|writev|epoll_wait|epoll_ctl|sendfile|newfstatat"
                                r"|setsockopt|io_uring_enter)`?\s+" + NUM.replace("(?<![\w.])", "") + r"(?![\w.])"),
    "peer-ratio": re.compile(NUM + r"\s*[×x]\s*(?:the\s+)?" + PEERS, re.I),
}

# Figures waiting for their page to link to docs/benchmarks.md instead:
# (page, exact text of the match). An entry that no longer matches fails, so
# the list empties as pages are fixed.
PENDING: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Finding:
    page: str
    line: int
    kind: str
    text: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.kind} figure '{self.text}'"


def units(text: str):
    """Yields (first line number, text) of each table row, paragraph or list item."""
    buf: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        new_unit = not stripped or stripped.startswith(("|", "#", "- ", "* ", "```")) or re.match(r"\d+\. ", stripped)
        if new_unit and buf:
            yield start, " ".join(buf)
            buf = []
        if not stripped:
            continue
        if stripped.startswith(("|", "#", "```")):
            yield number, stripped
            continue
        if not buf:
            start = number
        buf.append(stripped)
    if buf:
        yield start, " ".join(buf)


def is_bound(unit: str, position: int) -> bool:
    """True when the figure at `position` is stated as a limit ("at most 6 KiB")."""
    return BOUND.search(unit[max(0, position - 30):position]) is not None


def connection_sizes(unit: str):
    """The (position, text) of each connection-memory size in a unit."""
    seen = set()
    for trigger in CONNECTION.finditer(unit):
        window = unit[trigger.end():trigger.end() + 60].split(". ")[0]
        for m in SIZE.finditer(window):
            seen.add((trigger.end() + m.start(), m.group(0)))
    for m in SIZE_PER_CONNECTION.finditer(unit):
        seen.add((m.start(1), m.group(1)))
    return sorted(seen)


UNIT_COLUMN = re.compile(r"(?:^|[\s(/])(?:ns|µs|μs|us|req/s|hs/s|MB/s|ms/MB|instructions|Ir|share of [\w ]*CPU"
                         r"|syscalls)(?:$|[\s)/,])", re.I)


def table_figures(page: str, text: str) -> list[Finding]:
    """A table with a unit in a column header and a number under it."""
    found = []
    rows: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.splitlines() + [""], 1):
        stripped = line.strip()
        if stripped.startswith("|"):
            rows.append((number, [c.strip() for c in stripped.strip("|").split("|")]))
            continue
        if len(rows) > 2:
            header_line, header = rows[0]
            columns = [i for i, cell in enumerate(header) if UNIT_COLUMN.search(cell)]
            data = [cells for _, cells in rows[2:]]
            hit = [header[i] for i in columns if any(i < len(c) and re.search(r"\d", c[i]) for c in data)]
            if hit:
                found.append(Finding(page, header_line, "table", f"column '{hit[0]}'"))
        rows = []
    return found


def figures(page: str, text: str) -> list[Finding]:
    found = []
    for line, unit in units(text):
        for kind, pattern in KINDS.items():
            found += [Finding(page, line, kind, m.group(0).strip()) for m in pattern.finditer(unit)
                      if not is_bound(unit, m.start())]
        found += [Finding(page, line, "connection-memory", size.strip()) for position, size in connection_sizes(unit)
                  if not is_bound(unit, position)]
    return found + table_figures(page, text)


def pages(root: Path, keep_home: bool = False) -> list[Path]:
    seen = {}
    for pattern in PAGES:
        for p in sorted(root.glob(pattern)):
            seen[p.relative_to(root).as_posix()] = p
    if not keep_home:
        seen.pop(HOME, None)
    return [seen[k] for k in sorted(seen)]


LINK = re.compile(r"benchmarks\.md#([\w-]+)")


def anchor(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    out, fenced = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#+\s+(.*)", line)):
            out.add(anchor(m.group(1)))
    return out


def check_links(root: Path) -> list[str]:
    home = root / HOME
    targets = anchors(home.read_text(encoding="utf-8")) if home.exists() else set()
    errors = []
    for path in pages(root, keep_home=True):
        page = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in LINK.finditer(line):
                if m.group(1) not in targets:
                    errors.append(f"{page}:{number}: link to {HOME}#{m.group(1)}: no such heading there")
    return errors


def check(root: Path, pending=PENDING) -> tuple[list[str], list[str]]:
    """Returns (errors, notes)."""
    errors, notes = check_links(root), []
    left = set(pending)
    for path in pages(root):
        page = path.relative_to(root).as_posix()
        for f in figures(page, path.read_text(encoding="utf-8")):
            key = next((p for p in pending if p[0] == page and p[1] in _unit_at(path, f.line)), None)
            if key:
                left.discard(key)
                notes.append(f"pending: {f} (listed in PENDING)")
            else:
                errors.append(f"{f}: benchmark figures live in {HOME}; link there instead")
    for page, text in sorted(left):
        errors.append(f"{page}: PENDING entry '{text}' no longer matches a figure there: remove it")
    return errors, notes


def _unit_at(path: Path, line: int) -> str:
    for start, unit in units(path.read_text(encoding="utf-8")):
        if start == line:
            return unit
    return ""


# ---------------------------------------------------------------- self-test --
FLAGGED = {
    "time": ["server CPU per request: 8.23 µs against nginx's 8.39", "Accept-Encoding parsed in 142 ns"],
    "cpu-per": ["about 1.2 ms of CPU per MB here", "stet 0.48 ms/MB"],
    "rate": ["stet served 111,688 req/s", "a full handshake: 644 hs/s", "1,018,979 messages/s"],
    "instructions": ["`/plaintext` 7,684 instructions against 7,717", "the report costs 29% fewer instructions to\n"
                     "build (1.93 M → 1.36 M)", "Ir per request: 7559 Ir"],
    "profile-share": ["73% of its CPU is in the kernel", "55 % in libcrypto"],
    "syscall-count": ["recvfrom 2, sendto 1, epoll_wait 2 per request", "plus a share of `epoll_wait` 0.02"],
    "peer-ratio": ["a full TLS 1.3 handshake costs 0.92× nginx's instructions", "1.6x fmt", "0.09× Beast"],
    "table": ["| routes | stet ns/dispatch | allocs |\n|---:|---:|---:|\n| 10 | 61 | 0 |\n",
              "| server | instructions / request |\n|---|---:|\n| stet | 7679 |\n"],
    "connection-memory": ["an idle keep-alive connection costs about\n720 bytes", "15.5 KB per idle connection",
                          "| idle keep-alive HTTP connection | under 1 KiB of heap (750 B measured) |"],
}
NOT_FLAGGED = [
    "an idle connection holds at most 6 KiB of buffers",
    "the header timeout is 10000 ms; bodies up to 8 GiB",
    "`settle_time` (100 ms) and `max_connections` 10000",
    "a 32 KiB block; an upload limit of 1 GiB per connection",
    "an idle keep-alive HTTP connection: under 1 KiB of heap",
    "RFC 9112 section 7.1.1, 255-byte names, HTTP/1.1 and 2 workers",
    "see [the figures](benchmarks.md#idle-memory)",
    "| flag | default (ms) |\n|---|---:|\n| `--header-timeout-ms` | 10000 |\n",
    "up to 50 % of the budget; the `epoll_wait` loop; recvmsg calls",
    "| column | what it means |\n|---|---|\n| µs CPU/req | server CPU per request |\n",
]


def self_test() -> int:
    failures = []
    for kind, texts in FLAGGED.items():
        for text in texts:
            kinds = {f.kind for f in figures("x.md", text)}
            if kind not in kinds:
                failures.append(f"{kind} not found in {text!r} (found {sorted(kinds)})")
            else:
                print(f"ok {kind}: {text!r}")
    for text in NOT_FLAGGED:
        if found := figures("x.md", text):
            failures.append(f"not a figure, but reported: {[str(f) for f in found]}")
        else:
            print(f"ok not a figure: {text!r}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "docs").mkdir()
        (root / HOME).write_text("stet: 8.23 µs, 111,688 req/s\n", encoding="utf-8")
        (root / "README.md").write_text("Fast: see [benchmarks](docs/benchmarks.md).\n", encoding="utf-8")
        (root / "docs" / "old.md").write_text("Legacy: about 720 bytes per idle connection.\n", encoding="utf-8")
        errors, _ = check(root, pending=(("docs/old.md", "720 bytes per idle connection"),))
        if errors:
            failures.append(f"a pending figure failed the check: {errors}")
        (root / "CHANGELOG.md").write_text("- Faster: /plaintext 8.23 µs.\n", encoding="utf-8")
        errors, _ = check(root, pending=(("docs/old.md", "720 bytes per idle connection"),))
        if not any(e.startswith("CHANGELOG.md:1: time figure") for e in errors):
            failures.append(f"a figure in CHANGELOG.md passed: {errors}")
        (root / "CHANGELOG.md").write_text("- Faster (docs/benchmarks.md).\n", encoding="utf-8")
        (root / "docs" / "old.md").write_text("Now a link.\n", encoding="utf-8")
        errors, _ = check(root, pending=(("docs/old.md", "720 bytes per idle connection"),))
        if not any("no longer matches" in e for e in errors):
            failures.append(f"a stale PENDING entry passed: {errors}")
        if check(root, pending=())[0]:
            failures.append(f"figures in {HOME} itself were reported")
        (root / HOME).write_text("## Idle memory (per connection)\n", encoding="utf-8")
        (root / "README.md").write_text("[a](docs/benchmarks.md#idle-memory-per-connection)\n", encoding="utf-8")
        if check(root, pending=())[0]:
            failures.append(f"a link to an existing heading was reported: {check(root, pending=())[0]}")
        (root / "README.md").write_text("[a](docs/benchmarks.md#idle-memory-per-tls-connection)\n", encoding="utf-8")
        if not any("no such heading" in e for e in check(root, pending=())[0]):
            failures.append("a link to a missing heading passed")
    for f in failures:
        print(f"FAIL {f}")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


def run(root: Path) -> int:
    errors, notes = check(root)
    for n in notes:
        print(n)
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} problem(s): move each figure to {HOME} (with its binary and command) and link it; fix each link")
        return 1
    print(f"ok: no benchmark figure outside {HOME}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--self-test", action="store_true", help="check that each kind fires and bounds do not")
    args = parser.parse_args()
    return self_test() if args.self_test else run(args.root)


if __name__ == "__main__":
    sys.exit(main())
