#!/usr/bin/env python3
"""The hostile suite's own harness, on a stand-in for stet-server: a server
that never says where it listens (an old binary, a changed listening line, a
hang at start) fails its scenario and is stopped by its PID, not left running
after the suite.

    hostile_lib_test.py
"""

import os
import sys
import tempfile

import hostile_lib as h


def running_children():
    """PIDs of this process's children that are still running (not zombies)."""
    me = str(os.getpid())
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
        except OSError:
            continue  # gone meanwhile
        if ppid == me and state != "Z":
            found.append(int(pid))
    return found


def main():
    with tempfile.TemporaryDirectory() as d:
        silent = os.path.join(d, "silent-server")
        with open(silent, "w") as f:
            f.write("#!/bin/sh\nexec sleep 30\n")
        os.chmod(silent, 0o755)
        h.START_SECONDS = 0.5
        try:
            h.Server(silent, [], os.path.join(d, "log"))
            print("FAIL hostile.lib: a server that printed no listening line was taken as started")
            return 1
        except h.Failure as e:
            refused = str(e)
        left = running_children()
        for pid in left:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        if left:
            print(f"FAIL hostile.lib: a server that printed no listening line ({refused}) was left running: {left}")
            return 1
    print("ok   hostile.lib: a server that never says where it listens fails and is stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
