// The hand-over of bytes read ahead: whatever the HTTP connection read past
// an upgrade request's head goes to the WebSocket session whole, however
// large the connection's read buffer had grown (a streamed body before the
// upgrade, or a long head with a raised max_header_bytes). Both once crashed
// the server with a fixed-size copy into a 32 KiB block.

#include <stet/stet.hpp>

#include "support/handover_routes.hpp"
#include "support/test_server.hpp"
#include "support/ws_client.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::test::raw_client;
using stet::test::running_server;
using stet::test::take_frame;
using stet::test::ws_frame;
using stet::test::ws::client_frame;
using stet::test::ws::opcode;

constexpr std::string_view upgrade_head =
    "GET /ws/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

/// `count` text frames of `size` bytes each, numbered in their first bytes.
std::string frames(int count, std::size_t size) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    std::string payload(size, 'a' + static_cast<char>(i % 26));
    out += client_frame(opcode::text, payload);
  }
  return out;
}

/// Reads frames until `count` arrived or the connection goes quiet; returns how many echoes matched.
int echoes_received(raw_client& c, std::string buffered, int count, std::size_t size) {
  int matched = 0;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (matched < count && std::chrono::steady_clock::now() < deadline) {
    while (std::optional<ws_frame> f = take_frame(buffered)) {
      if (f->opcode != 1 || f->payload != std::string(size, 'a' + static_cast<char>(matched % 26))) return matched;
      ++matched;
    }
    const std::string got = c.read_once(2s);
    if (got.empty()) break;
    buffered += got;
  }
  return matched;
}

/// Reads the HTTP answers in order, then returns what followed the 101's head.
std::string after_switching(raw_client& c) {
  std::string bytes;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    const std::size_t end = bytes.find("HTTP/1.1 101");
    if (end != std::string::npos) {
      const std::size_t head_end = bytes.find("\r\n\r\n", end);
      if (head_end != std::string::npos) return bytes.substr(head_end + 4);
    }
    if (std::chrono::steady_clock::now() >= deadline) return {};
    const std::string got = c.read_once(2s);
    if (got.empty()) return {};
    bytes += got;
  }
}

TEST(WebsocketHandoverWire, FramesBehindAStreamedBodyAndTheUpgradeAllReachTheSession) {
  running_server server(stet::test::handover_routes("/ws/echo"), stet::test::test_options());
  raw_client c(server.port());
  ASSERT_TRUE(c.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n"));
  std::this_thread::sleep_for(100ms);  // the head alone first: the route starts streaming with its grown buffer
  constexpr int count = 60;
  constexpr std::size_t size = 1000;  // ~60 KiB of frames behind the upgrade, in one write
  ASSERT_TRUE(c.send("body" + std::string(upgrade_head) + "\r\n" + frames(count, size)));
  const std::string rest = after_switching(c);
  EXPECT_EQ(echoes_received(c, rest, count, size), count);

  raw_client other(server.port());
  const auto r = other.request("GET", "/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(WebsocketHandoverWire, FramesBehindALongUpgradeHeadReachTheSession) {
  stet::server_options options = stet::test::test_options();
  options.max_header_bytes = 128 * 1024;
  running_server server(stet::test::handover_routes("/ws/echo"), options);
  raw_client c(server.port());
  // A 70 KiB head grows the read buffer to 128 KiB, far past a WebSocket block, before the frames arrive.
  const std::string head = std::string(upgrade_head) + "X-Pad: " + std::string(70 * 1024, 'p') + "\r\n\r\n";
  constexpr int count = 60;
  constexpr std::size_t size = 1000;
  ASSERT_TRUE(c.send(head + frames(count, size)));
  const std::string rest = after_switching(c);
  EXPECT_EQ(echoes_received(c, rest, count, size), count);

  raw_client other(server.port());
  const auto r = other.request("GET", "/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

}  // namespace
