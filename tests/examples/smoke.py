#!/usr/bin/env python3
"""Smoke tests of the examples in examples/: start one on a free port of
127.0.0.1, request its routes, check the answers, stop it by its own PID.

    smoke.py NAME BINARY [EXTRA...]

NAME picks the scenario below (hello, json_api, static_site, signed_cookies,
streaming, sqlite_users, stet_server_cli). Python 3 standard library only. Every wait is
bounded; the whole run takes a few seconds.
"""

import http.client
import os
import re
import signal
import socket
import subprocess
import sys
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


class Example:
    """One running example. The port is picked here and passed as argv[1]; if
    another process takes it first, the example exits and is started again."""

    def __init__(self, binary, extra=(), env=None):
        for _ in range(3):
            self.port = free_port()
            self.proc = subprocess.Popen([binary, str(self.port), *extra], env={**os.environ, **(env or {})},
                                         stdout=subprocess.DEVNULL)
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
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_SECONDS)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            conn.close()

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
        self.stop()


def hello(binary, _extra):
    with Example(binary) as e:
        status, _, body = e.request("GET", "/hello")
        check(status == 200 and body == b"Hello from /hello\n", f"GET /hello: {status} {body!r}")
        status, _, _ = e.request("GET", "/nothing")
        check(status == 404, f"GET /nothing: {status}")


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


def stet_server_cli(binary, extra):
    version = extra[0]
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 0 and out.stdout == f"stet-server (stet) {version}\n", f"--version: {out}")
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=10)
    for flag in ("--version", "--cors-origin ORIGIN", "--listen ADDR", "--trusted-proxy CIDR", "--proxy-protocol",
                 "--drain-delay-ms N", "--first-byte-timeout-ms N", "--max-connections-per-address N"):
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
    out = subprocess.run([binary, "--offload-threads", "many"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 2 and "--offload-threads" in out.stderr, f"bad --offload-threads: {out}")


SCENARIOS = {f.__name__: f for f in (hello, json_api, static_site, signed_cookies, streaming, sqlite_users,
                                     stet_server_cli)}


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
