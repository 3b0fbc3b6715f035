#!/usr/bin/env python3
"""bench/e2e/run.sh writes only where it is told and names the binary it measured.

Runs the harness (stet alone, one endpoint, 1 s) from a copy of bench/e2e in a
scratch "repository" whose docs/benchmarks.md is a sentinel, so a failure can
never touch the real page:

  * OUT= and PLOT= (set, empty) in a full run and in --smoke write no file at all;
  * the block's "Measured:" label is what the binary's --version says, even for a
    binary that reports another commit than the checkout's (a wrapper script that
    prints a made-up commit and runs the real stet-server otherwise);
  * the recorded command carries SERVERS, STET_SERVER and the other variables
    that shaped the table;
  * OUT=FILE writes that file and nothing else.

  run_provenance_test.py --e2e-dir bench/e2e --stet-server build/examples/stet-server
"""

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

SENTINEL = "# sentinel page\n\n<!-- e2e:begin -->\nold block\n<!-- e2e:end -->\n"
FAKE_COMMIT = "f00dfac"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def files_under(path):
    return sorted(os.path.relpath(os.path.join(d, f), path) for d, _, fs in os.walk(path) for f in fs)


def make_root(scratch, e2e_dir):
    """A repository-shaped directory: bench/e2e (copied) and a sentinel docs page."""
    root = os.path.join(scratch, "repo")
    shutil.copytree(e2e_dir, os.path.join(root, "bench", "e2e"),
                    ignore=shutil.ignore_patterns("peers", "__pycache__"))
    os.makedirs(os.path.join(root, "docs"))
    with open(os.path.join(root, "docs", "benchmarks.md"), "w", encoding="utf-8") as f:
        f.write(SENTINEL)
    return root


def make_fake_binary(scratch, real):
    """A stet-server that says it was built from FAKE_COMMIT and otherwise is the real one."""
    path = os.path.join(scratch, "other-commit-stet-server")
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n"
                f'if [ "$1" = --version ]; then echo "stet-server 9.9.9 (commit {FAKE_COMMIT})"; exit 0; fi\n'
                f'exec "{real}" "$@"\n')
    os.chmod(path, 0o755)
    return path


def run(root, args, env_extra):
    env = {k: v for k, v in os.environ.items() if k not in ("OUT", "PLOT", "ENDPOINTS", "SERVERS", "STET_SERVER")}
    env.update({"ENDPOINTS": "plaintext", "BASE_PORT": str(free_port()), "DURATION": "1", "ROUNDS": "1",
                "WARMUP": "0", "SERVERS": "stet"})
    env.update(env_extra)
    out = subprocess.run([os.path.join(root, "bench", "e2e", "run.sh")] + args, cwd=root, env=env,
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        fail(f"run.sh {args} with {env_extra} exited {out.returncode}:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def check_untouched(root, before, what):
    with open(os.path.join(root, "docs", "benchmarks.md"), encoding="utf-8") as f:
        if f.read() != SENTINEL:
            fail(f"{what}: docs/benchmarks.md was rewritten")
    after = files_under(root)
    if after != before:
        fail(f"{what}: files appeared or vanished: {sorted(set(after) ^ set(before))}")


def binary_label(binary):
    line = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    m = re.fullmatch(r"stet-server (\S+) \(commit ([^)]+)\)", line)
    if not m:
        fail(f"{binary} --version does not name a commit: {line!r}")
    return f"stet {m.group(1)} (commit {m.group(2)})"


def measured(block):
    m = re.search(r"^- Measured: (.*)$", block, re.M)
    if not m:
        fail(f"no '- Measured:' line in the block:\n{block}")
    return m.group(1)


def command(block):
    m = re.search(r"^- Command: `(.*)`$", block, re.M)
    if not m:
        fail(f"no '- Command:' line in the block:\n{block}")
    return m.group(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--e2e-dir", required=True)
    parser.add_argument("--stet-server", required=True)
    a = parser.parse_args()
    real = os.path.abspath(a.stet_server)
    with tempfile.TemporaryDirectory(prefix="stet-provenance-") as scratch:
        root = make_root(scratch, os.path.abspath(a.e2e_dir))
        fake = make_fake_binary(scratch, real)
        before = files_under(root)

        # A full run told to write nothing (the pair commands of docs/benchmarks.md).
        block = run(root, [], {"OUT": "", "PLOT": "", "STET_SERVER": real})
        check_untouched(root, before, "OUT= PLOT= bench/e2e/run.sh")
        if measured(block) != binary_label(real):
            fail(f"label {measured(block)!r}, binary says {binary_label(real)!r}")
        cmd = command(block)
        for word in ("SERVERS=stet", f"STET_SERVER={real}", "DURATION=1", "ROUNDS=1", "CONNECTIONS=50",
                     "ENDPOINTS=plaintext", "STET_REVALIDATE_MS=60000", "bench/e2e/run.sh"):
            if word not in cmd.split():
                fail(f"the recorded command lacks {word}: {cmd}")

        # The smoke run, with a binary built from another commit than the checkout's.
        block = run(root, ["--smoke"], {"OUT": "", "STET_SERVER": fake})
        check_untouched(root, before, "OUT= bench/e2e/run.sh --smoke")
        if measured(block) != f"stet 9.9.9 (commit {FAKE_COMMIT})":
            fail(f"the label does not come from the measured binary: {measured(block)!r}")
        if "--smoke" not in command(block).split() or f"STET_SERVER={fake}" not in command(block).split():
            fail(f"the smoke run's command is incomplete: {command(block)}")

        # OUT=FILE writes that file (and no plot beside it in smoke mode), nothing else.
        target = os.path.join(scratch, "elsewhere.md")
        run(root, ["--smoke"], {"OUT": target, "STET_SERVER": fake})
        check_untouched(root, before, "OUT=FILE bench/e2e/run.sh --smoke")
        with open(target, encoding="utf-8") as f:
            page = f.read()
        if measured(page) != f"stet 9.9.9 (commit {FAKE_COMMIT})":
            fail(f"the written page has the wrong label: {measured(page)!r}")
        if os.path.exists(os.path.join(scratch, "elsewhere-cpu.png")):
            fail("a smoke run drew a plot nobody asked for")
    print("ok: run.sh writes only where told and labels the binary it measured")


if __name__ == "__main__":
    main()
