// The byte budget holds under churn: many keys, entries evicted least
// recently used first, the running byte count within the budget at every
// moment (however many threads store at once) and once the churn stops.
#include <stet/response_cache.hpp>

#include "unit/cache/cache_test_routes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace {

using stet::method;
using stet::request;
using stet::response;

constexpr std::uint64_t budget = 64 * 1024;

struct budget_app {
  budget_app() {
    stet::response_cache_options o;
    o.budget_bytes = budget;
    cache = std::make_shared<stet::response_cache>(o);
    routes.get("/k/{n:int}", cache->route("k", {}),
               [](request&, int n) { return response::text(std::string(1000 + n % 7 * 100, 'x')); });
  }
  response get(int n) {
    stet::test_request q(method::get, "/k/" + std::to_string(n));
    return routes.handle(q);
  }
  std::shared_ptr<stet::response_cache> cache;
  stet::router routes;
};

TEST(ResponseCacheBudget, ChurnStaysWithinTheBudget) {
  budget_app app;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&app, t] {
      for (int i = 0; i < 2000; ++i) {
        const int n = (i * 7 + t * 13) % 500;
        EXPECT_EQ(app.get(n).body().size(), static_cast<std::size_t>(1000 + n % 7 * 100));
        // A true bound: room is made before an entry is counted, never after.
        EXPECT_LE(app.cache->stats().bytes, budget);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const stet::response_cache_stats s = app.cache->stats();
  EXPECT_LE(s.bytes, budget);
  EXPECT_GT(s.evictions, 0u);
  EXPECT_GT(s.entries, 10u);
  EXPECT_EQ(s.hits + s.misses + s.waits + s.bypasses, 8000u);
}

TEST(ResponseCacheBudget, LeastRecentlyUsedGoesFirst) {
  budget_app app;
  app.get(0);
  for (int n = 1; n < 200; ++n) {
    app.get(0);  // kept warm
    app.get(n);
  }
  const std::uint64_t misses = app.cache->stats().misses;
  app.get(0);
  EXPECT_EQ(app.cache->stats().misses, misses);  // still there
  app.get(1);
  EXPECT_EQ(app.cache->stats().misses, misses + 1);  // long gone
}

TEST(ResponseCacheBudget, AnAnswerLargerThanTheBudgetIsNotStored) {
  stet::response_cache_options o;
  o.budget_bytes = 1000;
  auto cache = std::make_shared<stet::response_cache>(o);
  stet::router routes;
  routes.get("/big", cache->route("big", {}), [](request&) { return response::text(std::string(5000, 'x')); });
  stet::test_request q(method::get, "/big");
  EXPECT_EQ(routes.handle(q).body().size(), 5000u);
  EXPECT_EQ(cache->stats().entries, 0u);
  EXPECT_EQ(cache->stats().bytes, 0u);
}

}  // namespace
