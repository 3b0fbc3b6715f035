"""The folder table and the folder order of docs/architecture.md, written from
tests/rules/folder_map.py and the include graph. Only the block between the
two markers is generated; the prose around it is edited by hand.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from folder_map import Folder

BEGIN = ("<!-- folder map: written by `tests/rules/include_rules.py --write-docs` from tests/rules/folder_map.py "
         "and the includes; ctest docs.architecture_map fails when it differs -->")
END = "<!-- end of folder map -->"


def render(folders: tuple[Folder, ...], order: list[str], back_edges: dict[tuple[str, str], str]) -> str:
    """The block between the markers (markers excluded)."""
    lines = ["| step | folder | what is there | may include |", "|---|---|---|---|"]
    for f in folders:
        allowed = ", ".join(f"`{b}`" for b in sorted(f.may_include)) or "no other folder"
        lines.append(f"| {f.step} | `src/{f.name}/` | {f.holds} | {allowed} |")
    lines += [
        "",
        "Each folder includes only folders before it in this order (`ctest`, see the last section):",
        f"`{' < '.join(order)}`.",
    ]
    if back_edges:
        lines.append("The arrows back up the order, each allowed by name: "
                     + "; ".join(f"`{a}` → `{b}` ({why})" for (a, b), why in sorted(back_edges.items())) + ".")
    return "\n".join(lines)


def split(text: str, path: Path) -> tuple[str, str, str]:
    """The page through the BEGIN line, the block, and the rest from the END line on."""
    head, sep, rest = text.partition(BEGIN + "\n")
    block, sep2, tail = rest.partition(END)
    if not sep or not sep2 or (block and not block.endswith("\n")):
        raise ValueError(f"{path}: the folder map markers are missing; put these two lines where the table goes:\n"
                         f"{BEGIN}\n{END}")
    return head + sep, block.removesuffix("\n"), sep2 + tail


def write(path: Path, block: str) -> bool:
    """Rewrites the block; True when the page changed."""
    text = path.read_text(encoding="utf-8")
    head, old, tail = split(text, path)
    if old == block:
        return False
    path.write_text(head + block + "\n" + tail, encoding="utf-8")
    return True


def differences(path: Path, block: str) -> list[str]:
    """A unified diff from the committed block to the generated one (empty when equal)."""
    _, old, _ = split(path.read_text(encoding="utf-8"), path)
    return list(difflib.unified_diff(old.splitlines(), block.splitlines(), f"{path} (committed)", "generated",
                                     lineterm=""))
