#!/usr/bin/env python3
"""docs/configuration.md must name every field of stet::server_options and
every flag of stet-server, and nothing that no longer exists.

    check_configuration.py --source-dir DIR --stet-server BINARY

Fields are read from include/stet/server_options.hpp; a field whose type is a
struct of include/stet/ (access_log_options, compression_options) is checked member by member, as
`access_log.enabled`. Flags are read from `stet-server --help`. A row is a
markdown table line whose first cell holds the name in backticks; its other
cells (default, unit, what happens) must not be empty. The failure message
says exactly which row to add or remove, and where.
"""

import argparse
import os
import re
import subprocess
import sys

FIELDS_SECTION = "## server_options"
FLAGS_SECTION = "## stet-server flags"
SKIPPED_STATEMENTS = ("static ", "using ", "friend ", "template", "struct ", "class ", "enum ")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def struct_body(text, name):
    """The text between the braces of `struct name {...};`, or None."""
    match = re.search(r"\bstruct\s+" + re.escape(name) + r"\s*\{", text)
    if not match:
        return None
    depth, start = 1, match.end()
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    return None


def without_template_args(text):
    """`text` with every <...> group removed, innermost first."""
    while True:
        shorter = re.sub(r"<[^<>]*>", "", text)
        if shorter == text:
            return text
        text = shorter


def members(body):
    """(type, name) of each data member at the top level of a struct body."""
    flat, depth = [], 0
    for c in body:  # drop nested braces (initialisers, nested types) but keep the statement ends
        if c == "{":
            depth += 1
            if depth == 1:
                flat.append("{}")
            continue
        if c == "}":
            depth -= 1
            continue
        if depth == 0:
            flat.append(c)
    out = []
    for statement in "".join(flat).split(";"):
        statement = re.sub(r"\b(public|private|protected)\s*:", "", statement).strip()
        if not statement or statement.startswith(SKIPPED_STATEMENTS) or "(" in without_template_args(statement):
            continue  # a member function (std::function<void(...)> is a data member)
        declaration = re.split(r"=|\{\}", statement)[0].strip()
        match = re.match(r"(.*?)([A-Za-z_]\w*)\s*$", declaration, flags=re.S)
        if match:
            out.append((match.group(1).strip(), match.group(2)))
    return out


def option_fields(include_dir):
    headers = {}
    for name in sorted(os.listdir(include_dir)):
        if name.endswith(".hpp"):
            with open(os.path.join(include_dir, name)) as f:
                headers[name] = strip_comments(f.read())
    everything = "\n".join(headers.values())

    def expand(struct, prefix):
        body = struct_body(everything, struct)
        if body is None:
            raise SystemExit(f"check_configuration: struct {struct} not found in {include_dir}")
        fields = []
        for type_, name in members(body):
            nested = re.sub(r"^(stet::)?", "", type_.split()[-1]) if type_ else ""
            if nested.endswith(("_options", "_settings")) and struct_body(everything, nested) is not None:
                fields += expand(nested, prefix + name + ".")
            else:
                fields.append(prefix + name)
        return fields

    return expand("server_options", "")


def server_flags(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30)
    if out.returncode != 0:
        raise SystemExit(f"check_configuration: {binary} --help exited {out.returncode}: {out.stderr}")
    flags = []
    for flag in re.findall(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", out.stdout):
        if flag not in flags:
            flags.append(flag)
    return flags


def documented(doc, section, pattern):
    """{name: [cells]} of the table rows in `section` (up to the next '## ')."""
    start = doc.find("\n" + section + "\n")
    if start < 0:
        return None
    end = doc.find("\n## ", start + 1)
    rows = {}
    for line in doc[start:end if end > 0 else len(doc)].splitlines():
        if not line.startswith("|") or re.match(r"^\|[\s:-]+\|", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        for name in re.findall(pattern, cells[0]):
            rows[name] = cells[1:]
    return rows


def check(kind, section, source, wanted, rows, template):
    problems = []
    if rows is None:
        return [f"docs/configuration.md has no '{section}' section: add it with a table of every {kind}"]
    for name in wanted:
        if name not in rows:
            problems.append(f"{kind} `{name}` ({source}) is missing: add the row\n"
                            f"      {template.format(name=name)}\n"
                            f"    to the table under '{section}' in docs/configuration.md")
        elif len(rows[name]) < 3 or not all(rows[name][:3]):
            problems.append(f"{kind} `{name}`: its row under '{section}' needs a default, a unit and what "
                            f"happens (three non-empty cells after the name)")
    for name in rows:
        if name not in wanted:
            problems.append(f"docs/configuration.md names {kind} `{name}` under '{section}', which {source} "
                            f"no longer has: remove or rename that row")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--stet-server", required=True)
    args = parser.parse_args()
    with open(os.path.join(args.source_dir, "docs", "configuration.md")) as f:
        doc = f.read()

    fields = option_fields(os.path.join(args.source_dir, "include", "stet"))
    flags = server_flags(args.stet_server)
    problems = check("server_options field", FIELDS_SECTION, "include/stet/server_options.hpp", fields,
                     documented(doc, FIELDS_SECTION, r"`([a-z_][a-z0-9_.]*)`"),
                     "| `{name}` | <default> | <unit> | <what it does; the status code or behaviour when it trips> |")
    problems += check("stet-server flag", FLAGS_SECTION, "`stet-server --help`", flags,
                      documented(doc, FLAGS_SECTION, r"`(--[a-z0-9-]+)"),
                      "| `{name} VALUE` | <default> | <unit> | <what it does; what a bad value does> |")
    if problems:
        print("docs/configuration.md is out of date:\n  - " + "\n  - ".join(problems))
        sys.exit(1)
    print(f"docs/configuration.md: all {len(fields)} server_options fields and {len(flags)} stet-server flags "
          f"documented")


if __name__ == "__main__":
    main()
