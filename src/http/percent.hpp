#pragma once
// Percent-encoding (RFC 3986 section 2.1) of request paths in, and of the
// paths the library builds (url_for, static_url) out.

#include <cstdint>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>

namespace stet::detail {

/// Decodes %XX escapes in `raw`. Returns `raw` itself when it has no '%' (no
/// copy); otherwise a copy decoded into `arena`. nullopt for a malformed escape
/// ("%4", "%zz") and for "%00", which no path may contain.
std::optional<std::string_view> percent_decode_path(std::string_view raw, std::pmr::memory_resource& arena);

/// Whether '/' is copied (a whole path) or escaped as %2F (one segment).
enum class path_slashes : std::uint8_t { escape, keep };

/// Appends `text` to `out` encoded for a URL path: RFC 3986 pchar without '%'
/// (letters, digits and "-._~!$&'()*+,;=:@") is copied, '/' as `slashes` says,
/// every other byte becomes %XX with uppercase hex.
/// @throws std::bad_alloc when `out` cannot grow.
void append_percent_encoded(std::string& out, std::string_view text, path_slashes slashes);

/// The value of a hex digit, or -1.
constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace stet::detail
