#!/usr/bin/env python3
"""Hostile clients where pipelining meets the WebSocket upgrade: requests,
bodies, an upgrade and WebSocket frames arriving in one write on one
keep-alive connection. Pipelining an upgrade behind other requests is legal
HTTP/1.1 (RFC 9112 9.3.2), so every answer must come back in order, then the
101, then an echo of every frame.

    pipeline_test.py STET_SERVER SELF_SIGNED_CERT_SH [--only SCENARIO]
"""

import gzip
import json
import os
import sys
import time

import hostile_lib as h


def echo_frames(count=60, size=1000):
    """~60 KiB of valid masked binary frames, and the messages they carry."""
    messages = [bytes([i % 251]) * size + os.urandom(24) for i in range(count)]
    return messages, b"".join(h.frame(h.BINARY, m) for m in messages)


def expect_echoes(ws, messages, what):
    for i, m in enumerate(messages):
        opcode, data = ws.read_message()
        h.check(opcode == h.BINARY, f"{what}: message {i} came back as opcode {opcode} ({data[:40]!r})")
        h.check(data == m, f"{what}: message {i} came back as {len(data)} other bytes")


def tls_args(ctx, tls):
    if not tls:
        return []
    cert, key = ctx.certificate()
    return ["--tls-cert", cert, "--tls-key", key]


def upload_then_upgrade(ctx, tls=False):
    """PUT /upload/x with Content-Length 4, a pause, then in ONE write the 4
    body bytes, a GET /ws/echo upgrade and ~60 KiB of frames."""
    updir = ctx.path("uploads")
    os.mkdir(updir)
    srv = ctx.server("--upload-dir", updir, *tls_args(ctx, tls))
    s = srv.connect(tls=tls)
    s.sendall(f"PUT /upload/x HTTP/1.1\r\nHost: {srv.host_header(tls)}\r\nContent-Length: 4\r\n\r\n".encode())
    time.sleep(0.1)  # the head is parsed and the body sink waits for its bytes
    messages, frames = echo_frames()
    s.sendall(b"body" + h.upgrade_request("/ws/echo", srv.host_header(tls)) + frames)
    reader = h.Reader(s)
    status, _, body = h.read_response(reader)
    h.check(status == 201, f"the upload: {status} {body[:200]!r}")
    status, _, body = h.read_response(reader)
    h.check(status == 101, f"the upgrade behind the upload: {status} {body[:200]!r}")
    ws = h.WebSocket(s, reader)
    expect_echoes(ws, messages, "frames behind the upload")
    ws.close()
    with open(os.path.join(updir, "x"), "rb") as f:
        h.check(f.read() == b"body", "the stored upload is not the 4 body bytes")
    srv.assert_serving("after an upgrade pipelined behind an upload")


def upload_then_upgrade_tls(ctx):
    """The same over TLS (--tls-cert): the TLS transport's reads end the body."""
    upload_then_upgrade(ctx, tls=True)


def grown_buffer_then_upgrade(ctx, tls=False):
    """--max-header-bytes 131072: a request with a 70 KiB header (the read
    buffer grows past 32 KiB), then in the same write an upgrade and frames."""
    srv = ctx.server("--max-header-bytes", 131072, *tls_args(ctx, tls))
    s = srv.connect(tls=tls)
    padded = h.build_request("GET", "/plaintext", srv.host_header(tls), [("X-Pad", "p" * 70000)])
    messages, frames = echo_frames()
    s.sendall(padded + h.upgrade_request("/ws/echo", srv.host_header(tls)) + frames)
    reader = h.Reader(s)
    status, _, body = h.read_response(reader)
    h.check(status == 200 and body == b"Hello, World!", f"the padded request: {status} {body[:200]!r}")
    status, _, body = h.read_response(reader)
    h.check(status == 101, f"the upgrade behind the padded request: {status} {body[:200]!r}")
    ws = h.WebSocket(s, reader)
    expect_echoes(ws, messages, "frames behind a 70 KiB header")
    ws.close()
    srv.assert_serving("after an upgrade behind a grown read buffer")


def grown_buffer_then_upgrade_tls(ctx):
    """The same over TLS."""
    grown_buffer_then_upgrade(ctx, tls=True)


def padded_upgrade_with_frames(ctx):
    """--max-header-bytes 131072: the upgrade itself carries a 70 KiB header
    and ~60 KiB of frames follow it in the same write."""
    srv = ctx.server("--max-header-bytes", 131072)
    s = srv.connect()
    messages, frames = echo_frames()
    s.sendall(h.upgrade_request("/ws/echo", srv.host_header(), [("X-Pad", "p" * 70000)]) + frames)
    reader = h.Reader(s)
    status, _, body = h.read_response(reader)
    h.check(status == 101, f"the padded upgrade: {status} {body[:200]!r}")
    ws = h.WebSocket(s, reader)
    expect_echoes(ws, messages, "frames behind a 70 KiB upgrade head")
    ws.close()
    srv.assert_serving("after a padded upgrade")


