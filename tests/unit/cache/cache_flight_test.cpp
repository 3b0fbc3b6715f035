// Single flight, in-process: concurrent misses of one key run the handler
// once and every waiter gets the same bytes; when the run's answer may not be
// stored (a per-client answer), each waiter runs the handler for itself.
#include <stet/response_cache.hpp>

#include "unit/cache/cache_test_routes.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using stet::method;
using stet::request;
using stet::response;

// Runs `body` on `n` threads that start together.
template <class F>
void together(int n, F body) {
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready.load() < n) std::this_thread::yield();
      body(i);
    });
  }
  for (std::thread& t : threads) t.join();
}

TEST(ResponseCacheFlight, AHundredConcurrentMissesRunTheHandlerOnce) {
  auto cache = std::make_shared<stet::response_cache>();
  stet::router routes;
  std::atomic<int> runs{0};
  routes.get("/cold", cache->route("cold", {}), [&runs](request&) {
    const int n = ++runs;
    std::this_thread::sleep_for(200ms);
    return response::text("run " + std::to_string(n));
  });
  std::mutex mutex;
  std::multiset<std::string> bodies;
  together(100, [&](int) {
    stet::test_request q(method::get, "/cold");
    const response r = routes.handle(q);
    const std::lock_guard lock(mutex);
    bodies.insert(std::string(r.body()));
  });
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(bodies.count("run 1"), 100u);
  const stet::response_cache_stats s = cache->stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_GT(s.waits, 0u);
  EXPECT_EQ(s.hits + s.waits + s.misses, 100u);
}

TEST(ResponseCacheFlight, WaitersRunTheirOwnWhenTheAnswerIsPersonal) {
  auto cache = std::make_shared<stet::response_cache>();
  stet::router routes;
  std::atomic<int> runs{0};
  routes.get("/me", cache->route("me", {}), [&runs](request&) {
    const int n = ++runs;
    std::this_thread::sleep_for(100ms);
    response r = response::text("session " + std::to_string(n));
    (void)r.set_cookie("s", std::to_string(n));
    return r;
  });
  std::mutex mutex;
  std::set<std::string> bodies;
  together(20, [&](int) {
    stet::test_request q(method::get, "/me");
    const response r = routes.handle(q);
    const std::lock_guard lock(mutex);
    bodies.insert(std::string(r.body()));
  });
  EXPECT_EQ(runs, 20);
  EXPECT_EQ(bodies.size(), 20u);  // nobody got another client's answer
  EXPECT_EQ(cache->stats().entries, 0u);
}

TEST(ResponseCacheFlight, WaitersBeyondTheBoundRunTheHandlerThemselves) {
  stet::response_cache_options o;
  o.max_waiters = 2;
  auto cache = std::make_shared<stet::response_cache>(o);
  stet::router routes;
  std::atomic<int> runs{0};
  routes.get("/cold", cache->route("cold", {}), [&runs](request&) {
    ++runs;
    std::this_thread::sleep_for(200ms);
    return response::text("x");
  });
  together(10, [&](int) {
    stet::test_request q(method::get, "/cold");
    EXPECT_EQ(routes.handle(q).body(), "x");
  });
  EXPECT_LE(cache->stats().waits, 2u);
  EXPECT_GT(runs, 1);
  EXPECT_EQ(cache->stats().bypasses, static_cast<std::uint64_t>(runs - 1));
}

}  // namespace
