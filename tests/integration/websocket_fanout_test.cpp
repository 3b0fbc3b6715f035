// Publish across workers under a flood: subscribers on one worker, a client
// on the other publishing tiny messages as fast as it can write them. The
// subscribers' worker cannot fan them out as fast as the publisher's worker
// reads them, so its mailbox must stay within server_options'
// websocket_mailbox_* bounds (dropping and counting the rest), and an HTTP
// client of that worker must still be answered while the flood runs.
#include <stet/stet.hpp>

#include "support/gate.hpp"
#include "support/http_client.hpp"
#include "support/metric_value.hpp"
#include "support/test_server.hpp"
#include "support/ws_client.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::test::metric_value;
using stet::test::raw_client;
using stet::test::running_server;
using stet::test::ws_client;
using stet::test::ws::client_frame;
using stet::test::ws::opcode;

// Names the worker threads 0, 1, ... in the order they first answer.
struct worker_names {
  std::mutex mutex;
  std::vector<std::thread::id> ids;
  std::string here() {
    std::lock_guard lock(mutex);
    const auto id = std::this_thread::get_id();
    auto it = std::find(ids.begin(), ids.end(), id);
    if (it == ids.end()) it = ids.insert(ids.end(), id);
    return std::to_string(it - ids.begin());
  }
};

// GET /where answers the worker's name; a /room socket is told its worker's
// name, subscribes on "join", and publishes anything else to the room.
stet::router fanout_routes(const std::shared_ptr<worker_names>& names) {
  stet::router routes;
  routes.get("/where", [names](stet::request&) { return stet::response::text(names->here()); });
  stet::websocket_options room;
  room.max_backpressure = 16 * 1024;  // members that do not read cost little memory
  room.idle_timeout = 0ms;
  routes.websocket("/room", room,
                   stet::websocket_handlers<>{.open = [names](stet::websocket<>& ws) { ws.send(names->here()); },
                                              .message =
                                                  [](stet::websocket<>& ws, std::string_view m, stet::message_kind k) {
                                                    if (m == "join") {
                                                      ws.subscribe("room");
                                                      ws.send("joined");
                                                    } else {
                                                      ws.publish("room", m, k);
                                                    }
                                                  }});
  return routes;
}

