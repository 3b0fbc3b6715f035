#pragma once
// The router's door into stet::route_params (whose members are private).

#include <stet/route_params.hpp>

#include <stet/detail/route_handler.hpp>

#include <string_view>

namespace stet::detail {

struct route_params_access {
  static constexpr std::uint32_t no_route = UINT32_MAX;

  static void clear(route_params& p) noexcept {
    p.size_ = 0;
    p.pattern_ = {};
    p.route_id_ = no_route;
  }
  static void bind(route_params& p, std::string_view pattern, std::uint32_t route_id, const std::string_view* names,
                   const capture* captured, std::size_t count) noexcept {
    p.pattern_ = pattern;
    p.route_id_ = route_id;
    p.size_ = static_cast<std::uint8_t>(count);
    for (std::size_t i = 0; i < count; ++i) p.items_[i] = route_param{names[i], captured[i].value, captured[i].raw};
  }
  /// The matched route's index in its router, or no_route.
  static std::uint32_t route_id(const route_params& p) noexcept { return p.route_id_; }
};

}  // namespace stet::detail
