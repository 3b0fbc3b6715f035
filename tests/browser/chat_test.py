#!/usr/bin/python3
"""The example site's chat page in a real browser: two tabs join one room of
stet-server's /ws/chat/{room}; each sends a message through the page's form,
and the test asserts that both tabs' message lists (the DOM) show both
messages, in order.

    chat_test.py STET_SERVER [--screenshot FILE]

Fails (never skips) when chromium or python3-websockets is missing.
"""

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
from cors_test import Server  # noqa: E402

# Resolves once `predicate` holds (checked on every DOM change), rejects after 10 s.
WAIT_FOR = """
new Promise((resolve, reject) => {
  const check = () => { if (%s) { observer.disconnect(); clearTimeout(timer); resolve(true); return true; } };
  const observer = new MutationObserver(check);
  const timer = setTimeout(() => { observer.disconnect(); reject(new Error("timed out waiting for: %s")); }, 10000);
  observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
  check();
})
"""

SEND = """
(() => {
  document.getElementById("text").value = %s;
  document.getElementById("go").click();
  return true;
})()
"""

MESSAGES = "Array.from(document.querySelectorAll('#messages li')).map(li => li.textContent)"


def wait_for(predicate):
    return WAIT_FOR % (predicate, predicate.replace('"', "'"))


async def scenario(url, screenshot):
    async with cdp.Browser() as browser:
        alice = await browser.new_page()
        bob = await browser.new_page()
        for page in (alice, bob):
            await page.goto(url)
            await page.evaluate(wait_for("document.body.dataset.state === 'open'"))
        await alice.evaluate(SEND % json.dumps("hello from alice"))
        for page in (alice, bob):
            await page.evaluate(wait_for("document.querySelectorAll('#messages li').length >= 1"))
        await bob.evaluate(SEND % json.dumps("hi alice, bob here"))
        for page in (alice, bob):
            await page.evaluate(wait_for("document.querySelectorAll('#messages li').length >= 2"))
        results = {"alice": await alice.evaluate(MESSAGES), "bob": await bob.evaluate(MESSAGES),
                   "room": await alice.evaluate("document.getElementById('room').textContent")}
        if screenshot:
            await alice.send("Page.bringToFront")  # a background tab is never painted
            await alice.screenshot(screenshot)
        return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("stet_server")
    parser.add_argument("--screenshot")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="stet-chat-browser-") as workdir:
        server = Server(args.stet_server, workdir, "chat", "--threads", "2")
        try:
            results = cdp.run(scenario(f"{server.origin}/static/chat.html?room=browser-test", args.screenshot),
                              seconds=60)
        finally:
            server.stop()

    print(json.dumps(results, indent=2))
    expected = ["hello from alice", "hi alice, bob here"]
    failures = [name for name in ("alice", "bob") if results.get(name) != expected]
    if results.get("room") != "browser-test":
        failures.append("room")
    if failures:
        sys.exit(f"browser chat check FAILED for: {', '.join(failures)}")
    print("browser chat check: both tabs show both messages")


if __name__ == "__main__":
    try:
        main()
    except cdp.BrowserMissing as e:
        sys.exit(f"FAILED: {e}")
