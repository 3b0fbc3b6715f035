#!/usr/bin/env python3
"""Hostile clients where WebSocket pub/sub meets the worker threads and the
send queues: a chat room whose members sit on both workers flooded by two
publishers, and clients that close or vanish while a flood is pending. The
server's memory must stay bounded (each socket's queue is capped by
max_backpressure) and a fresh client must still be served.

    fanout_test.py STET_SERVER [--only SCENARIO]
"""

import json
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import hostile_lib as h

MEMBERS = 200
FLOOD_SECONDS = 5
RSS_LIMIT = 300 * h.MIB
HEALTH_SECONDS = 5


class Drain(threading.Thread):
    """Reads and discards everything the sockets receive, until stopped."""

    def __init__(self, sockets):
        super().__init__(daemon=True)
        self.selector = selectors.DefaultSelector()
        for s in sockets:
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ)
        self.stopping = threading.Event()
        self.received = 0

    def run(self):
        while not self.stopping.is_set():
            for key, _ in self.selector.select(0.1):
                try:
                    data = key.fileobj.recv(1 << 16)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    self.selector.unregister(key.fileobj)
                self.received += len(data)


class Publisher(threading.Thread):
    """Sends batches of small chat messages as fast as the server takes them."""

    def __init__(self, sock, index):
        super().__init__(daemon=True)
        self.sock, self.stopping, self.sent, self.error = sock, threading.Event(), 0, None
        self.batch = b"".join(h.frame(h.TEXT, f"p{index} message {i:04d} ........".encode()) for i in range(500))

    def run(self):
        try:
            while not self.stopping.is_set():
                self.sock.sendall(self.batch)
                self.sent += 500
        except OSError as e:
            if not self.stopping.is_set():
                self.error = e


class Prober(threading.Thread):
    """Asks /healthz on fresh connections until stopped; notes the slowest answer and failures."""

    def __init__(self, srv):
        super().__init__(daemon=True)
        self.srv, self.stopping, self.slowest, self.asked, self.failures = srv, threading.Event(), 0.0, 0, []

    def run(self):
        while not self.stopping.is_set():
            try:
                self.slowest = max(self.slowest, self.srv.assert_serving("during the flood", seconds=HEALTH_SECONDS))
            except h.Failure as e:
                self.failures.append(str(e))
            self.asked += 1
            self.stopping.wait(0.2)


def chat_fanout_flood(ctx):
    """--threads 2, 200 members of one room (spread over both workers) reading
    all they get, two publishers flooding small messages for 5 s: VmRSS
    < 300 MiB and /healthz from a fresh client within 5 s, throughout."""
    return flood_room(ctx, members_read=True)


def chat_fanout_flood_silent_members(ctx):
    """The same with members that read nothing: their queues fill to the
    per-socket limit, then messages are dropped; memory stays bounded."""
    return flood_room(ctx, members_read=False)


