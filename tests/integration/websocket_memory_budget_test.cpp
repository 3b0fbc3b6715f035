// Large compressed WebSocket messages behind a real server, from an
// independent client (python3-websockets, tests/integration/scripts/ws_memory.py):
// max_message_bytes is the inflated size, in one frame as in fragments, and
// max_total_message_bytes refuses a message with 1013 while another
// connection holds an unfinished one, and takes it again once that ends.
#include <stet/stet.hpp>

#include "support/run_process.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using stet::test::running_server;

constexpr std::size_t mib = std::size_t{1} << 20;

stet::router echo_routes(std::size_t max_message, std::size_t total_budget = 0) {
  stet::router routes;
  stet::websocket_options o;
  o.max_message_bytes = max_message;
  o.max_total_message_bytes = total_budget;
  o.compression.enabled = true;
  routes.websocket("/ws/echo", o,
                   stet::websocket_handlers<>{.message = [](stet::websocket<>& ws, std::string_view m,
                                                            stet::message_kind k) { ws.send(m, k); }});
  return routes;
}

std::string script(const running_server& s, std::string_view mode, std::size_t size) {
  return stet::test::run_process({STET_TEST_PYTHON, STET_TEST_SCRIPTS "/ws_memory.py",
                                  "ws://127.0.0.1:" + std::to_string(s.port()) + "/ws/echo", std::string(mode),
                                  std::to_string(size)})
      .out;
}

// Random bytes compress to a little more than they are: at the limit, one
// frame is larger than max_message_bytes on the wire. (4 MiB here; stet-server's
// 16 MiB /ws/echo behaves the same, slower.)
TEST(WebsocketMemoryBudget, NoiseAtTheLimitIsEchoedInOneCompressedFrameAsInFragments) {
  running_server server(echo_routes(4 * mib));
  EXPECT_EQ(script(server, "limit", 4 * mib), "one:echoed\nfragments:echoed\n");
}

TEST(WebsocketMemoryBudget, OneByteOverTheLimitIsRefusedInOneFrameAsInFragments) {
  running_server server(echo_routes(4 * mib));
  EXPECT_EQ(script(server, "limit", 4 * mib + 1), "one:closed:1009\nfragments:closed:1009\n");
}

TEST(WebsocketMemoryBudget, AnUnfinishedCompressedMessageCountsAgainstTheRouteBudget) {
  running_server server(echo_routes(16 * mib, 10 * mib));
  EXPECT_EQ(script(server, "budget", 6 * mib), "B:closed:1013\nA:echoed\nC:echoed\n");
}

}  // namespace
