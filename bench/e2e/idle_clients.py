#!/usr/bin/env python3
"""Opens COUNT connections to 127.0.0.1:PORT, each sending one keep-alive
GET /plaintext and reading its answer (or, with --silent, sending nothing),
then keeps them all open and idle and reports how much the resident memory of
the server processes PIDS grew: (VmRSS after - VmRSS before) / COUNT.

    idle_clients.py PORT COUNT PID [PID...] [--silent] [--tls]

With --tls every connection first finishes a TLS handshake (no certificate
check: loopback only) and its request goes over TLS.

Prints one line: `idle-result count=N before_kb=B after_kb=A per_conn_bytes=P`.
Only loopback; every socket is closed before it exits."""
import resource
import socket
import ssl
import sys
import time

REQUEST = b"GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def rss_kb(pids):
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def open_one(port, silent, tls):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if tls is not None:
        s = tls.wrap_socket(s, server_hostname="localhost")
    if silent:
        return s
    s.sendall(REQUEST)
    got = b""
    while b"Hello, World!" not in got:
        chunk = s.recv(4096)
        if not chunk:
            raise RuntimeError("server closed a keep-alive connection")
        got += chunk
    return s


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    silent = "--silent" in sys.argv
    tls = None
    if "--tls" in sys.argv:
        tls = ssl.create_default_context()
        tls.check_hostname = False
        tls.verify_mode = ssl.CERT_NONE
    port, count, pids = int(args[0]), int(args[1]), [int(p) for p in args[2:]]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY and hard < count + 100 else count + 100, hard))
    time.sleep(0.5)
    before = rss_kb(pids)
    sockets = []
    try:
        for _ in range(count):
            sockets.append(open_one(port, silent, tls))
        time.sleep(2)  # let the server settle (accept queue drained, buffers back in pools)
        after = rss_kb(pids)
        # Every connection must still be open (not closed by a timeout or a
        # limit), or the figure would be flattered.
        closed = 0
        for s in sockets:
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    closed += 1
            except (BlockingIOError, ssl.SSLWantReadError):
                pass
        per = (after - before) * 1024 / count
        print(f"idle-result count={count} before_kb={before} after_kb={after} per_conn_bytes={per:.0f} "
              f"closed_by_server={closed}")
    finally:
        for s in sockets:
            s.close()


if __name__ == "__main__":
    main()
