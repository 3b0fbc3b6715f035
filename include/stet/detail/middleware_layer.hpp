#pragma once
// Internal: not part of stet's API (see STYLE.md, "detail").

#include <stet/request.hpp>
#include <stet/response.hpp>

#include <functional>
#include <optional>

namespace stet::detail {

/// One middleware registration: either hook may be empty. Immutable once
/// added, so frozen tables can point at it from any thread.
struct middleware_layer {
  std::function<std::optional<response>(request&)> before;
  std::function<void(request&, response&)> after;
};

}  // namespace stet::detail
