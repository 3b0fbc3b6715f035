// WebSocket sessions over raw sockets: sends from other threads, publish to
// subscribers on every worker, back-pressure with a client that does not
// read, protocol failures, the idle rule and server stop.
#include <stet/stet.hpp>

#include "support/test_server.hpp"
#include "support/ws_client.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::test::running_server;
using stet::test::ws_client;
using stet::test::ws_frame;
using stet::test::ws::client_frame;
using stet::test::ws::frame_bytes;
using stet::test::ws::opcode;

// What the routes saw, shared with the test thread.
struct observed {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<stet::websocket_handle> handles;
  std::vector<std::uint16_t> close_codes;
  std::vector<stet::send_status> flood_results;
  std::size_t max_buffered = 0;
  int drains = 0;

  template <class P>
  bool wait(P predicate, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, predicate);
  }
  void note(auto&& f) {
    {
      std::lock_guard lock(mutex);
      f();
    }
    changed.notify_all();
  }
};

constexpr std::size_t flood_bound = 64 * 1024;
constexpr std::size_t flood_message = 16 * 1024;

stet::router session_routes(const std::shared_ptr<observed>& seen, stet::websocket_options base = {}) {
  stet::router routes;
  auto on_close = [seen](auto&, std::uint16_t code, std::string_view) {
    seen->note([&] { seen->close_codes.push_back(code); });
  };
  routes.websocket(
      "/held", base,
      stet::websocket_handlers<>{
          .open = [seen](stet::websocket<>& ws) { seen->note([&] { seen->handles.push_back(ws.handle()); }); },
          .close = on_close});
  routes.websocket("/news", base,
                   stet::websocket_handlers<>{.open = [](stet::websocket<>& ws) { ws.subscribe("news"); },
                                              .message = [](stet::websocket<>& ws, std::string_view m,
                                                            stet::message_kind k) { ws.publish("news", m, k); },
                                              .close = on_close});
  stet::websocket_options flood = base;
  flood.max_backpressure = flood_bound;
  routes.websocket("/flood", flood,
                   stet::websocket_handlers<>{.message =
                                                  [seen](stet::websocket<>& ws, std::string_view, stet::message_kind) {
                                                    // Sends until the queue is over the bound, then once more.
                                                    const std::string chunk(flood_message, 'f');
                                                    std::vector<stet::send_status> results;
                                                    for (int i = 0; i < 1000; ++i) {
                                                      results.push_back(ws.send(chunk, stet::message_kind::binary));
                                                      if (results.back() != stet::send_status::sent) break;
                                                    }
                                                    results.push_back(ws.send(chunk, stet::message_kind::binary));
                                                    const std::size_t buffered = ws.buffered_amount();
                                                    seen->note([&] {
                                                      seen->flood_results = results;
                                                      seen->max_buffered = buffered;
                                                    });
                                                  },
                                              .drain =
                                                  [seen](stet::websocket<>& ws) {
                                                    ws.send("drained");
                                                    seen->note([&] { ++seen->drains; });
                                                  },
                                              .close = on_close});
  routes.websocket("/echo", base,
                   stet::websocket_handlers<>{.message = [](stet::websocket<>& ws, std::string_view m,
                                                            stet::message_kind k) { ws.send(m, k); },
                                              .close = on_close});
  return routes;
}

stet::server_options four_workers() {
  stet::server_options o = stet::test::test_options();
  o.threads = 4;
  return o;
}

TEST(WebsocketSessionWire, SendsFromAnotherThreadArePosted) {
  auto seen = std::make_shared<observed>();
  running_server server(session_routes(seen));
  ws_client c(server.port(), "/held");
  ASSERT_EQ(c.status(), 101);
  ASSERT_TRUE(seen->wait([&] { return seen->handles.size() == 1; }));
  const stet::websocket_handle h = seen->handles[0];
  EXPECT_TRUE(h.is_open());
  EXPECT_EQ(h.send("from afar"), stet::send_status::posted);
  const auto f = c.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 1);
  EXPECT_EQ(f->payload, "from afar");
  h.close(4000, "bye");
  const auto closing = c.next();
  ASSERT_TRUE(closing);
  EXPECT_EQ(closing->opcode, 8);
  EXPECT_EQ(closing->close_code(), 4000);
  EXPECT_EQ(closing->payload.substr(2), "bye");
  c.send(opcode::close, closing->payload);
  EXPECT_TRUE(c.raw().wait_closed());
  ASSERT_TRUE(seen->wait([&] { return seen->close_codes.size() == 1; }));
  EXPECT_EQ(seen->close_codes[0], 4000);
  EXPECT_FALSE(h.is_open());
  EXPECT_EQ(h.send("late"), stet::send_status::closed);
}

