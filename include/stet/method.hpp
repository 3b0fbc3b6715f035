#pragma once
/// @file
/// Request methods.

#include <cstdint>
#include <optional>
#include <string_view>

namespace stet {

/// The request methods stet routes on. Anything else llhttp accepts (WebDAV,
/// PURGE, ...) is `other`; request::method_name() has its token.
enum class method : std::uint8_t {
  get,
  head,
  post,
  put,
  delete_,
  patch,
  options,
  trace,
  connect,
  other,
};

/// Number of stet::method values, `other` included.
inline constexpr std::size_t method_count = 10;

/// The method token ("GET", "DELETE", ...); "OTHER" for method::other.
std::string_view to_string(method m) noexcept;

/// Parses a method token (case-sensitive, as RFC 9110 says); nullopt when unknown.
std::optional<method> parse_method(std::string_view token) noexcept;

}  // namespace stet
