// bench/e2e/peers/bun_server.js PORT [TLS_PORT CERT KEY]: the uWebSockets peer. Bun.serve is
// uWebSockets' HTTP and WebSocket server under bun's JavaScript API (one
// thread, epoll). Per-request handlers, as stet's are: the body is built on
// every request.
//   /plaintext, /json            as stet-server's
//   /ws/echo                     every message sent back with its opcode (stet's /ws/echo)
//   /ws/chat/ROOM                every message published to the room, sender included
//                                (stet's /ws/chat/{room}); server.publish, so the
//                                sender gets its own copy as in stet
// permessage-deflate off, as on stet's routes under test.
// With TLS_PORT, the same routes are also served over TLS on TLS_PORT by a
// second Bun.serve in this process (one thread either way), with the
// certificate and key files given: how stet serves both from one process.
const [port, tlsPort] = [Number(process.argv[2]), Number(process.argv[3] ?? 0)];
const options = {
  hostname: "127.0.0.1",
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
};
const server = Bun.serve({ ...options, port });
if (tlsPort) {
  Bun.serve({ ...options, port: tlsPort, tls: { cert: Bun.file(process.argv[4]), key: Bun.file(process.argv[5]) } });
}
