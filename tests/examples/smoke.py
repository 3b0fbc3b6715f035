#!/usr/bin/env python3
"""Smoke tests of the examples in examples/: start one on a free port of
127.0.0.1, request its routes, check the answers, stop it by its own PID.

    smoke.py NAME BINARY [EXTRA...]

NAME picks the scenario below (hello, json_api, static_site, signed_cookies,
streaming, sqlite_users, upload, tls, websocket_chat, complete_service,
stet_server_cli). Python 3
standard library only, but for websocket_chat's client: Debian's
python3-websockets (scripts/install-deps.sh). Every wait is bounded; the whole
run takes a few seconds.
"""

import asyncio
import hashlib
import http.client
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

START_SECONDS = 15
REQUEST_SECONDS = 10


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request_on(port, method, path, body=None, headers=None):
    """(status, lower-cased headers, body) of one request to 127.0.0.1:port."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_SECONDS)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


class Example:
    """One running example. The port is picked here and passed as argv[1]; if
    another process takes it first, the example exits and is started again."""

    def __init__(self, binary, extra=(), env=None, stderr=None):
        for _ in range(3):
            self.port = free_port()
            self.proc = subprocess.Popen([binary, str(self.port), *extra], env={**os.environ, **(env or {})},
                                         stdout=subprocess.DEVNULL, stderr=stderr)
            if self._wait_listening():
                return
            self.stop()
        raise Failure(f"{binary} did not start listening")

    def _wait_listening(self):
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                time.sleep(0.05)
        return False

    def request(self, method, path, body=None, headers=None):
        return request_on(self.port, method, path, body, headers)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        running = self.proc.poll() is None
        self.stop()
        # Every example stops gracefully on SIGTERM (stet::run_until_signal): exit 0.
        if running and exc[0] is None:
            check(self.proc.returncode == 0, f"SIGTERM: exit status {self.proc.returncode}")


def start_hello(binary, port):
    """hello on `port`; returns the process and the port it printed it listens on."""
    proc = subprocess.Popen([binary, str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.fullmatch(r"hello: listening on http://127\.0\.0\.1:(\d+)/\n", line)
    if not match:
        proc.kill()
        raise Failure(f"hello {port}: printed {line!r}, stderr {proc.communicate(timeout=10)[1]!r}")
    check(port == 0 or int(match.group(1)) == port, f"asked for {port}, printed {line!r}")
    return proc, int(match.group(1))


def send_head_then_body_around_sigterm(proc, port):
    """A request in flight when SIGTERM comes (its head sent, its body not):
    the server waits for the body and answers before it exits."""
    with socket.create_connection(("127.0.0.1", port), timeout=REQUEST_SECONDS) as s:
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)  # a server that did not wait would have closed the connection by now
        check(proc.poll() is None, f"exited {proc.returncode} with a request in flight")
        s.sendall(b"12345")
        answer = s.makefile("rb").read()
    check(answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"\r\n\r\nHello from /hello\n"),
          f"the request in flight got {answer!r}")
    check(b"\r\nConnection: close\r\n" in answer, f"no Connection: close while stopping: {answer!r}")


def hello(binary, _extra):
    proc, port = start_hello(binary, 0)
    try:
        status, _, body = request_on(port, "GET", "/hello")
        check(status == 200 and body == b"Hello from /hello\n", f"GET /hello: {status} {body!r}")

        # A second one on the same port: one line naming the address and the reason, exit 1.
        out = subprocess.run([binary, str(port)], capture_output=True, text=True, timeout=20)
        check(out.returncode == 1 and out.stdout == "" and
              out.stderr == f"hello: listen on 127.0.0.1:{port}: Address already in use\n", f"a busy port: {out}")

        send_head_then_body_around_sigterm(proc, port)
        check(proc.wait(timeout=15) == 0, f"SIGTERM: exit status {proc.returncode}")
        check(proc.stderr.read() == "", "hello wrote to stderr while serving and stopping")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    # After serving, SIGINT (Ctrl-C) stops it as cleanly.
    proc, port = start_hello(binary, free_port())
    try:
        status, _, _ = request_on(port, "GET", "/nothing")
        check(status == 404, f"GET /nothing: {status}")
        proc.send_signal(signal.SIGINT)
        check(proc.wait(timeout=15) == 0, f"SIGINT: exit status {proc.returncode}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    for bad in ("99999", "abc", "80x", "-1", ""):
        out = subprocess.run([binary, bad], capture_output=True, text=True, timeout=10)
        check(out.returncode == 2 and out.stderr == f"hello: {bad} is not a port (0 to 65535)\n",
              f"port {bad!r}: {out}")


def json_api(binary, _extra):
    json = {"Content-Type": "application/json"}
    with Example(binary) as e:
        status, headers, body = e.request("POST", "/todos", b'{"title":"write docs"}', json)
        check(status == 201 and body == b'{"id":1,"title":"write docs"}', f"POST /todos: {status} {body!r}")
        check(headers.get("content-type") == "application/json", f"content-type {headers.get('content-type')}")
        status, _, body = e.request("GET", "/todos/1")
        check(status == 200 and body == b'{"id":1,"title":"write docs"}', f"GET /todos/1: {status} {body!r}")
        status, _, body = e.request("GET", "/todos")
        check(status == 200 and body == b'[{"id":1,"title":"write docs"}]', f"GET /todos: {status} {body!r}")
        status, _, body = e.request("GET", "/todos/abc")
        check(status == 404, f"GET /todos/abc (not an int): {status}")
        status, _, body = e.request("GET", "/todos/99")
        check(status == 404 and b'"error"' in body, f"GET /todos/99: {status} {body!r}")
        status, _, body = e.request("POST", "/todos", b'{"title":', json)
        check(status == 400 and b'"error"' in body, f"POST bad JSON: {status} {body!r}")
        status, _, body = e.request("POST", "/todos", b'{"title":"x"}', {"Content-Type": "text/plain"})
        check(status == 415, f"POST text/plain: {status} {body!r}")
        status, _, body = e.request("POST", "/todos", b'{}', json)
        check(status == 400 and b"title" in body, f"POST without title: {status} {body!r}")
        status, _, _ = e.request("DELETE", "/todos/1")
        check(status == 204, f"DELETE /todos/1: {status}")
        status, _, _ = e.request("GET", "/todos/1")
        check(status == 404, f"GET /todos/1 after DELETE: {status}")


def static_site(binary, extra):
    site = extra[0]
    with open(os.path.join(site, "app.css"), "rb") as f:
        css = f.read()
    with Example(binary) as e:
        status, _, page = e.request("GET", "/")
        match = re.search(rb'href="(/static/app\.css\?_hash=[0-9a-f]{16})"', page)
        check(status == 200 and match, f"GET /: {status}, no hashed stylesheet link in {page[:200]!r}")
        status, headers, body = e.request("GET", match.group(1).decode())
        check(status == 200 and body == css, f"GET {match.group(1)!r}: {status}, {len(body)} bytes")
        check(headers.get("cache-control") == "public, max-age=31536000, immutable",
              f"hashed URL cache-control: {headers.get('cache-control')}")
        status, headers, _ = e.request("GET", "/static/app.css")
        check(status == 200 and headers.get("cache-control") == "no-cache" and headers.get("etag"),
              f"plain URL: {status} {headers}")
        status, _, _ = e.request("GET", "/static/app.css", headers={"If-None-Match": headers["etag"]})
        check(status == 304, f"If-None-Match: {status}")
        status, _, body = e.request("GET", "/static/../CMakeLists.txt")
        check(status in (400, 404) and b"add_executable" not in body, f"traversal: {status}")


def cookie_of(headers):
    match = re.match(r"(session=[^;]*)", headers.get("set-cookie", ""))
    check(match, f"no session cookie in {headers.get('set-cookie')!r}")
    return match.group(1)


def who(example, cookie):
    status, _, body = example.request("GET", "/me", headers={"Cookie": cookie} if cookie else {})
    check(status == 200, f"GET /me: {status}")
    return body


def signed_cookies(binary, _extra):
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    with Example(binary, env={"STET_SECRETS": "old-secret"}) as e:
        status, headers, _ = e.request("POST", "/login", b"user=ada", form)
        check(status == 200, f"POST /login: {status}")
        old_cookie = cookie_of(headers)
        # Signed with its time (signer_options::max_age): "ada.TIMESTAMP.SIGNATURE", expiring with the cookie.
        check(re.fullmatch(r"session=[\w-]+\.[\w-]{6}\.[\w-]{43}", old_cookie, re.A), f"not timestamped: {old_cookie}")
        check("max-age=28800" in headers.get("set-cookie", "").lower(), f"cookie lifetime: {headers.get('set-cookie')}")
        check(who(e, old_cookie) == b'{"user":"ada"}', "logged in")
        check(who(e, None) == b'{"user":null}', "no cookie")
        check(who(e, old_cookie[:-2] + "xx") == b'{"user":null}', "a tampered cookie is refused")
        status, headers, _ = e.request("POST", "/logout")
        check("max-age=0" in headers.get("set-cookie", "").lower(), f"logout: {headers.get('set-cookie')}")
    # Rotation: the new secret signs, the old one still verifies.
    with Example(binary, env={"STET_SECRETS": "new-secret,old-secret"}) as e:
        check(who(e, old_cookie) == b'{"user":"ada"}', "old cookie after rotation")
        _, headers, _ = e.request("POST", "/login", b"user=bob", form)
        new_cookie = cookie_of(headers)
    # Once the old secret is dropped, only cookies signed with the new one verify.
    with Example(binary, env={"STET_SECRETS": "new-secret"}) as e:
        check(who(e, old_cookie) == b'{"user":null}', "old cookie once its secret is gone")
        check(who(e, new_cookie) == b'{"user":"bob"}', "new cookie")


def streaming(binary, _extra):
    with Example(binary) as e:
        n = 200000
        status, headers, body = e.request("GET", f"/rows.csv?n={n}")
        check(status == 200 and headers.get("transfer-encoding") == "chunked", f"{status} {headers}")
        lines = body.decode().splitlines()
        check(len(lines) == n + 1 and lines[0] == "id,square", f"{len(lines)} lines, first {lines[:1]}")
        check(lines[-1] == f"{n - 1},{(n - 1) ** 2}", f"last line {lines[-1]!r}")
        status, _, _ = e.request("GET", "/rows.csv?n=abc")
        check(status == 400, f"n=abc: {status}")


def sqlite_users(binary, _extra):
    with Example(binary) as e:
        status, headers, body = e.request("GET", "/users/2")
        check(status == 200 and body == b'{"id":2,"name":"Grace"}', f"GET /users/2: {status} {body!r}")
        check(headers.get("content-type") == "application/json", f"content-type {headers.get('content-type')}")
        status, _, body = e.request("GET", "/users/99")
        check(status == 404 and b'"error"' in body, f"GET /users/99: {status} {body!r}")
        status, _, _ = e.request("GET", "/users/abc")
        check(status == 404, f"GET /users/abc (not an int): {status}")


def multipart(boundary, parts):
    """parts: (name, filename or None, bytes) -> a multipart/form-data body."""
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename is not None else "")
        out += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    return out + f"--{boundary}--\r\n".encode()


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1))


def upload_big(example, megabytes):
    """A file of `megabytes` MiB sent in 64 KiB writes with a Content-Length,
    never held whole here either; returns (status, body, sha256 sent)."""
    block, digest = os.urandom(64 * 1024), hashlib.sha256()
    head = b'--b0undary\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n'
    tail = b"\r\n--b0undary--\r\n"

    def pieces():
        yield head
        for _ in range(megabytes * 16):
            digest.update(block)
            yield block
        yield tail

    length = len(head) + megabytes * 1024 * 1024 + len(tail)
    conn = http.client.HTTPConnection("127.0.0.1", example.port, timeout=60)
    try:
        conn.request("POST", "/upload", body=pieces(),
                     headers={"Content-Type": "multipart/form-data; boundary=b0undary", "Content-Length": str(length)})
        r = conn.getresponse()
        return r.status, r.read(), digest.hexdigest()
    finally:
        conn.close()


def raw_head(example, head):
    """Sends a request head alone and returns the status line of the answer."""
    with socket.create_connection(("127.0.0.1", example.port), timeout=REQUEST_SECONDS) as s:
        s.sendall(head.encode())
        return s.makefile("rb").readline().decode().strip()


def upload(binary, _extra):
    directory = tempfile.mkdtemp(prefix="stet-upload-smoke-")
    try:
        with Example(binary, [directory]) as e:
            upload_scenario(e, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def upload_scenario(e, directory):
    form = {"Content-Type": "multipart/form-data; boundary=XyZ"}
    status, _, page = e.request("GET", "/")
    check(status == 200 and b'enctype=multipart/form-data' in page, f"GET /: {status} {page!r}")

    # Bigger than the server's default body limit (1 MiB): the route's own limit applies.
    a, b = os.urandom(3 * 1024 * 1024 + 7), b"not a password file\n"
    body = multipart("XyZ", [("note", None, b"a text field, not stored"), ("file", "a.bin", a),
                             ("file", "../../passwd", b), ("file", "", b"")])
    status, _, answer = e.request("POST", "/upload", body, form)
    lines = answer.decode().splitlines()
    check(status == 200 and len(lines) == 2, f"POST /upload: {status} {answer!r}")
    for line, name, data in ((lines[0], "a.bin", a), (lines[1], "passwd", b)):
        path = os.path.join(directory, name)
        check(line == f"{path} {len(data)} bytes sha256={hashlib.sha256(data).hexdigest()}", f"answer line {line!r}")
        with open(path, "rb") as f:
            check(f.read() == data, f"{path} differs from what was sent")
    check(sorted(os.listdir(directory)) == ["a.bin", "passwd"], f"directory holds {os.listdir(directory)}")

    status, _, answer = e.request("POST", "/upload", multipart("XyZ", [("file", "a.bin", b"again")]), form)
    check(status == 409 and b"File exists" in answer, f"an existing name: {status} {answer!r}")

    # 32 MiB in constant memory: the server's peak RSS grows by far less than the body.
    before = peak_rss_kib(e.proc.pid)
    status, answer, sent = upload_big(e, 32)
    grown = peak_rss_kib(e.proc.pid) - before
    check(status == 200 and answer.decode().endswith(f" {32 << 20} bytes sha256={sent}\n"), f"32 MiB: {answer!r}")
    check(grown < 16 * 1024, f"peak RSS grew by {grown} KiB during a 32 MiB upload")

    # Over the route's limit (1 GiB): 413 from the head, and no 100 Continue first.
    status = raw_head(e, f"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: {form['Content-Type']}\r\n"
                         f"Content-Length: {(1 << 30) + 1}\r\nExpect: 100-continue\r\n\r\n")
    check(status.startswith("HTTP/1.1 413"), f"1 GiB + 1 byte: {status!r}")

    status, _, _ = e.request("POST", "/upload", b"hello", {"Content-Type": "text/plain"})
    check(status == 415, f"text/plain: {status}")
    truncated = multipart("XyZ", [("file", "cut.bin", b"x" * 1000)])[:-10]
    status, _, answer = e.request("POST", "/upload", truncated, form)
    check(status == 400 and b"multipart" in answer, f"no final boundary: {status} {answer!r}")
    status, _, _ = e.request("POST", "/upload", multipart("XyZ", [("note", None, b"no file")]), form)
    check(status == 400, f"a form without a file: {status}")
    left = sorted(os.listdir(directory))
    check(left == ["a.bin", "big.bin", "passwd"], f"after the refused uploads the directory holds {left}")


def make_cert(script, directory, name):
    """scripts/self-signed-cert.sh: `openssl req -x509` for CN=name, 127.0.0.1 and ::1."""
    subprocess.run([script, directory, name], check=True, capture_output=True, timeout=30)
    return os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")


def der_sha256_of_file(pem_path):
    with open(pem_path) as f:
        return hashlib.sha256(ssl.PEM_cert_to_DER_cert(f.read())).hexdigest()


def served_sha256(port):
    """SHA-256 of the certificate a new handshake is served (not verified here)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=REQUEST_SECONDS) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            return hashlib.sha256(s.getpeercert(binary_form=True)).hexdigest()


