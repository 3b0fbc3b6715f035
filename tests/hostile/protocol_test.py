#!/usr/bin/env python3
"""Hostile clients where the HTTP parser meets the features behind it:
repeated Accept-Encoding lines and compression, quoted chunk extensions and
the JSON body, Origin and the WebSocket upgrade, a slowloris on the WebSocket
route, and Content-Length with Transfer-Encoding on the upload route.

    protocol_test.py STET_SERVER [--only SCENARIO]
"""

import gzip
import os
import socket
import sys
import time

import hostile_lib as h


def two_accept_encoding_lines(ctx):
    """`Accept-Encoding: identity;q=0.5` and `Accept-Encoding: gzip` as two
    lines on /report.json: one list (RFC 9110 5.3), so gzip is chosen."""
    srv = ctx.server()
    status, headers, body = srv.request("GET", "/report.json", [("Accept-Encoding", "identity;q=0.5"),
                                                               ("Accept-Encoding", "gzip")])
    h.check(status == 200, f"/report.json: {status}")
    h.check(headers.get("content-encoding") == "gzip",
            f"two Accept-Encoding lines: Content-Encoding {headers.get('content-encoding')!r}, not gzip")
    h.check(gzip.decompress(body).startswith(b"{"), "the gzip answer is not the report")
    srv.assert_serving("after two Accept-Encoding lines")


def quoted_chunk_extension(ctx):
    """A chunked JSON body to POST /echo whose chunk carries the extension
    `a="b \\"c\\""` (a quoted string with escapes, RFC 9112 7.1.1): accepted."""
    srv = ctx.server()
    s = srv.connect()
    s.sendall(h.build_request("POST", "/echo", srv.host_header(), [("Content-Type", "application/json"),
                                                                   ("Transfer-Encoding", "chunked")]) +
              b'5;a="b \\"c\\""\r\n[1,2]\r\n0\r\n\r\n')
    status, _, body = h.read_response(h.Reader(s))
    s.close()
    h.check(status == 200 and body.replace(b" ", b"") == b"[1,2]",
            f"a quoted chunk extension: {status} {body[:200]!r}")
    srv.assert_serving("after a quoted chunk extension")


def upgrade_status(srv, path, extra):
    s = srv.connect()
    s.sendall(h.upgrade_request(path, srv.host_header(), extra))
    status, _, _ = h.read_response(h.Reader(s))
    s.close()
    return status


def websocket_origin(ctx):
    """The WebSocket routes take their own origin and none (not a browser),
    and refuse another site's with 403."""
    srv = ctx.server()
    own = f"http://127.0.0.1:{srv.port}"
    wrong = []
    for path in ("/ws/echo", "/ws/chat/origin"):
        for origin, expected in (("https://evil.example", 403), (own, 101), (None, 101)):
            status = upgrade_status(srv, path, [("Origin", origin)] if origin else [])
            if status != expected:
                wrong.append(f"{path} with Origin {origin}: {status}, not {expected}")
    h.check(not wrong, "; ".join(wrong))
    srv.assert_serving("after upgrades with origins")


def upgrade_shapes(ctx):
    """Upgrade requests in odd shapes, each followed at once by a frame:
    HTTP/1.0, two keys, POST, HEAD are refused (no 101); with a body
    (Content-Length or chunked) either refused or the body is skipped, never
    taken for frames: the frame behind it is echoed."""
    srv = ctx.server()
    host = srv.host_header()
    up = h.upgrade_request("/ws/echo", host)
    refused = {
        "HTTP/1.0": up.replace(b"HTTP/1.1", b"HTTP/1.0"),
        "two Sec-WebSocket-Key": h.upgrade_request("/ws/echo", host,
                                                   [("Sec-WebSocket-Key", "AQIDBAUGBwgJCgsMDQ4PEA==")]),
        "POST": up.replace(b"GET ", b"POST ", 1),
        "HEAD": up.replace(b"GET ", b"HEAD ", 1),
    }
    with_body = {
        "Content-Length body": h.upgrade_request("/ws/echo", host, [("Content-Length", "5")]) + b"hello",
        "chunked body": h.upgrade_request("/ws/echo", host, [("Transfer-Encoding", "chunked")]) +
        b"5\r\nhello\r\n0\r\n\r\n",
    }
    wrong = []
    for name, request in list(refused.items()) + list(with_body.items()):
        s = srv.connect()
        s.sendall(request + h.frame(h.TEXT, b"frame after"))
        reader = h.Reader(s)
        status, _, _ = h.read_response(reader, head=name == "HEAD")
        if status == 101 and name in refused:
            wrong.append(f"{name}: 101")
        elif status == 101:
            s.settimeout(5)
            try:
                got = h.WebSocket(s, reader).read_message()
            except (OSError, h.Failure) as e:
                got = (None, f"{type(e).__name__}: {e}".encode())
            if got != (h.TEXT, b"frame after"):
                wrong.append(f"{name}: 101, then {got[0]} {got[1][:60]!r} instead of the echo")
        s.close()
    h.check(not wrong, "; ".join(wrong))
    srv.assert_serving("after odd upgrades")


