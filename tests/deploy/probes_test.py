#!/usr/bin/env python3
"""The Kubernetes probes of docs/deploy.md, with the test as the kubelet:
stet-server started with the container's arguments (on IPv4 loopback); after
SIGTERM /-/ready answers 503 at once while /healthz and the routes still
answer 200 for the drain delay; then connections are refused; the process
exits 0. SIGHUP and SIGUSR1 (log reopening) leave it serving.

    probes_test.py STET_SERVER DEPLOY_MD
"""

import json
import os
import re
import signal
import socket
import sys
import time

import deploy_lib as d


def main(scratch, stet, doc):
    port = d.free_port()
    block = d.doc_block(doc, "kubernetes")
    args = json.loads(re.search(r"args: (\[.*\])", block).group(1))
    liveness = re.search(r"livenessProbe:\s+httpGet: \{path: (\S+),", block).group(1)
    readiness = re.search(r"readinessProbe:\s+httpGet: \{path: (\S+),", block).group(1)
    args = [a.replace("[::]:8080", f"127.0.0.1:{port}") for a in args]
    delay_ms = int(args[args.index("--drain-delay-ms") + 1])
    log = scratch.file("access.log")
    server = scratch.stet(stet, [*args, "--access-log", log], "stet")
    d.wait_tcp(port, "stet-server", server)
    d.check(d.request(port, readiness)[0] == 200, "not ready after start")
    d.check(d.request(port, liveness)[0] == 200, "not alive after start")

    os.rename(log, log + ".1")  # logrotate, then its postrotate signal
    server.signal(signal.SIGUSR1)
    d.wait_until(lambda: d.request(port, "/plaintext")[0] == 200 and os.path.exists(log), "a new access log")
    server.signal(signal.SIGHUP)
    d.check(d.request(port, "/plaintext")[0] == 200, "not serving after SIGHUP")

    stopped_at = time.monotonic()
    server.signal(signal.SIGTERM)
    d.wait_until(lambda: d.request(port, readiness)[0] == 503, "readiness to turn", seconds=5)
    served_during_delay = 0
    while time.monotonic() - stopped_at < delay_ms / 1000 * 0.6:
        d.check(d.request(port, liveness)[0] == 200, "liveness failed during the drain delay")
        d.check(d.request(port, "/plaintext")[2] == b"Hello, World!", "a route failed during the drain delay")
        served_during_delay += 1
        time.sleep(0.05)
    d.check(served_during_delay > 0, "nothing was asked during the delay")

    def refused():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return False
        except ConnectionRefusedError:
            return True
    d.wait_until(refused, "connections to be refused after the delay", seconds=delay_ms / 1000 + 10)
    code = server.proc.wait(15)
    d.check(code == 0, f"exit code {code}")
    print(f"probes: ready 503 at once, {served_during_delay} rounds served during the {delay_ms} ms delay")


if __name__ == "__main__":
    sys.exit(d.run("probes", lambda scratch: main(scratch, sys.argv[1], sys.argv[2])))
