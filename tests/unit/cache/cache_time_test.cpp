// Time in the response cache: expiry after the ttl, stale-while-revalidate
// with exactly one background refresh per key, stale-if-error in the
// foreground and the background, and an invalidation that races a refresh
// (the refresh began first, so its answer must not be stored).
#include <stet/response_cache.hpp>

#include "support/gate.hpp"
#include "unit/cache/cache_test_routes.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

namespace {

using namespace std::chrono_literals;
using stet::cache_policy;
using stet::method;
using stet::request;
using stet::response;

// A route whose runs after the first wait at `gate` (when `hold` is set) and
// fail (when `fail` is set): what a slow or broken backend looks like.
struct gated_app {
  explicit gated_app(cache_policy p) : cache(std::make_shared<stet::response_cache>()) {
    p.tags = [](const request&, const response&, std::vector<std::string>& tags) { tags.emplace_back("user:1"); };
    routes.get("/u", cache->route("u", std::move(p)), [this](request&) {
      const int n = runs.fetch_add(1) + 1;
      if (n > 1 && hold.load()) wait.pass();
      if (fail.load() == 1) throw std::runtime_error("backend down");
      if (fail.load() == 2) return response::text("down", stet::status::bad_gateway);
      return response::text("run " + std::to_string(n));
    });
  }
  // A stale hit may have left a refresh running this app's handler, and that
  // refresh holds the cache. Once it has let go (the routes' hold is dropped
  // first), the reset below is the last reference, and the cache's destructor
  // joins its refresh thread: nothing runs the handler after the app is gone.
  ~gated_app() {
    routes = stet::router();
    for (int i = 0; i < 500 && cache.use_count() > 1; ++i) std::this_thread::sleep_for(10ms);
    cache.reset();
  }
  gated_app(const gated_app&) = delete;
  gated_app& operator=(const gated_app&) = delete;

  std::string get() {
    stet::test_request q(method::get, "/u");
    return std::string(routes.handle(q).body());
  }
  int get_status() {
    stet::test_request q(method::get, "/u");
    return stet::to_int(routes.handle(q).status());
  }
  // Polls for up to 5 s until `done()`.
  template <class F>
  static bool eventually(F done) {
    for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(10ms);
    return done();
  }

  // What the handler touches is declared first, so it is destroyed last:
  // after the cache, whose destructor joins a refresh still running it.
  std::atomic<int> runs{0};
  std::atomic<bool> hold{false};
  std::atomic<int> fail{0};  // 1: throw, 2: answer 502
  stet::test::gate wait;
  std::shared_ptr<stet::response_cache> cache;
  stet::router routes;
};

TEST(ResponseCacheTime, ExpiresAfterTheTtl) {
  cache_policy p;
  p.ttl = 40ms;
  gated_app app(p);
  EXPECT_EQ(app.get(), "run 1");
  EXPECT_EQ(app.get(), "run 1");
  std::this_thread::sleep_for(60ms);
  EXPECT_EQ(app.get(), "run 2");
  EXPECT_EQ(app.cache->stats().stale_hits, 0u);
}

TEST(ResponseCacheTime, StaleIsServedDuringASlowRefreshAndOnlyOneRefreshRuns) {
  cache_policy p;
  p.ttl = 20ms;
  p.stale_while_revalidate = 10s;
  gated_app app(p);
  EXPECT_EQ(app.get(), "run 1");
  std::this_thread::sleep_for(40ms);
  app.hold = true;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) EXPECT_EQ(app.get(), "run 1");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);  // nobody waited for the held refresh
  ASSERT_TRUE(gated_app::eventually([&] { return app.wait.entered() == 1; }));
  EXPECT_EQ(app.cache->stats().refreshes, 1u);
  EXPECT_EQ(app.cache->stats().stale_hits, 20u);
  app.wait.open();
  ASSERT_TRUE(gated_app::eventually([&] { return app.get() == "run 2"; }));
  EXPECT_EQ(app.runs, 2);
}

TEST(ResponseCacheTime, StaleIfErrorInTheForeground) {
  cache_policy p;
  p.ttl = 20ms;
  p.stale_if_error = 10s;
  gated_app app(p);
  EXPECT_EQ(app.get(), "run 1");
  std::this_thread::sleep_for(40ms);
  app.fail = 1;
  EXPECT_EQ(app.get(), "run 1");  // the handler threw: the stale answer instead of a 500
  app.fail = 2;
  EXPECT_EQ(app.get(), "run 1");  // a 502: the same
  EXPECT_EQ(app.runs, 3);
  EXPECT_EQ(app.cache->stats().stale_hits, 2u);
  app.fail = 0;
  EXPECT_EQ(app.get(), "run 4");  // recovered: stored again
  EXPECT_EQ(app.get(), "run 4");
}

TEST(ResponseCacheTime, WithoutStaleIfErrorTheFailureGoesOut) {
  cache_policy p;
  p.ttl = 20ms;
  gated_app app(p);
  EXPECT_EQ(app.get(), "run 1");
  std::this_thread::sleep_for(40ms);
  app.fail = 1;
  EXPECT_EQ(app.get_status(), 500);
  app.fail = 2;
  EXPECT_EQ(app.get_status(), 502);
}

TEST(ResponseCacheTime, AFailedBackgroundRefreshKeepsTheStaleEntry) {
  cache_policy p;
  p.ttl = 20ms;
  p.stale_while_revalidate = 10s;
  p.stale_if_error = 10s;
  gated_app app(p);
  EXPECT_EQ(app.get(), "run 1");
  std::this_thread::sleep_for(40ms);
  app.fail = 1;
  EXPECT_EQ(app.get(), "run 1");
  ASSERT_TRUE(gated_app::eventually([&] { return app.runs == 2; }));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(app.get(), "run 1");  // still there; this stale hit asks for another refresh
  EXPECT_EQ(app.cache->stats().entries, 1u);
}

// The refresh starts (the entry is stale), the tag is invalidated while the
// handler runs, then the handler finishes: what it made began before the
// invalidation and must not be stored, or the invalidated data would come back.
TEST(ResponseCacheTime, AnInvalidationThatRacesARefreshWins) {
  cache_policy p;
  p.ttl = 20ms;
  p.stale_while_revalidate = 10s;
  gated_app app(p);
  EXPECT_EQ(app.get(), "run 1");
  std::this_thread::sleep_for(40ms);
  app.hold = true;
  EXPECT_EQ(app.get(), "run 1");
  ASSERT_TRUE(gated_app::eventually([&] { return app.wait.entered() == 1; }));
  app.cache->invalidate_tag("user:1");
  EXPECT_EQ(app.cache->stats().entries, 0u);
  EXPECT_EQ(app.cache->stats().invalidations, 1u);
  app.wait.open();
  ASSERT_TRUE(gated_app::eventually([&] { return app.cache->stats().not_stored == 1; }));
  EXPECT_EQ(app.cache->stats().entries, 0u);
  EXPECT_EQ(app.get(), "run 3");
}

TEST(ResponseCacheTime, InvalidationByRouteAndAll) {
  gated_app app(cache_policy{});
  app.get();
  app.cache->invalidate_tag("user:2");
  EXPECT_EQ(app.get(), "run 1");
  app.cache->invalidate_route("u");
  EXPECT_EQ(app.get(), "run 2");
  app.cache->invalidate_all();
  EXPECT_EQ(app.get(), "run 3");
  EXPECT_EQ(app.cache->stats().invalidations, 2u);
}

}  // namespace
