#pragma once
// The syntax of a Host value (RFC 9112 3.2), shared by the request parser and
// the forwarded-header reader (Forwarded `host=`, X-Forwarded-Host).

#include <string_view>

namespace stet::detail {

/// Host = uri-host [ ":" port ]: a reg-name or IPv4 address, or an IP-literal
/// in brackets; the port is up to five digits. An empty value is valid (an
/// HTTP/1.1 request may send `Host:` with nothing after it).
bool valid_host(std::string_view host) noexcept;

}  // namespace stet::detail
