#pragma once
// The library's way into a router handle: the state its copies share (for the
// server's metrics, which report the route table), and the dispatch the
// connection uses.

#include <stet/router.hpp>

#include "route/state.hpp"

namespace stet::detail {

struct router_access {
  static const router_state& state(const router& r) noexcept { return r.scope_.state(); }
  /// router::handle() without the wait: an asynchronous handler's answer may
  /// be left pending (response_access::pending()).
  static response start(const router& routes, request& req);
};

}  // namespace stet::detail