def pipelined_compression_then_upgrade(ctx):
    """One write: GET /plaintext, GET /report.json asking for gzip (a
    compressed answer), a permessage-deflate upgrade, compressed frames."""
    srv = ctx.server()
    s = srv.connect()
    host = srv.host_header()
    messages = [json.dumps({"n": i, "text": "abc" * (50 + i)}).encode() for i in range(40)]
    frames = b"".join(h.frame(h.TEXT, h.deflate_message(m), rsv1=True) for m in messages)
    s.sendall(h.build_request("GET", "/plaintext", host) +
              h.build_request("GET", "/report.json", host, [("Accept-Encoding", "gzip")]) +
              h.upgrade_request("/ws/echo", host, deflate=True) + frames)
    reader = h.Reader(s)
    status, _, body = h.read_response(reader)
    h.check(status == 200 and body == b"Hello, World!", f"/plaintext: {status} {body[:100]!r}")
    status, headers, body = h.read_response(reader)
    h.check(status == 200 and headers.get("content-encoding") == "gzip",
            f"/report.json: {status}, Content-Encoding {headers.get('content-encoding')!r}")
    report = json.loads(gzip.decompress(body))
    h.check("regions" in report, "/report.json did not decompress to the report")
    status, headers, body = h.read_response(reader)
    h.check(status == 101, f"the upgrade behind two answers: {status} {body[:200]!r}")
    h.check("permessage-deflate" in headers.get("sec-websocket-extensions", ""), "permessage-deflate not agreed")
    ws = h.WebSocket(s, reader, deflate=True)
    for i, m in enumerate(messages):
        opcode, data = ws.read_message()
        h.check((opcode, data) == (h.TEXT, m), f"compressed message {i} came back as {opcode} {data[:60]!r}")
    ws.close()
    srv.assert_serving("after pipelined compression and an upgrade")


def head_then_get(ctx):
    """HEAD of a chunked stream and of a compressed answer, pipelined before
    GETs: a HEAD answer has no body, so the next answer must parse."""
    srv = ctx.server()
    s = srv.connect()
    host = srv.host_header()
    s.sendall(h.build_request("HEAD", "/stream?rows=200000", host) + h.build_request("GET", "/plaintext", host) +
              h.build_request("HEAD", "/report.json", host, [("Accept-Encoding", "gzip")]) +
              h.build_request("GET", "/stream?rows=3", host))
    reader = h.Reader(s)
    status, _, _ = h.read_response(reader, head=True)
    h.check(status == 200, f"HEAD /stream: {status}")
    status, _, body = h.read_response(reader)
    h.check(status == 200 and body == b"Hello, World!", f"GET after HEAD /stream: {status} {body[:100]!r}")
    status, _, _ = h.read_response(reader, head=True)
    h.check(status == 200, f"HEAD /report.json: {status}")
    status, _, body = h.read_response(reader)
    h.check(status == 200 and body.startswith(b"id,name,score\n0,user-0,0\n") and body.count(b"\n") == 4,
            f"GET /stream after two HEADs: {status} {body[:200]!r}")
    s.settimeout(0.5)
    leftover = reader.rest(0.5)
    h.check(leftover == b"", f"bytes after the last answer (a HEAD sent a body?): {leftover[:100]!r}")
    s.close()
    srv.assert_serving("after pipelined HEADs")


def expect_continue_then_upgrade(ctx):
    """PUT /upload/y with Expect: 100-continue; after the 100, one write
    with the body, an upgrade and frames."""
    updir = ctx.path("uploads")
    os.mkdir(updir)
    srv = ctx.server("--upload-dir", updir)
    s = srv.connect()
    s.sendall(h.build_request("PUT", "/upload/y", srv.host_header(),
                              [("Content-Length", "5"), ("Expect", "100-continue")]))
    reader = h.Reader(s)
    status, _, _ = h.read_response(reader)
    h.check(status == 100, f"Expect: 100-continue answered {status}")
    messages, frames = echo_frames(30)
    s.sendall(b"hello" + h.upgrade_request("/ws/echo", srv.host_header()) + frames)
    status, _, body = h.read_response(reader)
    h.check(status == 201, f"the upload after 100: {status} {body[:200]!r}")
    status, _, body = h.read_response(reader)
    h.check(status == 101, f"the upgrade behind a 100-continue upload: {status} {body[:200]!r}")
    expect_echoes(h.WebSocket(s, reader), messages, "frames behind a 100-continue upload")
    s.close()
    with open(os.path.join(updir, "y"), "rb") as f:
        h.check(f.read() == b"hello", "the stored upload is not the body")
    srv.assert_serving("after an upgrade behind a 100-continue upload")


def compressed_stream_unread(ctx):
    """GET /stream of 10 million rows, gzip asked, never read; and 2,000
    gzip answers of /report.json pipelined in one write, never read: the
    server's memory stays within 64 MiB of where it was (back-pressure holds
    through compression), and it serves others meanwhile."""
    srv = ctx.server()
    baseline = srv.rss()
    stream = srv.connect()
    stream.sendall(h.build_request("GET", "/stream?rows=10000000", srv.host_header(), [("Accept-Encoding", "gzip")]))
    piped = srv.connect()
    one = h.build_request("GET", "/report.json", srv.host_header(), [("Accept-Encoding", "gzip")])
    try:
        piped.sendall(one * 2000)
    except OSError:
        pass  # the server stopped reading: as it may
    time.sleep(2.0)
    grown = srv.rss() - baseline
    srv.assert_serving("with unread compressed answers")
    note = f"VmRSS {baseline / h.MIB:.0f} -> {(baseline + grown) / h.MIB:.0f} MiB with two unread connections"
    h.check(grown < 64 * h.MIB, f"unread compressed answers pile up: {note}")
    stream.close()
    piped.close()
    srv.assert_connections_close("after unread compressed answers")
    return note


if __name__ == "__main__":
    sys.exit(h.run_group("pipeline", [upload_then_upgrade, upload_then_upgrade_tls, grown_buffer_then_upgrade,
                                      grown_buffer_then_upgrade_tls, padded_upgrade_with_frames,
                                      pipelined_compression_then_upgrade, head_then_get,
                                      expect_continue_then_upgrade, compressed_stream_unread]))
