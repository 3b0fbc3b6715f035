// bench/e2e/peers/bun_server.js PORT: the uWebSockets peer. Bun.serve is
// uWebSockets' HTTP and WebSocket server under bun's JavaScript API (one
// thread, epoll). Per-request handlers, as stet's are: the body is built on
// every request.
//   /plaintext, /json            as stet-server's
//   /ws/echo                     every message sent back with its opcode (stet's /ws/echo)
//   /ws/chat/ROOM                every message published to the room, sender included
//                                (stet's /ws/chat/{room}); server.publish, so the
//                                sender gets its own copy as in stet
// permessage-deflate off, as on stet's routes under test.
const port = Number(process.argv[2]);
const server = Bun.serve({
  hostname: "127.0.0.1",
  port,
  routes: {
    "/plaintext": () => new Response("Hello, World!", { headers: { "Content-Type": "text/plain" } }),
    "/json": () => Response.json({ message: "Hello, World!" }),
  },
  fetch(req, srv) {
    const path = new URL(req.url).pathname;
    if (path === "/ws/echo" || path.startsWith("/ws/chat/")) {
      const room = path === "/ws/echo" ? null : path.slice("/ws/chat/".length);
      if (srv.upgrade(req, { data: { room } })) return undefined;
      return new Response("Upgrade Required", { status: 426 });
    }
    return new Response("Not Found", { status: 404 });
  },
  websocket: {
    perMessageDeflate: false,
    maxPayloadLength: 64 * 1024 * 1024,
    open(ws) {
      if (ws.data.room !== null) ws.subscribe(ws.data.room);
    },
    message(ws, message) {
      if (ws.data.room === null) ws.send(message);
      else server.publish(ws.data.room, message);
    },
  },
});
