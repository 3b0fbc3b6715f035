#pragma once
/// @file
/// stet::route_params: the parameters a route pattern bound for one request.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stet {

namespace detail {
struct route_params_access;
}

/// The most parameters one route pattern may declare; add() refuses more.
inline constexpr std::size_t max_route_params = 16;

/// One bound parameter: `{id}` in `/users/{id}` matched against `/users/a%20b`
/// gives name "id", value "a b", raw "a%20b".
struct route_param {
  std::string_view name;   ///< as written in the pattern (the router owns the text)
  std::string_view value;  ///< percent-decoded: a view into the request path, or an arena copy when decoded
  std::string_view raw;    ///< as sent, escapes intact (a catch-all's raw value may contain "%2F")
};

/// The parameters of the route a request was dispatched to, in pattern order.
/// Filled by the router before middleware and the handler run; empty when no
/// route matched. Views stay valid while the request does.
class route_params {
 public:
  /// Number of bound parameters.
  std::size_t size() const noexcept { return size_; }
  /// Whether no parameter was bound.
  bool empty() const noexcept { return size_ == 0; }
  /// The first parameter, in pattern order.
  const route_param* begin() const noexcept { return items_.data(); }
  /// One past the last parameter.
  const route_param* end() const noexcept { return items_.data() + size_; }
  /// Parameter `i` (below size()), in pattern order.
  const route_param& operator[](std::size_t i) const noexcept { return items_[i]; }

  /// The decoded value of the parameter called `name`; nullopt when the route has none.
  std::optional<std::string_view> get(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < size_; ++i) {
      if (items_[i].name == name) return items_[i].value;
    }
    return std::nullopt;
  }
  /// The pattern of the matched route ("/users/{id:int}"); empty when none matched.
  std::string_view pattern() const noexcept { return pattern_; }

 private:
  friend struct detail::route_params_access;

  std::array<route_param, max_route_params> items_{};
  std::uint8_t size_ = 0;
  std::uint32_t route_id_ = UINT32_MAX;  // the matched route's index in its router (per-route metrics)
  std::string_view pattern_;
};

}  // namespace stet
