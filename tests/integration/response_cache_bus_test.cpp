// Response cache invalidations across instances: two servers on one real
// redis-server (started here on 127.0.0.1, stopped by its PID), each with its
// own cache and router. An invalidation made on A is applied on A before it
// returns, reaches B through Redis (the next request on B runs the handler),
// and is not applied on A a second time when its own copy comes back. The
// reserved topic it travels on is no user's to publish on.
#include <stet/response_cache.hpp>

#include "cache/cached_route.hpp"
#include "support/expectations.hpp"
#include "support/http_client.hpp"
#include "support/redis_server.hpp"
#include "support/test_server.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace {

using namespace std::chrono_literals;
using namespace stet::test;

// One instance: /users/{id} cached and tagged user:{id}, on the Redis bus.
struct instance {
  explicit instance(const redis_server& redis) {
    stet::cache_policy p;
    p.ttl = 60s;
    p.tags = [](const stet::request& req, const stet::response&, std::vector<std::string>& tags) {
      tags.push_back("user:" + std::string(req.params().get("id").value_or("")));
    };
    users = cache->route("users", p);
    stet::router routes;
    routes.get("/users/{id}", users, [this](stet::request&, std::string_view id) {
      return stet::response::text(std::string(id) + " run " + std::to_string(++runs));
    });
    stet::server_options o = test_options();
    o.pubsub = redis.url();
    server = std::make_unique<running_server>(std::move(routes), o);
  }
  std::string get(std::string_view target) {
    raw_client c(server->port());
    const std::optional<http_response> r = c.request("GET", target);
    return r ? r->body : "(no answer)";
  }
  // Invalidations applied to this cache so far (its log's epoch).
  std::uint64_t applied() const { return users.cache->store().table.log().now(); }

  std::atomic<int> runs{0};
  std::shared_ptr<stet::response_cache> cache = std::make_shared<stet::response_cache>();
  stet::route_options users;
  std::unique_ptr<running_server> server;
};

// Subscribing is asynchronous: `from` invalidates a probe tag until `to` has
// applied one, so what follows is known to reach `to`.
void await_carried(instance& from, instance& to) {
  const std::uint64_t before = to.applied();
  ASSERT_TRUE(eventually(
      [&] {
        from.cache->invalidate_tag("probe");
        return to.applied() > before;
      },
      5s))
      << "invalidations never arrived";
  // The probes still under way arrive: wait until the count stands still.
  for (std::uint64_t seen = 0; seen != to.applied();) {
    seen = to.applied();
    std::this_thread::sleep_for(100ms);
  }
}

TEST(ResponseCacheRedis, AnInvalidationOnOneInstanceReachesTheOther) {
  redis_server redis;
  ASSERT_TRUE(redis.start()) << "redis-server could not be started (is it installed?)";
  instance a(redis);
  instance b(redis);
  await_carried(a, b);
  await_carried(b, a);

  EXPECT_EQ(a.get("/users/1"), "1 run 1");
  EXPECT_EQ(b.get("/users/1"), "1 run 1");
  EXPECT_EQ(b.get("/users/1"), "1 run 1");  // cached
  const std::uint64_t a_before = a.applied();
  const std::uint64_t b_before = b.applied();

  a.cache->invalidate_tag("user:1");
  EXPECT_EQ(a.get("/users/1"), "1 run 2");  // applied on A before invalidate_tag() returned
  ASSERT_TRUE(eventually([&] { return b.applied() == b_before + 1; }, 5s));
  EXPECT_EQ(b.get("/users/1"), "1 run 2");  // the next request on B runs the handler

  // B's marker follows A's own copy on the channel: once A has it, A's copy
  // came back too, and was skipped (applied once, its new entry kept).
  b.cache->invalidate_tag("marker");
  ASSERT_TRUE(eventually([&] { return a.applied() == a_before + 2; }, 5s));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(a.applied(), a_before + 2);
  EXPECT_EQ(a.get("/users/1"), "1 run 2");
  EXPECT_EQ(b.applied(), b_before + 2);

  // Users' topics cannot reach the reserved one.
  EXPECT_FALSE(a.server->get().publish("stet:internal:response-cache", "0000000000000001 a 9 responses"));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(b.applied(), b_before + 2);
}

}  // namespace
