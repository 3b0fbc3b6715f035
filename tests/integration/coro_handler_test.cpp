// Coroutine handlers over real sockets: offload resumes on the connection's
// worker; a full pool answers 503 + Retry-After at once; exceptions are 500s;
// pipelined requests behind a suspended one stay in order; and a suspended
// handler is cancelled safely when its client disconnects (during offload,
// queued or running, sleep_for and a future), when handler_timeout fires and
// when the server stops. Each cancelled frame holds a guard that reads the
// request in its destructor, so ASan catches a request released too early.
#include <stet/stet.hpp>

#include "support/expectations.hpp"
#include "support/gate.hpp"
#include "support/http_client.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::request;
using stet::response;
using stet::task;
using stet::test::raw_client;

// Bounded, so a broken server fails the test instead of hanging it; roomy
// enough for the sanitizer builds.
bool eventually(const std::function<bool()>& done) { return stet::test::eventually(done, 5s); }

using stet::test::gate;

// What the handlers tell the test.
struct observed {
  gate pool_gate;
  std::atomic<int> guards_destroyed{0};
  std::atomic<int> resumed_after_wait{0};
  std::atomic<int> offloads_finished{0};
  std::mutex mutex;
  std::vector<stet::promise<std::string>> promises;
};

// Lives in a handler's frame: its destructor reads the request, which must
// still be there whenever the frame goes (finished or cancelled).
struct frame_guard {
  request& req;
  observed& seen;
  ~frame_guard() {
    if (!req.path().empty()) seen.guards_destroyed.fetch_add(1);
  }
};

stet::router coro_routes(const std::shared_ptr<observed>& seen) {
  stet::router r;
  r.get("/now", [](request&) { return response::text("now"); });
  r.get("/where", [](request&) -> task<response> {
    const std::thread::id worker = std::this_thread::get_id();
    const std::thread::id pool = co_await stet::offload([] { return std::this_thread::get_id(); });
    const bool home = std::this_thread::get_id() == worker;
    co_return response::text(std::string(home ? "home" : "away") + (pool != worker ? " pooled" : " inline"));
  });
  r.get("/gated", [seen](request& req) -> task<response> {
    const frame_guard guard{req, *seen};
    co_await stet::offload(
        [](const std::shared_ptr<observed>& s) {
          s->pool_gate.pass();
          s->offloads_finished.fetch_add(1);
        },
        seen);
    seen->resumed_after_wait.fetch_add(1);
    co_return response::text("gated");
  });
  r.get("/sleep/{ms:uint}", [seen](request& req, std::uint64_t ms) -> task<response> {
    const frame_guard guard{req, *seen};
    co_await stet::sleep_for(std::chrono::milliseconds(ms));
    seen->resumed_after_wait.fetch_add(1);
    co_return response::text("slept " + std::to_string(ms));
  });
  r.get("/future", [seen](request& req) -> task<response> {
    const frame_guard guard{req, *seen};
    auto [promise, future] = stet::make_promise<std::string>();
    {
      const std::lock_guard lock(seen->mutex);
      seen->promises.push_back(std::move(promise));
    }
    std::string value = co_await future;
    seen->resumed_after_wait.fetch_add(1);
    co_return response::text(value);
  });
  r.get("/throws", [](request&) -> task<response> {
    co_await stet::sleep_for(0ms);
    throw std::runtime_error("handler failed");
  });
  r.get("/offload-throws", [](request&) -> task<response> {
    co_return response::text(std::to_string(co_await stet::offload([]() -> int { throw std::logic_error("fn"); })));
  });
  return r;
}

stet::server_options pool_of_one(const std::shared_ptr<stet::metrics>& m = nullptr) {
  stet::server_options o = stet::test::test_options();
  o.offload_threads = 1;
  o.offload_queue = 1;
  o.offload_retry_after = std::chrono::seconds(7);
  o.metrics = m;
  return o;
}

class CoroAsync : public ::testing::Test {
 protected:
  void start(stet::server_options o = pool_of_one()) {
    server_ = std::make_unique<stet::test::running_server>(coro_routes(seen_), std::move(o));
  }
  std::uint16_t port() const { return server_->port(); }
  std::size_t promises() {
    const std::lock_guard lock(seen_->mutex);
    return seen_->promises.size();
  }
  void TearDown() override {
    seen_->pool_gate.open();  // whatever still waits on the pool
    server_.reset();
  }

