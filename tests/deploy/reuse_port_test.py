#!/usr/bin/env python3
"""Two stet-server processes with --reuse-port on one port (docs/deploy.md):
both bind it, and both serve (each one's access log has lines), and when one
stops the other still answers. Without --reuse-port the second cannot bind.

    reuse_port_test.py STET_SERVER DEPLOY_MD
"""

import sys
import time

import deploy_lib as d

REQUESTS = 200


def lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


def main(scratch, stet, doc):
    port = d.free_port()
    args = d.stet_args(doc, "reuse-port", {"8080": str(port)})
    first = scratch.stet(stet, [*args, "--access-log", scratch.file("first.access")], "first")
    d.wait_tcp(port, "the first stet-server", first)
    second = scratch.stet(stet, [*args, "--access-log", scratch.file("second.access")], "second")
    time.sleep(0.5)
    d.check(second.alive(), "the second process could not bind the port")

    for i in range(REQUESTS):
        status, _, body = d.request(port, f"/plaintext?{i}")
        d.check(status == 200 and body == b"Hello, World!", f"request {i}: {status}")
    d.check(first.stop() == 0 and second.stop() == 0, "a stet-server did not exit cleanly")  # flushes the logs
    counts = lines(scratch.file("first.access")), lines(scratch.file("second.access"))
    print(f"reuse_port: {REQUESTS} connections, served {counts[0]} by the first, {counts[1]} by the second")
    d.check(sum(counts) == REQUESTS, f"{counts} lines for {REQUESTS} requests")
    d.check(min(counts) > 0, f"one process served nothing: {counts}")

    # One left: it serves alone.
    survivor = scratch.stet(stet, [*args, "--no-access-log"], "survivor")
    d.wait_tcp(port, "a stet-server", survivor)
    plain = scratch.stet(stet, ["--port", str(port), "--no-access-log"], "without-reuse-port")
    d.check(plain.proc.wait(10) == 1, "a process without --reuse-port bound the port")
    status, _, _ = d.request(port, "/plaintext")
    d.check(status == 200, "the remaining process did not answer")


if __name__ == "__main__":
    sys.exit(d.run("reuse_port", lambda scratch: main(scratch, sys.argv[1], sys.argv[2])))