template <class P>
bool eventually(P predicate, std::chrono::milliseconds timeout = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!predicate()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

constexpr std::size_t mailbox_messages = 64;
constexpr std::size_t mailbox_bytes = 64 * 1024;
constexpr int members = 200;
constexpr std::size_t flood_messages = 400'000;

TEST(WebsocketFanout, FloodAcrossWorkersStaysWithinTheMailboxBound) {
  auto names = std::make_shared<worker_names>();
  auto metrics = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::test_options();
  o.threads = 2;
  o.metrics = metrics;
  o.websocket_mailbox_messages = mailbox_messages;
  o.websocket_mailbox_bytes = mailbox_bytes;
  running_server server(fanout_routes(names), o);

  // Sockets are handed to the workers in turn: keep those on the first
  // socket's worker as members, one on the other as the publisher.
  std::vector<std::unique_ptr<ws_client>> room;
  std::unique_ptr<ws_client> publisher;
  std::string home;
  for (int i = 0; i < 4 * members && (room.size() < members || !publisher); ++i) {
    auto c = std::make_unique<ws_client>(server.port(), "/room", 4096);
    ASSERT_EQ(c->status(), 101);
    const auto name = c->next();
    ASSERT_TRUE(name);
    if (home.empty()) home = name->payload;
    if (name->payload != home) {
      if (!publisher) publisher = std::move(c);
      continue;
    }
    if (room.size() == members) continue;
    c->send_text("join");
    const auto joined = c->next();
    ASSERT_TRUE(joined);
    ASSERT_EQ(joined->payload, "joined");
    room.push_back(std::move(c));
  }
  ASSERT_EQ(room.size(), static_cast<std::size_t>(members));
  ASSERT_TRUE(publisher);

  // An HTTP client of the members' worker (keep-alive: it stays there).
  std::unique_ptr<raw_client> probe;
  for (int i = 0; i < 8 && !probe; ++i) {
    auto c = std::make_unique<raw_client>(server.port());
    const auto r = c->request("GET", "/where");
    ASSERT_TRUE(r);
    if (r->body == home) probe = std::move(c);
  }
  ASSERT_TRUE(probe);

  // The flood: 2-byte text messages, written in large batches.
  const timeval send_timeout{10, 0};
  ::setsockopt(publisher->raw().fd(), SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
  std::string batch;
  for (int i = 0; i < 8192; ++i) batch += client_frame(opcode::text, "hi");
  std::atomic<std::size_t> written{0};
  std::atomic<bool> stop{false};
  std::thread flood([&] {
    while (!stop.load()) {
      if (!publisher->raw().send(batch)) return;
      written += 8192;
    }
  });
  struct joiner {
    std::atomic<bool>& stop;
    std::thread& t;
    ~joiner() {
      stop = true;
      if (t.joinable()) t.join();
    }
  } join_flood{stop, flood};
  // The probe goes while the flood is being written; the flood stops only
  // once the probe is answered (or has failed) and enough was written.
  ASSERT_TRUE(eventually([&] { return written.load() >= flood_messages / 4; }));
  const auto during = probe->request("GET", "/where");
  EXPECT_TRUE(eventually([&] { return written.load() >= flood_messages; }));
  stop = true;
  flood.join();
  ASSERT_TRUE(during) << "the members' worker did not answer an HTTP request during the flood";
  EXPECT_EQ(during->status, 200);
  EXPECT_EQ(during->body, home);

  // The backlog drains; it never held more than the bounds, and what did
  // not fit was counted.
  // (What the publisher wrote may still sit in socket buffers: first every
  // message is read, and so published, then the mailbox empties.)
  const double received = static_cast<double>(written.load() + members);  // the floods and the joins
  EXPECT_TRUE(eventually(
      [&] { return metric_value(*metrics, "stet_websocket_messages_total{direction=\"in\"}") >= received; }));
  EXPECT_TRUE(eventually([&] {
    return metric_value(*metrics, "stet_websocket_mailbox_messages") == 0 &&
           metric_value(*metrics, "stet_websocket_mailbox_bytes") == 0;
  }));
  const double peak = metric_value(*metrics, "stet_websocket_mailbox_peak_messages");
  const double peak_bytes = metric_value(*metrics, "stet_websocket_mailbox_peak_bytes");
  const double dropped = metric_value(*metrics, "stet_websocket_mailbox_dropped_total");
  EXPECT_GT(peak, 0);
  EXPECT_LE(peak, mailbox_messages);
  EXPECT_GT(peak_bytes, 0);
  EXPECT_LE(peak_bytes, mailbox_bytes);
  EXPECT_GT(dropped, 0);
}

// websocket_handle::send() from another thread goes through the same
// mailbox: while its worker is busy, sends past the bound report dropped
// (and are counted) instead of queueing; a close is still taken.
TEST(WebsocketFanout, HandleSendsPastTheMailboxBoundAreDropped) {
  struct held {
    std::mutex mutex;
    std::vector<stet::websocket_handle> handles;
    stet::test::gate busy;  // the session's worker waits here, inside a callback
  };
  auto seen = std::make_shared<held>();
  auto metrics = std::make_shared<stet::metrics>();
  stet::server_options o = stet::test::test_options();
  o.metrics = metrics;
  o.websocket_mailbox_messages = 8;
  stet::router routes;
  routes.websocket("/held", stet::websocket_options{},
                   stet::websocket_handlers<>{.open =
                                                  [seen](stet::websocket<>& ws) {
                                                    std::lock_guard lock(seen->mutex);
                                                    seen->handles.push_back(ws.handle());
                                                  },
                                              .message = [seen](stet::websocket<>&, std::string_view,
                                                                stet::message_kind) { seen->busy.pass(); }});
  running_server server(std::move(routes), o);
  ws_client c(server.port(), "/held");
  ASSERT_EQ(c.status(), 101);
  ASSERT_TRUE(eventually([&] {
    std::lock_guard lock(seen->mutex);
    return seen->handles.size() == 1;
  }));
  const stet::websocket_handle h = seen->handles[0];
  c.send_text("hold the worker");
  ASSERT_TRUE(eventually([&] { return seen->busy.entered() == 1; }));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(h.send("queued " + std::to_string(i)), stet::send_status::posted);
  EXPECT_EQ(h.send("one too many"), stet::send_status::dropped);
  EXPECT_EQ(h.send("and another"), stet::send_status::dropped);
  EXPECT_EQ(metric_value(*metrics, "stet_websocket_mailbox_dropped_total"), 2);
  EXPECT_EQ(metric_value(*metrics, "stet_websocket_mailbox_messages"), 8);
  h.close(4000, "bye");  // not held to the bound
  seen->busy.open();
  for (int i = 0; i < 8; ++i) {
    const auto f = c.next();
    ASSERT_TRUE(f);
    EXPECT_EQ(f->payload, "queued " + std::to_string(i));
  }
  const auto closing = c.next();
  ASSERT_TRUE(closing);
  EXPECT_EQ(closing->opcode, 8);
  EXPECT_EQ(closing->close_code(), 4000);
  EXPECT_LE(metric_value(*metrics, "stet_websocket_mailbox_peak_messages"), 8);
}

}  // namespace