def flood_room(ctx, members_read):
    srv = ctx.server("--threads", 2)
    room = "/ws/chat/flood"
    # Connections go to the workers in turn: members alternate with idle
    # /ws/echo sockets, so the members share one worker and the publishers
    # sit on the other, and every message crosses between them.
    members, idle, publishers = [], [], []
    for _ in range(MEMBERS):
        members.append(h.WebSocket.open(srv, room))
        idle.append(h.WebSocket.open(srv))
    for _ in range(2):
        idle.append(h.WebSocket.open(srv))
        publishers.append(h.WebSocket.open(srv, room))
    baseline = srv.rss()
    for ws in members + publishers:
        h.check(not ws.reader.buf, "a member got bytes before the flood")
    drain = Drain(([ws.sock for ws in members] if members_read else []) + [ws.sock for ws in publishers])
    drain.start()
    flooders = []
    for i, ws in enumerate(publishers):
        ws.sock.setblocking(True)  # sendall from its thread, while the drain reads the same socket
        flooders.append(Publisher(ws.sock, i))
    for p in flooders:
        p.start()
    prober = Prober(srv)
    prober.start()
    peak, problems = baseline, []
    started = time.monotonic()
    try:
        while time.monotonic() - started < FLOOD_SECONDS:
            peak = max(peak, srv.rss())
            if peak > RSS_LIMIT:
                problems.append(f"VmRSS reached {peak / h.MIB:.0f} MiB (limit {RSS_LIMIT / h.MIB:.0f})")
                break
            time.sleep(0.1)
    finally:
        prober.stopping.set()
        for p in flooders:
            p.stopping.set()
        drain.stopping.set()
        for ws in members + publishers + idle:
            ws.sock.close()  # also unblocks a publisher stuck in sendall
        for p in flooders:
            p.join(10)
        drain.join(10)
        prober.join(HEALTH_SECONDS + 5)
    problems += prober.failures[:1]
    sent = sum(p.sent for p in flooders)
    note = (f"{MEMBERS} members, {sent} messages published, {drain.received / h.MIB:.0f} MiB delivered, "
            f"VmRSS {baseline / h.MIB:.0f} -> peak {peak / h.MIB:.0f} MiB, {prober.asked} /healthz asked, "
            f"slowest {prober.slowest:.2f} s")
    h.check(not problems, "; ".join(problems) + f" ({note})")
    h.check(sent > 0, f"nothing was published ({note})")
    srv.assert_serving("after the flood")
    return note


def close_during_flood(ctx):
    """20 /ws/echo clients each write 4 MiB of messages and a close frame
    without reading, then reset the connection: the server must survive,
    serve, and give the memory back (VmRSS within 64 MiB of the baseline)."""
    srv = ctx.server()
    baseline = srv.rss()
    payload = b"".join(h.frame(h.BINARY, bytes([i]) * 8192) for i in range(256)) * 2  # 4 MiB
    clients = [h.WebSocket.open(srv) for _ in range(20)]
    writers = []
    for ws in clients:
        def write(ws=ws):
            try:
                ws.sock.sendall(payload + h.close_frame())
            except OSError:
                pass  # the reset below ends a write the server stopped reading
        t = threading.Thread(target=write, daemon=True)
        t.start()
        writers.append(t)
    time.sleep(1.0)
    peak = srv.rss()
    for ws in clients:
        ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
        ws.sock.close()
    for t in writers:
        t.join(10)
    srv.assert_serving("after resets during a pending flood")
    srv.assert_connections_close("after resets during a pending flood")
    # The sockets' queues go with them; allow the allocator its caches.
    h.wait_until(lambda: srv.rss() < baseline + 64 * h.MIB, "VmRSS to come back after the resets", 10)
    return f"VmRSS {baseline / h.MIB:.0f} -> {peak / h.MIB:.0f} -> {srv.rss() / h.MIB:.0f} MiB"


def leave_during_cross_worker_flood(ctx):
    """Members leaving (closing, or resetting) a room while a publisher on the
    other worker floods it: no crash, the room still delivers to those left."""
    srv = ctx.server("--threads", 2)
    room = "/ws/chat/churn"
    members = [h.WebSocket.open(srv, room) for _ in range(60)]
    publisher = h.WebSocket.open(srv, room)
    drain = Drain([publisher.sock] + [ws.sock for ws in members[30:]])
    drain.start()
    publisher.sock.setblocking(True)
    flood = Publisher(publisher.sock, 0)
    flood.start()
    try:
        for i, ws in enumerate(members[:30]):
            if i % 2:
                ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                ws.sock.sendall(h.close_frame())
            ws.sock.close()
            time.sleep(0.03)
        srv.assert_serving("while members leave a flooded room")
    finally:
        flood.stopping.set()
        publisher.sock.close()
        flood.join(10)
        drain.stopping.set()
        drain.join(10)
    h.check(drain.received > 0, "the members left got nothing")
    # A new member still gets the room's messages.
    a = h.WebSocket.open(srv, room)
    b = h.WebSocket.open(srv, room)
    b.send(b"after the churn", h.TEXT)
    deadline = time.monotonic() + 5
    while True:
        opcode, data = a.read_message()
        if data == b"after the churn":
            break
        h.check(time.monotonic() < deadline, "the room lost its messages after the churn")
    for ws in members[30:] + [a, b]:
        ws.sock.close()
    srv.assert_serving("after members left a flooded room")
    srv.assert_connections_close("after members left a flooded room")


