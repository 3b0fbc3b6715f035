#pragma once
// The syntax of a Host value (RFC 9112 3.2) and of a port, shared by the
// request parser, the forwarded-header reader (Forwarded `host=`,
// X-Forwarded-Host) and the PROXY protocol parser.

#include <cstdint>
#include <optional>
#include <string_view>

namespace stet::detail {

/// Host = uri-host [ ":" port ]: a reg-name or IPv4 address, or an IP-literal
/// in brackets; the port is up to five digits. An empty value is valid (an
/// HTTP/1.1 request may send `Host:` with nothing after it).
bool valid_host(std::string_view host) noexcept;

/// A port number as URIs, Forwarded and the PROXY protocol write it: one to
/// five decimal digits, at most 65535; nullopt otherwise.
std::optional<std::uint16_t> parse_port(std::string_view digits) noexcept;

}  // namespace stet::detail
