#!/usr/bin/python3
"""A chat room's server-sent events across two instances, in a real browser:
HAProxy (docs/deploy.md's haproxy.cfg) in front of two stet-servers sharing a
redis-server (docs/deploy.md's stet-redis block), all on loopback.

A Chromium page served through HAProxy opens an EventSource on
/events/chat/{room}; a WebSocket member of /ws/chat/{room} on the *other*
instance publishes a numbered message every 40 ms throughout. The page's
instance is stopped with SIGTERM in the middle: its stream stays open through
the drain delay (HAProxy marks it down meanwhile), then ends with its retry
hint; the browser reconnects through HAProxy to the remaining instance with
Last-Event-ID. The page must end with every message published before, during
and after the stop, once each, in order, with increasing ids; the remaining
instance must have replayed some of them (the resume came from the shared
history in Redis, not from live delivery alone).

    events_instances_test.py STET_SERVER DEPLOY_MD [--screenshot FILE]

Fails (never skips) when haproxy, redis-server, chromium or
python3-websockets is missing.
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "deploy"))
import cdp  # noqa: E402
import deploy_lib as d  # noqa: E402
from events_test import OPEN_IN_ROOM, has, wait_for  # noqa: E402
from haproxy_test import metric, server_states, start_haproxy  # noqa: E402

import websockets  # noqa: E402  (cdp has said what to install when it is missing)

ROOM = "instances"
PERIOD = 0.04  # seconds between two publishes

OPEN = OPEN_IN_ROOM % ROOM


class Publisher:
    """A WebSocket member of the room on one instance (reached directly, with a
    PROXY v1 header of its own, as HAProxy would send): sends m0, m1, ... every
    PERIOD while running, and reads its own echoes so its socket never backs up."""

    def __init__(self, port):
        self.port, self.sent, self.echoed, self.running = port, [], [], True

    async def run(self):
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        sock.sendall(b"PROXY TCP4 127.0.0.7 127.0.0.1 4000 80\r\n")
        async with websockets.connect(f"ws://127.0.0.1:{self.port}/ws/chat/{ROOM}", sock=sock, ping_interval=None,
                                      open_timeout=10, compression=None) as ws:
            reader = asyncio.ensure_future(self._read(ws))
            while self.running:
                text = f"m{len(self.sent)}"
                await ws.send(text)
                self.sent.append(text)
                await asyncio.sleep(PERIOD)
            await asyncio.sleep(0.3)  # the last echoes
            reader.cancel()

    async def _read(self, ws):
        async for message in ws:
            self.echoed.append(message)


def sse_instance(ports):
    """The name of the one instance with an event stream open, or None."""
    open_on = [name for name, port in ports.items() if metric(port, "stet_sse_streams_open") >= 1]
    return open_on[0] if len(open_on) == 1 else None


async def scenario(origin, ports, servers, stats, screenshot):
    async with cdp.Browser() as browser:
        page = await browser.new_page()
        await page.goto(f"{origin}/healthz")
        await page.evaluate(OPEN)
        await page.evaluate(wait_for("window.opens >= 1"))
        found = []
        await asyncio.to_thread(d.wait_until, lambda: found.append(sse_instance(ports)) or found[-1],
                                "one instance with the page's stream")
        first = found[-1]
        other = next(name for name in ports if name != first)

        publisher = Publisher(ports[other])
        publishing = asyncio.ensure_future(publisher.run())
        await page.evaluate(wait_for(has("m5")))  # before the stop: arrives live from the other instance

        began = time.monotonic()
        servers[first].signal(signal.SIGTERM)
        await page.evaluate(wait_for("window.opens >= 2"))
        reconnected = time.monotonic() - began
        code = await asyncio.to_thread(servers[first].proc.wait, d.STOP_SECONDS)
        after_stop = len(publisher.sent)
        while len(publisher.sent) < after_stop + 10 and not publishing.done():
            await asyncio.sleep(PERIOD)
        publisher.running = False
        await publishing  # raises what the publisher met
        last = publisher.sent[-1]
        await page.evaluate(wait_for(has(last)))
        await asyncio.sleep(0.3)  # a duplicate would arrive right behind
        results = {
            "first": first, "other": other, "exit_code": code, "reconnected_s": round(reconnected, 2),
            "sent": publisher.sent, "echoed": len(publisher.echoed), "got": await page.evaluate("window.got"),
            "opens": await page.evaluate("window.opens"), "errors": await page.evaluate("window.errors"),
            "states": server_states(stats), "replayed": metric(ports[other], "stet_sse_replayed_total"),
            "gaps": metric(ports[other], "stet_sse_gaps_total"),
        }
        await page.evaluate("window.es.close(); true")
        if screenshot:
            await page.screenshot(screenshot)
        return results


def check(results):
    failures = []
    got = results["got"]
    data = [m["data"] for m in got]
    if data != results["sent"]:
        missing = [m for m in results["sent"] if m not in data]
        extra = [m for m in data if data.count(m) > 1 or m not in results["sent"]]
        failures.append(f"the page's messages are not those sent, once, in order: missing {missing}, "
                        f"duplicated or unknown {sorted(set(extra))}")
    ids = [m["id"] for m in got]
    keys = [tuple(int(x) for x in i.split("-")) for i in ids if i.replace("-", "").isdigit()]
    if len(keys) != len(ids) or keys != sorted(set(keys)):
        failures.append(f"ids not increasing and unique: {ids}")
    if results["opens"] != 2:
        failures.append(f"the page opened its stream {results['opens']} times, not twice")
    if not any(m["stream"] == 1 for m in got) or not any(m["stream"] == 2 for m in got):
        failures.append("the messages did not come on both streams")
    if results["replayed"] < 1:
        failures.append("the remaining instance replayed nothing: the reconnect did not resume from Last-Event-ID")
    if results["gaps"] != 0:
        failures.append(f"{results['gaps']} gap events on the remaining instance")
    if results["exit_code"] != 0:
        failures.append(f"the stopped instance exited with {results['exit_code']}")
    return failures


def main(scratch, args):
    haproxy, redis = d.require("haproxy"), d.require("redis-server")
    port_redis, port_a, port_b, port_haproxy = d.free_port(), d.free_port(), d.free_port(), d.free_port()
    scratch.start([redis, "--port", str(port_redis), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                  "redis")
    d.wait_tcp(port_redis, "redis-server")

    ports = {"a": port_a, "b": port_b}
    servers = {}
    for i, name in enumerate("ab"):
        mapping = {"127.0.0.1:6379": f"127.0.0.1:{port_redis}", f"127.0.0.1:808{2 + i}": f"127.0.0.1:{ports[name]}"}
        flags = d.stet_args(args.deploy_md, "stet-redis", mapping, i)
        servers[name] = scratch.stet(args.stet_server, [*flags, "--no-access-log"], f"stet-{name}")
    for name, port in ports.items():
        d.wait_tcp(port, f"stet-server {name}", servers[name])
        d.wait_until(lambda: metric(port, "stet_pubsub_connected") == 1, f"stet-server {name} to reach Redis")

    stats = start_haproxy(scratch, haproxy, args.deploy_md, port_haproxy,
                          {"127.0.0.1:8082": f"127.0.0.1:{port_a}", "127.0.0.1:8083": f"127.0.0.1:{port_b}"})

    began = time.monotonic()
    results = cdp.run(scenario(f"http://127.0.0.1:{port_haproxy}", ports, servers, stats, args.screenshot), seconds=60)
    summary = {k: v for k, v in results.items() if k not in ("got", "sent")}
    print(json.dumps({**summary, "sent": len(results["sent"]), "got": len(results["got"])}, indent=2))
    failures = check(results)
    if failures:
        print(json.dumps(results["got"]), file=sys.stderr)
        raise d.Failure("; ".join(failures))
    print(f"events across instances: {len(results['sent'])} messages once each, in order, across a stop "
          f"(reconnected {results['reconnected_s']} s after SIGTERM; scenario {time.monotonic() - began:.1f} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("stet_server")
    parser.add_argument("deploy_md")
    parser.add_argument("--screenshot")
    arguments = parser.parse_args()
    # A missing peer (cdp.BrowserMissing included) fails the run with the logs.
    sys.exit(d.run("events-instances", lambda scratch: main(scratch, arguments)))
