// WebSocket routes behind a real server: the handshake's refusals over raw
// sockets, and whole sessions driven by an independent client
// (python3-websockets, through tests/integration/scripts/ws_client.py).
#include <stet/stet.hpp>

#include "support/http_client.hpp"
#include "support/run_process.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

struct member {
  std::string room;
  std::string user;
};

// Echo, a room chat whose upgrade step needs ?user= (else 401), a route with
// subprotocols and allowed origins, and one behind middleware that refuses.
stet::router websocket_routes(std::atomic<int>* closes = nullptr) {
  stet::router routes;
  stet::websocket_options echo_options;
  echo_options.subprotocols = {"chat.v2", "echo.v1"};
  routes.websocket("/ws/echo", echo_options,
                   stet::websocket_handlers<>{.message = [](stet::websocket<>& ws, std::string_view m,
                                                            stet::message_kind k) { ws.send(m, k); },
                                              .close =
                                                  [closes](stet::websocket<>&, std::uint16_t, std::string_view) {
                                                    if (closes != nullptr) ++*closes;
                                                  }});
  routes.websocket(
      "/ws/room/{room}", stet::websocket_options{},
      stet::websocket_handlers<member>{
          .open = [](stet::websocket<member>& ws) { ws.send("hello " + ws.data().user + " in " + ws.data().room); },
          .message = [](stet::websocket<member>& ws, std::string_view m,
                        stet::message_kind) { ws.send(ws.data().user + ":" + std::string(m)); }},
      [](stet::request& req, std::string_view room) -> stet::upgrade_result<member> {
        const auto user = req.query().get("user");
        if (!user) return stet::status::unauthorized;
        return member{std::string(room), std::string(*user)};
      });
  stet::websocket_options origin_options;
  origin_options.allowed_origins = {"http://good.test"};
  routes.websocket("/ws/origin", origin_options,
                   stet::websocket_handlers<>{.open = [](stet::websocket<>& ws) { ws.send("welcome"); }});
  stet::websocket_options deflate_options;
  deflate_options.compression.enabled = true;
  routes.websocket("/ws/deflate", deflate_options,
                   stet::websocket_handlers<>{.message = [](stet::websocket<>& ws, std::string_view m,
                                                            stet::message_kind k) { ws.send(m, k); }});
  auto guarded = routes.group("/guarded");
  guarded.before(
      [](stet::request&) -> std::optional<stet::response> { return stet::response(stet::status::forbidden); });
  guarded.websocket("/ws", stet::websocket_options{}, stet::websocket_handlers<>{});
  return routes;
}

std::string upgrade_head(std::string_view version = "13") {
  return "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
         "Sec-WebSocket-Version: " +
         std::string(version) + "\r\n";
}

// Runs ws_client.py against `path` on the server; its output lines.
std::string client(const running_server& s, std::string_view path, std::string_view steps,
                   std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {STET_TEST_PYTHON, STET_TEST_SCRIPTS "/ws_client.py",
                                   "ws://127.0.0.1:" + std::to_string(s.port()) + std::string(path),
                                   std::string(steps)};
  for (std::string& e : extra) argv.push_back(std::move(e));
  return stet::test::run_process(argv).out;
}

TEST(WebsocketRoute, GetWithoutUpgradeHeadersGets426) {
  running_server server(websocket_routes());
  raw_client c(server.port());
  const auto r = c.request("GET", "/ws/echo");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 426);
  EXPECT_EQ(r->header("upgrade"), "websocket");
  EXPECT_EQ(r->header("sec-websocket-version"), "13");
}

