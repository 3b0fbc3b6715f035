#!/usr/bin/env python3
"""stet-server started by systemd-socket-activate (Debian's systemd), with
the socket unit's two ListenStream= addresses and the service's ExecStart
flags from docs/deploy.md: it serves on both inherited sockets (TCP and unix)
and binds nothing itself, and leaves the unix socket's file to its owner.

    systemd_test.py STET_SERVER DEPLOY_MD
"""

import os
import re
import signal
import sys

import deploy_lib as d

SECRET = "0123456789abcdef0123456789abcdef"


def main(scratch, stet, doc):
    activate = d.require("systemd-socket-activate")
    port = d.free_port()
    sock = scratch.file("stet.sock")
    unit = d.substitute(d.doc_block(doc, "stet.socket"), {"127.0.0.1:8080": f"127.0.0.1:{port}",
                                                           "/run/stet/stet.sock": sock})
    listen = re.findall(r"^ListenStream=(.*)$", unit, re.M)
    service = d.substitute(d.doc_block(doc, "stet.service"), {"${STET_SECRET}": SECRET})
    exec_start = re.search(r"^ExecStart=(\S+) (.*)$", service, re.M).group(2).split()
    d.check(exec_start[:2] == ["--listen", "systemd"], f"ExecStart: {exec_start}")

    argv = [activate]
    for address in listen:
        argv += ["-l", address]
    process = scratch.start([*argv, stet, *exec_start, "--threads", "2", "--no-access-log"], "stet")
    # The sockets exist before stet-server runs: connecting is what starts it.
    d.wait_tcp(port, "systemd-socket-activate's socket", process)
    d.wait_until(lambda: d.request(port, "/plaintext")[2] == b"Hello, World!", "an answer on the TCP socket")
    status, _, body = d.request(0, "/plaintext", unix=sock)
    d.check(status == 200 and body == b"Hello, World!", f"on the unix socket: {status} {body!r}")
    seen = d.get_json(port, "/-/client.json", headers={"Host": "app.example"})
    d.check(seen["client"] == "127.0.0.1", f"client.json: {seen}")

    d.check(process.stop(signal.SIGTERM) == 0, "stet-server did not exit cleanly on SIGTERM")
    d.check(os.path.exists(sock), "stet-server removed a socket file it did not create")


if __name__ == "__main__":
    sys.exit(d.run("systemd", lambda scratch: main(scratch, sys.argv[1], sys.argv[2])))
