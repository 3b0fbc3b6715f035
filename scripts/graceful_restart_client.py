#!/usr/bin/env python3
"""Clients for scripts/graceful_restart.sh: keep requests in flight while the
server is told to stop, and say exactly what became of each one.

    graceful_restart_client.py PORT CONNECTIONS SECONDS IDS_FILE READY_FILE

Each of CONNECTIONS threads opens a connection and loops over three kinds of
exchange, every request carrying a unique id=C-N in its query:
  GET /stream?rows=40000   about 1 MB, chunked, produced as the client reads
  GET /static/large.bin    2 MiB, sent by sendfile
  four pipelined GET /plaintext
When the server closes the connection the thread opens another, until a
connect is refused (the server is gone) or SECONDS pass. READY_FILE is
created once every thread has completed one exchange, so that the caller
signals the server only when all of them are in their loops.

Each request ends as one of:
  complete    its whole response arrived (ids written to IDS_FILE)
  after_close pipelined behind a response that said Connection: close: the
              server announced it would read no further (RFC 9112 9.6).
  unanswered  the connection closed before any byte of its response although
              no response had announced a close: the server had not read it
              when it closed the connection (idle at the drain). RFC 9112
              9.3.1 lets a client retry these.
  broken      the connection closed part-way through its response: an
              in-flight request was lost. Must be zero.
A summary is printed as one JSON line.
"""

import json
import socket
import sys
import threading
import time


class Closed(Exception):
    """The connection ended; `started` says whether any byte of the response had arrived."""

    def __init__(self, started):
        super().__init__()
        self.started = started


class Reader:
    """Reads HTTP/1.1 responses off a socket, knowing where each one ends."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.started = False  # a byte of the current response has arrived

    def _fill(self):
        try:
            chunk = self.sock.recv(262144)
        except (ConnectionResetError, TimeoutError, socket.timeout):
            chunk = b""
        if not chunk:
            raise Closed(self.started or bool(self.buffer))
        self.buffer += chunk

    def _line(self):
        while b"\r\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        self.started = True
        return line

    def _exactly(self, n):
        while len(self.buffer) < n:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def response(self):
        """(status, closes, body_length) of the next whole response."""
        self.started = bool(self.buffer)
        status = int(self._line().split(b" ")[1])
        headers = {}
        while True:
            line = self._line()
            if not line:
                break
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip().lower()
        length = 0
        if headers.get(b"transfer-encoding") == b"chunked":
            while True:
                size = int(self._line().split(b";")[0], 16)
                self._exactly(size + 2)
                length += size
                if size == 0:
                    break
        else:
            length = int(headers.get(b"content-length", b"0"))
            self._exactly(length)
        return status, headers.get(b"connection") == b"close", length


def exchanges(client):
    """The requests of each round, as lists of (id suffix, target)."""
    n = 0
    while True:
        kinds = [["/stream?rows=40000"], ["/static/large.bin"], ["/plaintext"] * 4]
        for targets in kinds:
            batch = []
            for target in targets:
                n += 1
                joiner = "&" if "?" in target else "?"
                batch.append(f"{target}{joiner}id={client}-{n}")
            yield batch


class Tally:
    def __init__(self, connections, ready_file):
        self.waiting = connections
        self.ready_file = ready_file
        self.lock = threading.Lock()
        self.counts = {"complete": 0, "after_close": 0, "unanswered": 0, "broken": 0, "bad_status": 0, "connections": 0, "refused": 0}
        self.ids = []

    def add(self, name, target=None):
        with self.lock:
            self.counts[name] += 1
            if target is not None:
                self.ids.append(target)

    def one_ready(self):
        with self.lock:
            self.waiting -= 1
            if self.waiting == 0:
                open(self.ready_file, "w", encoding="ascii").close()


def run_client(client, port, deadline, tally):
    plan = exchanges(client)
    ready = False
    while time.monotonic() < deadline:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        except ConnectionRefusedError:
            tally.add("refused")
            return
        except OSError:
            time.sleep(0.05)
            continue
        tally.add("connections")
        sock.settimeout(15)
        reader = Reader(sock)
        with sock:
            while time.monotonic() < deadline:
                batch = next(plan)
                try:
                    sock.sendall(b"".join(f"GET {t} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode() for t in batch))
                except OSError:
                    pass  # a reset on send; the reads below see the close
                closed = False
                announced = False
                for target in batch:
                    if closed:
                        tally.add("after_close" if announced else "unanswered")
                        continue
                    try:
                        status, closes, _ = reader.response()
                    except Closed as c:
                        tally.add("broken" if c.started else "unanswered")
                        closed = True
                        continue
                    if status == 200:
                        tally.add("complete", target)
                    else:
                        tally.add("bad_status")
                    closed = announced = closes
                if not ready:
                    ready = True
                    tally.one_ready()
                if closed:
                    break


def main():
    port, connections, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    ids_file, ready_file = sys.argv[4], sys.argv[5]
    deadline = time.monotonic() + seconds
    tally = Tally(connections, ready_file)
    threads = [threading.Thread(target=run_client, args=(c, port, deadline, tally)) for c in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(ids_file, "w", encoding="ascii") as out:
        out.write("\n".join(tally.ids) + "\n")
    print(json.dumps(tally.counts))


if __name__ == "__main__":
    main()