def websocket_slowloris(ctx):
    """--header-timeout-ms 1000: 100 upgrade requests to /ws/echo trickled a
    byte at a time are all closed within 6 s, and /healthz is served meanwhile."""
    srv = ctx.server("--header-timeout-ms", 1000)
    head = (f"GET /ws/echo HTTP/1.1\r\nHost: {srv.host_header()}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nX-Slow: ").encode()
    socks = []
    for _ in range(100):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        s.sendall(head)
        s.setblocking(False)
        socks.append(s)
    open_ones = set(range(len(socks)))
    started = time.monotonic()
    slowest = 0.0
    while open_ones and time.monotonic() - started < 6:
        for i in list(open_ones):
            try:
                socks[i].recv(4096)
                open_ones.discard(i)  # answered (408) or closed: the server let go
                continue
            except BlockingIOError:
                pass
            except OSError:
                open_ones.discard(i)
                continue
            try:
                socks[i].send(b"a")
            except OSError:
                open_ones.discard(i)
        slowest = max(slowest, srv.assert_serving("during a WebSocket slowloris"))
        time.sleep(0.3)
    for s in socks:
        s.close()
    h.check(not open_ones, f"{len(open_ones)} trickling upgrade requests still open after 6 s")
    srv.assert_connections_close("after a WebSocket slowloris")
    return f"all closed in {time.monotonic() - started:.1f} s, slowest /healthz {slowest:.2f} s"


def upload_with_length_and_chunked(ctx):
    """PUT /upload with both Content-Length and Transfer-Encoding: chunked
    (a smuggling shape): refused with 400, nothing stored, the connection
    not reused for the smuggled bytes."""
    updir = ctx.path("uploads")
    os.mkdir(updir)
    srv = ctx.server("--upload-dir", updir)
    s = srv.connect()
    smuggled = h.build_request("PUT", "/upload/smuggled", srv.host_header(), body=b"evil")
    s.sendall(h.build_request("PUT", "/upload/both", srv.host_header(), [("Content-Length", "5"),
                                                                        ("Transfer-Encoding", "chunked")]) +
              b"0\r\n\r\n" + smuggled)
    reader = h.Reader(s)
    status, _, body = h.read_response(reader)
    h.check(status == 400, f"Content-Length with chunked: {status} {body[:200]!r}")
    rest = reader.rest(1.0)
    s.close()
    h.check(b"HTTP/1.1 20" not in rest, f"the smuggled request was answered: {rest[:200]!r}")
    left = os.listdir(updir)
    h.check(not left, f"files stored: {left}")
    srv.assert_serving("after Content-Length with chunked")


def decoded(headers, body):
    encoding = headers.get("content-encoding", "identity")
    if encoding == "gzip":
        return gzip.decompress(body)
    h.check(encoding == "identity", f"unexpected Content-Encoding {encoding}")
    return body


def static_range_meets_compression(ctx):
    """A static file asked with Range, If-Range and If-None-Match beside
    Accept-Encoding: a range is a slice of the representation it names (ETag
    and Content-Encoding agree), an If-Range or If-None-Match with the gzip
    representation's ETag never validates the identity one."""
    srv = ctx.server()
    path = "/static/app.css"
    _, plain_headers, plain = srv.request("GET", path)
    _, gzip_headers, gzipped = srv.request("GET", path, [("Accept-Encoding", "gzip")])
    h.check(gzip_headers.get("content-encoding") == "gzip", f"{path} is not served gzip")
    h.check(gzip.decompress(gzipped) == plain, "the gzip representation is not the file")
    plain_tag, gzip_tag = plain_headers.get("etag"), gzip_headers.get("etag")
    h.check(plain_tag and gzip_tag and plain_tag != gzip_tag, f"one ETag for two representations: {plain_tag}")
    status, headers, body = srv.request("GET", path, [("Range", "bytes=0-9"), ("Accept-Encoding", "gzip")])
    h.check(status == 206, f"Range with Accept-Encoding: {status}")
    whole = gzipped if headers.get("content-encoding") == "gzip" else plain
    tag = gzip_tag if headers.get("content-encoding") == "gzip" else plain_tag
    h.check(body == whole[:10] and headers.get("content-range") == f"bytes 0-9/{len(whole)}",
            f"206 of {headers.get('content-encoding', 'identity')}: {headers.get('content-range')} {body!r}")
    h.check(headers.get("etag") == tag, f"a 206 of one representation with another's ETag {headers.get('etag')}")
    status, headers, body = srv.request("GET", path, [("Range", "bytes=0-9"), ("If-Range", gzip_tag)])
    h.check(status == 200 and decoded(headers, body) == plain,
            f"If-Range with the gzip ETag, identity asked: {status} (a slice of the wrong representation?)")
    status, headers, body = srv.request("GET", path, [("If-None-Match", gzip_tag)])
    h.check(status == 200 and decoded(headers, body) == plain,
            f"If-None-Match with the gzip ETag, identity asked: {status}")
    srv.assert_serving("after ranges and compression")


if __name__ == "__main__":
    sys.exit(h.run_group("protocol", [two_accept_encoding_lines, quoted_chunk_extension, websocket_origin,
                                      upgrade_shapes, websocket_slowloris, upload_with_length_and_chunked,
                                      static_range_meets_compression]))
