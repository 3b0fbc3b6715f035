#pragma once
// The library's way into a router handle: the state its copies share (for the
// server's metrics, which report the route table), and the dispatch the
// connection uses.

#include <stet/router.hpp>

#include "route/state.hpp"

namespace stet::detail {

/// What the route a request's head matches says about its body, decided
/// before the body is read.
struct body_plan {
  bool routed = false;               ///< a route (not 404/405/OPTIONS/redirect) takes the request
  bool stream = false;               ///< route_options::stream_body
  std::uint64_t max_body_bytes = 0;  ///< route_options::max_body_bytes (0: the server's)
};

struct router_access {
  /// The body plan of the route `req`'s head matches (a lookup, no handler run).
  static body_plan plan_body(const router& routes, const request& req) noexcept;
  static const router_state& state(const router& r) noexcept { return r.scope_.state(); }
  /// router::handle() without the wait: an asynchronous handler's answer may
  /// be left pending (response_access::pending()).
  static response start(const router& routes, request& req);
};

}  // namespace stet::detail
