#include <stet/router.hpp>

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace {

using stet::method;
using stet::request;
using stet::response;
using stet::route_error;
using stet::router;

response ok(request&) { return response::text("ok"); }

// The message of the route_error that adding `pattern` throws ("" if none).
std::string refusal(router& r, std::string_view pattern, method m = method::get) {
  try {
    r.add(m, pattern, ok);
  } catch (const route_error& e) {
    return e.what();
  }
  return {};
}

TEST(RouterPattern, RefusesBadSyntaxWithAClearMessage) {
  router r;
  EXPECT_EQ(refusal(r, "users"), "stet::router: GET \"users\": a pattern starts with '/'");
  EXPECT_EQ(refusal(r, "/a/{x}/{x}"), "stet::router: GET \"/a/{x}/{x}\": a parameter name is used twice (at \"{x}\")");
  EXPECT_EQ(refusal(r, "/a/{p*}/b"),
            "stet::router: GET \"/a/{p*}/b\": a catch-all {name*} must be the last segment (at \"{p*}\")");
  EXPECT_NE(refusal(r, "/a/{x:float}").find("unknown parameter class"), std::string::npos);
  EXPECT_NE(refusal(r, "/a/x{y}").find("whole segment"), std::string::npos);
  EXPECT_NE(refusal(r, "/a/{y}z").find("whole segment"), std::string::npos);
  EXPECT_NE(refusal(r, "/a//b").find("empty segment"), std::string::npos);
  EXPECT_NE(refusal(r, "/a/{1x}").find("parameter name"), std::string::npos);
  EXPECT_NE(refusal(r, "/a/{}").find("parameter name"), std::string::npos);
  EXPECT_NE(refusal(r, "/a/{p*:int}").find("catch-all"), std::string::npos);
  EXPECT_NE(refusal(r, "/a?b").find("'?'"), std::string::npos);
  EXPECT_NE(refusal(r, "/a%zz").find("percent-escape"), std::string::npos);
  EXPECT_NE(refusal(r, "/a%00").find("%00"), std::string::npos);
  EXPECT_NE(refusal(r, "/x", method::other).find("method::other"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 33; ++i) deep += "/s";
  EXPECT_NE(refusal(r, deep).find("too many segments"), std::string::npos);
  std::string many;
  for (int i = 0; i < 17; ++i) many += "/{p" + std::to_string(i) + "}";
  EXPECT_NE(refusal(r, many).find("too many parameters"), std::string::npos);
}

TEST(RouterPattern, RefusesAmbiguousDuplicates) {
  router r;
  r.get("/users/{id}", ok);
  r.get("/users/{id:int}", ok);  // another class: tried first, not ambiguous
  r.post("/users/{id}", ok);     // another method
  EXPECT_NE(refusal(r, "/users/{name}").find("equivalent route"), std::string::npos);
  EXPECT_NE(refusal(r, "/users/{n:int}").find("equivalent route"), std::string::npos);
  r.get("/files/{p*}", ok);
  EXPECT_NE(refusal(r, "/files/{q*}").find("equivalent route"), std::string::npos);
  r.get("/caf%C3%A9", ok);
  EXPECT_NE(refusal(r, "/café").find("equivalent route"), std::string::npos);
  // A refused route leaves the router as it was.
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/users/x")).status(), stet::status::ok);
}

TEST(RouterPattern, RefusesHandlersThatDoNotFit) {
  router r;
  const auto by_id = [](request&, std::int64_t) { return response(); };
  const auto by_text = [](request&, std::string_view) { return response(); };
  const auto two = [](request&, std::string_view, std::string_view) { return response(); };
  try {
    r.get("/u/{id}", by_id);
    FAIL() << "a string parameter was bound to an integer";
  } catch (const route_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot receive {id}"), std::string::npos) << e.what();
  }
  EXPECT_THROW(r.get("/u/{id:uint}", by_id), route_error);
  EXPECT_THROW(r.get("/u/{a}", two), route_error);
  EXPECT_THROW(r.get("/v", by_text), route_error);
  EXPECT_NO_THROW(r.get("/w/{id:int}", by_text));  // any parameter fits std::string_view
  EXPECT_NO_THROW(r.get("/x/{p*}", by_text));
  EXPECT_NO_THROW(r.get("/y/{a}/{b:int}", [](const request&) { return response(); }));  // plain: any pattern
}

TEST(RouterPattern, RefusesTakenNames) {
  router r;
  r.get("/a", {.name = "home"}, ok);
  EXPECT_THROW(r.get("/b", {.name = "home"}, ok), route_error);
  EXPECT_EQ(r.handle(stet::test_request(method::get, "/b")).status(), stet::status::not_found);
}

TEST(RouterPattern, GroupPrefixesAreChecked) {
  router r;
  EXPECT_THROW(r.group("api"), route_error);
  EXPECT_THROW(r.mount("api", router()), route_error);
  EXPECT_THROW(r.mount("/self", r), route_error);
}

}  // namespace
