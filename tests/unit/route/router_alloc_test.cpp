#include <stet/router.hpp>

#include <stet/test_request.hpp>

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using stet::method;
using stet::request;
using stet::response;
using stet::router;
using stet::status;

router rest_routes() {
  router r;
  for (int i = 0; i < 30; ++i) {
    const std::string base = "/api/resource" + std::to_string(i);
    r.get(base, [](request&) { return response(status::ok); });
    r.get(base + "/{id:int}", [](request&, std::int64_t) { return response(status::ok); });
    r.put(base + "/{id:int}", [](request&, std::int64_t) { return response(status::ok); });
    r.get(base + "/{id:int}/children/{slug}",
          [](request&, std::int64_t, std::string_view) { return response(status::ok); });
  }
  r.get("/static/{path*}", [](request&) { return response(status::ok); });
  r.get("/text/{name}", [](request& q) { return response::text(*q.param("name")); });
  return r;
}

// Dispatch allocates nothing: no heap for the walk, the parameter binding, the
// argument conversion, or the table (already frozen). Bodies built by handlers
// come from the pooled buffers once warm.
TEST(RouterAlloc, DispatchAllocatesNothing) {
  const router r = rest_routes();
  stet::test_request hit(method::get, "/api/resource17/123456/children/some-slug");
  stet::test_request put(method::put, "/api/resource3/9");
  stet::test_request rest(method::get, "/static/css/a%20b/site.css");
  stet::test_request text(method::get, "/text/hello");
  stet::test_request missing(method::get, "/api/nothing/here");
  stet::test_request wrong(method::delete_, "/api/resource3/9");
  stet::test_request slash(method::get, "/api/resource3/");
  const auto run_all = [&] {
    EXPECT_EQ(r.handle(hit).status(), status::ok);
    EXPECT_EQ(r.handle(put).status(), status::ok);
    EXPECT_EQ(r.handle(rest).status(), status::ok);
    EXPECT_EQ(r.handle(text).body(), "hello");
    EXPECT_EQ(r.handle(missing).status(), status::not_found);
    EXPECT_EQ(r.handle(wrong).status(), status::method_not_allowed);
    EXPECT_EQ(r.handle(slash).status(), status::moved_permanently);
    EXPECT_TRUE(r.find(hit).routed());
    // As the connection does after each response: the arena holds decoded
    // segments and the redirect's Location, never the heap.
    for (stet::test_request* q : {&hit, &put, &rest, &text, &missing, &wrong, &slash}) q->reset_arena();
  };
  run_all();  // freezes the table, registers the thread, warms the response pools

  const stet::test::allocation_scope scope;
  for (int i = 0; i < 100; ++i) run_all();
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(hit.get().param("slug"), "some-slug");
}

// The handler's C++ signature is read once, at add(): a typed handler costs no
// more per call than a plain one.
TEST(RouterAlloc, TypedArgumentsNeedNoAllocation) {
  std::int64_t seen = 0;
  router r;
  r.get("/n/{id:int}/{s}", [&seen](request&, std::int64_t id, std::string_view s) {
    seen = id + static_cast<std::int64_t>(s.size());
    return response();
  });
  stet::test_request q(method::get, "/n/40/ab");
  r.handle(q);
  const stet::test::allocation_scope scope;
  for (int i = 0; i < 100; ++i) r.handle(q);
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(seen, 42);
}

}  // namespace
