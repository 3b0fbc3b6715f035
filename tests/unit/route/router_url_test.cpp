#include <stet/router.hpp>

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace {

using stet::method;
using stet::request;
using stet::response;
using stet::router;

// Echoes the bound parameters as "name=value;" so a round trip can be compared.
response echo_params(request& q) {
  std::string out;
  for (const stet::route_param& p : q.params()) {
    out += p.name;
    out += '=';
    out += p.value;
    out += ';';
  }
  return response::text(out);
}

router reverse_routes() {
  router r;
  r.get("/users/{id:int}", {.name = "user"}, echo_params);
  r.get("/users/{id:int}/posts/{slug}", {.name = "post"}, echo_params);
  r.get("/n/{n:uint}", {.name = "unsigned"}, echo_params);
  r.get("/w/{w:alpha}", {.name = "word"}, echo_params);
  r.get("/files/{path*}", {.name = "file"}, echo_params);
  r.get("/", {.name = "home"}, echo_params);
  r.get("/caf%C3%A9/{x}", {.name = "cafe"}, echo_params);
  return r;
}

std::string dispatched(const router& r, const std::string& url) {
  return std::string(r.handle(stet::test_request(method::get, url)).body());
}

TEST(RouterUrl, BuildsPathsThatRouteBackToTheSameValues) {
  const router r = reverse_routes();
  EXPECT_EQ(r.url_for("user", {{"id", 42}}).url, "/users/42");
  EXPECT_EQ(r.url_for("home").url, "/");
  const stet::built_url post = r.url_for("post", {{"id", -7}, {"slug", "hello world/ä?#%"}});
  ASSERT_TRUE(post) << post.error;
  EXPECT_EQ(post.url, "/users/-7/posts/hello%20world%2F%C3%A4%3F%23%25");
  EXPECT_EQ(dispatched(r, post.url), "id=-7;slug=hello world/ä?#%;");

  const stet::built_url big = r.url_for("unsigned", {{"n", std::numeric_limits<std::uint64_t>::max()}});
  EXPECT_EQ(dispatched(r, big.url), "n=18446744073709551615;");
  const stet::built_url min = r.url_for("user", {{"id", std::numeric_limits<std::int64_t>::min()}});
  EXPECT_EQ(dispatched(r, min.url), "id=-9223372036854775808;");

  // A catch-all keeps its slashes; other segments escape theirs.
  const stet::built_url file = r.url_for("file", {{"path", "css/site main.css"}});
  EXPECT_EQ(file.url, "/files/css/site%20main.css");
  EXPECT_EQ(dispatched(r, file.url), "path=css/site main.css;");

  // Literals are stored decoded and encoded again on the way out.
  const stet::built_url cafe = r.url_for("cafe", {{"x", "."}});
  EXPECT_EQ(cafe.url, "/caf%C3%A9/%2E");
  EXPECT_EQ(dispatched(r, cafe.url), "x=.;");
  EXPECT_EQ(dispatched(r, r.url_for("cafe", {{"x", ".."}}).url), "x=..;");

  // String values for typed parameters are accepted when they fit.
  EXPECT_EQ(r.url_for("user", {{"id", "15"}}).url, "/users/15");
}

TEST(RouterUrl, ReportsMisuseAsValues) {
  const router r = reverse_routes();
  EXPECT_EQ(r.url_for("nobody").error, "no route has that name");
  EXPECT_FALSE(r.url_for("user"));
  EXPECT_EQ(r.url_for("user").error, "a parameter of the route has no argument");
  EXPECT_EQ(r.url_for("user", {{"id", 1}, {"extra", 2}}).error, "an argument names no parameter of the route");
  EXPECT_FALSE(r.url_for("user", {{"id", "abc"}}));
  EXPECT_FALSE(r.url_for("user", {{"id", std::numeric_limits<std::uint64_t>::max()}}));
  EXPECT_FALSE(r.url_for("unsigned", {{"n", -1}}));
  EXPECT_FALSE(r.url_for("word", {{"w", "a1"}}));
  EXPECT_FALSE(r.url_for("post", {{"id", 1}, {"slug", ""}}));
}

TEST(RouterUrl, SeesRoutesAddedAfterFreezing) {
  router r = reverse_routes();
  r.freeze();
  EXPECT_FALSE(r.url_for("late"));
  r.get("/late/{x}", {.name = "late"}, echo_params);
  EXPECT_EQ(r.url_for("late", {{"x", "y"}}).url, "/late/y");
}

}  // namespace
