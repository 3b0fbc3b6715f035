#!/usr/bin/env python3
"""Hostile clients where permessage-deflate meets the memory a connection
keeps: many sockets idle after one big compressed message, compressed
fragments left open, and the largest message allowed sent as one frame and as
fragments (the two must be treated alike).

    wsmem_test.py STET_SERVER SELF_SIGNED_CERT_SH [--only SCENARIO]
"""

import os
import sys
import threading
import time

import hostile_lib as h

CONNECTIONS = 40
PER_CONNECTION_LIMIT = h.MIB
ROUTE_BUDGET = 256 * h.MIB  # stet-server's default --websocket-budget-bytes


def big_text(size):
    """`size` bytes that compress about 1000:1, unlike each other per call."""
    seed = os.urandom(8).hex().encode()
    line = b"stet hostile " + seed + b" " * 35  # 64 bytes
    return (line * (size // len(line) + 1))[:size]


def send_and_read_echo(srv, payload, data, inflate=True):
    """A /ws/echo socket that sent `payload` (one compressed frame) and read
    back `data` (only its frames, not inflated, unless `inflate`)."""
    ws = h.WebSocket.open(srv, deflate=True)
    ws.sock.sendall(h.frame(h.BINARY, payload, rsv1=True))
    if not inflate:  # the server's work is the same; the client's is a tenth
        opcode, fin = None, False
        while not fin:
            fin, _, op, body = ws.read_frame()
            h.check(op in (h.BINARY, 0), f"the echo of a {len(data)}-byte compressed message: opcode {op}")
        return ws
    opcode, echoed = ws.read_message()
    h.check(opcode == h.BINARY and echoed == data,
            f"the echo of a {len(data)}-byte compressed message: opcode {opcode}, {len(echoed)} bytes")
    return ws


def idle_after_big_message(ctx):
    """40 /ws/echo sockets each send one compressed message inflating to
    15 MiB, read its echo, then stay idle: VmRSS must grow < 1 MiB each."""
    srv = ctx.server()
    data = big_text(15 * h.MIB)
    payload = h.deflate_message(data)
    for _ in range(2):  # the workers' pools and the allocator's arenas are warm
        send_and_read_echo(srv, payload, data).close()
    time.sleep(0.3)
    baseline = srv.rss()
    idle = [send_and_read_echo(srv, payload, data, inflate=False) for _ in range(CONNECTIONS)]
    time.sleep(0.5)
    grown = srv.rss() - baseline
    note = (f"{CONNECTIONS} idle sockets after a 15 MiB message ({len(payload)} bytes compressed): VmRSS "
            f"{baseline / h.MIB:.0f} -> {(baseline + grown) / h.MIB:.0f} MiB, "
            f"{grown / CONNECTIONS / 1024:.0f} KiB each")
    h.check(grown < CONNECTIONS * PER_CONNECTION_LIMIT, f"each idle socket keeps too much: {note}")
    srv.assert_serving("with idle sockets after big messages")
    for ws in idle:
        ws.close()
    return note


def open_compressed_fragment(ctx):
    """40 /ws/echo sockets each send the first compressed fragment (no FIN) of a
    message inflating to 128 KiB, then go idle: VmRSS must grow < 1 MiB
    each; then the final fragments complete every message."""
    srv = ctx.server()
    data = big_text(128 * 1024)
    payload = h.deflate_message(data)
    half = len(payload) // 2
    warm = send_and_read_echo(srv, payload, data)
    warm.close()
    time.sleep(0.3)
    baseline = srv.rss()
    open_ones = []
    for _ in range(CONNECTIONS):
        ws = h.WebSocket.open(srv, deflate=True)
        ws.sock.sendall(h.frame(h.BINARY, payload[:half], fin=False, rsv1=True))
        open_ones.append(ws)
    time.sleep(1.0)
    grown = srv.rss() - baseline
    note = (f"{CONNECTIONS} open compressed fragments: VmRSS {baseline / h.MIB:.0f} -> "
            f"{(baseline + grown) / h.MIB:.0f} MiB, {grown / CONNECTIONS / 1024:.0f} KiB each")
    h.check(grown < CONNECTIONS * PER_CONNECTION_LIMIT, f"each open fragment keeps too much: {note}")
    srv.assert_serving("with open compressed fragments")
    for i, ws in enumerate(open_ones):
        ws.sock.sendall(h.frame(0, payload[half:], fin=True))
        opcode, echoed = ws.read_message()
        h.check(opcode == h.BINARY and echoed == data, f"message {i} completed late came back as {opcode}, "
                f"{len(echoed)} bytes")
        ws.close()
    return note


def open_fragments_past_the_budget(ctx):
    """64 /ws/echo sockets each send the first half of a compressed message
    inflating to 15 MiB (about 23 KB on the wire, 7.5 MiB once inflated: 480
    MiB in all) and hold it open. The route's budget for messages being
    assembled must hold: VmRSS grows by less than the budget and 64 MiB, the
    sockets past it are closed with 1013, and the server still serves."""
    srv = ctx.server()
    data = big_text(15 * h.MIB)
    payload = h.deflate_message(data)
    half = len(payload) // 2
    baseline = srv.rss()
    open_ones = []
    for _ in range(64):
        ws = h.WebSocket.open(srv, deflate=True)
        ws.sock.sendall(h.frame(h.BINARY, payload[:half], fin=False, rsv1=True))
        open_ones.append(ws)
    time.sleep(1.0)
    grown = srv.rss() - baseline
    refused = 0
    for ws in open_ones:
        ws.sock.settimeout(0.05)
        try:
            _, _, op, body = ws.read_frame()
            refused += op == h.CLOSE and h.close_code(body) == 1013
        except (OSError, h.Failure):  # nothing sent (still open), or gone
            pass
    note = (f"{len(open_ones)} open compressed fragments of {half} bytes: VmRSS {baseline / h.MIB:.0f} -> "
            f"{(baseline + grown) / h.MIB:.0f} MiB, {refused} closed with 1013")
    h.check(grown < ROUTE_BUDGET + 64 * h.MIB, f"open fragments grow the server past the route's budget: {note}")
    h.check(refused > 0, f"no socket past the route's budget was closed with 1013: {note}")
    srv.assert_serving("with open fragments past the budget")
    for ws in open_ones:
        ws.close()
    return note


def outcome(srv, payload, fragment, data):
    """What the server did with a compressed message: 'echoed', or how it refused."""
    ws = h.WebSocket.open(srv, deflate=True)
    ws.sock.settimeout(30)
    sent = threading.Event()

    def write():
        try:
            if fragment is None:
                ws.sock.sendall(h.frame(h.BINARY, payload, rsv1=True))
            else:
                pieces = [payload[i:i + fragment] for i in range(0, len(payload), fragment)]
                for i, piece in enumerate(pieces):
                    ws.sock.sendall(h.frame(h.BINARY if i == 0 else 0, piece, fin=i == len(pieces) - 1, rsv1=i == 0))
        except OSError:
            pass  # refused while sending: the answer says how
        sent.set()
    writer = threading.Thread(target=write, daemon=True)
    writer.start()  # reading meanwhile: a refusal may come before the last byte is sent
    try:
        opcode, echoed = ws.read_message()
    except (OSError, h.Failure) as e:
        return f"connection lost ({type(e).__name__})"
    finally:
        writer.join(30)
        ws.sock.close()
    if opcode == h.CLOSE:
        return f"closed with {h.close_code(echoed)}"
    return "echoed" if echoed == data else f"echoed {len(echoed)} other bytes"


def big_message_one_frame_vs_fragments(ctx):
    """16 MiB of random bytes (the route's max_message_bytes) sent compressed
    in one frame and in 1 MiB fragments: the server must do the same with both."""
    srv = ctx.server()
    data = os.urandom(16 * h.MIB)
    payload = h.deflate_message(data, level=1)
    whole = outcome(srv, payload, None, data)
    pieces = outcome(srv, payload, h.MIB, data)
    note = f"{len(payload)} bytes compressed: one frame -> {whole}; 1 MiB fragments -> {pieces}"
    h.check(whole == pieces, f"the two paths disagree: {note}")
    srv.assert_serving("after 16 MiB compressed messages")
    return note


def tls_fragments_with_pings(ctx):
    """Over TLS: a 4 MiB message compressed and cut in 64 KiB fragments with a
    ping between every two (control frames may come mid-message): a pong for
    each ping, in order, then the whole message back."""
    cert, key = ctx.certificate()
    srv = ctx.server("--tls-cert", cert, "--tls-key", key)
    ws = h.WebSocket.open(srv, deflate=True, tls=True)
    data = big_text(2 * h.MIB) + os.urandom(2 * h.MIB)
    payload = h.deflate_message(data)
    pieces = [payload[i:i + 65536] for i in range(0, len(payload), 65536)]
    out = b""
    for i, piece in enumerate(pieces):
        out += h.frame(h.BINARY if i == 0 else 0, piece, fin=i == len(pieces) - 1, rsv1=i == 0)
        if i % 2 == 0 and i < len(pieces) - 1:  # mid-message only (message_behind_backpressure: after it)
            out += h.frame(h.PING, b"ping %d" % i)
    ws.sock.sendall(out)
    pongs = []
    while True:
        fin, rsv1, opcode, body = ws.read_frame()
        if opcode == h.PONG:
            pongs.append(body)
            continue
        h.check(opcode == h.BINARY, f"got opcode {opcode} ({body[:60]!r}) before the echo")
        parts = [body]
        while not fin:
            fin, _, op, body = ws.read_frame()
            if op == h.PONG:
                pongs.append(body)
                continue
            parts.append(body)
        echoed = h.inflate_message(b"".join(parts)) if rsv1 else b"".join(parts)
        break
    h.check(echoed == data, f"the echo is {len(echoed)} other bytes")
    expected = [b"ping %d" % i for i in range(0, len(pieces) - 1, 2)]
    while len(pongs) < len(expected):
        fin, _, opcode, body = ws.read_frame()
        h.check(opcode == h.PONG, f"opcode {opcode} where a pong was due")
        pongs.append(body)
    h.check(pongs == expected, f"pongs {pongs[:3]}... do not answer the pings {expected[:3]}...")
    ws.close()
    srv.assert_serving("after fragments with pings over TLS", tls=True)


def message_behind_backpressure(ctx):
    """One write: a 2 MiB message (its echo alone is over the 1 MiB send
    queue limit, so the socket stops reading), a small message and a ping
    right behind it. Once the client has read the big echo, the bytes
    already received must be handled: the small echo and the pong come."""
    srv = ctx.server()
    for deflate in (False, True):
        ws = h.WebSocket.open(srv, deflate=deflate)
        big = os.urandom(2 * h.MIB)
        ws.sock.sendall(h.frame(h.BINARY, big) + h.frame(h.TEXT, b"right behind") + h.frame(h.PING, b"still there?"))
        opcode, echoed = ws.read_message()
        h.check(opcode == h.BINARY and echoed == big, f"the 2 MiB echo: opcode {opcode}, {len(echoed)} bytes")
        ws.sock.settimeout(5)
        try:
            frames = [ws.read_frame() for _ in range(2)]
        except TimeoutError:
            raise h.Failure(f"{'compressed' if deflate else 'plain'}: the message and ping behind a 2 MiB one "
                            f"were never handled (nothing in 5 s)")
        got = [(op, h.inflate_message(body) if rsv1 else body) for _, rsv1, op, body in frames]
        h.check(got == [(h.TEXT, b"right behind"), (h.PONG, b"still there?")],
                f"behind a 2 MiB message: {got}")
        ws.close()
    srv.assert_serving("after messages behind back-pressure")


if __name__ == "__main__":
    sys.exit(h.run_group("wsmem", [idle_after_big_message, open_compressed_fragment, open_fragments_past_the_budget,
                                   big_message_one_frame_vs_fragments, tls_fragments_with_pings,
                                   message_behind_backpressure]))
