// Invalidations carried between instances: two routers with a cache each
// (two instances) on one in-process bus. An invalidation made on one is
// applied there at once and exactly once (the copy that comes back is
// skipped), and on the other when it arrives, routes matched by name (their
// indexes differ), caches by name; a link that went carries nothing more.
#include "cache/cache_bus.hpp"

#include "cache/cached_route.hpp"
#include "cache/invalidation_message.hpp"
#include "pubsub/in_process_bus.hpp"
#include "support/bus_collector.hpp"

#include <stet/response_cache.hpp>
#include <stet/router.hpp>
#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

namespace {

using stet::method;
using stet::request;
using stet::response;
using stet::detail::invalidation_log;

// One instance: a cache and a router whose /users/{id} answers are tagged user:{id}.
struct instance {
  explicit instance(std::string cache_name = "responses", bool extra_route = false) {
    stet::response_cache_options o;
    o.name = std::move(cache_name);
    cache = std::make_shared<stet::response_cache>(o);
    if (extra_route) routes.get("/other", cache->route("other", {}), [](request&) { return response::text("o"); });
    stet::cache_policy p;
    p.tags = [](const request& req, const response&, std::vector<std::string>& tags) {
      tags.push_back("user:" + std::string(req.params().get("id").value_or("")));
    };
    users = cache->route("users", p);
    routes.get("/users/{id}", users, [this](request&, std::string_view id) {
      return response::text(std::string(id) + " run " + std::to_string(++runs));
    });
  }
  std::string get(std::string_view target) {
    stet::test_request q(method::get, target);
    return std::string(routes.handle(q).body());
  }
  // Invalidations applied here (the log's epoch).
  std::uint64_t applied() const { return users.cache->store().table.log().now(); }

  std::atomic<int> runs{0};
  std::shared_ptr<stet::response_cache> cache;
  stet::route_options users;
  stet::router routes;
};

struct ResponseCacheBus : ::testing::Test {
  void SetUp() override {
    a_link = std::make_unique<stet::detail::cache_bus_link>(a.routes, topics);
    b_link = std::make_unique<stet::detail::cache_bus_link>(b.routes, topics);
    topics.start(hub.sink());
    a_link->attach();
    b_link->attach();
  }
  void TearDown() override {
    a_link.reset();
    b_link.reset();
    topics.stop();
  }

  instance a;
  instance b{"responses", true};  // its "users" route has another index than a's
  stet::detail::internal_topics topics{std::make_unique<stet::detail::in_process_bus>()};
  stet::test::bus_collector hub;
  std::unique_ptr<stet::detail::cache_bus_link> a_link;
  std::unique_ptr<stet::detail::cache_bus_link> b_link;
};

TEST_F(ResponseCacheBus, ATagInvalidatedOnOneIsGoneOnBothAndAppliedOnceEach) {
  EXPECT_EQ(a.get("/users/1"), "1 run 1");
  EXPECT_EQ(b.get("/users/1"), "1 run 1");
  EXPECT_EQ(b.get("/users/2"), "2 run 2");
  a.cache->invalidate_tag("user:1");
  EXPECT_EQ(a.applied(), 1u);  // here, and not again when its own copy came back
  EXPECT_EQ(b.applied(), 1u);
  EXPECT_EQ(b.get("/users/1"), "1 run 3");  // the next request on b runs the handler
  EXPECT_EQ(b.get("/users/2"), "2 run 2");  // another tag: untouched
  EXPECT_EQ(a.get("/users/1"), "1 run 2");
  EXPECT_TRUE(hub.snapshot().empty());  // the hub never saw the reserved topic
}

TEST_F(ResponseCacheBus, ARouteGoesByNameAndAllGoesEverywhere) {
  b.get("/users/1");
  b.get("/other");
  a.cache->invalidate_route("users");
  EXPECT_EQ(b.cache->stats().invalidations, 1u);
  EXPECT_EQ(b.get("/users/1"), "1 run 2");
  b.cache->invalidate_all();
  EXPECT_EQ(a.applied(), 2u);
  EXPECT_EQ(b.cache->stats().entries, 0u);
}

TEST_F(ResponseCacheBus, NothingTravelsOnceALinkHasGone) {
  b.get("/users/1");
  b_link.reset();
  a.cache->invalidate_tag("user:1");
  EXPECT_EQ(b.applied(), 0u);
  EXPECT_EQ(b.get("/users/1"), "1 run 1");
  b.cache->invalidate_tag("user:1");  // b is not carried any more: applied at b only
  EXPECT_EQ(a.applied(), 1u);
}

TEST(ResponseCacheBusMessage, CachesOfAnotherNameAreNotTouched) {
  instance a("reports");
  instance b("responses");
  stet::detail::internal_topics topics{std::make_unique<stet::detail::in_process_bus>()};
  stet::detail::cache_bus_link a_link(a.routes, topics);
  stet::detail::cache_bus_link b_link(b.routes, topics);
  topics.start([](const stet::detail::bus_event&) {});
  a_link.attach();
  b_link.attach();
  a.cache->invalidate_all();
  EXPECT_EQ(a.applied(), 1u);
  EXPECT_EQ(b.applied(), 0u);
  topics.stop();
}

TEST(ResponseCacheBusMessage, MessagesRoundTripAndGarbageIsRefused) {
  using stet::detail::decode;
  using stet::detail::encode;
  const std::string bytes = encode({0xfeed'beefULL, "responses", invalidation_log::scope::tag, "user:4 2\nx"});
  const auto m = decode(bytes);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->origin, 0xfeed'beefULL);
  EXPECT_EQ(m->cache, "responses");
  EXPECT_EQ(m->what, invalidation_log::scope::tag);
  EXPECT_EQ(m->value, "user:4 2\nx");
  const auto all = decode(encode({1, "", invalidation_log::scope::all, ""}));
  ASSERT_TRUE(all);
  EXPECT_EQ(all->what, invalidation_log::scope::all);
  EXPECT_TRUE(all->cache.empty());
  for (std::string_view bad : {"", "zz", "00000001 t", "00000001 x 1 ab", "00000001 t 9 ab", "00000001 t -1 ab"}) {
    EXPECT_FALSE(decode(bad)) << bad;
  }
}

}  // namespace
