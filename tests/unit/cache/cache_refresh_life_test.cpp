// A background refresh ends with its route: destroying the router (and the
// cache) while a slow refresh runs waits for it, and a refresh still queued
// for a route that is gone never runs its handler. The handlers here touch
// the app they belong to, as real handlers do: a refresh that outlived the
// app would write to freed memory (ASan, TSan) and would be seen running
// after the app's destruction returned.
#include <stet/response_cache.hpp>

#include <stet/router.hpp>
#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::method;
using stet::request;
using stet::response;

// What the test watches from outside the app: it outlives the app.
struct probe {
  std::atomic<int> slow_started{0};
  std::atomic<int> slow_finished{0};
  std::atomic<int> quick_runs{0};
};

// A second router on the same cache, with a route that answers at once;
// its handler writes to this object, which goes with the router.
struct quick_side {
  quick_side(stet::response_cache& cache, const stet::cache_policy& policy, std::shared_ptr<probe> p)
      : seen(std::move(p)) {
    routes.get("/quick", cache.route("quick", policy), [this](request&) {
      ++seen->quick_runs;
      last = "quick";
      return response::text("quick");
    });
  }
  std::string get() {
    stet::test_request q(method::get, "/quick");
    return std::string(routes.handle(q).body());
  }
  std::shared_ptr<probe> seen;
  std::string last;
  stet::router routes;
};

// A cached route that takes 300 ms from its second run on (a refresh), and
// the quick side; each run writes to the object it belongs to.
struct app {
  explicit app(std::shared_ptr<probe> p) : seen(std::move(p)), cache(std::make_shared<stet::response_cache>()) {
    stet::cache_policy policy;
    policy.ttl = 20ms;
    policy.stale_while_revalidate = 10s;
    routes.get("/slow", cache->route("slow", policy), [this](request&) {
      const int n = ++slow_runs;
      if (n > 1) {
        ++seen->slow_started;
        std::this_thread::sleep_for(300ms);
        last = "slow " + std::to_string(n);  // the app is still here
        ++seen->slow_finished;
      }
      return response::text("slow " + std::to_string(n));
    });
    quick = std::make_unique<quick_side>(*cache, policy, seen);
  }
  std::string get() {
    stet::test_request q(method::get, "/slow");
    return std::string(routes.handle(q).body());
  }

  std::shared_ptr<probe> seen;
  int slow_runs = 0;  // one run at a time here
  std::string last;
  std::shared_ptr<stet::response_cache> cache;
  std::unique_ptr<quick_side> quick;
  stet::router routes;  // last: destroyed first
};

bool eventually(const std::atomic<int>& n, int value) {
  for (int i = 0; i < 500 && n.load() < value; ++i) std::this_thread::sleep_for(10ms);
  return n.load() >= value;
}

TEST(ResponseCacheRefreshLife, DestroyingTheAppWaitsForARunningRefresh) {
  auto seen = std::make_shared<probe>();
  auto a = std::make_unique<app>(seen);
  EXPECT_EQ(a->get(), "slow 1");
  std::this_thread::sleep_for(40ms);
  EXPECT_EQ(a->get(), "slow 1");  // stale: the refresh starts in the background
  ASSERT_TRUE(eventually(seen->slow_started, 1));
  a.reset();                          // the routers, then the cache, while the refresh sleeps
  EXPECT_EQ(seen->slow_finished, 1);  // it waited for the run
}

TEST(ResponseCacheRefreshLife, ARefreshQueuedForADestroyedRouteNeverRuns) {
  auto seen = std::make_shared<probe>();
  app a(seen);
  a.get();
  a.quick->get();
  std::this_thread::sleep_for(40ms);
  a.get();  // its refresh runs first (one refresh thread)...
  ASSERT_TRUE(eventually(seen->slow_started, 1));
  a.quick->get();   // ...this one is queued behind it
  a.quick.reset();  // its route goes before its refresh could start
  ASSERT_TRUE(eventually(seen->slow_finished, 1));
  std::this_thread::sleep_for(100ms);  // time for the queued job to run, were it going to
  EXPECT_EQ(seen->quick_runs, 1);
}

// Only the cache handle goes: the routes still hold the cache, so a stale
// hit still refreshes, with the handler of a router that is still there.
TEST(ResponseCacheRefreshLife, TheRoutesKeepTheCacheWorkingWithoutTheHandle) {
  auto seen = std::make_shared<probe>();
  app a(seen);
  a.quick->get();
  a.cache.reset();
  std::this_thread::sleep_for(40ms);
  EXPECT_EQ(a.quick->get(), "quick");
  EXPECT_TRUE(eventually(seen->quick_runs, 2));
}

}  // namespace
