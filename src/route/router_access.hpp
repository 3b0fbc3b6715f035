#pragma once
// The library's way into a router handle: the state its copies share (for the
// server's metrics, which report the route table), and the dispatch the
// connection uses.

#include <stet/router.hpp>

#include "route/match.hpp"
#include "route/outcome.hpp"
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
  /// Matches `req` from its head into `into` (no handler runs) and returns
  /// what the route says about the body.
  static body_plan match(const router& routes, const request& req, route_match& into) noexcept;
  static const router_state& state(const router& r) noexcept { return r.scope_.state(); }
  /// router::handle() without the wait: runs the route `m` holds (matching
  /// first if it holds none on the published table) and says what came of it.
  static dispatch_outcome start(const router& routes, request& req, route_match& m);
};

}  // namespace stet::detail
