#!/usr/bin/env python3
"""HAProxy (Debian) in TCP mode with send-proxy-v2 in front of two
stet-servers listening with --proxy-protocol, as in docs/deploy.md:

- the client's address arrives (remote_endpoint(), hence client_address());
- HAProxy's health checks (PROXY header, then GET /-/ready) pass;
- a client that reaches stet directly, without a header, is closed unanswered;
- drain followed by the balancer: a rolling restart (SIGTERM one instance,
  HAProxy marks it down from /-/ready during the drain delay, the instance
  stops accepting and exits, it starts again and HAProxy marks it up, then
  the other) under a steady client loop loses no connection.

    haproxy_test.py STET_SERVER DEPLOY_MD
"""

import signal
import socket
import sys
import time

import deploy_lib as d


def main(scratch, stet, doc):
    haproxy = d.require("haproxy")
    port_a, port_b, port_haproxy = d.free_port(), d.free_port(), d.free_port()
    names = {"127.0.0.1:8082": f"127.0.0.1:{port_a}", "127.0.0.1:8083": f"127.0.0.1:{port_b}"}
    args = {name: d.stet_args(doc, "stet-proxied", dict([item]), i) for i, (name, item) in
            enumerate(zip("ab", names.items()))}
    ports = {"a": port_a, "b": port_b}

    def start(name):
        p = scratch.stet(stet, [*args[name], "--no-access-log"], f"stet-{name}")
        d.wait_tcp(ports[name], f"stet-server {name}", p)
        return p

    servers = {name: start(name) for name in ("a", "b")}
    stats = start_haproxy(scratch, haproxy, doc, port_haproxy, names)

    for source in ("127.0.0.2", "127.0.0.3"):
        seen = d.get_json(port_haproxy, "/-/client.json", headers={"Host": "app.example"}, source=source)
        d.check(seen == {"client": source, "scheme": "http", "host": "app.example"}, f"from {source}: {seen}")

    with socket.create_connection(("127.0.0.1", port_a), timeout=5) as direct:
        direct.sendall(b"GET /-/client.json HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            answer = direct.recv(100)
        except ConnectionResetError:  # closed with the request unread: a reset, equally unanswered
            answer = b""
        d.check(answer == b"", f"a request without a PROXY header was answered: {answer!r}")
    d.wait_until(lambda: metric(port_a, 'stet_connections_closed_total{reason="proxy_protocol"}') >= 1,
                 "the headerless connection counted")

    rolling_restart(port_haproxy, stats, servers, start)


def start_haproxy(scratch, haproxy, doc, port, servers):
    """HAProxy with docs/deploy.md's haproxy.cfg on `port`, `servers` mapping the
    documented server addresses to the real ones; waits until both are up and
    returns the path of its stats socket."""
    stats = scratch.file("haproxy.sock")
    cfg = d.substitute(d.doc_block(doc, "haproxy.cfg"), {"127.0.0.1:8090": f"127.0.0.1:{port}", **servers})
    # Test-only: the stats socket, to see when HAProxy marks a server down or up.
    cfg = d.substitute(cfg, {"    maxconn 4096\n": f"    maxconn 4096\n    stats socket {stats} mode 600\n"})
    with open(scratch.file("haproxy.cfg"), "w") as f:
        f.write(cfg)
    balancer = scratch.start([haproxy, "-db", "-f", scratch.file("haproxy.cfg")], "haproxy")
    d.wait_tcp(port, "haproxy", balancer)
    d.wait_until(lambda: server_states(stats) == {"a": "UP", "b": "UP"}, "both servers up")
    return stats


def rolling_restart(port, stats, servers, start):
    loop = d.ClientLoop(port)
    loop.start()
    time.sleep(0.5)
    for name, other in (("a", "b"), ("b", "a")):
        began = time.monotonic()
        servers[name].signal(signal.SIGTERM)
        d.wait_until(lambda: server_states(stats).get(name) == "DOWN", f"HAProxy to mark {name} down", seconds=5)
        noticed = time.monotonic() - began
        code = servers[name].proc.wait(d.STOP_SECONDS)
        d.check(code == 0, f"instance {name} exited with {code} after SIGTERM")
        print(f"haproxy: {name} marked down {noticed * 1000:.0f} ms after SIGTERM, exited after "
              f"{(time.monotonic() - began) * 1000:.0f} ms")
        servers[name] = start(name)
        d.wait_until(lambda: server_states(stats) == {name: "UP", other: "UP"}, f"HAProxy to mark {name} up")
    loop.finish("rolling restart behind HAProxy")
    # HAProxy would retry a refused connect (and hide it from the client);
    # that it never had to shows it stopped sending before stet stopped accepting.
    rows = server_stats(stats)
    failed = {name: (row["econ"] or "0", row["wretr"] or "0") for name, row in rows.items()}
    print(f"haproxy: connect errors and retries per server {failed}")
    d.check(all(v == ("0", "0") for v in failed.values()), f"HAProxy met a closed port: {failed}")


def server_states(stats_socket):
    """{server name: status} of the backend, from HAProxy's `show stat`."""
    return {name: row["status"].split(" ")[0] for name, row in server_stats(stats_socket).items()}


def server_stats(stats_socket):
    """{server name: its row of HAProxy's `show stat`} for the backend."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(stats_socket)
        s.sendall(b"show stat\n")
        text = b""
        while chunk := s.recv(65536):
            text += chunk
    rows = text.decode().strip().split("\n")
    columns = rows[0].lstrip("# ").split(",")
    states = {}
    for row in rows[1:]:
        values = dict(zip(columns, row.split(",")))
        if values.get("pxname") == "stet" and values.get("svname") not in ("BACKEND", "FRONTEND"):
            states[values["svname"]] = values
    return states


def metric(port, series):
    """A series of the instance at `port` itself, asked with a PROXY v1 header of our own."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"PROXY TCP4 127.0.0.9 127.0.0.1 4000 80\r\nGET /-/metrics HTTP/1.1\r\nHost: x\r\n"
                  b"Connection: close\r\n\r\n")
        text = b""
        while chunk := s.recv(65536):
            text += chunk
    for line in text.decode().split("\n"):
        if line.startswith(series + " "):
            return float(line.split()[1])
    return -1


if __name__ == "__main__":
    sys.exit(d.run("haproxy", lambda scratch: main(scratch, sys.argv[1], sys.argv[2])))
