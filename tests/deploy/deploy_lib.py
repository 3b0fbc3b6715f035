"""What the deployment tests share: real peers (nginx, HAProxy,
systemd-socket-activate, stet-server) started on loopback in a scratch
directory and stopped by their own PID, and a plain HTTP client that can
choose its source address (127.0.0.2 and so on: all of 127/8 is loopback).

A missing peer is a failure, never a skip: scripts/install-deps.sh installs
them. Every wait is bounded. Python 3 standard library only.
"""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

START_SECONDS = 15
STOP_SECONDS = 15


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


def require(tool):
    """The path of `tool`, or a failure naming the Debian package."""
    path = shutil.which(tool) or next((p for p in (f"/usr/sbin/{tool}", f"/usr/bin/{tool}") if os.access(p, os.X_OK)),
                                      None)
    if path is None:
        raise Failure(f"{tool} is not installed (scripts/install-deps.sh installs it)")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def request(port, path, method="GET", headers=None, body=None, source="127.0.0.1", unix=None, timeout=10):
    """One request on a fresh connection: (status, headers dict lower-cased, body bytes)."""
    # A source address means bind() before connect(), which needs a local port
    # no other socket holds, TIME_WAITs included; connect() alone only needs a
    # free 4-tuple. So only ask for one when it is not the default.
    bound = {"source_address": (source, 0)} if source != "127.0.0.1" else {}
    conn = UnixConnection(unix, timeout) if unix else http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, **bound)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def get_json(port, path, **kw):
    status, _, body = request(port, path, **kw)
    check(status == 200, f"GET {path}: {status} {body[:200]!r}")
    return json.loads(body)


class Process:
    """A peer process, stopped by its PID (TERM, then KILL after STOP_SECONDS)."""

    def __init__(self, argv, log_path, env=None):
        self.argv = argv
        self.log = open(log_path, "ab")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env={**os.environ, **(env or {})})

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig):
        if self.alive():
            os.kill(self.proc.pid, sig)

    def stop(self, sig=None, seconds=STOP_SECONDS):
        """Stops it (SIGTERM unless `sig`) and returns its exit code (None if it had to be killed)."""
        if self.alive():
            os.kill(self.proc.pid, sig or signal.SIGTERM)
            try:
                return self.proc.wait(seconds)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
                return None
        return self.proc.returncode


def wait_until(condition, what, seconds=START_SECONDS):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.02)
    raise Failure(f"timed out waiting for {what}")


def wait_tcp(port, what, process=None):
    def up():
        if process is not None and not process.alive():
            raise Failure(f"{what} exited early (code {process.proc.returncode})")
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    wait_until(up, what)


class Scratch:
    """A temporary directory for configs, sockets and logs; its logs are
    printed when a test fails, then it is removed."""

    def __init__(self, name):
        self.path = tempfile.mkdtemp(prefix=f"stet-{name}-")
        self.processes = []

    def file(self, name):
        return os.path.join(self.path, name)

    def start(self, argv, name, env=None):
        p = Process(argv, self.file(f"{name}.log"), env)
        self.processes.append(p)
        return p

    def stet(self, binary, args, name, env=None):
        return self.start([binary, "--threads", "2", *args], name, env)

    def dump_logs(self):
        for entry in sorted(os.listdir(self.path)):
            if entry.endswith(".log"):
                with open(self.file(entry), "rb") as f:
                    text = f.read()[-4000:].decode(errors="replace")
                print(f"--- {entry} (tail)\n{text}", file=sys.stderr)

    def close(self):
        for p in reversed(self.processes):
            p.stop(seconds=5)
        shutil.rmtree(self.path, ignore_errors=True)


def run(name, body):
    """Runs `body(scratch)`; exit code 0 on success, 1 with the reason (and the logs) on failure."""
    scratch = Scratch(name)
    try:
        body(scratch)
    except Failure as e:
        print(f"FAIL {name}: {e}", file=sys.stderr)
        scratch.dump_logs()
        return 1
    except Exception as e:  # an unexpected error is a failure too, with its logs
        print(f"FAIL {name}: {type(e).__name__}: {e}", file=sys.stderr)
        traceback.print_exc()
        scratch.dump_logs()
        return 1
    finally:
        scratch.close()
    print(f"ok {name}")
    return 0


def doc_block(doc_path, name):
    """The code block after `<!-- deploy-test: NAME -->` in docs/deploy.md."""
    with open(doc_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    marker = f"<!-- deploy-test: {name} -->"
    check(marker in lines, f"docs/deploy.md has no block {name!r}")
    at = lines.index(marker) + 1
    check(lines[at].startswith("```"), f"block {name!r} does not follow its marker")
    end = lines.index("```", at + 1)
    return "\n".join(lines[at + 1:end]) + "\n"


def substitute(text, mapping):
    """`text` with every key of `mapping` replaced (each must occur)."""
    for old, new in mapping.items():
        check(old in text, f"{old!r} is not in the documented configuration")
        text = text.replace(old, str(new))
    return text


def stet_args(doc_path, name, mapping, line_index=0):
    """The stet-server flags of a documented command line (the block's first, or
    its `line_index`th), with `mapping` applied."""
    line = substitute(doc_block(doc_path, name).strip().split("\n")[line_index], mapping)
    words = line.split()
    check(words[0].endswith("stet-server"), f"block {name!r} is not a stet-server command")
    return [w for w in words[1:] if w != "&"]


class ClientLoop(threading.Thread):
    """Requests /plaintext on a fresh connection, a hundred a second at most,
    until stopped; counts answers and failures (every way a request can fail: a
    status, a short or wrong body, a reset, a timeout)."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.done, self.failures, self.stopping = port, 0, [], threading.Event()

    def run(self):
        while not self.stopping.is_set():
            try:
                status, headers, body = request(self.port, "/plaintext", timeout=10)
                if status != 200 or body != b"Hello, World!" or headers.get("content-length") != "13":
                    self.failures.append(f"{status} {body[:80]!r}")
            except Exception as e:  # noqa: BLE001: every way a request can fail counts
                self.failures.append(f"{type(e).__name__}: {e}")
            self.done += 1
            # Paced: every request is a fresh connection whose TIME_WAIT holds a
            # port for a minute, and the suite's other tests need ports too.
            self.stopping.wait(0.01)

    def finish(self, what):
        """Stops the loop; a failure unless it made 20 requests and all were answered."""
        self.stopping.set()
        self.join(15)
        print(f"{what}: {self.done} requests, {len(self.failures)} failed")
        check(self.done >= 20, f"only {self.done} requests were made")
        check(not self.failures, f"lost requests: {self.failures[:5]}")
