// Graceful stop: in-flight requests finish, idle connections close, nothing
// new is accepted, and wait() returns.

#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/test_routes.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using namespace stet::test;

constexpr std::size_t slow_body_bytes = 512 * 1024;

class Stop : public ::testing::Test {
 protected:
  static stet::server_options options() {
    stet::server_options o = test_options();
    // Long enough that only stop() can close idle or stalled connections in time.
    o.idle_timeout = 10s;
    o.header_timeout = 10s;
    o.drain_timeout = 1s;
    return o;
  }

  /// The test app plus GET /slow: flags entry, sleeps 300 ms, answers slow_body_bytes.
  stet::router routes() {
    stet::router r = app_.routes();
    r.get("/slow", [this](stet::request&) {
      slow_entered_ = true;
      std::this_thread::sleep_for(300ms);
      return stet::response::text(pattern_bytes(slow_body_bytes));
    });
    return r;
  }

  void stop() { server_.get().stop(); }

  /// wait() returns within `timeout`.
  bool waits_out(std::chrono::milliseconds timeout = 3s) {
    auto done = std::async(std::launch::async, [this] { server_.get().wait(); });
    return done.wait_for(timeout) == std::future_status::ready;
  }

  test_app app_;
  std::atomic<bool> slow_entered_{false};
  running_server server_{routes(), options()};
};

TEST_F(Stop, ResponseOfASlowHandlerArrivesComplete) {
  raw_client client(server_.port());
  ASSERT_TRUE(client.send(get_request("/slow")));
  ASSERT_TRUE(eventually([&] { return slow_entered_.load(); }));
  stop();
  const auto r = client.read_response();
  ASSERT_TRUE(r) << "the in-flight request was cut off";
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.size(), slow_body_bytes);
  EXPECT_TRUE(r->body == pattern_bytes(slow_body_bytes));
  EXPECT_TRUE(client.wait_closed(2s));
  EXPECT_TRUE(waits_out());
}

TEST_F(Stop, RequestWithBodyInFlightIsFinished) {
  raw_client client(server_.port());
  ASSERT_TRUE(client.send("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nfirst"));
  ASSERT_TRUE(eventually([&] { return server_.get().open_connections() == 1; }));
  std::this_thread::sleep_for(50ms);  // let the server read the first half
  stop();
  std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(client.send("-half"));
  const auto r = client.read_response();
  ASSERT_TRUE(r) << "the in-flight request was cut off";
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "first-half");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(client.wait_closed(2s));
  EXPECT_TRUE(waits_out());
}

TEST_F(Stop, IdleConnectionsAreClosedPromptly) {
  raw_client first(server_.port());
  raw_client second(server_.port());
  ASSERT_TRUE(first.request("GET", "/plaintext"));
  ASSERT_TRUE(second.request("GET", "/plaintext"));
  raw_client never_sent(server_.port());
  ASSERT_TRUE(eventually([&] { return server_.get().open_connections() == 3; }));
  stop();
  EXPECT_TRUE(first.wait_closed(1s));
  EXPECT_TRUE(second.wait_closed(1s));
  EXPECT_TRUE(never_sent.wait_closed(1s));
  EXPECT_TRUE(waits_out(1s));
}

// A keep-alive client may send its next request just before the stop; if the
// request already sits in the server's socket buffer, closing the "idle"
// connection would reset it unanswered (and the client could not tell whether
// it was processed). One worker, busy in a slow handler, makes sure the bytes
// are there, unread, when the drain begins.
TEST(StopOneWorker, RequestAlreadyReceivedOnAnIdleConnectionIsAnswered) {
  stet::server_options o = test_options();
  o.threads = 1;
  o.idle_timeout = 10s;
  std::atomic<bool> entered{false};
  stet::router routes;
  routes.get("/slow", [&entered](stet::request&) {
    entered = true;
    std::this_thread::sleep_for(300ms);
    return stet::response::text("slow");
  });
  routes.get("/query", [](stet::request& req) { return stet::response::text(req.query_string()); });
  running_server server(std::move(routes), o);
  raw_client idle(server.port());
  ASSERT_TRUE(idle.request("GET", "/query?first"));
  raw_client busy(server.port());
  ASSERT_TRUE(busy.send(get_request("/slow")));
  ASSERT_TRUE(eventually([&] { return entered.load(); }));
  ASSERT_TRUE(idle.send(get_request("/query?second")));  // the worker cannot read it yet
  std::this_thread::sleep_for(20ms);
  server.get().stop();
  const auto r = idle.read_response();
  ASSERT_TRUE(r) << "a request received before the drain was reset unanswered";
  EXPECT_EQ(r->body, "second");
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(idle.wait_closed(2s));
  EXPECT_TRUE(busy.read_response());
}

TEST_F(Stop, NewConnectionsAreRefused) {
  stop();
  EXPECT_TRUE(waits_out());
  raw_client late(server_.port());
  EXPECT_FALSE(late.connected());
}

TEST_F(Stop, NewConnectionsAreNotServedWhileDraining) {
  raw_client busy(server_.port());
  ASSERT_TRUE(busy.send(get_request("/slow")));
  ASSERT_TRUE(eventually([&] { return slow_entered_.load(); }));
  stop();
  // The listener may still complete a handshake before it closes, but nothing
  // that arrives after stop() may be answered.
  raw_client late(server_.port());
  if (late.connected()) {
    late.send(get_request("/plaintext"));
    EXPECT_FALSE(late.read_response(false, 1s));
  }
  EXPECT_TRUE(busy.read_response());
  EXPECT_TRUE(waits_out());
}

TEST_F(Stop, StalledRequestIsClosedAtTheDrainDeadline) {
  raw_client stalled(server_.port());
  ASSERT_TRUE(stalled.send("GET /plaintext HTTP/1.1\r\nHost:"));
  ASSERT_TRUE(eventually([&] { return server_.get().open_connections() == 1; }));
  std::this_thread::sleep_for(20ms);
  const auto start = std::chrono::steady_clock::now();
  stop();
  EXPECT_TRUE(waits_out(4s));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 700ms);  // drain_timeout is 1 s: the request was given its chance
  EXPECT_TRUE(stalled.wait_closed(1s));
}

TEST_F(Stop, StopTwiceAndWaitTwice) {
  stop();
  stop();
  EXPECT_TRUE(waits_out());
  EXPECT_TRUE(waits_out());
}

TEST(StopUnstarted, DestroyingAServerThatNeverStartedIsHarmless) {
  stet::server s(stet::router{}, test_options());
  s.stop();
  s.wait();
}

}  // namespace
