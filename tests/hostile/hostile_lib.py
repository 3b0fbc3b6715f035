"""What the hostile-client tests share: a real stet-server started on
127.0.0.1 port 0 (the port read from its "listening on" lines) and stopped by
its PID; raw HTTP and WebSocket bytes over real sockets; the server's memory
and CPU time from /proc; and a runner that runs every scenario of a group,
each against its own server, and reports them all.

After each attack the scenario asks /healthz on a fresh connection: the
process must still be up and serving. Every wait is bounded. A missing tool
is a failure, never a skip. Python 3 standard library only.
"""

import os
import re
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

START_SECONDS = 15
STOP_SECONDS = 10
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MIB = 1 << 20


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


# --- the server --------------------------------------------------------------------


class Server:
    """stet-server on 127.0.0.1 port 0 with `args`; its stderr in `log_path`.
    `port` is the plain listener, `tls_port` the HTTPS one (with --tls-cert)."""

    def __init__(self, binary, args, log_path, proxy_protocol=False):
        self.proxy_protocol = proxy_protocol
        self.log_path = log_path
        argv = [binary, "--host", "127.0.0.1", "--port", "0", "--no-access-log", *args]
        if "--tls-cert" in args and "--tls-port" not in args:
            argv += ["--tls-port", "0"]
        if "--threads" not in args:
            argv += ["--threads", "2"]
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        try:
            self.port, self.tls_port = self._ports("--tls-cert" in args)
        except Failure:  # never handed to the scenario's context, which stops the servers it has
            self.stop()
            raise

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def _ports(self, tls):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if not self.alive():
                raise Failure(f"stet-server exited at start (code {self.proc.returncode}): {self.log_tail()}")
            text = self.log_text()
            # In the order printed: the plain listener, then the TLS one.
            ports = [int(p) for p in re.findall(r"listening on https?://\S*:(\d+)/", text)]
            if len(ports) >= (2 if tls else 1):
                return ports[0], (ports[1] if tls else None)
            time.sleep(0.02)
        raise Failure(f"stet-server printed no listening line: {self.log_tail()}")

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def log_tail(self, n=3000):
        return self.log_text()[-n:]

    def signal(self, sig):
        if self.alive():
            os.kill(self.pid, sig)

    def stop(self):
        if self.alive():
            os.kill(self.pid, signal.SIGTERM)
            try:
                self.proc.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()

    def describe_exit(self):
        code = self.proc.returncode
        if code is not None and code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def rss(self):
        """Resident memory in bytes (VmRSS)."""
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise Failure("no VmRSS in /proc/PID/status")

    def cpu_seconds(self):
        """User + system CPU time of the whole process so far."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime (fields 14, 15)

    def busy_seconds(self):
        """Time the process's threads were running or ready to run (on a CPU
        or in the run queue: /proc/PID/task/*/schedstat). A spinning thread
        counts all of wall time even on a loaded machine, where its CPU time
        alone would be only its share; a waiting thread counts nearly none."""
        total = 0
        for task in os.listdir(f"/proc/{self.pid}/task"):
            try:
                with open(f"/proc/{self.pid}/task/{task}/schedstat") as f:
                    run_ns, wait_ns, _ = f.read().split()
                total += int(run_ns) + int(wait_ns)
            except (FileNotFoundError, ProcessLookupError):
                pass  # a thread that ended meanwhile
        return total / 1e9

    def connect(self, tls=False, timeout=10, proxy_header=None):
        """A fresh connection; with --proxy-protocol a PROXY v1 header is sent first."""
        s = socket.create_connection(("127.0.0.1", self.tls_port if tls else self.port), timeout=timeout)
        if proxy_header is None and self.proxy_protocol:
            proxy_header = b"PROXY TCP4 127.0.0.1 127.0.0.1 40000 80\r\n"
        if proxy_header:
            s.sendall(proxy_header)
        if tls:
            s = client_tls_context().wrap_socket(s, server_hostname="localhost")
        return s

    def request(self, method, path, headers=None, body=b"", tls=False, timeout=10):
        """One request on a fresh connection: (status, headers lower-cased, body)."""
        s = self.connect(tls=tls, timeout=timeout)
        try:
            s.sendall(build_request(method, path, self.host_header(tls), headers, body))
            return read_response(Reader(s), head=method == "HEAD")
        finally:
            s.close()

    def metric(self, name, missing=None):
        """The value of an unlabelled metric of /-/metrics (`missing` when absent, if given)."""
        status, _, body = self.request("GET", "/-/metrics")
        check(status == 200, f"/-/metrics: {status}")
        for line in body.decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        check(missing is not None, f"/-/metrics has no {name}")
        return missing

    def assert_connections_close(self, what, seconds=5):
        """Every connection of the test was let go: stet_connections_open comes
        down to the one asking and stet_websockets_open to 0 (a leaked
        connection keeps them up)."""
        last = []

        def down():
            last.append((self.metric("stet_connections_open"), self.metric("stet_websockets_open", missing=0)))
            return last[-1][0] <= 1 and last[-1][1] == 0
        try:
            wait_until(down, "the open connections to come down", seconds)
        except Failure:
            raise Failure(f"{what}: {last[-1][0] - 1:.0f} connections and {last[-1][1]:.0f} WebSockets still "
                          f"open {seconds} s after the clients closed")

    def host_header(self, tls=False):
        return f"127.0.0.1:{self.tls_port if tls else self.port}"

    def assert_serving(self, what, seconds=5, tls=False):
        """The process is up and a fresh client gets /healthz within `seconds`."""
        if not self.alive():
            self.proc.wait()
            raise Failure(f"{what}: stet-server is gone ({self.describe_exit()})")
        started = time.monotonic()
        try:
            status, _, body = self.request("GET", "/healthz", timeout=seconds, tls=tls)
        except (OSError, Failure) as e:
            state = "up" if self.alive() else self.describe_exit()
            raise Failure(f"{what}: /healthz from a fresh client failed after "
                          f"{time.monotonic() - started:.1f} s ({type(e).__name__}: {e}); server {state}")
        check(status == 200 and body == b"ok", f"{what}: /healthz answered {status} {body[:80]!r}")
        return time.monotonic() - started


def client_tls_context():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # a throwaway self-signed certificate
    return ctx


def make_cert(directory, script):
    out = subprocess.run(["bash", script, directory], capture_output=True, text=True, timeout=30)
    check(out.returncode == 0, f"self-signed-cert.sh failed: {out.stderr}")
    return os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")


def wait_until(condition, what, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise Failure(f"timed out after {seconds} s waiting for {what}")


# --- HTTP/1.1 bytes -------------------------------------------------------------------


def build_request(method, path, host, headers=None, body=b""):
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    given = {k.lower() for k, _ in (headers or [])}
    for k, v in headers or []:
        lines.append(f"{k}: {v}")
    if body and "content-length" not in given and "transfer-encoding" not in given:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class Reader:
    """Buffered reads from a socket: lines, exact counts, whatever is left."""

    def __init__(self, sock, data=b""):
        self.sock, self.buf = sock, bytearray(data)

    def _more(self):
        chunk = self.sock.recv(1 << 16)
        if not chunk:
            raise Failure(f"connection closed by the server ({len(self.buf)} bytes unread)")
        self.buf += chunk

    def line(self, limit=1 << 20):
        while True:
            at = self.buf.find(b"\r\n")
            if at >= 0:
                out = bytes(self.buf[:at])
                del self.buf[:at + 2]
                return out
            check(len(self.buf) < limit, "a line without an end")
            self._more()

    def exact(self, n):
        while len(self.buf) < n:
            self._more()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def rest(self, seconds=1.0):
        """Everything until the server closes or is silent for `seconds`."""
        self.sock.settimeout(seconds)
        try:
            while True:
                chunk = self.sock.recv(1 << 16)
                if not chunk:
                    break
                self.buf += chunk
        except (socket.timeout, ConnectionResetError):
            pass
        out = bytes(self.buf)
        self.buf.clear()
        return out


def read_head(reader):
    status_line = reader.line()
    parts = status_line.split(b" ", 2)
    check(len(parts) >= 2 and parts[0].startswith(b"HTTP/1."), f"not a status line: {status_line[:100]!r}")
    headers = {}
    while True:
        line = reader.line()
        if not line:
            break
        name, _, value = line.partition(b":")
        headers.setdefault(name.decode().strip().lower(), []).append(value.decode(errors="replace").strip())
    return int(parts[1]), headers


def read_response(reader, head=False):
    """(status, {name: value} (the last of repeated fields), body) of one response."""
    status, fields = read_head(reader)
    headers = {k: v[-1] for k, v in fields.items()}
    if head or status in (101, 204, 304) or 100 <= status < 200:
        return status, headers, b""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = bytearray()
        while True:
            size = int(reader.line().split(b";")[0], 16)
            if size == 0:
                while reader.line():
                    pass
                return status, headers, bytes(body)
            body += reader.exact(size)
            check(reader.line() == b"", "chunk without CRLF")
    if "content-length" in headers:
        return status, headers, reader.exact(int(headers["content-length"]))
    return status, headers, reader.rest()


# --- WebSocket bytes -------------------------------------------------------------------

WS_KEY = "dGhlIHNhbXBsZSBub25jZQ=="
DEFLATE_OFFER = "permessage-deflate; client_no_context_takeover; server_no_context_takeover"
TEXT, BINARY, CLOSE, PING, PONG = 1, 2, 8, 9, 10


def upgrade_request(path, host, extra=None, deflate=False):
    headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", WS_KEY),
               ("Sec-WebSocket-Version", "13")]
    if deflate:
        headers.append(("Sec-WebSocket-Extensions", DEFLATE_OFFER))
    return build_request("GET", path, host, headers + list(extra or []))


def mask(payload, key):
    """payload XOR the repeated 4-byte key (fast for MiBs: one big integer)."""
    if not payload:
        return b""
    n = len(payload)
    repeated = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(repeated, "little")).to_bytes(n, "little")


def frame(opcode, payload, fin=True, rsv1=False, masked=True):
    """One client frame (masked, as RFC 6455 requires of clients)."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    n = len(payload)
    bit = 0x80 if masked else 0
    if n < 126:
        head = struct.pack("!BB", first, bit | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", first, bit | 126, n)
    else:
        head = struct.pack("!BBQ", first, bit | 127, n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + mask(payload, key)


def deflate_message(data, level=6):
    """A permessage-deflate payload (RFC 7692 7.2.1): raw deflate, the final
    empty stored block's 00 00 ff ff removed."""
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
    check(out.endswith(b"\x00\x00\xff\xff"), "zlib did not end with a sync flush")
    return out[:-4]


def inflate_message(payload, limit=64 * MIB):
    d = zlib.decompressobj(-15)
    out = d.decompress(payload + b"\x00\x00\xff\xff", limit)
    check(not d.unconsumed_tail, "a message inflating past the test's limit")
    return out


def close_frame(code=1000, reason=b""):
    return frame(CLOSE, struct.pack("!H", code) + reason)


class WebSocket:
    """A raw client WebSocket: the upgrade, masked frames out, frames and
    whole messages (inflated when compressed) in."""

    def __init__(self, sock, reader, deflate=False):
        self.sock, self.reader, self.deflate = sock, reader, deflate

    @classmethod
    def open(cls, server, path="/ws/echo", deflate=False, extra=None, tls=False, timeout=10):
        s = server.connect(tls=tls, timeout=timeout)
        s.sendall(upgrade_request(path, server.host_header(tls), extra, deflate))
        reader = Reader(s)
        status, headers, body = read_response(reader)
        check(status == 101, f"upgrade of {path}: {status} {body[:100]!r}")
        if deflate:
            check("permessage-deflate" in headers.get("sec-websocket-extensions", ""),
                  f"permessage-deflate not agreed: {headers}")
        return cls(s, reader, deflate)

    def send(self, data, opcode=BINARY):
        self.sock.sendall(frame(opcode, data))

    def send_compressed(self, data, opcode=BINARY, fragment=None):
        payload = deflate_message(data)
        if fragment is None:
            self.sock.sendall(frame(opcode, payload, rsv1=True))
            return
        pieces = [payload[i:i + fragment] for i in range(0, len(payload), fragment)] or [b""]
        for i, piece in enumerate(pieces):
            self.sock.sendall(frame(opcode if i == 0 else 0, piece, fin=i == len(pieces) - 1, rsv1=i == 0))

    def read_frame(self):
        """(fin, rsv1, opcode, payload) of one server frame (never masked)."""
        b0, b1 = self.reader.exact(2)
        check(not b1 & 0x80, "the server masked a frame")
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self.reader.exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self.reader.exact(8))[0]
        return bool(b0 & 0x80), bool(b0 & 0x40), b0 & 0x0F, self.reader.exact(n)

    def read_message(self):
        """(opcode, data) of the next data or close message; pings answered."""
        opcode, compressed, parts = None, False, []
        while True:
            fin, rsv1, op, payload = self.read_frame()
            if op == PING:
                self.sock.sendall(frame(PONG, payload))
                continue
            if op in (PONG,):
                continue
            if op == CLOSE:
                return CLOSE, payload
            if opcode is None:
                opcode, compressed = op, rsv1
            parts.append(payload)
            if fin:
                data = b"".join(parts)
                return opcode, inflate_message(data) if compressed else data

    def close(self):
        try:
            self.sock.sendall(close_frame())
        except OSError:
            pass
        self.sock.close()


def close_code(payload):
    return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None


# --- the runner ---------------------------------------------------------------------------


class Context:
    """What a scenario gets: the binary, a scratch directory, and servers it
    starts (all stopped after it, by PID)."""

    def __init__(self, binary, extra_args, name):
        self.binary, self.args = binary, extra_args
        self.dir = tempfile.mkdtemp(prefix=f"stet-hostile-{name}-")
        self.servers = []

    def path(self, name):
        return os.path.join(self.dir, name)

    def certificate(self, name="tls"):
        """(cert, key) made by scripts/self-signed-cert.sh (the group's argument)."""
        check(self.args, "no self-signed-cert.sh given")
        return make_cert(self.path(name), self.args[0])

    def server(self, *args, proxy_protocol=False):
        args = [str(a) for a in args]
        if "--upload-dir" not in args:  # not the server's private one in /tmp, which a crash would leave behind
            args += ["--upload-dir", tempfile.mkdtemp(prefix="uploads-", dir=self.dir)]
        s = Server(self.binary, args, self.path(f"stet-{len(self.servers)}.log"), proxy_protocol=proxy_protocol)
        self.servers.append(s)
        return s

    def crashes(self):
        """' [stet-server killed by SIGSEGV]' for each server that died under the test."""
        for s in self.servers:  # a crash may land just after the client saw the connection drop
            try:
                s.proc.wait(0.5)
            except subprocess.TimeoutExpired:
                pass
        gone = [s for s in self.servers if not s.alive()]
        return "".join(f" [stet-server {s.describe_exit()}]" for s in gone)

    def close(self, failed):
        for s in self.servers:
            s.stop()
        if failed:
            for s in self.servers:
                print(f"--- {os.path.basename(s.log_path)} (tail)\n{s.log_tail()}", file=sys.stderr)
        shutil.rmtree(self.dir, ignore_errors=True)


def run_group(group, scenarios):
    """Runs every scenario (a function taking a Context) whatever the others
    did; exit status 1 when any failed. argv: STET_SERVER [extra args] and
    optionally --only NAME to run one scenario."""
    argv = sys.argv[1:]
    only = None
    if "--only" in argv:
        at = argv.index("--only")
        only = argv[at + 1]
        del argv[at:at + 2]
    check_binary = argv[0] if argv else ""
    if not os.access(check_binary, os.X_OK):
        print(f"FAIL {group}: no stet-server binary given ({check_binary!r})", file=sys.stderr)
        return 1
    failed = []
    ran = 0
    for scenario in scenarios:
        name = scenario.__name__
        if only and name != only:
            continue
        ran += 1
        ctx = Context(argv[0], argv[1:], name)
        started = time.monotonic()
        bad = True
        try:
            note = scenario(ctx)
            bad = False
            print(f"ok   {group}.{name} ({time.monotonic() - started:.1f} s){': ' + note if note else ''}", flush=True)
        except (Failure, OSError) as e:  # a dropped connection says enough, with the server's fate
            what = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"
            print(f"FAIL {group}.{name} ({time.monotonic() - started:.1f} s): {what}{ctx.crashes()}", flush=True)
        except Exception as e:  # noqa: BLE001: an unexpected error is a failure too
            print(f"FAIL {group}.{name} ({time.monotonic() - started:.1f} s): {type(e).__name__}: {e}"
                  f"{ctx.crashes()}", flush=True)
            traceback.print_exc()
        finally:
            ctx.close(bad)
        if bad:
            failed.append(name)
    if ran == 0:
        print(f"FAIL {group}: no scenario ran (--only {only}?)")
        return 1
    print(f"{group}: {ran - len(failed)} of {ran} passed" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0
