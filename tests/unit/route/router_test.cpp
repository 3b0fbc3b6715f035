// Test that header file is self-contained.
#include <stet/router.hpp>

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using stet::method;
using stet::request;
using stet::response;
using stet::router;
using stet::status;
using namespace stet::literals;

response call(const router& r, method m, std::string_view target) { return r.handle(stet::test_request(m, target)); }

std::string body_of(const router& r, std::string_view target, method m = method::get) {
  return std::string(call(r, m, target).body());
}

response named(std::string_view what) { return response::text(what); }

TEST(Router, LiteralBeatsParameterBeatsCatchAll) {
  router r;
  r.get("/files/{path*}", [](request& q) { return named("rest:" + std::string(*q.param("path"))); });
  r.get("/files/{name}", [](request& q) { return named("param:" + std::string(*q.param("name"))); });
  r.get("/files/readme", [](request&) { return named("literal"); });
  r.get("/files/{n:int}", [](request&, std::int64_t n) { return named("int:" + std::to_string(n)); });

  EXPECT_EQ(body_of(r, "/files/readme"), "literal");
  EXPECT_EQ(body_of(r, "/files/7"), "int:7");
  EXPECT_EQ(body_of(r, "/files/other"), "param:other");
  EXPECT_EQ(body_of(r, "/files/a/b/c"), "rest:a/b/c");
  EXPECT_EQ(body_of(r, "/files/"), "rest:");
}

TEST(Router, BacktracksToTheNextCandidate) {
  router r;
  r.get("/a/{x}/c", [](request&, std::string_view x) { return named("param-c:" + std::string(x)); });
  r.get("/a/b/d", [](request&) { return named("literal-d"); });
  // The literal branch "b" fails at its next segment; the parameter branch matches.
  EXPECT_EQ(body_of(r, "/a/b/c"), "param-c:b");
  EXPECT_EQ(body_of(r, "/a/b/d"), "literal-d");
}

// Whole literal paths are found by one probe (route_table::exact); the answers
// must be the walk's: a node without the method's route falls through to a
// parameter, an escaped spelling of the literal still reaches it, HEAD takes GET.
TEST(Router, WholeLiteralPathsAnswerAsTheWalkDoes) {
  router r;
  r.post("/users/new", [](request&) { return named("literal-post"); });
  r.get("/users/{name}", [](request&, std::string_view name) { return named("param:" + std::string(name)); });
  r.get("/", [](request&) { return named("root"); });
  for (int i = 0; i < 20; ++i) {
    const std::string path = "/r" + std::to_string(i) + "/x";
    r.get(path, [i](request&) { return named("r" + std::to_string(i)); });
  }

  EXPECT_EQ(body_of(r, "/users/new", method::post), "literal-post");
  EXPECT_EQ(body_of(r, "/users/new"), "param:new");
  EXPECT_EQ(body_of(r, "/users/ne%77", method::post), "literal-post");
  EXPECT_EQ(call(r, method::head, "/users/new").status(), status::ok);
  EXPECT_EQ(call(r, method::put, "/users/new").status(), status::method_not_allowed);
  EXPECT_EQ(body_of(r, "/"), "root");
  for (int i = 0; i < 20; ++i) EXPECT_EQ(body_of(r, "/r" + std::to_string(i) + "/x"), "r" + std::to_string(i));
  EXPECT_EQ(call(r, method::get, "/r1/x/").status(), status::moved_permanently);
  EXPECT_EQ(call(r, method::get, "/r1").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/r1/x?q=1").status(), status::ok);
}

TEST(Router, TypedParametersConvertOnceAndRejectOverflow) {
  router r;
  r.get("/users/{id:int}/posts/{slug}", [](request&, std::int64_t id, std::string_view slug) {
    return named(std::to_string(id) + "/" + std::string(slug));
  });
  r.get("/u/{n:uint}", [](request&, std::uint64_t n) { return named(std::to_string(n)); });
  r.get("/alpha/{a:alpha}", [](request&, std::string_view a) { return named(a); });
  r.get("/alnum/{a:alnum}", [](request&, std::string_view a) { return named(a); });

  EXPECT_EQ(body_of(r, "/users/42/posts/hello"), "42/hello");
  EXPECT_EQ(body_of(r, "/users/-9223372036854775808/posts/x"), "-9223372036854775808/x");
  EXPECT_EQ(body_of(r, "/users/9223372036854775807/posts/x"), "9223372036854775807/x");
  EXPECT_EQ(call(r, method::get, "/users/9223372036854775808/posts/x").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/users/-9223372036854775809/posts/x").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/users/abc/posts/x").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/users/+1/posts/x").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/users/-/posts/x").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/u/18446744073709551615"), "18446744073709551615");
  EXPECT_EQ(call(r, method::get, "/u/18446744073709551616").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/u/-1").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/alpha/abcXYZ"), "abcXYZ");
  EXPECT_EQ(call(r, method::get, "/alpha/ab1").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/alnum/ab1"), "ab1");
  EXPECT_EQ(call(r, method::get, "/alnum/a-b").status(), status::not_found);
}

