// json_api: typed routes, JSON bodies in, JSON out, errors as JSON.
// Run: json_api [PORT]. Try:
//   curl -d '{"title":"write docs"}' -H 'Content-Type: application/json' localhost:8080/todos
//   curl localhost:8080/todos/1
#include <stet/stet.hpp>

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

namespace {

// The store every worker thread shares: a mutex is enough for an example.
class todo_store {
 public:
  std::int64_t add(std::string title) {
    const std::lock_guard lock(mutex_);
    todos_.emplace(next_, std::move(title));
    return next_++;
  }
  std::optional<std::string> find(std::int64_t id) const {
    const std::lock_guard lock(mutex_);
    const auto it = todos_.find(id);
    return it == todos_.end() ? std::nullopt : std::optional(it->second);
  }
  bool remove(std::int64_t id) {
    const std::lock_guard lock(mutex_);
    return todos_.erase(id) == 1;
  }
  std::map<std::int64_t, std::string> all() const {
    const std::lock_guard lock(mutex_);
    return todos_;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::int64_t, std::string> todos_;
  std::int64_t next_ = 1;
};

stet::response todo_json(std::int64_t id, std::string_view title, stet::status s = stet::status::ok) {
  return stet::response::json(
      [&](stet::json::writer& w) { w.begin_object().member("id", id).member("title", title).end_object(); }, s);
}

stet::response not_found(std::int64_t id) {
  return stet::response::json(
      [id](stet::json::writer& w) { w.begin_object().member("error", "no such todo").member("id", id).end_object(); },
      stet::status::not_found);
}

}  // namespace

int main(int argc, char** argv) {
  auto store = std::make_shared<todo_store>();
  stet::router routes;
  routes.get("/todos", [store](stet::request&) {
    return stet::response::json([todos = store->all()](stet::json::writer& w) {
      w.begin_array();
      for (const auto& [id, title] : todos) w.begin_object().member("id", id).member("title", title).end_object();
      w.end_array();
    });
  });
  // {id:int} only matches integers: /todos/abc is a 404 before any handler runs.
  routes.get("/todos/{id:int}", [store](stet::request&, std::int64_t id) {
    const std::optional<std::string> title = store->find(id);
    return title ? todo_json(id, *title) : not_found(id);
  });
  routes.post("/todos", [store](stet::request& req) {
    const stet::json_result& body = req.json();  // 400 invalid JSON, 413 too big, 415 not JSON
    if (!body) return stet::response::json_error(body.error(), body.detail());
    const stet::json_value* title = body->find("title");
    if (title == nullptr || !title->as_string() || title->as_string()->empty()) {
      return stet::response::json_error(make_error_code(stet::error::bad_request), "need {\"title\": \"...\"}");
    }
    const std::string text(*title->as_string());
    return todo_json(store->add(text), text, stet::status::created);
  });
  routes.del("/todos/{id:int}", [store](stet::request&, std::int64_t id) {
    return store->remove(id) ? stet::response(stet::status::no_content) : not_found(id);
  });

  stet::server_options options;
  options.listeners = {{.address = std::string("127.0.0.1:") + (argc > 1 ? argv[1] : "8080")}};
  stet::server server(std::move(routes), options);
  const stet::config_error failed = stet::run_until_signal(server);  // SIGINT or SIGTERM: a graceful stop
  if (failed) std::fprintf(stderr, "json_api: %s\n", failed.message().c_str());
  return failed ? 1 : 0;
}
