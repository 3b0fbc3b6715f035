#!/usr/bin/env python3
"""Hostile clients where the PROXY protocol, TLS, the connection limit and
uploads meet: a PROXY header that never ends, PROXY in front of TLS, half
ClientHellos filling --max-connections, a TLS upload reset mid-body, and a
SIGHUP certificate reload under an upload.

    proxy_tls_test.py STET_SERVER SELF_SIGNED_CERT_SH [--only SCENARIO]
"""

import hashlib
import os
import signal
import socket
import ssl
import struct
import sys
import time

import hostile_lib as h

V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def busy_while_waiting(srv, seconds=2.0):
    """(busy, CPU) seconds of the server over `seconds` of wall time: its
    threads' running-or-runnable time (see Server.busy_seconds), and its CPU time."""
    busy, cpu = srv.busy_seconds(), srv.cpu_seconds()
    time.sleep(seconds)
    return srv.busy_seconds() - busy, srv.cpu_seconds() - cpu


def unterminated_proxy_header(ctx):
    """--proxy-protocol: 'PROXY TCP4 1.2.3.4 5.6.7' and no CRLF, then 2 s of
    waiting: the server must be busy (on a CPU or waiting for one) for much
    less than the wall time (a quarter at most)."""
    srv = ctx.server("--proxy-protocol", proxy_protocol=True)
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(b"PROXY TCP4 1.2.3.4 5.6.7")
    busy, cpu = busy_while_waiting(srv, 2.0)
    note = f"busy {busy:.2f} s (CPU {cpu:.2f} s) in 2 s of a waiting PROXY header"
    h.check(busy < 0.5, f"the server spins on a partial PROXY header: {note}")
    srv.assert_serving("with a partial PROXY header pending")
    s.close()
    return note


def partial_proxy_v2_headers(ctx):
    """--proxy-protocol: PROXY v2 headers cut short (the signature alone; a
    length promising more than comes) on 20 connections: no spinning either."""
    srv = ctx.server("--proxy-protocol", proxy_protocol=True)
    held = []
    for i in range(20):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        if i % 2:
            s.sendall(V2_SIGNATURE)
        else:
            s.sendall(V2_SIGNATURE + b"\x21\x11" + struct.pack("!H", 12) + b"\x01\x02\x03")
        held.append(s)
    busy, cpu = busy_while_waiting(srv, 2.0)
    note = f"busy {busy:.2f} s (CPU {cpu:.2f} s) in 2 s with 20 partial v2 headers"
    h.check(busy < 0.5, f"the server spins on partial PROXY v2 headers: {note}")
    srv.assert_serving("with partial PROXY v2 headers pending")
    for s in held:
        s.close()
    return note


def proxy_protocol_in_front_of_tls(ctx):
    """--proxy-protocol with --tls-cert: a PROXY header then a TLS handshake on
    the TLS port is served (and the header's address believed); a TLS client
    without the header is refused."""
    cert, key = ctx.certificate()
    srv = ctx.server("--proxy-protocol", "--tls-cert", cert, "--tls-key", key, proxy_protocol=True)
    problems = []
    try:
        s = srv.connect(tls=True, proxy_header=b"PROXY TCP4 1.2.3.4 127.0.0.1 5678 443\r\n", timeout=5)
        s.sendall(h.build_request("GET", "/-/client.json", srv.host_header(True)))
        status, _, body = h.read_response(h.Reader(s))
        s.close()
        if status != 200 or b'"1.2.3.4' not in body:
            problems.append(f"PROXY + TLS: {status} {body[:200]!r} (the client should be 1.2.3.4)")
    except (OSError, h.Failure) as e:
        problems.append(f"PROXY header then TLS handshake failed: {type(e).__name__}: {e}")
    try:
        s = socket.create_connection(("127.0.0.1", srv.tls_port), timeout=5)
        t = h.client_tls_context().wrap_socket(s, server_hostname="localhost")
        t.sendall(h.build_request("GET", "/healthz", srv.host_header(True)))
        status, _, _ = h.read_response(h.Reader(t))
        t.close()
        problems.append(f"a TLS client without a PROXY header was served ({status})")
    except (OSError, h.Failure):
        pass  # refused: as it should be
    h.check(not problems, "; ".join(problems))
    srv.assert_serving("after PROXY + TLS")


