// bench/e2e/peers/bun_server.js PORT: the uWebSockets peer. Bun.serve is
// uWebSockets' HTTP server under bun's JavaScript API (one thread, epoll).
// Per-request handlers, as stet's are: the body is built on every request.
const port = Number(process.argv[2]);
Bun.serve({
  hostname: "127.0.0.1",
  port,
  routes: {
    "/plaintext": () => new Response("Hello, World!", { headers: { "Content-Type": "text/plain" } }),
    "/json": () => Response.json({ message: "Hello, World!" }),
  },
  fetch() {
    return new Response("Not Found", { status: 404 });
  },
});
