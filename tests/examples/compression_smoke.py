#!/usr/bin/env python3
"""Black-box check of stet-server's compression with curl --compressed: what a
user sees with the default flags (on) and with --no-compression (off).

    compression_smoke.py STET_SERVER_BINARY
"""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


class Server:
    """stet-server on 127.0.0.1, port 0; the port is read from its "listening on" line."""

    def __init__(self, binary, workdir, *flags):
        self.log = os.path.join(workdir, f"server{len(flags)}.log")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [binary, "--host", "127.0.0.1", "--port", "0", "--threads", "1", "--no-access-log", *flags],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with open(self.log) as f:
                match = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", f.read())
            if match:
                self.port = int(match.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise Failure("stet-server did not start")

    def curl(self, path, *flags):
        """(headers lower-cased, body) of one GET through curl."""
        with tempfile.NamedTemporaryFile() as head:
            out = subprocess.run(["curl", "-sS", "--max-time", "20", "-D", head.name, *flags,
                                  f"http://127.0.0.1:{self.port}{path}"], capture_output=True, timeout=30)
            check(out.returncode == 0, f"curl {path}: {out.stderr!r}")
            lines = open(head.name, "rb").read().decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers.setdefault(name.strip().lower(), value.strip())
        return headers, out.stdout

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def compressed_by_default(server):
    headers, body = server.curl("/report.json", "--compressed")
    check(headers.get("content-encoding") in ("br", "zstd", "gzip"), f"/report.json not compressed: {headers}")
    check("accept-encoding" in headers.get("vary", "").lower(), f"/report.json without Vary: {headers}")
    report = json.loads(body)
    check(len(body) > 50000 and isinstance(report, dict), f"/report.json decoded to {len(body)} bytes")
    coded_length = int(headers["content-length"])
    check(coded_length < len(body) / 3, f"/report.json: {coded_length} coded bytes for {len(body)}")

    headers, body = server.curl("/report.json", "-H", "Accept-Encoding: gzip", "--compressed")
    check(headers.get("content-encoding") == "gzip", f"gzip asked, got {headers}")

    headers, body = server.curl("/static/app.css", "--compressed")
    check(headers.get("content-encoding") in ("br", "zstd", "gzip"), f"app.css not compressed: {headers}")
    check(b"{" in body and headers.get("etag", "").endswith(f'-{headers["content-encoding"]}"'),
          f"app.css variant: {headers}")

    headers, body = server.curl("/stream?rows=20000", "--compressed")
    check(headers.get("content-encoding") in ("br", "zstd", "gzip"), f"/stream not compressed: {headers}")
    check(body.count(b"\n") == 20001 and body.startswith(b"id,name,score\n"), "/stream decoded wrongly")

    headers, body = server.curl("/plaintext", "--compressed")
    check("content-encoding" not in headers and body == b"Hello, World!", f"/plaintext: {headers} {body!r}")

    headers, _ = server.curl("/report.json")  # curl without --compressed sends no Accept-Encoding
    check("content-encoding" not in headers, f"no Accept-Encoding, still coded: {headers}")


def off_with_the_flag(server):
    for path in ("/report.json", "/static/app.css", "/stream?rows=1000"):
        headers, body = server.curl(path, "--compressed")
        check("content-encoding" not in headers, f"--no-compression, {path} coded: {headers}")
        check(len(body) > 1000, f"{path}: {len(body)} bytes")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: compression_smoke.py STET_SERVER_BINARY")
    with tempfile.TemporaryDirectory() as workdir:
        try:
            for flags, scenario in (((), compressed_by_default), (("--no-compression",), off_with_the_flag)):
                server = Server(sys.argv[1], workdir, *flags)
                try:
                    scenario(server)
                finally:
                    server.stop()
        except Failure as e:
            sys.exit(f"compression smoke: FAILED: {e}")
    print("compression smoke: ok")


if __name__ == "__main__":
    main()
