"""A small driver for headless Chromium over the DevTools protocol (CDP).

Debian's `chromium` and `python3-websockets` only (scripts/install-deps.sh);
nothing from npm or PyPI. Run with Debian's /usr/bin/python3, which sees
python3-websockets.

    import cdp

    async def scenario():
        async with cdp.Browser() as browser:
            page = await browser.new_page()
            await page.goto("http://127.0.0.1:8080/")
            title = await page.evaluate("document.title")
            value = await page.evaluate("fetch('/json').then(r => r.json())")  # promises are awaited
            await page.screenshot("page.png")

    cdp.run(scenario(), seconds=60)   # the whole scenario is bounded in time

Every wait is bounded: starting the browser, each command, each page load. The
browser is started with its own throw-away profile and stopped by its PID.
A missing chromium raises BrowserMissing: a test should fail on it, not skip.
"""

import asyncio
import base64
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time

try:
    import websockets
except ImportError as e:  # pragma: no cover - reported to the test's caller
    raise ImportError("python3-websockets is missing: run scripts/install-deps.sh "
                      "(and run this with Debian's /usr/bin/python3)") from e

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
]

START_SECONDS = 30
COMMAND_SECONDS = 20


class BrowserMissing(RuntimeError):
    pass


class ProtocolError(RuntimeError):
    pass


def find_chromium(binary=None):
    """`binary`, $STET_CHROMIUM, or chromium on PATH; raises BrowserMissing."""
    for candidate in (binary, os.environ.get("STET_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    raise BrowserMissing("chromium not found: install Debian's chromium (scripts/install-deps.sh) "
                         "or set STET_CHROMIUM")


def run(coroutine, seconds=60):
    """Runs `coroutine` to completion, cancelling it after `seconds`."""
    return asyncio.run(asyncio.wait_for(coroutine, seconds))


class Browser:
    """One headless Chromium process and its DevTools connection."""

    def __init__(self, binary=None, window="1024,768"):
        self.binary = find_chromium(binary)
        self.window = window
        self.profile = None
        self.process = None
        self.socket = None
        self._ids = itertools.count(1)
        self._pending = {}    # command id -> future
        self._waiters = []    # (session, method, future) for events
        self._reader = None

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *exc):
        await self.close()

    async def start(self):
        self.profile = tempfile.mkdtemp(prefix="stet-chromium-")
        log = open(os.path.join(self.profile, "chromium.log"), "wb")
        self.process = subprocess.Popen(
            [self.binary, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={self.window}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        port, path = await self._devtools_address()
        self.socket = await asyncio.wait_for(
            websockets.connect(f"ws://127.0.0.1:{port}{path}", max_size=None, ping_interval=None),
            COMMAND_SECONDS)
        self._reader = asyncio.create_task(self._read())

    async def _devtools_address(self):
        # Chromium writes "PORT\n/devtools/browser/<id>\n" once it listens.
        active = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode} at start: {self.log_tail()}")
            try:
                with open(active) as f:
                    lines = f.read().split("\n")
                if len(lines) >= 2 and lines[0].isdigit() and lines[1].startswith("/"):
                    return int(lines[0]), lines[1]
            except FileNotFoundError:
                pass
            await asyncio.sleep(0.05)
        raise RuntimeError(f"chromium did not write DevToolsActivePort in {START_SECONDS} s: {self.log_tail()}")

    def log_tail(self, size=2000):
        try:
            with open(os.path.join(self.profile, "chromium.log"), "rb") as f:
                return f.read()[-size:].decode(errors="replace")
        except OSError:
            return ""

    async def _read(self):
        try:
            async for raw in self.socket:
                message = json.loads(raw)
                if "id" in message:
                    future = self._pending.pop(message["id"], None)
                    if future and not future.done():
                        future.set_result(message)
                    continue
                for waiter in list(self._waiters):
                    session, method, future = waiter
                    if method == message.get("method") and session == message.get("sessionId") \
                            and not future.done():
                        future.set_result(message.get("params", {}))
                        self._waiters.remove(waiter)
        except websockets.ConnectionClosed:
            pass
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(ProtocolError("the DevTools connection closed"))

    async def send(self, method, params=None, session=None):
        """One CDP command; returns its result, raises ProtocolError on an error answer."""
        message_id = next(self._ids)
        message = {"id": message_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        future = asyncio.get_running_loop().create_future()
        self._pending[message_id] = future
        await self.socket.send(json.dumps(message))
        answer = await asyncio.wait_for(future, COMMAND_SECONDS)
        if "error" in answer:
            raise ProtocolError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def expect_event(self, method, session=None):
        """A future for the next `method` event; create it before the command that causes it."""
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((session, method, future))
        return future

    async def new_page(self):
        target = await self.send("Target.createTarget", {"url": "about:blank"})
        attached = await self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        page = Page(self, attached["sessionId"])
        await page.send("Page.enable")
        await page.send("Runtime.enable")
        return page

    async def close(self):
        """Closes the connection and stops chromium by its PID (SIGTERM, then SIGKILL)."""
        if self.socket is not None:
            try:
                await asyncio.wait_for(self.socket.close(), 5)
            except (asyncio.TimeoutError, OSError):
                pass
        if self._reader is not None:
            self._reader.cancel()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    """One tab, driven through its flattened CDP session."""

    def __init__(self, browser, session):
        self.browser = browser
        self.session = session

    async def send(self, method, params=None):
        return await self.browser.send(method, params, self.session)

    async def goto(self, url, seconds=COMMAND_SECONDS):
        """Navigates and waits for the load event; raises on a network error."""
        loaded = self.browser.expect_event("Page.loadEventFired", self.session)
        result = await self.send("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise ProtocolError(f"navigating to {url}: {result['errorText']}")
        await asyncio.wait_for(loaded, seconds)

    async def evaluate(self, expression, seconds=COMMAND_SECONDS):
        """Evaluates JS in the page; a promise is awaited; returns the value (JSON-able)."""
        result = await asyncio.wait_for(self.send("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True}), seconds)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise ProtocolError(f"{expression[:80]!r} threw: {text}")
        return result.get("result", {}).get("value")

    async def screenshot(self, path):
        """Writes a PNG of the viewport to `path`."""
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return path
