#pragma once
// The syntax of a Host value (RFC 9112 3.2) and of a port, shared by the
// request parser, the forwarded-header reader (Forwarded `host=`,
// X-Forwarded-Host) and the PROXY protocol parser.

#include "http/token.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stet::detail {

/// RFC 3986 unreserved / pct-encoded / sub-delims: the characters of a reg-name.
inline constexpr std::array<bool, 256> reg_name_table = alnum_and("-._~%!$&'()*+,;=");

/// An IP-literal host, `[` ... `]` with an optional port (valid_host()'s rare case).
bool valid_bracketed_host(std::string_view host) noexcept;

/// Host = uri-host [ ":" port ]: a reg-name or IPv4 address, or an IP-literal
/// in brackets; the port is up to five digits. An empty value is valid (an
/// HTTP/1.1 request may send `Host:` with nothing after it). Inline, one pass:
/// every request's Host goes through it.
inline bool valid_host(std::string_view host) noexcept {
  if (!host.empty() && host.front() == '[') return valid_bracketed_host(host);
  const char* p = host.data();
  const char* const end = p + host.size();
  while (p != end && reg_name_table[static_cast<unsigned char>(*p)]) ++p;
  if (p == end) return true;
  if (*p != ':') return false;
  ++p;
  if (end - p > 5) return false;
  for (; p != end; ++p) {
    if (*p < '0' || *p > '9') return false;
  }
  return true;
}

/// A port number as URIs, Forwarded and the PROXY protocol write it: one to
/// five decimal digits, at most 65535; nullopt otherwise.
std::optional<std::uint16_t> parse_port(std::string_view digits) noexcept;

}  // namespace stet::detail
