#include <stet/router.hpp>

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace {

using stet::method;
using stet::request;
using stet::response;
using stet::router;
using stet::status;

response call(const router& r, method m, std::string_view target) { return r.handle(stet::test_request(m, target)); }

// A middleware object with both hooks, logging into a shared trace.
struct tracer {
  std::string name;
  std::vector<std::string>* trace;
  std::optional<response> before(request&) const {
    trace->push_back(name + ".before");
    return std::nullopt;
  }
  void after(request&, response& r) const {
    trace->push_back(name + ".after");
    r.add_header("X-Trace", name);
  }
};

TEST(RouterMiddleware, RunsInOrderAroundTheHandler) {
  std::vector<std::string> trace;
  router r;
  r.use(tracer{"outer", &trace});
  r.use(tracer{"inner", &trace});
  r.get("/x", [&trace](request&) {
    trace.push_back("handler");
    return response::text("x");
  });
  const response out = call(r, method::get, "/x");
  EXPECT_EQ(out.body(), "x");
  EXPECT_EQ(trace, (std::vector<std::string>{"outer.before", "inner.before", "handler", "inner.after", "outer.after"}));
  EXPECT_EQ(out.header_block(), "Content-Type: text/plain; charset=utf-8\r\nX-Trace: inner\r\nX-Trace: outer\r\n");
}

TEST(RouterMiddleware, ABeforeHookShortCircuits) {
  std::vector<std::string> trace;
  bool handler_ran = false;
  router r;
  r.use(tracer{"outer", &trace});
  r.before([&trace](request& q) -> std::optional<response> {
    trace.push_back("auth");
    if (!q.header("authorization")) return response::text("no\n", status::unauthorized);
    return std::nullopt;
  });
  r.use(tracer{"inner", &trace});
  r.get("/secret", [&handler_ran](request&) {
    handler_ran = true;
    return response::text("s");
  });
  const response denied = call(r, method::get, "/secret");
  EXPECT_EQ(denied.status(), status::unauthorized);
  EXPECT_FALSE(handler_ran);
  // Layers outside the one that answered still see the response on its way out.
  EXPECT_EQ(trace, (std::vector<std::string>{"outer.before", "auth", "outer.after"}));

  trace.clear();
  stet::test_request allowed(method::get, "/secret");
  allowed.header("Authorization", "yes");
  EXPECT_EQ(r.handle(allowed).status(), status::ok);
  EXPECT_TRUE(handler_ran);
}

TEST(RouterMiddleware, RouterLayersWrapAutomaticAnswersGroupLayersOnlyTheirRoutes) {
  std::vector<std::string> trace;
  router r;
  r.after([&trace](request&, response& out) { trace.push_back("router:" + std::to_string(to_int(out.status()))); });
  stet::route_group api = r.group("/api");
  api.after([&trace](request&, response& out) { trace.push_back("api:" + std::to_string(to_int(out.status()))); });
  api.get("/users/{id:int}", [](request&, std::int64_t id) { return response::text(std::to_string(id)); });
  r.get("/plain", [](request&) { return response::text("p"); });

  EXPECT_EQ(call(r, method::get, "/api/users/3").body(), "3");
  EXPECT_EQ(call(r, method::get, "/plain").status(), status::ok);
  EXPECT_EQ(call(r, method::get, "/missing").status(), status::not_found);
  EXPECT_EQ(call(r, method::post, "/plain").status(), status::method_not_allowed);
  EXPECT_EQ(trace, (std::vector<std::string>{"api:200", "router:200", "router:200", "router:404", "router:405"}));
}

TEST(RouterMiddleware, HooksSeeBoundParameters) {
  router r;
  r.before([](request& q) -> std::optional<response> {
    if (q.param("id") == "0") return response::text("zero is reserved\n", status::forbidden);
    return std::nullopt;
  });
  r.get("/items/{id:int}", [](request&, std::int64_t) { return response::text("item"); });
  EXPECT_EQ(call(r, method::get, "/items/0").status(), status::forbidden);
  EXPECT_EQ(call(r, method::get, "/items/1").status(), status::ok);
}

TEST(RouterMiddleware, GroupsNestAndMountedRoutersKeepTheirLayers) {
  std::vector<std::string> trace;
  router admin;
  admin.before([&trace](request&) -> std::optional<response> {
    trace.push_back("admin");
    return std::nullopt;
  });
  admin.get("/", {.name = "admin.home"}, [](request&) { return response::text("admin home"); });
  admin.get("/users/{id:int}", {.name = "admin.user"},
            [](request&, std::int64_t id) { return response::text("admin user " + std::to_string(id)); });

  router app;
  app.before([&trace](request&) -> std::optional<response> {
    trace.push_back("app");
    return std::nullopt;
  });
  stet::route_group v1 = app.group("/api").group("/v1");
  v1.before([&trace](request&) -> std::optional<response> {
    trace.push_back("v1");
    return std::nullopt;
  });
  v1.get("/ping", [](request&) { return response::text("pong"); });
  v1.mount("/admin", admin);

  EXPECT_EQ(call(app, method::get, "/api/v1/ping").body(), "pong");
  EXPECT_EQ(trace, (std::vector<std::string>{"app", "v1"}));
  trace.clear();
  EXPECT_EQ(call(app, method::get, "/api/v1/admin").body(), "admin home");
  EXPECT_EQ(call(app, method::get, "/api/v1/admin/users/9").body(), "admin user 9");
  EXPECT_EQ(trace, (std::vector<std::string>{"app", "v1", "admin", "app", "v1", "admin"}));
  EXPECT_EQ(app.url_for("admin.user", {{"id", 9}}).url, "/api/v1/admin/users/9");
  // A snapshot: routes added to the mounted router later stay out.
  admin.get("/later", [](request&) { return response::text("later"); });
  EXPECT_EQ(call(app, method::get, "/api/v1/admin/later").status(), status::not_found);
  // Mounting twice collides on names and routes, all or nothing.
  EXPECT_THROW(app.mount("/api/v1/admin", admin), stet::route_error);
}

// Typed arguments are the route's own parameters; a prefix's are read by name.
TEST(RouterMiddleware, PrefixParametersAreNotHandlerArguments) {
  router users;
  users.get("/{id:int}", [](request& q, std::int64_t id) {
    return response::text(std::string(*q.param("org")) + ":" + std::to_string(id));
  });
  router app;
  stet::route_group org = app.group("/orgs/{org}");
  org.get("/teams/{team:int}", {.name = "team"}, [](request& q, std::int64_t team) {
    return response::text(std::string(*q.param("org")) + "/" + std::to_string(team));
  });
  org.mount("/users", users);
  EXPECT_EQ(call(app, method::get, "/orgs/acme/teams/5").body(), "acme/5");
  EXPECT_EQ(call(app, method::get, "/orgs/acme/users/12").body(), "acme:12");
  EXPECT_EQ(app.url_for("team", {{"org", "acme"}, {"team", 5}}).url, "/orgs/acme/teams/5");
  EXPECT_THROW(org.get("/x/{id}", [](request&, std::string_view, std::string_view) { return response(); }),
               stet::route_error);
  EXPECT_THROW(org.get("/{org}", [](request&) { return response(); }), stet::route_error);  // name used twice
}

TEST(RouterMiddleware, MiddlewareAddedAfterFreezingTakesEffect) {
  router r;
  r.get("/x", [](request&) { return response::text("x"); });
  EXPECT_EQ(call(r, method::get, "/x").status(), status::ok);
  r.before([](request&) -> std::optional<response> { return response(status::service_unavailable); });
  EXPECT_EQ(call(r, method::get, "/x").status(), status::service_unavailable);
}

TEST(RouterMiddleware, AThrowingHookIsA500) {
  router r;
  r.on_error([](std::string_view) {});
  r.after([](request&, response&) { throw std::runtime_error("after failed"); });
  r.get("/x", [](request&) { return response::text("x"); });
  EXPECT_EQ(call(r, method::get, "/x").status(), status::internal_server_error);
}

}  // namespace
