// stet-server's GET /slow?ms=N (examples/stet-server/slow.cpp): blocks a pool
// thread, never a worker, so /plaintext on the same single worker is answered
// while it sleeps; a bad ms is a 400; a full pool is a 503 with Retry-After.
#include <stet/stet.hpp>

#include "slow.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace {

using stet::test::raw_client;
using stet::test::running_server;

stet::router slow_routes() {
  stet::router r;
  r.get("/plaintext", [](stet::request&) { return stet::response::text("Hello, World!"); });
  stet_server::add_slow_route(r);
  return r;
}

stet::server_options one_worker(unsigned pool_threads, std::size_t queue) {
  stet::server_options o = stet::test::test_options();
  o.threads = 1;
  o.offload_threads = pool_threads;
  o.offload_queue = queue;
  o.handler_timeout = std::chrono::seconds(10);  // above the longest sleep here (the test default is 2 s)
  return o;
}

TEST(SlowRouteAsync, AnswersWithTheTimeSlept) {
  running_server server(slow_routes(), one_worker(2, 16));
  raw_client c(server.port());
  for (const std::string ms : {"0", "1", "25"}) {
    const auto r = c.request("GET", "/slow?ms=" + ms);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, R"({"slept_ms":)" + ms + "}");
    EXPECT_EQ(r->header("content-type"), "application/json");
  }
}

TEST(SlowRouteAsync, BadMillisecondsAre400) {
  running_server server(slow_routes(), one_worker(2, 16));
  raw_client c(server.port());
  for (const char* target : {"/slow", "/slow?ms=", "/slow?ms=10001", "/slow?ms=-1", "/slow?ms=1x", "/slow?ms=abc"}) {
    const auto r = c.request("GET", target);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 400) << target;
  }
}

TEST(SlowRouteAsync, TheWorkerServesOthersWhileThePoolSleeps) {
  running_server server(slow_routes(), one_worker(1, 16));
  raw_client slow(server.port());
  ASSERT_TRUE(slow.send("GET /slow?ms=3000 HTTP/1.1\r\nHost: x\r\n\r\n"));
  raw_client fast(server.port());
  for (int i = 0; i < 5; ++i) {
    const auto r = fast.request("GET", "/plaintext");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "Hello, World!");
  }
  EXPECT_TRUE(slow.quiet_for(std::chrono::milliseconds(0)));  // still sleeping when /plaintext was answered
  const auto r = slow.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, R"({"slept_ms":3000})");
}

TEST(SlowRouteAsync, FullPoolIs503WithRetryAfter) {
  stet::server_options o = one_worker(1, 0);  // one thread, no queue
  o.metrics = std::make_shared<stet::metrics>();
  running_server server(slow_routes(), o);
  raw_client busy(server.port());
  ASSERT_TRUE(busy.send("GET /slow?ms=2000 HTTP/1.1\r\nHost: x\r\n\r\n"));
  bool running = false;  // taken by the one thread
  for (int i = 0; i < 2500 && !running; ++i) {
    running = o.metrics->text().find("stet_offload_running 1") != std::string::npos;
    if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(running);
  raw_client refused(server.port());
  const auto r = refused.request("GET", "/slow?ms=1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->header("retry-after"), "1");
  const auto first = busy.read_response();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
}

}  // namespace