def half_client_hello():
    """The first half of a real ClientHello."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = h.client_tls_context().wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outgoing.read()
    h.check(len(hello) > 100, "no ClientHello was made")
    return hello[:len(hello) // 2]


def half_hellos_at_max_connections(ctx):
    """--max-connections 200 with TLS: 300 connections each sending half a
    ClientHello; a new plain client and a new TLS client must each be served
    within 5 s (the timeouts being 30 s)."""
    cert, key = ctx.certificate()
    # Long timeouts: the newcomers must get in by eviction, not by the half
    # ClientHellos timing out.
    srv = ctx.server("--max-connections", 200, "--tls-cert", cert, "--tls-key", key, "--first-byte-timeout-ms",
                     30000, "--header-timeout-ms", 30000)
    half = half_client_hello()
    held = []
    for _ in range(300):
        s = socket.socket()
        s.settimeout(5)
        s.connect(("127.0.0.1", srv.tls_port))
        try:
            s.sendall(half)
        except OSError:
            pass  # already evicted
        held.append(s)
    time.sleep(1.5)  # older than the eviction grace (1 s)
    try:
        plain = srv.assert_serving("behind 300 half ClientHellos (plain)", seconds=5)
        secure = srv.assert_serving("behind 300 half ClientHellos (TLS)", seconds=5, tls=True)
    finally:
        for s in held:
            s.close()
    srv.assert_connections_close("after the half ClientHellos closed")
    return f"/healthz in {plain:.2f} s plain, {secure:.2f} s TLS"


def upload(sock, host, name, size, first=None):
    """Sends a PUT head and the first `first` bytes of a `size`-byte body; returns the body."""
    body = os.urandom(size)
    sock.sendall(h.build_request("PUT", f"/upload/{name}", host, [("Content-Length", str(size))]))
    sock.sendall(body[:size if first is None else first])
    return body


def tls_upload_reset_mid_body(ctx):
    """20 TLS uploads (and 20 plain ones) reset mid-body: nothing is left in
    the upload directory, the server serves, and a whole upload still works."""
    cert, key = ctx.certificate()
    updir = ctx.path("uploads")
    os.mkdir(updir)
    srv = ctx.server("--upload-dir", updir, "--tls-cert", cert, "--tls-key", key)
    for i in range(40):
        tls = i % 2 == 0
        raw = socket.create_connection(("127.0.0.1", srv.tls_port if tls else srv.port), timeout=10)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close() resets
        s = h.client_tls_context().wrap_socket(raw, server_hostname="localhost") if tls else raw
        upload(s, srv.host_header(tls), f"cut-{i}", 8 * h.MIB, first=h.MIB + 17)
        s.close()
    srv.assert_serving("after uploads reset mid-body")
    srv.assert_connections_close("after uploads reset mid-body")
    h.wait_until(lambda: not os.listdir(updir), "the upload directory to be empty", 5)
    s = srv.connect(tls=True)
    body = upload(s, srv.host_header(True), "whole", 3 * h.MIB)
    status, _, answer = h.read_response(h.Reader(s))
    h.check(status == 201, f"a whole TLS upload after the resets: {status} {answer[:200]!r}")
    with open(os.path.join(updir, "whole"), "rb") as f:
        h.check(f.read() == body, "the whole upload was stored wrongly")


def sighup_reload_under_upload(ctx):
    """A TLS upload half sent, new certificate files, SIGHUP, the rest sent:
    the upload completes (201, same bytes), and new clients see the new
    certificate."""
    cert, key = ctx.certificate()
    updir = ctx.path("uploads")
    os.mkdir(updir)
    srv = ctx.server("--upload-dir", updir, "--tls-cert", cert, "--tls-key", key)
    s = srv.connect(tls=True)
    old_der = s.getpeercert(binary_form=True)
    size = 4 * h.MIB
    body = upload(s, srv.host_header(True), "during-reload", size, first=size // 2)
    new_cert, new_key = ctx.certificate("tls-new")
    os.replace(new_cert, cert)
    os.replace(new_key, key)
    srv.signal(signal.SIGHUP)
    h.wait_until(lambda: "SIGHUP" in srv.log_text(), "the SIGHUP to be reported", 5)
    s.sendall(body[size // 2:])
    status, _, answer = h.read_response(h.Reader(s))
    h.check(status == 201, f"the upload across a reload: {status} {answer[:200]!r}")
    with open(os.path.join(updir, "during-reload"), "rb") as f:
        h.check(hashlib.sha256(f.read()).digest() == hashlib.sha256(body).digest(), "the upload was stored wrongly")
    fresh = srv.connect(tls=True)
    h.check(fresh.getpeercert(binary_form=True) != old_der, "a new client still gets the old certificate")
    fresh.close()
    srv.assert_serving("after a reload under an upload", tls=True)


if __name__ == "__main__":
    sys.exit(h.run_group("proxy_tls", [unterminated_proxy_header, partial_proxy_v2_headers,
                                       proxy_protocol_in_front_of_tls, half_hellos_at_max_connections,
                                       tls_upload_reset_mid_body, sighup_reload_under_upload]))
