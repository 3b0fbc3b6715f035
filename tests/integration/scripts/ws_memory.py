#!/usr/bin/python3
"""Large compressed WebSocket messages for the integration tests (python3-websockets).

    ws_memory.py URL limit SIZE     SIZE random bytes in one message, compressed, sent
                                    in one frame then in 1 MiB fragments (a connection each);
                                    prints "one:<result>" and "fragments:<result>", where
                                    <result> is "echoed" or "closed:<code>"
    ws_memory.py URL budget SIZE    connection A sends a message's first fragment (SIZE zero
                                    bytes, a few KB compressed) and keeps it open; B then sends
                                    SIZE bytes; A finishes; C sends SIZE bytes. Prints
                                    "B:<result>", "A:<result>", "C:<result>"

Every wait is bounded; the script exits within 100 s.
"""
import asyncio
import os
import sys

import websockets

TIMEOUT = 10


def connect(url):
    return websockets.connect(url, compression="deflate", max_size=1 << 26, ping_interval=None,
                              open_timeout=TIMEOUT, close_timeout=TIMEOUT)


async def exchange(url, message):
    """Sends `message` (bytes, or a list of fragments) and waits for the echo.

    The answer is awaited while the message is still being sent: a server that
    refuses a frame from its head closes before it has read the rest."""
    ws = await connect(url)
    sending = asyncio.ensure_future(ws.send(message))
    try:
        back = await asyncio.wait_for(ws.recv(), 4 * TIMEOUT)
    except websockets.ConnectionClosed as e:
        return f"closed:{e.rcvd.code if e.rcvd else 1006}"
    except asyncio.TimeoutError:
        return "timeout"
    finally:
        sending.cancel()
        if not ws.transport.is_closing():
            ws.transport.abort()
    whole = message if isinstance(message, bytes) else b"".join(message)
    return "echoed" if back == whole else "wrong"


async def limit(url, size):
    data = os.urandom(size)
    print(f"one:{await exchange(url, data)}", flush=True)
    fragments = [data[i:i + (1 << 20)] for i in range(0, size, 1 << 20)]
    print(f"fragments:{await exchange(url, fragments)}", flush=True)


async def budget(url, size):
    written = asyncio.Event()
    release = asyncio.Event()

    async def held_open():
        yield bytes(size)
        written.set()  # asked for the next fragment: the first one is written
        await release.wait()

    async with connect(url) as a:
        sending = asyncio.ensure_future(a.send(held_open()))
        await asyncio.wait_for(written.wait(), TIMEOUT)
        # The server answers in order: after the pong, it has read the fragment.
        await asyncio.wait_for(await a.ping(), TIMEOUT)
        print(f"B:{await exchange(url, bytes(size))}", flush=True)
        release.set()
        try:
            await asyncio.wait_for(sending, TIMEOUT)
            back = await asyncio.wait_for(a.recv(), TIMEOUT)
            print(f"A:{'echoed' if back == bytes(size) else 'wrong'}", flush=True)
        except websockets.ConnectionClosed as e:
            print(f"A:closed:{e.rcvd.code if e.rcvd else 1006}", flush=True)
    print(f"C:{await exchange(url, bytes(size))}", flush=True)


def main():
    url, mode, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    asyncio.run(asyncio.wait_for(limit(url, size) if mode == "limit" else budget(url, size), 100))


if __name__ == "__main__":
    main()
