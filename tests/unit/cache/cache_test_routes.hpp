#pragma once
// A router with one cached route whose handler counts its runs, for the
// response cache's unit tests (dispatched in-process with router::handle()).

#include <stet/response_cache.hpp>
#include <stet/router.hpp>
#include <stet/test_request.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace stet::test {

struct cached_app {
  explicit cached_app(cache_policy policy = {}, response_cache_options options = {})
      : cache(std::make_shared<response_cache>(std::move(options))) {
    routes.get("/r/{id}", cache->route("r", std::move(policy)), [this](request& req, std::string_view id) {
      const int n = runs.fetch_add(1) + 1;
      response r =
          response::text(std::string(id) + " run " + std::to_string(n) + " q=" + std::string(req.query_string()));
      return r;
    });
  }
  response get(std::string_view target, std::initializer_list<std::pair<std::string_view, std::string_view>> h = {},
               method m = method::get) {
    test_request q(m, target);
    for (const auto& [name, value] : h) q.header(name, value);
    return routes.handle(q);
  }

  std::shared_ptr<response_cache> cache;
  router routes;
  std::atomic<int> runs{0};
};

}  // namespace stet::test
