#!/usr/bin/env python3
"""HAProxy (Debian) in TCP mode with send-proxy-v2 in front of a stet-server
listening with --proxy-protocol, as in docs/deploy.md: the client's address
arrives (remote_endpoint(), hence client_address()), HAProxy's health check
(PROXY header, then GET /-/ready) passes, and a client that reaches stet
directly, without a header, is closed unanswered.

    haproxy_test.py STET_SERVER DEPLOY_MD
"""

import socket
import sys

import deploy_lib as d


def main(scratch, stet, doc):
    haproxy = d.require("haproxy")
    port_stet, port_haproxy = d.free_port(), d.free_port()
    args = d.stet_args(doc, "stet-proxied", {"127.0.0.1:8082": f"127.0.0.1:{port_stet}"})
    server = scratch.stet(stet, [*args, "--no-access-log"], "stet")
    d.wait_tcp(port_stet, "stet-server", server)

    cfg = d.substitute(d.doc_block(doc, "haproxy.cfg"),
                       {"127.0.0.1:8090": f"127.0.0.1:{port_haproxy}", "127.0.0.1:8082": f"127.0.0.1:{port_stet}"})
    with open(scratch.file("haproxy.cfg"), "w") as f:
        f.write(cfg)
    balancer = scratch.start([haproxy, "-db", "-f", scratch.file("haproxy.cfg")], "haproxy")
    d.wait_tcp(port_haproxy, "haproxy", balancer)

    for source in ("127.0.0.2", "127.0.0.3"):
        seen = d.get_json(port_haproxy, "/-/client.json", headers={"Host": "app.example"}, source=source)
        d.check(seen == {"client": source, "scheme": "http", "host": "app.example"}, f"from {source}: {seen}")

    # HAProxy's checks carry the header too and ask for readiness: it keeps the server up.
    d.wait_until(lambda: b"stet_requests_total" in d.request(port_haproxy, "/-/metrics")[2]
                 and metric(port_haproxy, 'stet_requests_total{status="200"}') > 3, "health checks answered")

    with socket.create_connection(("127.0.0.1", port_stet), timeout=5) as direct:
        direct.sendall(b"GET /-/client.json HTTP/1.1\r\nHost: x\r\n\r\n")
        d.check(direct.recv(100) == b"", "a request without a PROXY header was answered")
    d.wait_until(lambda: metric(port_haproxy, 'stet_connections_closed_total{reason="proxy_protocol"}') >= 1,
                 "the headerless connection counted")


def metric(port, series):
    _, _, body = d.request(port, "/-/metrics")
    for line in body.decode().split("\n"):
        if line.startswith(series + " "):
            return float(line.split()[1])
    return -1


if __name__ == "__main__":
    sys.exit(d.run("haproxy", lambda scratch: main(scratch, sys.argv[1], sys.argv[2])))
