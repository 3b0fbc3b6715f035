// A hit allocates nothing: the key is built in a reused per-thread buffer, the
// lookup compares views, the answer's fields come from the pooled buffers and
// its body is the entry's shared bytes (or a variant already made).
#include <stet/response_cache.hpp>

#include "support/alloc_counter.hpp"
#include "support/codecs.hpp"
#include "unit/cache/cache_test_routes.hpp"

#include <gtest/gtest.h>

namespace {

using stet::method;
using stet::request;
using stet::response;

TEST(ResponseCacheAlloc, AHitAllocatesNothing) {
  stet::response_cache_options o;
  o.compression.enabled = true;
  auto cache = std::make_shared<stet::response_cache>(o);
  stet::router routes;
  stet::cache_policy p;
  p.query_args = {"page"};
  p.vary = {"Accept-Language"};
  int runs = 0;
  routes.get("/report/{id:int}", cache->route("report", p), [&runs](request&, std::int64_t) {
    ++runs;
    return response::json_text(stet::test::compressible_text(8000));
  });
  stet::test_request plain(method::get, "/report/7?page=2&x=1");
  plain.header("Accept-Language", "en");
  stet::test_request gzip(method::get, "/report/7?page=2");
  gzip.header("Accept-Language", "en").header("Accept-Encoding", "gzip, br");
  stet::test_request head(method::head, "/report/7?page=2");
  head.header("Accept-Language", "en");
  const auto run_all = [&] {
    EXPECT_EQ(routes.handle(plain).status(), stet::status::ok);
    EXPECT_EQ(routes.handle(gzip).header("Content-Encoding"), "br");
    EXPECT_EQ(routes.handle(head).status(), stet::status::ok);
    for (stet::test_request* q : {&plain, &gzip, &head}) q->reset_arena();
  };
  run_all();  // the miss, the variant, the pools warmed
  run_all();
  const stet::test::allocation_scope scope;
  for (int i = 0; i < 100; ++i) run_all();
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(runs, 1);
}

}  // namespace