  std::shared_ptr<observed> seen_ = std::make_shared<observed>();
  std::unique_ptr<stet::test::running_server> server_;
};

TEST_F(CoroAsync, OffloadRunsOnThePoolAndResumesOnTheWorker) {
  start();
  raw_client c(port());
  for (int i = 0; i < 3; ++i) {
    const auto r = c.request("GET", "/where");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "home pooled");
  }
}

TEST_F(CoroAsync, ExceptionsAre500AndTheConnectionGoesOn) {
  start();
  raw_client c(port());
  auto r = c.request("GET", "/throws");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  r = c.request("GET", "/offload-throws");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 500);
  r = c.request("GET", "/now");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "now");
}

TEST_F(CoroAsync, PipelinedRequestsBehindASuspendedOneStayInOrder) {
  start();
  raw_client c(port());
  ASSERT_TRUE(
      c.send("GET /sleep/30 HTTP/1.1\r\nHost: x\r\n\r\nGET /now HTTP/1.1\r\nHost: x\r\n\r\n"
             "GET /where HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto first = c.read_response();
  const auto second = c.read_response();
  const auto third = c.read_response();
  ASSERT_TRUE(first && second && third);
  EXPECT_EQ(first->body, "slept 30");
  EXPECT_EQ(second->body, "now");
  EXPECT_EQ(third->body, "home pooled");
}

TEST_F(CoroAsync, FullPoolIs503WithRetryAfterAtOnce) {
  auto m = std::make_shared<stet::metrics>();
  start(pool_of_one(m));
  raw_client running(port());
  ASSERT_TRUE(running.send("GET /gated HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(eventually([this] { return seen_->pool_gate.entered() == 1; }));  // the one thread is busy
  raw_client queued(port());
  ASSERT_TRUE(queued.send("GET /gated HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(eventually([&m] { return m->text().find("stet_offload_queued 1") != std::string::npos; }));

  raw_client refused(port());
  const auto r = refused.request("GET", "/gated");  // answered while the gate is still shut
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->header("retry-after"), "7");
  EXPECT_EQ(seen_->pool_gate.entered(), 1);

  seen_->pool_gate.open();
  const auto a = running.read_response();
  const auto b = queued.read_response();
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->body, "gated");
  EXPECT_EQ(b->body, "gated");
  const std::string text = m->text();
  EXPECT_NE(text.find(R"(stet_offload_calls_total{outcome="rejected"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(stet_offload_calls_total{outcome="completed"} 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("stet_offload_wait_seconds_count 2"), std::string::npos) << text;
  EXPECT_NE(text.find("stet_offload_run_seconds_count 2"), std::string::npos) << text;
  EXPECT_NE(text.find("stet_offload_threads 1"), std::string::npos) << text;
}

TEST_F(CoroAsync, DisconnectWhileOffloadRunsDropsTheResult) {
  auto m = std::make_shared<stet::metrics>();
  start(pool_of_one(m));
  {
    raw_client c(port());
    ASSERT_TRUE(c.send("GET /gated HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(eventually([this] { return seen_->pool_gate.entered() == 1; }));
  }                                   // gone while the function runs
  std::this_thread::sleep_for(20ms);  // time to notice; the frame must wait for the function anyway
  EXPECT_EQ(seen_->guards_destroyed.load(), 0);
  seen_->pool_gate.open();
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->offloads_finished.load(), 1);   // it ran to its end
  EXPECT_EQ(seen_->resumed_after_wait.load(), 0);  // ... and its result was dropped
  ASSERT_TRUE(eventually(
      [&m] { return m->text().find(R"(stet_offload_calls_total{outcome="dropped"} 1)") != std::string::npos; }));
  raw_client fresh(port());
  const auto r = fresh.request("GET", "/now");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "now");
}

TEST_F(CoroAsync, DisconnectWhileOffloadQueuedNeverRunsIt) {
  auto m = std::make_shared<stet::metrics>();
  start(pool_of_one(m));
  raw_client running(port());
  ASSERT_TRUE(running.send("GET /gated HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(eventually([this] { return seen_->pool_gate.entered() == 1; }));
  {
    raw_client queued(port());
    ASSERT_TRUE(queued.send("GET /gated HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(eventually([&m] { return m->text().find("stet_offload_queued 1") != std::string::npos; }));
  }
  // Taken back from the queue and destroyed while the gate is still shut.
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_NE(m->text().find(R"(stet_offload_calls_total{outcome="withdrawn"} 1)"), std::string::npos);
  seen_->pool_gate.open();
  const auto r = running.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "gated");
  EXPECT_EQ(seen_->pool_gate.entered(), 1);  // the withdrawn one never ran
}

TEST_F(CoroAsync, DisconnectDuringSleepDestroysTheFrame) {
  start();
  {
    raw_client c(port());
    ASSERT_TRUE(c.send("GET /sleep/60000 HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(c.quiet_for(20ms));
  }
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));  // long before the minute
  EXPECT_EQ(seen_->resumed_after_wait.load(), 0);
  raw_client fresh(port());
  const auto r = fresh.request("GET", "/sleep/1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "slept 1");
}

TEST_F(CoroAsync, DisconnectWhileAwaitingAFutureAbandonsItsPromise) {
  start();
  {
    raw_client c(port());
    ASSERT_TRUE(c.send("GET /future HTTP/1.1\r\nHost: x\r\n\r\n"));
    ASSERT_TRUE(eventually([this] { return promises() == 1; }));
  }
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  const std::lock_guard lock(seen_->mutex);
  EXPECT_TRUE(seen_->promises[0].abandoned());
  EXPECT_FALSE(seen_->promises[0].set_value("too late"));
  EXPECT_EQ(seen_->resumed_after_wait.load(), 0);
}

TEST_F(CoroAsync, FutureSetFromAnotherThreadAnswers) {
  start();
  raw_client c(port());
  ASSERT_TRUE(c.send("GET /future HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(eventually([this] { return promises() == 1; }));
  std::thread([this] {
    const std::lock_guard lock(seen_->mutex);
    EXPECT_TRUE(seen_->promises[0].set_value("from afar"));
  }).join();
  const auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "from afar");
}

TEST_F(CoroAsync, HandlerTimeoutWhileSuspendedIs503AndCancels) {
  stet::server_options o = pool_of_one();
  o.handler_timeout = 100ms;
  start(o);
  raw_client c(port());
  const auto r = c.request("GET", "/sleep/60000");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_TRUE(c.wait_closed());
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->resumed_after_wait.load(), 0);
}

TEST_F(CoroAsync, HandlerTimeoutWhileOffloadRunsWaitsForTheFunction) {
  stet::server_options o = pool_of_one();
  o.handler_timeout = 100ms;
  start(o);
  raw_client c(port());
  const auto r = c.request("GET", "/gated");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(seen_->guards_destroyed.load(), 0);  // the function still runs
  seen_->pool_gate.open();
  ASSERT_TRUE(eventually([this] { return seen_->guards_destroyed.load() == 1; }));
  EXPECT_EQ(seen_->resumed_after_wait.load(), 0);
}

TEST_F(CoroAsync, StopWithSuspendedCoroutinesCancelsThem) {
  stet::server_options o = pool_of_one();
  o.drain_timeout = 100ms;
  start(o);
  raw_client sleeping(port());
  raw_client offloaded(port());
  raw_client awaiting(port());
  ASSERT_TRUE(sleeping.send("GET /sleep/60000 HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(offloaded.send("GET /gated HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(awaiting.send("GET /future HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(eventually([this] { return seen_->pool_gate.entered() == 1 && promises() == 1; }));
  // Stopping waits for the running function; let it finish a little later.
  std::thread opener([this] {
    std::this_thread::sleep_for(200ms);
    seen_->pool_gate.open();
  });
  server_.reset();
  opener.join();
  EXPECT_EQ(seen_->guards_destroyed.load(), 3);
  EXPECT_EQ(seen_->resumed_after_wait.load(), 0);
  EXPECT_EQ(seen_->offloads_finished.load(), 1);
  const std::lock_guard lock(seen_->mutex);
  EXPECT_FALSE(seen_->promises[0].set_value("server is gone"));
}

TEST_F(CoroAsync, StopWaitsForASuspendedHandlerThatFinishesInTime) {
  stet::server_options o = pool_of_one();
  o.drain_timeout = 5s;
  start(o);
  raw_client c(port());
  ASSERT_TRUE(c.send("GET /sleep/50 HTTP/1.1\r\nHost: x\r\n\r\n"));
  ASSERT_TRUE(c.quiet_for(10ms));
  std::thread stopper([this] { server_->get().stop(); });
  const auto r = c.read_response();
  stopper.join();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "slept 50");
  EXPECT_EQ(r->header("connection"), "close");
}

}  // namespace