TEST(WebsocketRoute, OtherVersionGets426WithTheVersionSpoken) {
  running_server server(websocket_routes());
  raw_client c(server.port());
  const auto r = c.request("GET", "/ws/echo", upgrade_head("8"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 426);
  EXPECT_EQ(r->header("sec-websocket-version"), "13");
}

TEST(WebsocketRoute, UpgradeStepRefusesWithItsStatus) {
  running_server server(websocket_routes());
  raw_client c(server.port());
  const auto r = c.request("GET", "/ws/room/lobby", upgrade_head());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
}

TEST(WebsocketRoute, MiddlewareRunsBeforeTheUpgrade) {
  running_server server(websocket_routes());
  raw_client c(server.port());
  const auto r = c.request("GET", "/guarded/ws", upgrade_head());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
}

TEST(WebsocketRoute, OriginNotAllowedGets403) {
  running_server server(websocket_routes());
  raw_client c(server.port());
  const auto r = c.request("GET", "/ws/origin", upgrade_head() + "Origin: http://evil.test\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
}

TEST(WebsocketRoute, AcceptsWith101AndTheAcceptKey) {
  running_server server(websocket_routes());
  raw_client c(server.port());
  ASSERT_TRUE(c.send("GET /ws/echo HTTP/1.1\r\nHost: x\r\n" + upgrade_head() + "\r\n"));
  const auto r = c.read_response(true);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 101);
  EXPECT_EQ(r->header("sec-websocket-accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  EXPECT_EQ(r->header("upgrade"), "websocket");
  // A masked "Hi" text frame comes back unmasked.
  const std::string frame = {'\x81', '\x82', '\x01', '\x02', '\x03', '\x04', 'H' ^ 1, 'i' ^ 2};
  ASSERT_TRUE(c.send(frame));
  const std::string got = c.read_once();
  EXPECT_EQ(got, std::string("\x81\x02Hi", 4));
}

TEST(WebsocketClient, EchoesTextAndBinary) {
  std::atomic<int> closes{0};
  running_server server(websocket_routes(&closes));
  const std::string out = client(server, "/ws/echo",
                                 R"([["text","hello"],["recv"],["binary","00ff10"],["recv"],["ping"],)"
                                 R"(["text",""],["recv"],["close",1000,"done"]])");
  EXPECT_EQ(out, "protocol:\nextensions:\ntext:hello\nbinary:00ff10\npong\ntext:\nclosed:1000:\n");
  EXPECT_EQ(closes.load(), 1);
}

TEST(WebsocketClient, LargeMessagesRoundTrip) {
  running_server server(websocket_routes());
  const std::string big(100000, 'x');  // one argv string holds at most 128 KiB
  const std::string out = client(server, "/ws/echo", R"([["text",")" + big + R"("],["recv"]])");
  EXPECT_EQ(out, "protocol:\nextensions:\ntext:" + big + "\nclosed:1000:\n");
}

TEST(WebsocketClient, NegotiatesTheFirstSubprotocolItSpeaks) {
  running_server server(websocket_routes());
  const std::string out =
      client(server, "/ws/echo", R"([["text","x"],["recv"]])", {"--protocol", "none.v0", "--protocol", "echo.v1"});
  EXPECT_EQ(out, "protocol:echo.v1\nextensions:\ntext:x\nclosed:1000:\n");
}

TEST(WebsocketClient, RouteParametersAndUserDataReachTheSession) {
  running_server server(websocket_routes());
  const std::string out = client(server, "/ws/room/lobby?user=ann", R"([["recv"],["text","hi"],["recv"]])");
  EXPECT_EQ(out, "protocol:\nextensions:\ntext:hello ann in lobby\ntext:ann:hi\nclosed:1000:\n");
}

TEST(WebsocketClient, AllowedOriginIsAccepted) {
  running_server server(websocket_routes());
  EXPECT_EQ(client(server, "/ws/origin", R"([["recv"]])", {"--origin", "http://good.test"}),
            "protocol:\nextensions:\ntext:welcome\nclosed:1000:\n");
  EXPECT_EQ(client(server, "/ws/origin", R"([["recv"]])", {"--origin", "http://bad.test"}), "refused:403\n");
}

TEST(WebsocketClient, PermessageDeflateRoundTrips) {
  running_server server(websocket_routes());
  std::string text;
  for (int i = 0; i < 500; ++i) text += "compressible line " + std::to_string(i % 7) + "; ";
  const std::string steps =
      R"([["text",")" + text + R"("],["recv"],["text","short"],["recv"],["text",")" + text + R"("],["recv"]])";
  EXPECT_EQ(
      client(server, "/ws/deflate", steps, {"--deflate"}),
      "protocol:\nextensions:permessage-deflate\ntext:" + text + "\ntext:short\ntext:" + text + "\nclosed:1000:\n");
  // Not offered by the client: not used.
  EXPECT_EQ(client(server, "/ws/deflate", R"([["text","x"],["recv"]])"),
            "protocol:\nextensions:\ntext:x\nclosed:1000:\n");
  // Not enabled on the route: not answered.
  EXPECT_EQ(client(server, "/ws/echo", R"([["text","x"],["recv"]])", {"--deflate"}),
            "protocol:\nextensions:\ntext:x\nclosed:1000:\n");
}

}  // namespace