TEST(WebsocketSessionWire, PublishReachesSubscribersOnEveryWorker) {
  auto seen = std::make_shared<observed>();
  running_server server(session_routes(seen), four_workers());
  std::vector<std::unique_ptr<ws_client>> clients;
  for (int i = 0; i < 200; ++i) {
    clients.push_back(std::make_unique<ws_client>(server.port(), "/news"));
    ASSERT_EQ(clients.back()->status(), 101);
  }
  for (auto& c : clients) ASSERT_TRUE(c->round_trip());
  EXPECT_TRUE(server.get().publish("news", "from the server"));
  EXPECT_FALSE(server.get().publish("nobody-listens", "x"));
  for (auto& c : clients) {
    const auto f = c->next();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->payload, "from the server");
  }
  // A subscriber's message goes to every subscriber, itself included.
  clients[7]->send(opcode::binary, std::string("\x01\x02", 2));
  for (auto& c : clients) {
    const auto f = c->next();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->opcode, 2);
    EXPECT_EQ(f->payload, std::string("\x01\x02", 2));
  }
}

TEST(WebsocketSessionWire, BackpressureBoundsTheQueueAndDrainFollowsTheReads) {
  auto seen = std::make_shared<observed>();
  running_server server(session_routes(seen));
  ws_client c(server.port(), "/flood", 4096);
  ASSERT_EQ(c.status(), 101);
  c.send_text("go");
  ASSERT_TRUE(seen->wait([&] { return !seen->flood_results.empty(); }));
  {
    std::lock_guard lock(seen->mutex);
    const auto& r = seen->flood_results;
    ASSERT_GE(r.size(), 2u);
    EXPECT_EQ(r[r.size() - 2], stet::send_status::backpressure);
    EXPECT_EQ(r.back(), stet::send_status::dropped);
    // The queue holds at most the bound and one message past it.
    EXPECT_LE(seen->max_buffered, flood_bound + flood_message + 16);
    // (Whether drain ran already depends on how much the kernel's socket
    // buffers took: a loopback send buffer may hold the whole queue.)
  }
  // Reading everything lets the queue empty: on_drain runs, and its message arrives last.
  std::size_t binary = 0;
  for (;;) {
    const auto f = c.next();
    ASSERT_TRUE(f) << "after " << binary << " binary frames";
    if (f->opcode == 2) {
      EXPECT_EQ(f->payload.size(), flood_message);
      ++binary;
      continue;
    }
    EXPECT_EQ(f->opcode, 1);
    EXPECT_EQ(f->payload, "drained");
    break;
  }
  EXPECT_EQ(binary, seen->flood_results.size() - 1);  // every one queued, none dropped arrived
  EXPECT_TRUE(seen->wait([&] { return seen->drains >= 1; }));
}

TEST(WebsocketSessionWire, CloseOnBackpressureLimitEndsTheConnection) {
  auto seen = std::make_shared<observed>();
  stet::websocket_options o;
  o.close_on_backpressure_limit = true;
  running_server server(session_routes(seen, o));
  ws_client c(server.port(), "/flood", 4096);
  ASSERT_EQ(c.status(), 101);
  c.send_text("go");
  ASSERT_TRUE(seen->wait([&] { return seen->close_codes.size() == 1; }));
  EXPECT_EQ(seen->close_codes[0], stet::close_code::abnormal);
  std::string rest = c.raw().read_until_close(10s);
  EXPECT_TRUE(c.raw().peer_closed());
}

