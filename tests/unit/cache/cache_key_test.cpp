// What a response cache's key is made of: the route, the path, the query (all
// or only the named arguments), the listed request headers; and which requests
// never use it (Authorization, Cookie unless keyed; methods other than GET/HEAD).
#include <stet/response_cache.hpp>

#include "unit/cache/cache_test_routes.hpp"

#include <gtest/gtest.h>

namespace {

using stet::cache_policy;
using stet::method;
using stet::test::cached_app;

TEST(ResponseCacheKey, SamePathAndQueryIsAHit) {
  cached_app app;
  EXPECT_EQ(app.get("/r/a?x=1").body(), "a run 1 q=x=1");
  EXPECT_EQ(app.get("/r/a?x=1").body(), "a run 1 q=x=1");
  EXPECT_EQ(app.runs, 1);
  EXPECT_EQ(app.cache->stats().hits, 1u);
  EXPECT_EQ(app.cache->stats().misses, 1u);
}

TEST(ResponseCacheKey, PathAndWholeQuerySeparateEntries) {
  cached_app app;
  app.get("/r/a?x=1");
  EXPECT_EQ(app.get("/r/b?x=1").body(), "b run 2 q=x=1");
  EXPECT_EQ(app.get("/r/a?x=2").body(), "a run 3 q=x=2");
  EXPECT_EQ(app.get("/r/a").body(), "a run 4 q=");
  EXPECT_EQ(app.runs, 4);
}

TEST(ResponseCacheKey, OnlyTheNamedQueryArgumentsCount) {
  cache_policy p;
  p.query_args = {"page", "size"};
  cached_app app(p);
  app.get("/r/a?page=2&size=10&utm=x");
  // Order and other arguments do not matter; the named ones do.
  EXPECT_EQ(app.get("/r/a?utm=y&size=10&page=2").body(), "a run 1 q=page=2&size=10&utm=x");
  EXPECT_EQ(app.get("/r/a?page=3&size=10").body(), "a run 2 q=page=3&size=10");
  // An absent argument and an empty one are different keys.
  app.get("/r/a?page=&size=10");
  app.get("/r/a?size=10");
  EXPECT_EQ(app.runs, 4);
}

TEST(ResponseCacheKey, IgnoredQuery) {
  cache_policy p;
  p.ignore_query = true;
  cached_app app(p);
  app.get("/r/a?x=1");
  EXPECT_EQ(app.get("/r/a?x=2").body(), "a run 1 q=x=1");
}

TEST(ResponseCacheKey, VaryHeadersSeparateEntriesAndAreNamed) {
  cache_policy p;
  p.vary = {"Accept-Language"};
  cached_app app(p);
  const stet::response en = app.get("/r/a", {{"Accept-Language", "en"}});
  EXPECT_EQ(en.header("Vary"), "Accept-Language");
  EXPECT_EQ(app.get("/r/a", {{"accept-language", "en"}}).body(), en.body());
  EXPECT_NE(app.get("/r/a", {{"Accept-Language", "fr"}}).body(), en.body());
  EXPECT_NE(app.get("/r/a").body(), en.body());  // absent is a key of its own
  EXPECT_EQ(app.runs, 3);
}

TEST(ResponseCacheKey, AuthorizationAndCookieBypassUnlessKeyed) {
  cached_app app;
  app.get("/r/a");
  EXPECT_EQ(app.get("/r/a", {{"Authorization", "Bearer x"}}).body(), "a run 2 q=");
  EXPECT_EQ(app.get("/r/a", {{"Cookie", "s=1"}}).body(), "a run 3 q=");
  EXPECT_EQ(app.cache->stats().bypasses, 2u);

  cache_policy p;
  p.vary = {"Cookie"};
  cached_app keyed(p);
  keyed.get("/r/a", {{"Cookie", "s=1"}});
  EXPECT_EQ(keyed.get("/r/a", {{"Cookie", "s=1"}}).body(), "a run 1 q=");
  EXPECT_EQ(keyed.get("/r/a", {{"Cookie", "s=2"}}).body(), "a run 2 q=");
}

TEST(ResponseCacheKey, HeadSharesTheEntryAndNeverRunsTheHandlerOnAHit) {
  cached_app app;
  app.get("/r/a");
  const stet::response head = app.get("/r/a", {}, method::head);
  EXPECT_EQ(app.runs, 1);
  EXPECT_EQ(head.body(), "a run 1 q=");  // the connection drops it; Content-Length stays
  // And a HEAD miss stores what a GET then finds.
  app.get("/r/b", {}, method::head);
  EXPECT_EQ(app.get("/r/b").body(), "b run 2 q=");
  EXPECT_EQ(app.runs, 2);
}

// The route is part of the key: two routers serving the same path through one
// cache keep separate entries.
TEST(ResponseCacheKey, TwoRoutesOfOneCacheNeverShareEntries) {
  auto cache = std::make_shared<stet::response_cache>();
  stet::router one;
  stet::router two;
  one.get("/x", cache->route("one", {}), [](stet::request&) { return stet::response::text("one"); });
  two.get("/x", cache->route("two", {}), [](stet::request&) { return stet::response::text("two"); });
  stet::test_request q(method::get, "/x");
  EXPECT_EQ(one.handle(q).body(), "one");
  stet::test_request again(method::get, "/x");
  EXPECT_EQ(two.handle(again).body(), "two");
  EXPECT_EQ(cache->stats().entries, 2u);
}

}  // namespace
