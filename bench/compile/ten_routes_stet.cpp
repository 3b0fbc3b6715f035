// Ten routes of the kinds a small JSON service has (typed path parameters, a
// query argument, a JSON body in and JSON out, a header, a cookie, a raw body,
// 201 and 204 answers), written with stet, for bench/compile/compile_time.sh.
// bench/compile/ten_routes_httplib.cpp is the same service in cpp-httplib.
#include <stet/json.hpp>
#include <stet/run.hpp>
#include <stet/server.hpp>

#include <cstdio>
#include <string>
#include <string_view>

int main() {
  stet::router routes;
  routes.get("/hello", [](stet::request&) { return stet::response::text("hello\n"); });
  routes.get("/users/{id:int}", [](stet::request&, int id) {
    return stet::response::json([id](stet::json::writer& w) {
      w.begin_object().member("id", id).member("name", "user " + std::to_string(id)).end_object();
    });
  });
  routes.get("/users/{id:int}/posts/{post:int}", [](stet::request&, int id, int post) {
    return stet::response::json(
        [&](stet::json::writer& w) { w.begin_object().member("user", id).member("post", post).end_object(); });
  });
  routes.get("/search", [](stet::request& req) {
    const std::string_view q = req.query().get("q").value_or("");
    return stet::response::json([q](stet::json::writer& w) { w.begin_object().member("query", q).end_object(); });
  });
  routes.post("/echo", [](stet::request& req) { return stet::response::text(req.body()); });
  routes.get("/agent", [](stet::request& req) { return stet::response::text(req.header("user-agent").value_or("-")); });
  routes.get("/theme",
             [](stet::request& req) { return stet::response::text(req.cookies().get("theme").value_or("light")); });
  routes.post("/greet", [](stet::request& req) {
    const stet::json_result& body = req.json();
    const stet::json_value* name = body ? body->find("name") : nullptr;
    const std::string_view who = name != nullptr ? name->as_string().value_or("") : "";
    if (who.empty()) return stet::response::text("need {\"name\": \"...\"}\n", stet::status::bad_request);
    return stet::response::json([who](stet::json::writer& w) {
      w.begin_object().member("greeting", "hello " + std::string(who)).end_object();
    });
  });
  routes.put("/items/{name}", [](stet::request&, std::string_view name) {
    return stet::response::text("stored " + std::string(name) + "\n", stet::status::created);
  });
  routes.del("/items/{name}",
             [](stet::request&, std::string_view) { return stet::response(stet::status::no_content); });

  stet::server server(std::move(routes), stet::server_options{});  // 127.0.0.1:8080
  const stet::config_error failed = stet::run_until_signal(server);
  if (failed) std::fprintf(stderr, "ten_routes: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