def https_get(port, ca, path):
    """GET over HTTPS, verifying the server against `ca` (the self-signed cert, which names 127.0.0.1)."""
    conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=REQUEST_SECONDS,
                                       context=ssl.create_default_context(cafile=ca))
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def wait_for_log(path, text, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with open(path) as f:
            if text in f.read():
                return True
        time.sleep(0.05)
    return False


def in_scratch_dir(prefix, scenario, *args):
    """scenario(*args, work) with `work` a new directory, removed afterwards."""
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        scenario(*args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tls(binary, extra):
    in_scratch_dir("stet-tls-example-", tls_scenario, binary, extra[0])


def tls_scenario(binary, script, work):
    cert1, key1 = make_cert(script, os.path.join(work, "first"), "localhost")
    cert2, key2 = make_cert(script, os.path.join(work, "second"), "localhost")
    # The example reads fixed paths; a renewal copies new files over them.
    live_cert, live_key = os.path.join(work, "live.pem"), os.path.join(work, "live.key")
    shutil.copy(cert1, live_cert)
    shutil.copy(key1, live_key)
    log_path = os.path.join(work, "stderr.log")
    with open(log_path, "w") as log, Example(binary, [live_cert, live_key], stderr=log) as e:
        status, body = https_get(e.port, cert1, "/")
        check(status == 200 and re.fullmatch(rb"Hello over TLSv1\.[23] \(\S+\)\n", body), f"GET /: {status} {body!r}")
        check(served_sha256(e.port) == der_sha256_of_file(cert1), "the first certificate is not the one served")

        shutil.copy(cert2, live_cert)
        shutil.copy(key2, live_key)
        e.proc.send_signal(signal.SIGHUP)
        check(wait_for_log(log_path, "tls: SIGHUP: certificate reloaded"), "SIGHUP: no reload reported")
        check(served_sha256(e.port) == der_sha256_of_file(cert2), "after SIGHUP the new certificate is not served")
        status, _ = https_get(e.port, cert2, "/")
        check(status == 200, f"GET / verified against the new certificate: {status}")

        # A key that does not match: the reload fails as a whole, the second certificate stays.
        shutil.copy(key1, live_key)
        e.proc.send_signal(signal.SIGHUP)
        check(wait_for_log(log_path, "live.key: does not match the certificate"), "failed reload not reported")
        check(served_sha256(e.port) == der_sha256_of_file(cert2), "a failed reload replaced the certificate")
        e.stop()
        check(e.proc.returncode == 0, f"SIGTERM: exit status {e.proc.returncode}")
    out = subprocess.run([binary, str(free_port()), os.path.join(work, "absent.pem"), key1], capture_output=True,
                         text=True, timeout=20)
    check(out.returncode == 1 and "absent.pem: No such file or directory" in out.stderr, f"a missing cert: {out}")


async def receive(ws, expected):
    got = [await asyncio.wait_for(ws.recv(), REQUEST_SECONDS) for _ in expected]
    check(got == expected, f"received {got}, expected {expected}")


async def chat(port):
    import websockets  # python3-websockets, not the standard library

    def join(name):
        return websockets.connect(f"ws://127.0.0.1:{port}/chat?name={name}", open_timeout=REQUEST_SECONDS,
                                  close_timeout=REQUEST_SECONDS, ping_interval=None)

    async with join("ada") as ada:
        await receive(ada, ["ada joined"])  # ada is subscribed once she sees her own announcement
        async with join("bob") as bob:
            await receive(bob, ["bob joined"])
            await receive(ada, ["bob joined"])
            await ada.send("hello, bob")
            await receive(ada, ["ada: hello, bob"])
            await receive(bob, ["ada: hello, bob"])
            await bob.send("hi ada")
            await receive(bob, ["bob: hi ada"])
            await receive(ada, ["bob: hi ada"])
        await receive(ada, ["bob left"])
        await ada.send(b"\x00binary")
        await asyncio.wait_for(ada.wait_closed(), REQUEST_SECONDS)
        check(ada.close_code == 1003, f"a binary message: closed with {ada.close_code} {ada.close_reason!r}")
    try:
        async with join("no%20spaces"):
            raise Failure("a name with a space was accepted")
    except websockets.exceptions.InvalidStatusCode as refused:
        check(refused.status_code == 400, f"a bad name: {refused.status_code}")


def websocket_chat(binary, _extra):
    with Example(binary) as e:
        status, headers, page = e.request("GET", "/")
        check(status == 200 and b"new WebSocket(" in page and headers.get("content-type", "").startswith("text/html"),
              f"GET /: {status} {page[:100]!r}")
        status, _, _ = e.request("GET", "/chat?name=ada")
        check(status == 426, f"GET /chat without the upgrade: {status}")
        asyncio.run(chat(e.port))


def complete_service(binary, extra):
    in_scratch_dir("stet-complete-service-", complete_service_scenario, binary, extra[0])


def complete_service_scenario(binary, script, work):
    cert, key = make_cert(script, os.path.join(work, "tls"), "localhost")
    uploads = os.path.join(work, "uploads")
    os.mkdir(uploads)
    tls_port = free_port()
    json = {"Content-Type": "application/json"}
    origin = "https://app.example.com"
    with Example(binary, [uploads, str(tls_port), cert, key], env={"STET_SECRET": "s3cret"}) as e:
        status, _, page = e.request("GET", "/")
        css = re.search(rb'href="(/static/app\.css\?_hash=[0-9a-f]{16})"', page)
        check(status == 200 and css, f"GET /: {status} {page!r}")
        status, _, _ = e.request("GET", css.group(1).decode())
        check(status == 200, f"GET {css.group(1)!r}: {status}")

        # The getting-started CORS line: a browser's preflight for a JSON POST is allowed.
        status, headers, _ = e.request("OPTIONS", "/api/notes", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
        check(status == 204 and headers.get("access-control-allow-origin") == origin and
              "content-type" in headers.get("access-control-allow-headers", "").lower(), f"preflight: {status} {headers}")

        status, _, body = e.request("POST", "/api/notes", b'{"text":"hi"}', json)
        check(status == 401, f"a note without logging in: {status} {body!r}")
        status, headers, body = e.request("POST", "/api/login", b'{"user":"ada"}', json)
        cookie = re.match(r"(session=[\w-]+\.[\w-]{6}\.[\w-]{43});", headers.get("set-cookie", ""), re.A)
        check(status == 200 and cookie and "Max-Age=28800" in headers["set-cookie"], f"login: {status} {headers}")
        me = {"Cookie": cookie.group(1)}
        status, headers, body = e.request("POST", "/api/notes", b'{"text":"hi"}', {**json, **me, "Origin": origin})
        check(status == 201 and body == b'{"id":1,"text":"hi"}', f"POST /api/notes: {status} {body!r}")
        check(headers.get("access-control-allow-origin") == origin, f"no CORS on the answer: {headers}")
        status, _, body = e.request("GET", "/api/notes/1")
        check(status == 200 and body == b'{"id":1,"text":"hi"}', f"GET /api/notes/1: {status} {body!r}")
        status, _, _ = e.request("GET", "/api/notes/2147483648")  # past int: no match
        check(status == 404, f"an id past int: {status}")

        data = os.urandom(300 * 1024)
        status, _, body = e.request("PUT", "/api/files/../../a.bin", data, me)
        check(status == 404, f"a name with slashes is not one segment: {status}")
        status, _, body = e.request("PUT", "/api/files/a.bin", data, me)
        expected = f'{{"size":{len(data)},"sha256":"{hashlib.sha256(data).hexdigest()}"}}'.encode()
        check(status == 201 and body == expected, f"PUT /api/files/a.bin: {status} {body!r}")
        with open(os.path.join(uploads, "a.bin"), "rb") as f:
            check(f.read() == data, "the stored file differs")
        status, _, _ = e.request("PUT", "/api/files/b.bin", b"x")
        check(status == 401 and os.listdir(uploads) == ["a.bin"], f"an upload without logging in: {status}")

        status, _, body = e.request("GET", "/api/work?ms=20")
        check(status == 200 and body == b'{"slept_ms":20}', f"GET /api/work: {status} {body!r}")
        asyncio.run(room(e.port, cookie.group(1)))

        conn = http.client.HTTPSConnection("127.0.0.1", tls_port, timeout=REQUEST_SECONDS,
                                           context=ssl.create_default_context(cafile=cert))
        conn.request("GET", "/api/notes/1")
        r = conn.getresponse()
        check(r.status == 200 and r.read() == b'{"id":1,"text":"hi"}', f"over HTTPS: {r.status}")
        conn.close()

        # SIGTERM with blocking work in flight: it is answered, then the program exits 0.
        with socket.create_connection(("127.0.0.1", e.port), timeout=REQUEST_SECONDS) as s:
            s.sendall(b"GET /api/work?ms=600 HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.2)
            e.proc.send_signal(signal.SIGTERM)
            answer = s.makefile("rb").read()
        check(answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b'{"slept_ms":600}'), f"in flight: {answer!r}")
        check(e.proc.wait(timeout=15) == 0, f"SIGTERM: exit status {e.proc.returncode}")


async def room(port, cookie):
    import websockets  # python3-websockets, not the standard library

    url = f"ws://127.0.0.1:{port}/ws/room"
    try:
        async with websockets.connect(url, open_timeout=REQUEST_SECONDS):
            raise Failure("the room let in a client without a session")
    except websockets.exceptions.InvalidStatusCode as refused:
        check(refused.status_code == 401, f"no session: {refused.status_code}")
    async with websockets.connect(url, extra_headers={"Cookie": cookie}, open_timeout=REQUEST_SECONDS,
                                  close_timeout=REQUEST_SECONDS, ping_interval=None) as ws:
        await ws.send("hello")
        await receive(ws, ["ada: hello"])


def stet_server_cli(binary, extra):
    version = extra[0]
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    # The commit is built in (cmake/stet_build_commit.cmake): bench/e2e labels its tables with it.
    check(out.returncode == 0 and re.fullmatch(rf"stet-server {re.escape(version)} \(commit ([0-9a-f]{{7,}}(-dirty)?|unknown)\)\n",
                                               out.stdout) is not None, f"--version: {out}")
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=10)
    for flag in ("--version", "--cors-origin ORIGIN", "--listen ADDR", "--trusted-proxy CIDR", "--proxy-protocol",
                 "--drain-delay-ms N", "--first-byte-timeout-ms N", "--max-connections-per-address N",
                 "--pubsub redis://HOST:PORT"):
        check(flag in out.stdout, f"--help does not list {flag}: {out.stdout}")
    out = subprocess.run([binary, "--listen", "localhost:80"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 1 and "listen on localhost:80: the host must be" in out.stderr, f"bad --listen: {out}")
    out = subprocess.run([binary, "--listen", "127.0.0.1:0", "--trusted-proxy", "10.0.0.0/33"], capture_output=True,
                         text=True, timeout=10)
    check(out.returncode == 1 and 'trusted_proxies[0] "10.0.0.0/33"' in out.stderr, f"bad --trusted-proxy: {out}")
    out = subprocess.run([binary, "--listen", "systemd"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 1 and "LISTEN_FDS" in out.stderr, f"--listen systemd without sockets: {out}")
    out = subprocess.run([binary, "--cors-origin", "https://example.com/"], capture_output=True, text=True,
                         timeout=10)
    check(out.returncode == 2 and "no path" in out.stderr, f"bad --cors-origin: {out}")
    out = subprocess.run([binary, "--pubsub", "nats://127.0.0.1:4222"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 2 and "--pubsub: 'nats://127.0.0.1:4222' is not redis://HOST:PORT" in out.stderr,
          f"bad --pubsub: {out}")
    out = subprocess.run([binary, "--listen", "127.0.0.1:0", "--pubsub", "redis://127.0.0.1:0"], capture_output=True,
                         text=True, timeout=10)
    check(out.returncode == 1 and "pubsub 'redis://127.0.0.1:0': the port is not a number" in out.stderr,
          f"--pubsub with a bad port: {out}")
    out = subprocess.run([binary, "--offload-threads", "many"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 2 and "--offload-threads" in out.stderr, f"bad --offload-threads: {out}")

    # A bad flag is one line, the reason last on the screen; the usage is for --help.
    out = subprocess.run([binary, "--bogus"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 2 and out.stdout == "" and
          out.stderr == "stet-server: unknown option '--bogus' (stet-server --help lists the options)\n",
          f"an unknown flag: {out}")
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=10)
    for explained in ("--static DIR ", "--tls-cert FILE --tls-key FILE  also serve HTTPS", "--secret S ",
                      "--upload-dir DIR ", "--cors-origin ORIGIN  pages on ORIGIN", "HUP reloads the TLS files"):
        check(explained in out.stdout, f"--help does not explain {explained!r}: {out.stdout}")
    out = subprocess.run([binary, "--upload-dir", "/proc"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 1 and out.stderr.startswith("stet-server: --upload-dir /proc: "), f"/proc: {out}")
    listening_lines(binary)
    redis_absent(binary)


def listening_lines(binary):
    """A TCP and a unix listener: each "listening on" line names what a client connects to."""
    work = tempfile.mkdtemp(prefix="stet-cli-")
    path = os.path.join(work, "s.sock")
    proc = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--listen", f"unix:{path}", "--no-access-log"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while sum("listening on" in line for line in lines) < 2 and len(lines) < 10:
            lines.append(proc.stderr.readline())
        tcp = [l for l in lines if re.fullmatch(r"stet-server: listening on http://127\.0\.0\.1:[1-9]\d*/\n", l)]
        check(len(tcp) == 1 and f"stet-server: listening on unix:{path}\n" in lines, f"listening lines: {lines}")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
        shutil.rmtree(work, ignore_errors=True)


def redis_absent(binary):
    """--pubsub at a port where no Redis listens: the server serves, and both
    /-/metrics and /-/status.json say the bus is not connected."""
    port, nobody = free_port(), free_port()
    proc = subprocess.Popen([binary, "--listen", f"127.0.0.1:{port}", "--no-access-log", "--pubsub",
                             f"redis://127.0.0.1:{nobody}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                status, _, metrics = request_on(port, "GET", "/-/metrics")
                break
            except OSError:
                check(time.monotonic() < deadline and proc.poll() is None, "stet-server with --pubsub did not start")
                time.sleep(0.05)
        check(status == 200 and b"\nstet_pubsub_connected 0\n" in metrics, "stet_pubsub_connected is not 0")
        status, _, body = request_on(port, "GET", "/-/status.json")
        check(status == 200 and b'"pubsub_connected":0' in body, f"status.json: {body[:400]!r}")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)


SCENARIOS = {f.__name__: f for f in (hello, json_api, static_site, signed_cookies, streaming, sqlite_users, upload,
                                     tls, websocket_chat, complete_service, stet_server_cli)}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in SCENARIOS:
        sys.exit(f"usage: smoke.py {{{'|'.join(SCENARIOS)}}} BINARY [EXTRA...]")
    try:
        SCENARIOS[sys.argv[1]](sys.argv[2], sys.argv[3:])
    except Failure as e:
        sys.exit(f"smoke {sys.argv[1]}: FAILED: {e}")
    print(f"smoke {sys.argv[1]}: ok")


if __name__ == "__main__":
    main()