TEST(Router, NarrowIntegerParametersTakeOnlyTheirRange) {
  router r;
  r.get("/i/{id:int}"_route, [](request&, int id) { return named("int:" + std::to_string(id)); });
  r.get("/s/{id:int}", [](request&, const std::int8_t& id) { return named("int8:" + std::to_string(id)); });
  r.get("/u/{n:uint}", [](request&, unsigned short n) { return named("ushort:" + std::to_string(n)); });
  r.get("/u8/{n:uint}/{rest*}", [](request&, std::uint8_t n, std::string_view) { return named(std::to_string(n)); });
  // A narrow route does not hide a wider fallback: out of range is no match, and the next candidate is tried.
  r.get("/w/{id:int}", [](request&, short id) { return named("short:" + std::to_string(id)); });
  r.get("/w/{name}", [](request&, std::string_view name) { return named("name:" + std::string(name)); });
  // Under a group the handler's own parameters follow the prefix's, which it does not take.
  r.group("/g/{a:int}").get("/{b:int}", [](request&, std::int8_t b) { return named("group:" + std::to_string(b)); });

  EXPECT_EQ(body_of(r, "/i/2147483647"), "int:2147483647");
  EXPECT_EQ(body_of(r, "/i/-2147483648"), "int:-2147483648");
  EXPECT_EQ(call(r, method::get, "/i/2147483648").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/i/-2147483649").status(), status::not_found);
  EXPECT_EQ(call(r, method::head, "/i/2147483648").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/s/-128"), "int8:-128");
  EXPECT_EQ(body_of(r, "/s/127"), "int8:127");
  EXPECT_EQ(call(r, method::get, "/s/128").status(), status::not_found);
  EXPECT_EQ(call(r, method::get, "/s/-129").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/u/65535"), "ushort:65535");
  EXPECT_EQ(call(r, method::get, "/u/65536").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/u8/255/x"), "255");
  EXPECT_EQ(call(r, method::get, "/u8/256/x").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/w/32767"), "short:32767");
  EXPECT_EQ(body_of(r, "/w/32768"), "name:32768");
  EXPECT_EQ(body_of(r, "/g/100000/-5"), "group:-5");
  EXPECT_EQ(call(r, method::get, "/g/1/300").status(), status::not_found);
}

TEST(Router, CompileTimePatternsWork) {
  router r;
  r.get("/users/{id:int}"_route, [](request&, std::int64_t id) { return named(std::to_string(id)); });
  EXPECT_EQ(body_of(r, "/users/5"), "5");
  // A mismatch is a static_assert in add(); the check it uses:
  using by_id = response (*)(request&, std::int64_t);
  using by_uint = response (*)(request&, std::uint64_t);
  constexpr auto id_pattern = decltype("/x/{id:int}"_route)::shape;
  constexpr auto two_params = decltype("/x/{id:int}/{b}"_route)::shape;
  static_assert(stet::detail::handler_fits(stet::detail::handler_arg_kinds<by_id>(), false, id_pattern));
  static_assert(!stet::detail::handler_fits(stet::detail::handler_arg_kinds<by_uint>(), false, id_pattern));
  static_assert(!stet::detail::handler_fits(stet::detail::handler_arg_kinds<by_id>(), false, two_params));
}

TEST(Router, ParametersAreDecodedPerSegment) {
  router r;
  r.get("/files/{name}/meta", [](request& q) {
    const stet::route_param& p = q.params()[0];
    return named(std::string(p.value) + "|" + std::string(p.raw) + "|" + std::string(q.params().pattern()));
  });
  r.get("/caf%C3%A9", [](request&) { return named("cafe"); });
  // %2F stays inside its segment: it never splits the path.
  EXPECT_EQ(body_of(r, "/files/a%2Fb/meta"), "a/b|a%2Fb|/files/{name}/meta");
  EXPECT_EQ(body_of(r, "/files/a%20b/meta"), "a b|a%20b|/files/{name}/meta");
  EXPECT_EQ(body_of(r, "/caf%c3%a9"), "cafe");
}

TEST(Router, CatchAllKeepsRawAndDecodedRemainder) {
  router r;
  r.get("/static/{path*}",
        [](request& q) { return named(std::string(q.params()[0].value) + "|" + std::string(q.params()[0].raw)); });
  EXPECT_EQ(body_of(r, "/static/css/a%20b.css"), "css/a b.css|css/a%20b.css");
  EXPECT_EQ(call(r, method::get, "/static").status(), status::not_found);
}

TEST(Router, DeepPathsOnlyReachACatchAll) {
  router r;
  r.get("/a/{x}", [](request&) { return named("shallow"); });
  r.get("/d/{rest*}", [](request& q) { return named(*q.param("rest")); });
  EXPECT_EQ(call(r, method::get, "/a/b/c/d/e").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/d/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/26/27/28/29/30/31/32/33"),
            "1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/26/27/28/29/30/31/32/33");
}

TEST(Router, RootAndEmptyRouter) {
  router empty;
  EXPECT_EQ(call(empty, method::get, "/").status(), status::not_found);
  router r;
  r.get("/", [](request&) { return named("root"); });
  EXPECT_EQ(body_of(r, "/"), "root");
  EXPECT_EQ(call(r, method::get, "/x").status(), status::not_found);
}

TEST(Router, NotFoundAndMethodNotAllowedWithAllow) {
  router r;
  r.get("/items/{id:int}", [](request&) { return named("get"); });
  r.del("/items/{id:int}", [](request&) { return named("del"); });
  r.post("/items/new", [](request&) { return named("post-new"); });

  const response missing = call(r, method::get, "/nothing");
  EXPECT_EQ(missing.status(), status::not_found);
  EXPECT_FALSE(missing.header("Allow"));

  const response wrong = call(r, method::put, "/items/3");
  EXPECT_EQ(wrong.status(), status::method_not_allowed);
  EXPECT_EQ(wrong.header("Allow"), "GET, HEAD, DELETE, OPTIONS");

  // Allow is the union over every route the path matches.
  EXPECT_EQ(call(r, method::put, "/items/new").status(), status::method_not_allowed);
  const response post_only = call(r, method::get, "/items/new");
  EXPECT_EQ(post_only.status(), status::method_not_allowed);
  EXPECT_EQ(post_only.header("Allow"), "POST, OPTIONS");
  // A POST to a literal whose GET is elsewhere still finds its route.
  EXPECT_EQ(body_of(r, "/items/new", method::post), "post-new");
}

TEST(Router, HeadIsAnsweredByGetUnlessRoutedItself) {
  router r;
  r.get("/a", [](request& q) { return named(q.method() == method::head ? "get-handler-saw-head" : "get"); });
  r.get("/b", [](request&) { return named("get"); });
  r.add(method::head, "/b", [](request&) { return named("head"); });
  const response a = call(r, method::head, "/a");
  EXPECT_EQ(a.status(), status::ok);
  EXPECT_EQ(a.body(), "get-handler-saw-head");
  EXPECT_EQ(body_of(r, "/b", method::head), "head");
}

TEST(Router, OptionsIsAnsweredWithAllow) {
  router r;
  r.get("/a", [](request&) { return named("get"); });
  r.post("/a", [](request&) { return named("post"); });
  r.add(method::options, "/custom", [](request&) { return named("custom options"); });
  const response o = call(r, method::options, "/a");
  EXPECT_EQ(o.status(), status::no_content);
  EXPECT_EQ(o.header("Allow"), "GET, HEAD, POST, OPTIONS");
  EXPECT_EQ(body_of(r, "/custom", method::options), "custom options");
  EXPECT_EQ(call(r, method::options, "/nope").status(), status::not_found);
  const response star = call(r, method::options, "*");
  EXPECT_EQ(star.status(), status::no_content);
  EXPECT_EQ(star.header("Allow"), "GET, HEAD, POST, OPTIONS");
}

TEST(Router, TrailingSlashRedirectKeepsTheQuery) {
  router r;
  r.get("/docs", [](request&) { return named("docs"); });
  r.post("/form", [](request&) { return named("form"); });
  r.get("/dir/", [](request&) { return named("dir"); });

  const response slash = call(r, method::get, "/docs/?a=1&b=2");
  EXPECT_EQ(slash.status(), status::moved_permanently);
  EXPECT_EQ(slash.header("Location"), "/docs?a=1&b=2");
  // Method-preserving redirect for a POST.
  const response post = call(r, method::post, "/form/");
  EXPECT_EQ(post.status(), status::permanent_redirect);
  EXPECT_EQ(post.header("Location"), "/form");
  // The other direction is off by default.
  EXPECT_EQ(call(r, method::get, "/dir").status(), status::not_found);
  EXPECT_EQ(body_of(r, "/dir/"), "dir");
  // Root never redirects; an escaped path keeps its escapes.
  EXPECT_EQ(call(r, method::get, "/").status(), status::not_found);
}

TEST(Router, TrailingSlashDirectionIsConfigurable) {
  router r(stet::router_options{.redirect_trailing_slash = false, .redirect_missing_slash = true});
  r.get("/docs", [](request&) { return named("docs"); });
  r.get("/dir/", [](request&) { return named("dir"); });
  EXPECT_EQ(call(r, method::get, "/docs/").status(), status::not_found);
  const response add = call(r, method::get, "/dir?x=%20");
  EXPECT_EQ(add.status(), status::moved_permanently);
  EXPECT_EQ(add.header("Location"), "/dir/?x=%20");
}

TEST(Router, FindPredictsWithoutRunning) {
  int runs = 0;
  router r;
  r.post("/upload", [&runs](request&) {
    ++runs;
    return named("ok");
  });
  EXPECT_TRUE(r.find(stet::test_request(method::post, "/upload")).routed());
  EXPECT_EQ(r.find(stet::test_request(method::get, "/upload")).status, status::method_not_allowed);
  EXPECT_EQ(r.find(stet::test_request(method::post, "/nope")).status, status::not_found);
  EXPECT_EQ(r.find(stet::test_request(method::post, "/upload/")).status, status::permanent_redirect);
  EXPECT_EQ(runs, 0);
}

TEST(Router, ParamsAreResetBetweenRequestsOnTheSameObject) {
  router r;
  r.get("/u/{id}", [](request&) { return named("u"); });
  stet::test_request q(method::get, "/u/7");
  r.handle(q);
  EXPECT_EQ(q.get().param("id"), "7");
  stet::test_request miss(method::get, "/x");
  r.handle(miss);
  EXPECT_TRUE(miss.get().params().empty());
}

TEST(Router, HandlerExceptionsBecome500AndAreReported) {
  std::string reported;
  router r;
  r.on_error([&reported](std::string_view what) { reported = what; });
  r.get("/boom", [](request&) -> response { throw std::runtime_error("kaput"); });
  EXPECT_EQ(call(r, method::get, "/boom").status(), status::internal_server_error);
  EXPECT_EQ(reported, "kaput");
}

TEST(Router, TestRequestCarriesHeadersBodyAndQuery) {
  router r;
  r.post("/echo", [](request& q) {
    return named(std::string(q.query_string()) + "|" + std::string(q.header("x-a").value_or("")) + "|" +
                 std::string(q.body()) + "|" + std::string(q.host()));
  });
  stet::test_request q(method::post, "/echo?k=v");
  q.header("Host", "example.org").header("X-A", "1").body("payload");
  EXPECT_EQ(r.handle(q).body(), "k=v|1|payload|example.org");
  EXPECT_THROW(stet::test_request(method::get, "nope"), std::invalid_argument);
  EXPECT_THROW(stet::test_request(method::get, "/bad%zz"), std::invalid_argument);
}

}  // namespace
