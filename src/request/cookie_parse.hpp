#pragma once
// The Cookie header scanner shared by parse_cookie_header() and the per-thread
// cookie cache, and the one door to cookie_jar's private constructor.

#include <stet/cookies.hpp>

#include "http/token.hpp"

#include <span>
#include <string_view>

namespace stet::detail {

struct cookie_access {
  static cookie_jar make(std::span<const cookie> all, std::span<const cookie> sorted) noexcept {
    return cookie_jar(all, sorted);
  }
};

/// A received value, quotes already removed: what RFC 6265 calls cookie-octets,
/// widened as browsers and other servers do to SP, ',' and bytes >= 0x80.
constexpr bool is_received_cookie_value(std::string_view value) noexcept {
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == ';') return false;
  }
  return true;
}

/// Calls visit(cookie) for every well-formed pair of `header`, in order; see
/// parse_cookie_header() for what is skipped.
template <typename Visit>
constexpr void for_each_cookie(std::string_view header, Visit&& visit) {
  std::size_t pos = 0;
  while (pos <= header.size()) {
    std::size_t end = header.find(';', pos);
    if (end == std::string_view::npos) end = header.size();
    const std::string_view pair = header.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view name = trim_ows(pair.substr(0, eq));
    std::string_view value = trim_ows(pair.substr(eq + 1));
    if (!is_token(name)) continue;
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
    if (!is_received_cookie_value(value)) continue;
    visit(cookie{name, value});
  }
}

}  // namespace stet::detail