TEST(WebsocketSessionWire, UnmaskedFrameFailsWith1002) {
  auto seen = std::make_shared<observed>();
  running_server server(session_routes(seen));
  ws_client c(server.port(), "/echo");
  ASSERT_EQ(c.status(), 101);
  c.raw().send(frame_bytes(0x81, "plain", std::nullopt));
  const auto f = c.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 8);
  EXPECT_EQ(f->close_code(), 1002);
  EXPECT_TRUE(c.raw().wait_closed());
  ASSERT_TRUE(seen->wait([&] { return seen->close_codes.size() == 1; }));
  EXPECT_EQ(seen->close_codes[0], 1002);
}

TEST(WebsocketSessionWire, FragmentsWithAPingBetweenMakeOneMessage) {
  auto seen = std::make_shared<observed>();
  running_server server(session_routes(seen));
  ws_client c(server.port(), "/echo");
  ASSERT_EQ(c.status(), 101);
  c.raw().send(client_frame(opcode::text, "Hel", false) + client_frame(opcode::ping, "p") +
               client_frame(opcode::continuation, "lo", true));
  const auto pong = c.next();
  ASSERT_TRUE(pong);
  EXPECT_EQ(pong->opcode, 10);
  EXPECT_EQ(pong->payload, "p");
  const auto echo = c.next();
  ASSERT_TRUE(echo);
  EXPECT_EQ(echo->payload, "Hello");
}

TEST(WebsocketSessionWire, InvalidUtf8SplitAcrossFragmentsFailsWith1007) {
  auto seen = std::make_shared<observed>();
  running_server server(session_routes(seen));
  ws_client c(server.port(), "/echo");
  ASSERT_EQ(c.status(), 101);
  // E2 82 | 28: a three-byte sequence broken in its last byte, across fragments.
  c.raw().send(client_frame(opcode::text, "ok\xe2\x82", false) + client_frame(opcode::continuation, "(", true));
  const auto f = c.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 8);
  EXPECT_EQ(f->close_code(), 1007);
}

TEST(WebsocketSessionWire, OversizeMessageFailsWith1009) {
  auto seen = std::make_shared<observed>();
  stet::websocket_options o;
  o.max_message_bytes = 1000;
  running_server server(session_routes(seen, o));
  ws_client c(server.port(), "/echo");
  ASSERT_EQ(c.status(), 101);
  c.raw().send(client_frame(opcode::binary, std::string(600, 'a'), false) +
               client_frame(opcode::continuation, std::string(600, 'b'), true));
  const auto f = c.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 8);
  EXPECT_EQ(f->close_code(), 1009);
}

TEST(WebsocketSessionWire, SilentPeerIsPingedThenClosedWith1001) {
  auto seen = std::make_shared<observed>();
  stet::websocket_options o;
  o.idle_timeout = 300ms;
  running_server server(session_routes(seen, o));
  ws_client c(server.port(), "/echo");
  ASSERT_EQ(c.status(), 101);
  const auto ping = c.next();
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->opcode, 9);
  const auto close = c.next();
  ASSERT_TRUE(close);
  EXPECT_EQ(close->opcode, 8);
  EXPECT_EQ(close->close_code(), 1001);
}

TEST(WebsocketSessionWire, ServerStopClosesWith1001) {
  auto seen = std::make_shared<observed>();
  stet::server server(session_routes(seen), stet::test::test_options());
  ASSERT_FALSE(server.start());
  ws_client c(server.port(), "/echo");
  ASSERT_EQ(c.status(), 101);
  ASSERT_TRUE(c.round_trip());
  server.stop();
  const auto f = c.next();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->opcode, 8);
  EXPECT_EQ(f->close_code(), 1001);
  c.send(opcode::close, f->payload);  // the client's answer completes the handshake
  EXPECT_TRUE(c.raw().wait_closed());
  server.wait();
  ASSERT_EQ(seen->close_codes.size(), 1u);
  EXPECT_EQ(seen->close_codes[0], 1001);
}

TEST(WebsocketSessionWire, ClientDisconnectWithoutCloseReports1006) {
  auto seen = std::make_shared<observed>();
  running_server server(session_routes(seen));
  {
    ws_client c(server.port(), "/echo");
    ASSERT_EQ(c.status(), 101);
    c.raw().send(client_frame(opcode::text, "half a frame").substr(0, 5));
  }
  ASSERT_TRUE(seen->wait([&] { return seen->close_codes.size() == 1; }));
  EXPECT_EQ(seen->close_codes[0], 1006);
}

}  // namespace
