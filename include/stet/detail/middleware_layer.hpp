#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").

#include <stet/request.hpp>
#include <stet/response.hpp>

#include <functional>
#include <optional>
#include <type_traits>

namespace stet::detail {

/// One middleware registration: either hook may be empty. Immutable once
/// added, so frozen tables can point at it from any thread.
struct middleware_layer {
  std::function<std::optional<response>(request&)> before;
  std::function<void(request&, response&)> after;
  /// Also wraps the router's automatic OPTIONS answer on the paths of its
  /// scope's routes (stet::cors answers CORS preflights there).
  bool preflight = false;
};

/// A middleware object that declares `static constexpr bool answers_preflight = true`.
template <class M>
concept preflight_middleware = requires {
  requires std::remove_cvref_t<M>::answers_preflight;
};

}  // namespace stet::detail
