#pragma once
// Percent-decoding of request paths (RFC 3986 section 2.1).

#include <memory_resource>
#include <optional>
#include <string_view>

namespace stet::detail {

/// Decodes %XX escapes in `raw`. Returns `raw` itself when it has no '%' (no
/// copy); otherwise a copy decoded into `arena`. nullopt for a malformed escape
/// ("%4", "%zz") and for "%00", which no path may contain.
std::optional<std::string_view> percent_decode_path(std::string_view raw, std::pmr::memory_resource& arena);

/// The value of a hex digit, or -1.
constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace stet::detail
