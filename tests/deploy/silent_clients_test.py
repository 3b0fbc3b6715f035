#!/usr/bin/env python3
"""10,000 connections that never send a byte (the default max_connections),
then, once the oldest has waited out the eviction grace, a normal client: it
is served at once, because the connection that has waited longest without a
request makes room for it, instead of waiting for a timeout (timeouts are set
to two minutes here, so none can be what helps). Without the wait it is
served as soon as the oldest has waited out the grace (FairLimits.* test that).

The server is a separate stet-server process: this one holds 10,000 client
sockets, the server the other ends, and the sandbox allows 20,000 descriptors
per process. The assertion is "served" with a generous bound (10 s); the
measured time is printed, never compared with a threshold.

    silent_clients_test.py STET_SERVER DEPLOY_MD [COUNT]
"""

import http.client
import resource
import socket
import struct
import sys
import time

import deploy_lib as d


GRACE_SECONDS = 1.0  # stet-server's --eviction-grace-ms default


def metric(port, series):
    _, _, body = d.request(port, "/-/metrics")
    for line in body.decode().split("\n"):
        if line.startswith(series + " "):
            return float(line.split()[1])
    return -1


def main(scratch, stet, count):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    d.check(hard >= count + 100, f"RLIMIT_NOFILE hard limit {hard} is below {count} + 100")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    port = d.free_port()
    server = scratch.stet(stet, ["--port", str(port), "--no-access-log", "--max-connections", str(count),
                                 "--first-byte-timeout-ms", "120000", "--header-timeout-ms", "120000",
                                 "--backlog", "4096"], "stet")
    d.wait_tcp(port, "stet-server", server)
    silent = []
    started = time.monotonic()
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        silent.append(s)
    opened = time.monotonic() - started
    d.wait_until(lambda: metric(port, "stet_connections_open") >= count - 1, f"{count} connections held", 30)
    # A connection younger than eviction_grace (1 s) may have its request on
    # the way and is never closed to make room: let the oldest have waited
    # that long, as a real attack's connections have.
    time.sleep(max(0.0, started + GRACE_SECONDS + 0.05 - time.monotonic()))

    # Each normal client keeps its connection open (an idle keep-alive after its
    # answer), so every one of them needs a slot of its own: the silent ones
    # give way, the idle normal ones are not touched while silent ones remain.
    timings, normal = [], []
    for _ in range(5):
        begin = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/plaintext")
        answer = conn.getresponse()
        body = answer.read()
        timings.append(time.monotonic() - begin)
        normal.append(conn)
        d.check(answer.status == 200 and body == b"Hello, World!", f"the normal client got {answer.status} {body!r}")
    for conn in normal:
        conn.request("GET", "/plaintext")
        answer = conn.getresponse()
        d.check(answer.status == 200 and answer.read() == b"Hello, World!", "a kept normal connection was closed")
        conn.close()
    evicted = metric(port, 'stet_connections_closed_total{reason="evicted_silent"}')
    d.check(evicted >= 5, f"evicted_silent is {evicted}")
    closed = sum(1 for s in silent[:10] if closed_by_peer(s))
    d.check(closed >= 5, f"only {closed} of the oldest silent connections were closed")
    print(f"silent clients: {count} opened in {opened:.2f} s; a normal client then served in "
          f"{', '.join(f'{t * 1000:.1f}' for t in timings)} ms (5 fresh connections); evicted_silent {evicted:.0f}")
    # Reset, not closed: 10,000 TIME_WAITs would hold ephemeral ports for a
    # minute, and the tests after this one need ports too.
    linger = struct.pack("ii", 1, 0)
    for s in silent:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        s.close()


def closed_by_peer(s):
    s.settimeout(2)
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, socket.timeout):
        return False


if __name__ == "__main__":
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    sys.exit(d.run("silent_clients", lambda scratch: main(scratch, sys.argv[1], n)))
