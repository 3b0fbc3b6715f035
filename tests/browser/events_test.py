#!/usr/bin/python3
"""stet-server's chat rooms as server-sent events in a real browser: a page's
EventSource on /events/chat/{room} receives a message POSTed to /chat/{room}
and one a WebSocket member of /ws/chat/{room} sends; then the server ends the
stream (--events-lifetime-ms), two messages are published while the browser
waits to reconnect, and after it reconnects (with Last-Event-ID) the page has
every message once, in order, with increasing ids.

    events_test.py STET_SERVER [--screenshot FILE]

Fails (never skips) when chromium or python3-websockets is missing.
"""

import argparse
import json
import os
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from cors_test import Server  # noqa: E402

ROOM = "sse-browser"

# Resolves once `predicate` holds (polled), rejects after 10 s.
WAIT_FOR = """
new Promise((resolve, reject) => {
  const start = Date.now();
  const tick = () => {
    if (%s) { resolve(true); return; }
    if (Date.now() - start > 10000) { reject(new Error("timed out waiting for: %s")); return; }
    setTimeout(tick, 20);
  };
  tick();
})
"""

OPEN_IN_ROOM = """
(() => {
  window.got = []; window.opens = 0; window.errors = 0;
  const es = new EventSource("/events/chat/%s");
  es.onopen = () => { window.opens += 1; };
  es.onerror = () => { window.errors += 1; };
  es.onmessage = (e) => { window.got.push({id: e.lastEventId, data: e.data, stream: window.opens}); };
  window.es = es;
  return true;
})()
"""
OPEN = OPEN_IN_ROOM % ROOM

POST = """
fetch("/chat/%s", {method: "POST", body: %%s}).then(r => r.status)
""" % ROOM

WEBSOCKET_SEND = """
new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://${location.host}/ws/chat/%s`);
  window.ws = ws;
  ws.onopen = () => { ws.send(%%s); resolve(true); };
  ws.onerror = () => reject(new Error("websocket failed"));
})
""" % ROOM


def has(data):
    return f"window.got.some(m => m.data === {json.dumps(data)})"


def wait_for(predicate):
    return WAIT_FOR % (predicate, predicate.replace('"', "'"))


def post_from_outside(origin, text):
    request = urllib.request.Request(f"{origin}/chat/{ROOM}", data=text.encode(), method="POST")
    with urllib.request.urlopen(request, timeout=5) as answer:
        return answer.status


async def scenario(origin, screenshot):
    async with cdp.Browser() as browser:
        page = await browser.new_page()
        await page.goto(f"{origin}/healthz")
        await page.evaluate(OPEN)
        await page.evaluate(wait_for("window.opens >= 1"))
        posted = await page.evaluate(POST % json.dumps("via-post"))
        await page.evaluate(wait_for(has("via-post")))
        await page.evaluate(WEBSOCKET_SEND % json.dumps("via-ws"))
        await page.evaluate(wait_for(has("via-ws")))
        # The server ends the stream (its lifetime); the browser waits the
        # retry hint before it reconnects: publish meanwhile, from outside.
        await page.evaluate(wait_for("window.errors >= 1"))
        missed = [post_from_outside(origin, "missed-1"), post_from_outside(origin, "missed-2")]
        await page.evaluate(wait_for(has("missed-2") + " && window.opens >= 2"))
        await page.evaluate(POST % json.dumps("after"))
        await page.evaluate(wait_for(has("after")))
        results = {"posted": posted, "missed_posted": missed, "got": await page.evaluate("window.got"),
                   "opens": await page.evaluate("window.opens"), "errors": await page.evaluate("window.errors")}
        await page.evaluate("window.ws.close(); window.es.close(); true")
        if screenshot:
            await page.screenshot(screenshot)
        return results


def check(results):
    failures = []
    got = results.get("got", [])
    data = [m["data"] for m in got]
    if data != ["via-post", "via-ws", "missed-1", "missed-2", "after"]:
        failures.append(f"messages {data}")
    ids = [int(m["id"]) for m in got if m["id"].isdigit()]
    if len(ids) != len(got) or ids != sorted(set(ids)):
        failures.append(f"ids not increasing and unique: {[m['id'] for m in got]}")
    missed = [m for m in got if m["data"].startswith("missed-")]
    if any(m["stream"] < 2 for m in missed):
        failures.append("the missed messages did not come on the reconnected stream")
    if results.get("posted") != 202 or results.get("missed_posted") != [202, 202]:
        failures.append("a POST was not answered 202")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stet_server")
    parser.add_argument("--screenshot")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="stet-events-browser-") as workdir:
        server = Server(args.stet_server, workdir, "events", "--threads", "2", "--events-lifetime-ms", "3000")
        try:
            results = cdp.run(scenario(server.origin, args.screenshot), seconds=60)
        finally:
            server.stop()

    print(json.dumps(results, indent=2))
    failures = check(results)
    if failures:
        sys.exit("browser events check FAILED: " + "; ".join(failures))
    print("browser events check: every message once, in order, across a reconnect with Last-Event-ID")


if __name__ == "__main__":
    try:
        main()
    except cdp.BrowserMissing as e:
        sys.exit(f"FAILED: {e}")
