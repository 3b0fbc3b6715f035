#pragma once
// The library's own way into a response: fields whose names and values are
// constants stet wrote itself skip the checks a handler's fields go through,
// and an asynchronous handler's answer slot travels in it until it is answered.

#include <stet/response.hpp>

#include <memory>
#include <string_view>
#include <utility>

namespace stet::detail {

class pending_response;
struct websocket_upgrade;

struct response_access {
  /// Appends "name: value" as it is. Only for values known valid at compile
  /// time or validated once when they were rendered.
  static void append_trusted_field(response& r, std::string_view name, std::string_view value) {
    r.append_field(name, value);
  }

  /// Appends serialised fields ("Name: value\r\n" each) as they are: a block
  /// stored by a cache after its fields were validated once.
  static void append_trusted_block(response& r, std::string_view block) { r.fields_.writable().append(block); }

  /// Marks `r` as answered by a cache (its route's handler did not run for it),
  /// so the route's handler-time histogram does not count it.
  static void mark_from_cache(response& r) noexcept { r.from_cache_ = true; }
  static bool from_cache(const response& r) noexcept { return r.from_cache_; }

  /// A response that only says "the answer is pending in `state`".
  static response make_pending(std::shared_ptr<pending_response> state) {
    response r;
    r.pending_ = std::move(state);
    return r;
  }
  static pending_response* pending(const response& r) noexcept { return r.pending_.get(); }
  static std::shared_ptr<pending_response> take_pending(response& r) noexcept { return std::move(r.pending_); }

  /// The WebSocket session a 101 starts (see src/websocket/upgrade.hpp).
  static void set_upgrade(response& r, std::shared_ptr<websocket_upgrade> up) noexcept { r.upgrade_ = std::move(up); }
  static bool upgrades(const response& r) noexcept { return r.upgrade_ != nullptr; }
  static std::shared_ptr<websocket_upgrade> take_upgrade(response& r) noexcept { return std::move(r.upgrade_); }
};

}  // namespace stet::detail
