#!/usr/bin/python3
"""CORS in a real browser: a page served by one stet-server (the page's
origin) fetches from two others on other ports: one started with
--cors-origin naming the page's origin, one naming another origin. The page
reports what the browser let it read; this test asserts on that report.

    cors_test.py STET_SERVER [--screenshot FILE]

Fails (never skips) when chromium or python3-websockets is missing.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SECRET = "browser-test-secret"  # shared: a cookie signed by one instance verifies on the others


class Server:
    """stet-server on 127.0.0.1, port 0; the port is read from its "listening on" line."""

    def __init__(self, binary, workdir, name, *flags):
        self.log = os.path.join(workdir, f"{name}.log")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [binary, "--host", "127.0.0.1", "--port", "0", "--threads", "1", "--no-access-log",
                 "--secret", SECRET, *flags], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        self.port = self._wait_port()
        self.origin = f"http://127.0.0.1:{self.port}"

    def _wait_port(self):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with open(self.log) as f:
                match = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", f.read())
            if match:
                return int(match.group(1))
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        with open(self.log) as f:
            raise RuntimeError(f"stet-server did not start: {f.read()}")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def readable(result, status, body):
    return result.get("readable") is True and result.get("status") == status and result.get("body") == body


EXPECTED = {
    "json": lambda r: readable(r, 200, '{"message":"Hello, World!"}'),
    "echo_get": lambda r: readable(r, 200, '{"a":"1"}'),
    "echo_post_preflighted": lambda r: readable(r, 200, '{"from":"page"}'),
    "actor_with_credentials": lambda r: readable(r, 200, '{"actor":"browser"}'),
    "actor_without_credentials": lambda r: readable(r, 200, '{"actor":null}'),
    "json_with_credentials": lambda r: r.get("readable") is False,
    "plaintext_not_covered": lambda r: r.get("readable") is False,
    "put_not_allowed": lambda r: r.get("readable") is False,
    "other_origin_refused": lambda r: r.get("readable") is False,
}


async def scenario(page_url, screenshot):
    async with cdp.Browser() as browser:
        page = await browser.new_page()
        await page.goto(page_url)
        results = await page.evaluate("window.corsResults")
        if screenshot:
            await page.screenshot(screenshot)
        return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stet_server")
    parser.add_argument("--screenshot")
    args = parser.parse_args()

    servers = []
    with tempfile.TemporaryDirectory(prefix="stet-cors-browser-") as workdir:
        try:
            page = Server(args.stet_server, workdir, "page", "--static", os.path.join(HERE, "site"))
            servers.append(page)
            api = Server(args.stet_server, workdir, "api", "--cors-origin", page.origin)
            servers.append(api)
            other = Server(args.stet_server, workdir, "other", "--cors-origin", "http://127.0.0.1:1")
            servers.append(other)
            url = f"{page.origin}/static/cors.html?api={api.origin}&other={other.origin}"
            results = cdp.run(scenario(url, args.screenshot), seconds=60)
        finally:
            for s in servers:
                s.stop()

    print(json.dumps(results, indent=2))
    failures = [name for name, ok in EXPECTED.items() if not ok(results.get(name, {}))]
    if results.get("login") != 200:
        failures.append("login")
    if failures:
        sys.exit(f"browser CORS check FAILED for: {', '.join(failures)}")
    print(f"browser CORS check: {len(EXPECTED)} cases as expected")


if __name__ == "__main__":
    try:
        main()
    except cdp.BrowserMissing as e:
        sys.exit(f"FAILED: {e}")
