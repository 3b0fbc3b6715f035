#pragma once
// The library's way from a router handle to the state its copies share (for
// the server's metrics, which report the route table).

#include <stet/router.hpp>

#include "route/state.hpp"

namespace stet::detail {

struct router_access {
  static const router_state& state(const router& r) noexcept { return r.scope_.state(); }
};

}  // namespace stet::detail
