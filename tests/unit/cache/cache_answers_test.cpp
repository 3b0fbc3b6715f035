// What a response cache answers from an entry (strong ETag, Age, 304, 206,
// compressed variants made once and decodable by the reference decoders),
// and what it never stores.
#include <stet/response_cache.hpp>

#include "support/codecs.hpp"
#include "unit/cache/cache_test_routes.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using stet::cache_policy;
using stet::content_coding;
using stet::method;
using stet::request;
using stet::response;
using stet::status;

struct answers_app {
  explicit answers_app(cache_policy p = {}, stet::response_cache_options o = {})
      : cache(std::make_shared<stet::response_cache>(std::move(o))) {
    routes.get("/doc", cache->route("doc", p), [this](request&) {
      ++runs;
      return response::json_text(body);
    });
  }
  response get(std::initializer_list<std::pair<std::string_view, std::string_view>> h = {}, method m = method::get,
               std::string_view target = "/doc") {
    stet::test_request q(m, target);
    for (const auto& [name, value] : h) q.header(name, value);
    return routes.handle(q);
  }

  std::string body = stet::test::compressible_text(20'000);
  std::shared_ptr<stet::response_cache> cache;
  stet::router routes;
  int runs = 0;
};

TEST(ResponseCacheAnswers, StrongEtagComputedOnceAndAgeOnHits) {
  answers_app app;
  const response first = app.get();
  const std::optional<std::string_view> etag = first.header("ETag");
  ASSERT_TRUE(etag);
  EXPECT_EQ(etag->size(), 34u);  // 32 hex digits in quotes
  EXPECT_FALSE(etag->starts_with("W/"));
  EXPECT_EQ(first.header("Age"), "0");
  const response hit = app.get();
  EXPECT_EQ(hit.header("ETag"), etag);
  EXPECT_EQ(hit.header("Age"), "0");
  EXPECT_EQ(hit.body(), app.body);
  EXPECT_EQ(hit.header("Content-Type"), "application/json");
  // Another body is another tag.
  answers_app other;
  other.body += "x";
  EXPECT_NE(other.get().header("ETag"), etag);
}

TEST(ResponseCacheAnswers, IfNoneMatchIs304WithoutTheHandler) {
  answers_app app;
  const std::string etag(*app.get().header("ETag"));
  const response r = app.get({{"If-None-Match", etag}});
  EXPECT_EQ(r.status(), status::not_modified);
  EXPECT_TRUE(r.body().empty());
  EXPECT_EQ(r.header("ETag"), etag);
  EXPECT_EQ(app.get({{"If-None-Match", "\"other\""}}).status(), status::ok);
  EXPECT_EQ(app.runs, 1);
}

TEST(ResponseCacheAnswers, RangeIs206FromTheStoredBytes) {
  answers_app app;
  app.get();
  const response r = app.get({{"Range", "bytes=100-199"}});
  EXPECT_EQ(r.status(), status::partial_content);
  EXPECT_EQ(r.body(), app.body.substr(100, 100));
  EXPECT_EQ(r.header("Content-Range"), "bytes 100-199/20000");
  EXPECT_EQ(app.get({{"Range", "bytes=30000-"}}).status(), status::range_not_satisfiable);
  const response head = app.get({}, method::head);
  EXPECT_EQ(head.status(), status::ok);
  EXPECT_EQ(app.runs, 1);
}

stet::response_cache_options compressing() {
  stet::response_cache_options o;
  o.compression.enabled = true;
  return o;
}

TEST(ResponseCacheAnswers, VariantsAreMadeOncePerCodingAndDecode) {
  answers_app app({}, compressing());
  EXPECT_FALSE(app.get().header("Content-Encoding"));  // no Accept-Encoding: identity
  for (const auto& [name, coding] : {std::pair{"gzip", content_coding::gzip}, std::pair{"br", content_coding::br},
                                     std::pair{"zstd", content_coding::zstd}}) {
    for (int i = 0; i < 3; ++i) {
      const response r = app.get({{"Accept-Encoding", name}});
      ASSERT_EQ(r.header("Content-Encoding"), name);
      EXPECT_EQ(r.header("Vary"), "Accept-Encoding");
      EXPECT_FALSE(r.compression_allowed());  // the connection must not code it again
      EXPECT_EQ(stet::test::reference_decode(coding, r.body()), app.body) << name;
      EXPECT_EQ(*r.header("ETag"), std::string(r.header("ETag")->substr(0, 33)) + "-" + name + "\"");
    }
  }
  const stet::response_cache_stats s = app.cache->stats();
  EXPECT_EQ(s.variants_made, 3u);
  EXPECT_EQ(s.variant_hits, 6u);
  EXPECT_EQ(app.runs, 1);
  EXPECT_GT(s.bytes, app.body.size());  // the variants are charged too
  // A Range stays on the identity bytes.
  EXPECT_FALSE(app.get({{"Accept-Encoding", "gzip"}, {"Range", "bytes=0-9"}}).header("Content-Encoding"));
}

TEST(ResponseCacheAnswers, A404IsStoredAndA500IsNot) {
  auto cache = std::make_shared<stet::response_cache>();
  stet::router routes;
  int runs = 0;
  routes.get("/s/{code:int}", cache->route("s", {}), [&runs](request&, int code) {
    ++runs;
    return response::text("x", static_cast<status>(code));
  });
  for (int i = 0; i < 2; ++i) {
    for (const char* t : {"/s/404", "/s/500", "/s/302"}) {
      stet::test_request q(method::get, t);
      routes.handle(q);
    }
  }
  EXPECT_EQ(runs, 5);  // 404 once; 500 and 302 twice each
  EXPECT_EQ(cache->stats().not_stored, 4u);
}

// Each answer that is someone's own, or said not to be kept, runs every time.
TEST(ResponseCacheAnswers, NeverStored) {
  auto cache = std::make_shared<stet::response_cache>();
  stet::router routes;
  int runs = 0;
  cache_policy small;
  small.max_entry_bytes = 10;
  const auto add = [&](const char* path, auto make, cache_policy p = {}) {
    routes.get(path, cache->route(path, p), [&runs, make](request&) {
      ++runs;
      return make();
    });
  };
  add("/cookie", [] {
    response r = response::text("x");
    (void)r.set_cookie("s", "1");
    return r;
  });
  add("/private", [] { return response::text("x").with_header("Cache-Control", "private, max-age=60"); });
  add("/no-store", [] { return response::text("x").with_header("Cache-Control", "no-store"); });
  add(
      "/big", [] { return response::text("more than ten bytes"); }, small);
  for (int i = 0; i < 2; ++i) {
    for (const char* t : {"/cookie", "/private", "/no-store", "/big"}) {
      stet::test_request q(method::get, t);
      EXPECT_EQ(routes.handle(q).status(), status::ok);
    }
  }
  EXPECT_EQ(runs, 8);
  EXPECT_EQ(cache->stats().entries, 0u);
  EXPECT_EQ(cache->stats().hits, 0u);
}

}  // namespace
