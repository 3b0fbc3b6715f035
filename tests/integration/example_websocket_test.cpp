// stet-server's WebSocket routes (examples/stet-server/websocket_routes.cpp)
// behind a real server: an upgrade from a browser page on another origin is
// refused, unless --cors-origin names that origin; the server's own pages and
// clients that send no Origin are served. Messages in flight on all echo
// connections together stay within --websocket-budget-bytes.
#include "websocket_routes.hpp"

#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/test_server.hpp"
#include "support/ws_client.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace {

using stet::test::raw_client;
using stet::test::running_server;
using stet::test::ws::client_frame;
using stet::test::ws::opcode;

stet::router example_routes(const std::vector<std::string>& cors_origins = {}) {
  stet::router routes;
  stet_server::add_websocket_routes(routes, cors_origins);
  return routes;
}

// The status of an upgrade of `path` sent with `headers` (Host first among them).
int upgrade_status(const running_server& server, std::string_view path, std::string_view headers) {
  raw_client c(server.port());
  const std::string request = "GET " + std::string(path) + " HTTP/1.1\r\n" + std::string(headers) +
                              "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  if (!c.send(request)) return 0;
  const auto r = c.read_response(true);
  return r ? r->status : 0;
}

std::string host(const running_server& s) { return "Host: 127.0.0.1:" + std::to_string(s.port()) + "\r\n"; }

TEST(ExampleWebsocket, ForeignOriginIsRefusedOnBothRoutes) {
  running_server server(example_routes());
  for (const char* path : {"/ws/echo", "/ws/chat/lobby"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(upgrade_status(server, path, host(server) + "Origin: http://evil.test\r\n"), 403);
    // Another port or scheme of the same host is another origin.
    EXPECT_EQ(upgrade_status(server, path, host(server) + "Origin: http://127.0.0.1:1\r\n"), 403);
    EXPECT_EQ(upgrade_status(server, path,
                             host(server) + "Origin: https://127.0.0.1:" + std::to_string(server.port()) + "\r\n"),
              403);
    EXPECT_EQ(upgrade_status(server, path, host(server) + "Origin: null\r\n"), 403);
  }
}

TEST(ExampleWebsocket, OwnOriginAndNoOriginAreServed) {
  running_server server(example_routes());
  const std::string own = "http://127.0.0.1:" + std::to_string(server.port());
  for (const char* path : {"/ws/echo", "/ws/chat/lobby"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(upgrade_status(server, path, host(server) + "Origin: " + own + "\r\n"), 101);
    EXPECT_EQ(upgrade_status(server, path,
                             host(server) + "Origin: HTTP://127.0.0.1:" + std::to_string(server.port()) + "\r\n"),
              101);
    EXPECT_EQ(upgrade_status(server, path, host(server)), 101);  // not a browser
  }
  // The default port is implied on either side.
  EXPECT_EQ(upgrade_status(server, "/ws/echo", "Host: example.test\r\nOrigin: http://example.test:80\r\n"), 101);
  EXPECT_EQ(upgrade_status(server, "/ws/echo", "Host: example.test:80\r\nOrigin: http://example.test\r\n"), 101);
  EXPECT_EQ(upgrade_status(server, "/ws/echo", "Host: example.test:8080\r\nOrigin: http://example.test\r\n"), 403);
  // Two Origin lines are not a browser's.
  EXPECT_EQ(upgrade_status(server, "/ws/echo", host(server) + "Origin: " + own + "\r\nOrigin: " + own + "\r\n"), 403);
}

TEST(ExampleWebsocket, CorsOriginsMayOpenTheSockets) {
  running_server server(example_routes({"http://app.test", "https://*.corp.test"}));
  for (const char* path : {"/ws/echo", "/ws/chat/lobby"}) {
    SCOPED_TRACE(path);
    EXPECT_EQ(upgrade_status(server, path, host(server) + "Origin: http://app.test\r\n"), 101);
    EXPECT_EQ(upgrade_status(server, path, host(server) + "Origin: https://a.corp.test\r\n"), 101);
    EXPECT_EQ(upgrade_status(server, path, host(server) + "Origin: http://evil.test\r\n"), 403);
    EXPECT_EQ(upgrade_status(server, path,
                             host(server) + "Origin: http://127.0.0.1:" + std::to_string(server.port()) + "\r\n"),
              101);
  }
}

TEST(ExampleWebsocket, OriginCheckAsAFunction) {
  stet::test_request q(stet::method::get, "/ws/echo");
  q.header("Host", "[::1]:8080").header("Origin", "http://[::1]:8080");
  EXPECT_TRUE(stet_server::websocket_origin_allowed(q, {}));
  stet::test_request other(stet::method::get, "/ws/echo");
  other.header("Host", "[::1]:8080").header("Origin", "http://[::1]:8081");
  EXPECT_FALSE(stet_server::websocket_origin_allowed(other, {}));
  EXPECT_TRUE(stet_server::websocket_origin_allowed(other, {"*"}));
}

// An open fragment holds what it has sent so far; past the budget shared by
// the route's connections, the message that would exceed it gets 1013. (How
// far a buffer grew depends on how the reads cut the fragment, between its
// size and one and a half times it: two fit 400 KiB, six cannot.)
TEST(ExampleWebsocket, OpenFragmentsShareTheBudget) {
  stet::router routes;
  stet_server::add_websocket_routes(routes, {}, 400 * 1024);
  running_server server(std::move(routes));
  const std::string part(100 * 1024, 'f');
  std::vector<std::unique_ptr<stet::test::ws_client>> clients;
  int refused_at = -1;
  for (int i = 0; i < 6 && refused_at < 0; ++i) {
    clients.push_back(std::make_unique<stet::test::ws_client>(server.port(), "/ws/echo"));
    stet::test::ws_client& c = *clients.back();
    ASSERT_EQ(c.status(), 101);
    ASSERT_TRUE(c.raw().send(client_frame(opcode::binary, part, false)));
    ASSERT_TRUE(c.send(opcode::ping, "held?"));
    const auto f = c.next();
    ASSERT_TRUE(f) << "connection " << i;
    if (f->opcode == 8) {
      EXPECT_EQ(f->close_code(), 1013);
      refused_at = i;
    } else {
      EXPECT_EQ(f->opcode, 10);  // the pong: the fragment is held
    }
  }
  EXPECT_GE(refused_at, 2);
  EXPECT_LE(refused_at, 5);
}

}  // namespace