def sigterm_during_flood(ctx):
    """--drain-timeout-ms 2000: SIGTERM while a room is flooded, 20 /ws/echo
    sockets idle and an upload is half sent: the process exits 0 within the
    drain timeout and a margin (10 s)."""
    srv = ctx.server("--threads", 2, "--drain-delay-ms", 0, "--drain-timeout-ms", 2000,
                     "--upload-dir", ctx.path(""))
    room = "/ws/chat/stop"
    members = [h.WebSocket.open(srv, room) for _ in range(20)]
    idle = [h.WebSocket.open(srv) for _ in range(20)]
    publisher = h.WebSocket.open(srv, room)
    drain = Drain([publisher.sock] + [ws.sock for ws in members[:10]])
    drain.start()
    publisher.sock.setblocking(True)
    flood = Publisher(publisher.sock, 0)
    flood.start()
    upload = srv.connect()
    upload.sendall(h.build_request("PUT", "/upload/half", srv.host_header(), [("Content-Length", str(10 * h.MIB))]))
    upload.sendall(b"u" * h.MIB)
    time.sleep(1.0)
    stopped = time.monotonic()
    srv.signal(signal.SIGTERM)
    try:
        code = srv.proc.wait(10)
    except subprocess.TimeoutExpired:
        code = None
    took = time.monotonic() - stopped
    flood.stopping.set()
    drain.stopping.set()
    for ws in members + idle + [publisher]:
        ws.sock.close()
    upload.close()
    flood.join(10)
    drain.join(10)
    h.check(code is not None, "stet-server did not exit within 10 s of SIGTERM (drain timeout 2 s)")
    h.check(code == 0, f"stet-server exited with {srv.describe_exit()} after SIGTERM")
    return f"exited 0 in {took:.1f} s"


def status_page_during_churn(ctx):
    """/-/status.json, /-/status and /-/metrics asked over and over while
    WebSockets open, publish, close and reset on both workers: every answer
    is 200 (and the JSON parses), the server survives, no connection leaks."""
    srv = ctx.server("--threads", 2)
    stop = threading.Event()
    problems = []

    def ask():
        while not stop.is_set():
            for path in ("/-/status.json", "/-/status", "/-/metrics"):
                try:
                    status, _, body = srv.request("GET", path)
                    if status != 200:
                        problems.append(f"{path}: {status}")
                    elif path.endswith(".json"):
                        json.loads(body)
                except (OSError, h.Failure, ValueError) as e:
                    problems.append(f"{path}: {type(e).__name__}: {e}")
                    return

    def churn(seed):
        i = 0
        while not stop.is_set():
            i += 1
            try:
                ws = h.WebSocket.open(srv, f"/ws/chat/churn{i % 3}" if i % 2 else "/ws/echo")
                ws.send(b"hello %d" % i, h.TEXT)
                if (i + seed) % 3 == 0:
                    ws.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    ws.sock.close()
                else:
                    ws.close()
            except (OSError, h.Failure) as e:
                problems.append(f"churn: {type(e).__name__}: {e}")
                return
    threads = [threading.Thread(target=ask, daemon=True)] + [
        threading.Thread(target=churn, args=(n,), daemon=True) for n in range(3)]
    for t in threads:
        t.start()
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join(15)
    h.check(not problems, "; ".join(problems[:3]))
    srv.assert_serving("after status pages during churn")
    srv.assert_connections_close("after churn")


if __name__ == "__main__":
    sys.exit(h.run_group("fanout", [chat_fanout_flood, chat_fanout_flood_silent_members, close_during_flood,
                                    leave_during_cross_worker_flood, sigterm_during_flood,
                                    status_page_during_churn]))
