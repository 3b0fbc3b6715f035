#!/usr/bin/env python3
"""Black-box check of stet-server --cache-ms with curl: the cached routes give
the same bytes as an uncached server, carry Age, keep their ETag, answer 304
and a coded variant, and show in the metrics and on the status page; the other
routes answer as before; --help lists the flag and a bad value is refused.

    cache_smoke.py STET_SERVER_BINARY
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compression_smoke import Failure, Server, check  # noqa: E402  (the same stet-server harness)


def same_bytes_with_age(cached, uncached):
    plain_headers, plain = uncached.curl("/report.json")
    check("age" not in plain_headers, f"uncached /report.json has Age: {plain_headers}")
    for _ in range(3):
        headers, body = cached.curl("/report.json")
        check(body == plain, f"cached /report.json differs: {len(body)} bytes, uncached {len(plain)}")
        check(headers.get("age", "").isdigit(), f"cached /report.json without Age: {headers}")
        etag = headers.get("etag", "")
        check(etag.startswith('"') and len(etag) == 34, f"cached /report.json ETag: {headers}")
    headers, body = cached.curl("/report.json", "-H", f"If-None-Match: {etag}")
    check(headers.get("etag") == etag and body == b"", f"If-None-Match: {headers} {body[:40]!r}")
    headers, body = cached.curl("/report.json", "-H", "Accept-Encoding: gzip", "--compressed")
    check(headers.get("content-encoding") == "gzip" and body == plain, f"gzip variant: {headers}")
    headers, body = cached.curl("/users/7")
    check(json.loads(body) == {"id": 7} and "age" in headers, f"/users/7: {headers} {body!r}")
    _, body = cached.curl("/users/8")
    check(json.loads(body) == {"id": 8}, f"/users/8: {body!r}")
    _, body = cached.curl("/plaintext")
    check(body == b"Hello, World!", f"/plaintext: {body!r}")


def counted(cached):
    _, text = cached.curl("/-/metrics")
    metrics = {}
    for line in text.decode().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            metrics[name] = float(value)
    hits = metrics.get('stet_cache_hits_total{cache="responses"}', 0)
    check(hits >= 4, f"response cache hits: {hits}")
    check(metrics.get('stet_response_cache_misses_total{route="/users/{id}"}') == 2, "misses of /users/{id}")
    _, body = cached.curl("/-/status.json")
    check(b'"responses"' in body, "no response cache row on the status page")


def stale_after_ttl(cached):
    time.sleep(0.4)  # past --cache-ms 300, within the stale window of the same length
    headers, _ = cached.curl("/users/7")
    check(headers.get("age", "") != "", f"stale /users/7: {headers}")


def cli(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=10)
    check("--cache-ms N" in out.stdout, f"--help does not list --cache-ms: {out.stdout}")
    out = subprocess.run([binary, "--cache-ms", "soon"], capture_output=True, text=True, timeout=10)
    check(out.returncode == 2 and "--cache-ms" in out.stderr, f"bad --cache-ms: {out}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cache_smoke.py STET_SERVER_BINARY")
    with tempfile.TemporaryDirectory() as workdir:
        try:
            cli(sys.argv[1])
            uncached = Server(sys.argv[1], workdir)
            cached = Server(sys.argv[1], workdir, "--cache-ms", "300")
            try:
                same_bytes_with_age(cached, uncached)
                counted(cached)
                stale_after_ttl(cached)
            finally:
                cached.stop()
                uncached.stop()
        except Failure as e:
            sys.exit(f"cache smoke: FAILED: {e}")
    print("cache smoke: ok")


if __name__ == "__main__":
    main()
