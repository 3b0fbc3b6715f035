#pragma once
/// @file stet::router: method + exact path -> handler. Frozen once the server starts.

#include <stet/method.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace stet {

/// A request handler: ordinary callable taking the request, returning the response.
using handler = std::function<response(request&)>;

/// Maps (method, path) to handlers. Paths are matched exactly against the
/// decoded request path. GET routes also answer HEAD (the writer drops the body);
/// OPTIONS is answered with Allow unless a route handles it; a known path with
/// another method gets 405 with Allow; an unknown path gets 404.
class router {
 public:
  router() = default;

  /// Adds a route; a later add() for the same method and path replaces the earlier one.
  router& add(stet::method m, std::string_view path, handler h);
  router& get(std::string_view path, handler h) { return add(stet::method::get, path, std::move(h)); }
  router& post(std::string_view path, handler h) { return add(stet::method::post, path, std::move(h)); }
  router& put(std::string_view path, handler h) { return add(stet::method::put, path, std::move(h)); }
  router& patch(std::string_view path, handler h) { return add(stet::method::patch, path, std::move(h)); }
  router& del(std::string_view path, handler h) { return add(stet::method::delete_, path, std::move(h)); }

  /// What a request would be routed to, without calling anything.
  struct match {
    const handler* target = nullptr;                ///< null: see `status`
    stet::status status = stet::status::not_found;  ///< ok, not_found or method_not_allowed
    std::string_view allow;                         ///< the Allow value for the path (empty when not found)
  };
  match find(stet::method m, std::string_view path) const noexcept;

  /// Routes and runs `req` in-process: 404/405/OPTIONS answered here; a handler
  /// that throws gets a 500 (the exception is reported through `on_error`).
  response handle(request& req) const;

  /// Called with the exception text when a handler throws; default writes to stderr.
  void on_error(std::function<void(std::string_view)> report) { report_ = std::move(report); }

 private:
  struct path_entry {
    std::array<handler, method_count> by_method{};
    std::string allow;  // precomputed Allow value
  };
  struct path_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, path_entry, path_hash, std::equal_to<>> paths_;
  std::function<void(std::string_view)> report_;
};

}  // namespace stet
