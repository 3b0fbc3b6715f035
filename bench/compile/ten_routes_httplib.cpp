// The service of bench/compile/ten_routes_stet.cpp in cpp-httplib, JSON with
// nlohmann/json (cpp-httplib has none; nlohmann-json3-dev), for
// bench/compile/compile_time.sh.
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {
// cpp-httplib has no cookie accessor: the value of one Cookie pair.
std::string cookie(const httplib::Request& req, const std::string& name) {
  const std::string header = req.get_header_value("Cookie");
  const std::string key = name + "=";
  for (std::size_t at = 0; at < header.size();) {
    while (at < header.size() && (header[at] == ' ' || header[at] == ';')) ++at;
    const std::size_t end = std::min(header.find(';', at), header.size());
    if (header.compare(at, key.size(), key) == 0) return header.substr(at + key.size(), end - at - key.size());
    at = end;
  }
  return {};
}
}  // namespace

int main() {
  using httplib::Request;
  using httplib::Response;
  using nlohmann::json;
  httplib::Server server;
  server.Get("/hello", [](const Request&, Response& res) { res.set_content("hello\n", "text/plain"); });
  server.Get(R"(/users/(\d+))", [](const Request& req, Response& res) {
    const int id = std::stoi(req.matches[1]);
    res.set_content(json{{"id", id}, {"name", "user " + std::to_string(id)}}.dump(), "application/json");
  });
  server.Get(R"(/users/(\d+)/posts/(\d+))", [](const Request& req, Response& res) {
    res.set_content(json{{"user", std::stoi(req.matches[1])}, {"post", std::stoi(req.matches[2])}}.dump(),
                    "application/json");
  });
  server.Get("/search", [](const Request& req, Response& res) {
    res.set_content(json{{"query", req.get_param_value("q")}}.dump(), "application/json");
  });
  server.Post("/echo", [](const Request& req, Response& res) { res.set_content(req.body, "text/plain"); });
  server.Get("/agent", [](const Request& req, Response& res) {
    res.set_content(req.has_header("User-Agent") ? req.get_header_value("User-Agent") : "-", "text/plain");
  });
  server.Get("/theme", [](const Request& req, Response& res) {
    const std::string theme = cookie(req, "theme");
    res.set_content(theme.empty() ? "light" : theme, "text/plain");
  });
  server.Post("/greet", [](const Request& req, Response& res) {
    const json body = json::parse(req.body, nullptr, false);
    const std::string who = body.is_object() && body.value("name", json()).is_string() ? body["name"] : "";
    if (who.empty()) {
      res.status = 400;
      res.set_content("need {\"name\": \"...\"}\n", "text/plain");
      return;
    }
    res.set_content(json{{"greeting", "hello " + who}}.dump(), "application/json");
  });
  server.Put(R"(/items/([^/]+))", [](const Request& req, Response& res) {
    res.status = 201;
    res.set_content("stored " + std::string(req.matches[1]) + "\n", "text/plain");
  });
  server.Delete(R"(/items/([^/]+))", [](const Request&, Response& res) { res.status = 204; });
  return server.listen("127.0.0.1", 8080) ? 0 : 1;
}
