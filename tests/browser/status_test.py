#!/usr/bin/python3
"""The status page in a real browser: headless Chromium loads /-/status from a
stet-server that has seen some traffic, then more traffic arrives, and this
test asserts on the rendered DOM: the cache table has its rows, hit counts
moved, the refresh (every 2 s, from /-/status.json) updated the numbers and the
sparklines grew.

    status_test.py STET_SERVER [--screenshot FILE] [--warm SECONDS] [--window W,H]

--warm keeps traffic going for that long before the screenshot, so the
sparklines have a shape (docs/status.png was taken with --warm 40).
Fails (never skips) when chromium or python3-websockets is missing.
"""

import argparse
import asyncio
import http.client
import json
import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from cors_test import Server  # noqa: E402

CACHES = ["static", "content_hashes", "cookies", "header_names", "signer_keys", "route_table", "accept_encoding",
          "compressors", "date"]


class Traffic:
    """Requests over one keep-alive connection, touching every cache."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.cookie = None
        self.rounds = 0

    def get(self, path, headers=None):
        try:
            return self._get(path, headers)
        except (http.client.RemoteDisconnected, ConnectionError):
            # The server closed the idle keep-alive connection while the
            # browser had the floor (idle_timeout): reconnect once.
            self.conn.close()
            return self._get(path, headers)

    def _get(self, path, headers):
        self.conn.request("GET", path, headers=headers or {})
        answer = self.conn.getresponse()
        answer.read()
        return answer

    def login(self):
        self.conn.request("POST", "/-/login", body=json.dumps({"id": "browser"}),
                          headers={"Content-Type": "application/json"})
        answer = self.conn.getresponse()
        answer.read()
        self.cookie = answer.getheader("Set-Cookie").split(";")[0]

    def round(self, n):
        # One Cookie header the cookie cache has not seen (a miss), then the
        # same one again and again (hits), so its hit rate varies with n.
        self.rounds += 1
        visit = {"Cookie": f"{self.cookie}; round={self.rounds}"}
        self.get("/")  # static_url("app.css"): a content hash
        for i in range(n):
            self.get("/-/actor.json", visit)
            self.get("/plaintext")
            self.get("/static/app.css")
            self.get("/static/small.txt", {"Accept-Encoding": "gzip, br"})
            self.get("/json", {"Accept-Encoding": "gzip"})
            self.get(f"/users/{i}")
            self.get(f"/no-such-page/{i}")  # no route: the page's last row
            self.get("/-/actor.json", {"Cookie": self.cookie})
        self.get("/slow?ms=0")  # a call on the offload pool
        self.get("/no-such-page")

    def close(self):
        self.conn.close()


# What the page shows, read from the DOM (each number cell keeps its exact
# value in data-value beside the formatted text).
READ_DOM = """(() => {
  const value = (el) => (el && el.dataset.value !== '' ? Number(el.dataset.value) : null);
  const caches = {};
  for (const tr of document.querySelectorAll('#caches tbody tr')) {
    caches[tr.dataset.cache] = {
      hits: value(tr.querySelector('[data-field=hits]')),
      hitRateText: tr.querySelector('[data-field=hit_rate]').textContent,
      points: Number(tr.querySelector('svg').dataset.points || 0),
    };
  }
  const routes = {};
  for (const tr of document.querySelectorAll('#routes tbody tr')) {
    routes[tr.dataset.key] = value(tr.querySelector('[data-field=requests]'));
  }
  return {
    refreshes: Number(document.body.dataset.refreshes),
    state: document.getElementById('state').textContent,
    requests: value(document.getElementById('requests')),
    requestsText: document.getElementById('requests').textContent,
    rps: document.getElementById('rps').textContent,
    rpsPoints: Number(document.getElementById('rps-spark').dataset.points || 0),
    open: value(document.getElementById('open')),
    offloadShown: !document.getElementById('offload-tile').hidden,
    offloadText: document.getElementById('offload').textContent,
    offloadQueue: document.getElementById('offload-queue').textContent,
    cacheOrder: [...document.querySelectorAll('#caches tbody tr')].map((tr) => tr.dataset.cache),
    lastRoute: [...document.querySelectorAll('#routes tbody tr')].map((tr) => tr.dataset.key).pop() || null,
    caches, routes,
  };
})()"""


def wait_for(condition):
    """A promise resolving to the DOM reading once `condition` (JS over `d`) holds, or after 15 s."""
    return f"""new Promise((resolve) => {{
  const started = Date.now();
  const poll = () => {{
    const d = {READ_DOM};
    if (({condition}) || Date.now() - started > 15000) resolve(d); else setTimeout(poll, 100);
  }};
  poll();
}})"""


async def scenario(url, traffic, screenshot, warm, window):
    async with cdp.Browser(window=window) as browser:
        page = await browser.new_page()
        await page.goto(url)
        before = await page.evaluate(wait_for("d.refreshes >= 1 && d.cacheOrder.length > 0"), seconds=20)
        traffic.round(15)
        hits = before["caches"].get("static", {}).get("hits") or 0
        after = await page.evaluate(
            wait_for(f"d.refreshes > {before['refreshes']} && (d.caches.static || {{}}).hits > {hits}"), seconds=20)
        if screenshot:
            deadline = time.monotonic() + warm
            while time.monotonic() < deadline:
                traffic.round(int(time.monotonic()) % 7 + 1)
                await asyncio.sleep(0.3)
            await page.evaluate(wait_for(f"d.refreshes > {after['refreshes']}"), seconds=20)
            await page.screenshot(screenshot)
        return before, after


def check(before, after):
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)

    for name in CACHES:
        expect(name in after["caches"], f"cache row {name}")
    expect(after["cacheOrder"][0] == "static" and "content_hashes" in after["cacheOrder"][:3], f"cache order {after['cacheOrder']}")
    expect(after["refreshes"] > before["refreshes"], "the page refreshed")
    expect(after["state"] == "live", f"state {after['state']!r}")
    expect(after["requests"] > before["requests"], "the request count moved")
    expect(after["requestsText"] != before["requestsText"], "the request count's text changed")
    for name in ("static", "content_hashes", "cookies", "signer_keys", "date"):
        expect((after["caches"][name]["hits"] or 0) > (before["caches"][name]["hits"] or 0), f"{name} hits moved")
    expect(after["caches"]["static"]["hitRateText"].endswith("%"), "static hit rate shown")
    expect(after["caches"]["static"]["points"] >= 2, "static hit-rate sparkline has points")
    expect(after["rpsPoints"] >= 2, "requests-per-second sparkline has points")
    expect(after["routes"].get("GET /plaintext", 0) >= before["routes"].get("GET /plaintext", 0) + 15,
           "GET /plaintext count moved by the requests sent")
    expect(after["routes"].get("GET /-/status.json", 0) >= 1, "the page's own fetches counted")
    expect(after["routes"].get("no route", 0) >= before["routes"].get("no route", 0) + 1,
           "unmatched 404s counted on the no-route row")
    expect(after["lastRoute"] == "no route", f"no-route row last: {after['lastRoute']!r}")
    expect(after["open"] is not None and after["open"] >= 1, "open connections shown")
    expect(after["offloadShown"], "offload pool tile shown")
    expect(after["offloadText"].endswith("/ 4"), f"offload pool threads shown: {after['offloadText']!r}")
    expect("of 1,024" in after["offloadQueue"], f"offload queue limit shown: {after['offloadQueue']!r}")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stet_server")
    parser.add_argument("--screenshot")
    parser.add_argument("--warm", type=float, default=0)
    parser.add_argument("--window", default="1280,1500", help="WIDTH,HEIGHT of the screenshot")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="stet-status-browser-") as workdir:
        server = Server(args.stet_server, workdir, "status")
        traffic = None
        try:
            traffic = Traffic(server.port)
            traffic.login()
            traffic.round(10)
            run = scenario(f"{server.origin}/-/status", traffic, args.screenshot, args.warm, args.window)
            before, after = cdp.run(run, seconds=90 + args.warm)
        finally:
            if traffic:
                traffic.close()
            server.stop()

    print(json.dumps({"before": before, "after": after}, indent=2))
    failures = check(before, after)
    if failures:
        sys.exit(f"browser status page check FAILED: {'; '.join(failures)}")
    print(f"browser status page check: {len(CACHES)} cache rows, numbers moved, refresh seen")


if __name__ == "__main__":
    try:
        main()
    except cdp.BrowserMissing as e:
        sys.exit(f"FAILED: {e}")
