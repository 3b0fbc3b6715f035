#!/usr/bin/python3
"""A scripted WebSocket client on python3-websockets, for the integration tests.

    ws_client.py URL STEPS_JSON [--protocol P]... [--origin O] [--deflate]

STEPS_JSON is a list of steps, run in order:
  ["text", s]         send a text message
  ["binary", hex]     send a binary message
  ["recv"]            receive one message: prints "text:<s>" or "binary:<hex>"
  ["recv_n", n]       receive n messages, printing each
  ["ping"]            ping and wait for the pong: prints "pong"
  ["close", code, r]  start the close handshake
  ["wait_close"]      wait until the server closes
  ["sleep", seconds]
Then prints "protocol:<p>", "extensions:<names>" (first) and, at the end,
"closed:<code>:<reason>" (1006 when the connection ended without a close frame).
"""
import asyncio
import json
import sys

import websockets


async def run(url, steps, protocols, origin, deflate):
    kwargs = {"max_size": 1 << 24, "ping_interval": None, "open_timeout": 10, "close_timeout": 10}
    if protocols:
        kwargs["subprotocols"] = protocols
    if origin:
        kwargs["origin"] = origin
    kwargs["compression"] = "deflate" if deflate else None
    async with websockets.connect(url, **kwargs) as ws:
        print(f"protocol:{ws.subprotocol or ''}")
        names = [e.name for e in getattr(ws, "extensions", [])]
        print(f"extensions:{','.join(names)}")
        for step in steps:
            kind = step[0]
            if kind == "text":
                await ws.send(step[1])
            elif kind == "binary":
                await ws.send(bytes.fromhex(step[1]))
            elif kind in ("recv", "recv_n"):
                for _ in range(step[1] if kind == "recv_n" else 1):
                    m = await asyncio.wait_for(ws.recv(), 10)
                    print(f"text:{m}" if isinstance(m, str) else f"binary:{m.hex()}")
            elif kind == "ping":
                await asyncio.wait_for(await ws.ping(), 10)
                print("pong")
            elif kind == "close":
                await ws.close(step[1], step[2])
            elif kind == "wait_close":
                await asyncio.wait_for(ws.wait_closed(), 15)
            elif kind == "sleep":
                await asyncio.sleep(step[1])
        await ws.close()
    print(f"closed:{ws.close_code}:{ws.close_reason}")


def main():
    url, steps = sys.argv[1], json.loads(sys.argv[2])
    protocols, origin, deflate = [], None, False
    rest = sys.argv[3:]
    i = 0
    while i < len(rest):
        if rest[i] == "--protocol":
            protocols.append(rest[i + 1])
            i += 2
        elif rest[i] == "--origin":
            origin = rest[i + 1]
            i += 2
        elif rest[i] == "--deflate":
            deflate = True
            i += 1
        else:
            sys.exit(f"unknown argument {rest[i]}")
    try:
        asyncio.run(run(url, steps, protocols, origin, deflate))
    except websockets.exceptions.InvalidStatusCode as e:
        print(f"refused:{e.status_code}")
    except websockets.exceptions.ConnectionClosed as e:
        code = e.rcvd.code if e.rcvd else 1006
        reason = e.rcvd.reason if e.rcvd else ""
        print(f"closed:{code}:{reason}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
