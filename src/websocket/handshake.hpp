#pragma once
// The server side of RFC 6455 4.2: whether an upgrade request is one, the
// Sec-WebSocket-Accept answer, subprotocol choice, an Origin check, and the
// 101 head. Pure functions over the request's header fields; nothing here
// allocates or touches a socket.

#include <stet/headers.hpp>
#include <stet/method.hpp>
#include <stet/status.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace stet::detail::ws {

/// Why an upgrade request is refused, each with the status to answer.
enum class handshake_error : std::uint8_t {
  none,
  not_get,              ///< 400 (a WebSocket route is a GET route: the router answers 405 first)
  not_http11,           ///< 400: HTTP/1.0 has no Upgrade
  no_upgrade,           ///< 426: no "websocket" in Upgrade or no "upgrade" in Connection
  unsupported_version,  ///< 426: Sec-WebSocket-Version missing or not 13
  bad_key,              ///< 400: Sec-WebSocket-Key missing, repeated, or not the base64 of 16 bytes
  origin_refused,       ///< 403: Origin not among the allowed ones (check_origin)
};

/// The status that answers `e` (101 for none). A 426 must carry the fields of
/// upgrade_required_fields.
stet::status handshake_status(handshake_error e) noexcept;

/// The fields a 426 answer carries (RFC 9110 15.5.22 requires Upgrade; RFC
/// 6455 4.4 names the versions the server speaks), as name/value pairs.
inline constexpr std::array<header_field, 2> upgrade_required_fields = {
    {{"Upgrade", "websocket"}, {"Sec-WebSocket-Version", "13"}}};

/// The outcome of check_upgrade_request().
struct upgrade_check {
  handshake_error error = handshake_error::none;
  std::string_view key;  ///< Sec-WebSocket-Key (a view into the request) when ok()

  bool ok() const noexcept { return error == handshake_error::none; }
  stet::status status() const noexcept { return handshake_status(error); }
};

/// Checks a request against RFC 6455 4.2.1: GET, HTTP/1.1, Upgrade listing
/// "websocket" and Connection listing "upgrade" (tokens case-insensitive, in
/// lists, repeated fields joined), Sec-WebSocket-Version 13, and exactly one
/// Sec-WebSocket-Key that is the canonical base64 of 16 bytes. `fields` are the
/// request's header fields (request::header_fields()); the Origin check is
/// separate (check_origin). Errors are reported in the order above.
upgrade_check check_upgrade_request(stet::method method, unsigned version,
                                    std::span<const header_field> fields) noexcept;

/// Sec-WebSocket-Accept: base64(SHA-1(key + the RFC 6455 GUID)), 28 characters.
inline constexpr std::size_t accept_key_size = 28;
using accept_key = std::array<char, accept_key_size>;

/// The answer to `key` (the Sec-WebSocket-Key value as sent), computed on the
/// stack: no allocation.
accept_key make_accept_key(std::string_view key) noexcept;

/// The subprotocol to answer with: the first in the client's
/// Sec-WebSocket-Protocol list (its order of preference, RFC 6455 4.1) that is
/// also in `supported` (compared exactly: subprotocol names are
/// case-sensitive). Empty when the client named none the server supports; the
/// answer then carries no Sec-WebSocket-Protocol. The view is into `supported`.
std::string_view select_subprotocol(std::span<const header_field> fields,
                                    std::span<const std::string_view> supported) noexcept;

/// Whether the request's Origin is acceptable: always when `allowed` is empty;
/// otherwise when the request has no Origin (not a browser: Origin guards
/// browsers against cross-site use) unless `require_origin`, or when its Origin
/// equals one of `allowed` ("https://example.com", ASCII case-insensitive; a
/// literal "null" only if listed). Refused: handshake_error::origin_refused.
handshake_error check_origin(std::span<const header_field> fields, std::span<const std::string_view> allowed,
                             bool require_origin = false) noexcept;

/// The size of the 101 head write_switching_protocols() writes.
constexpr std::size_t switching_protocols_size(std::string_view protocol = {},
                                               std::string_view extensions = {}) noexcept {
  constexpr std::size_t base = 129;  // status line, Upgrade, Connection, Accept, the empty line
  return base + (protocol.empty() ? 0 : 26 + protocol.size()) + (extensions.empty() ? 0 : 28 + extensions.size());
}

/// Writes the 101 answer's head ("HTTP/1.1 101 Switching Protocols", Upgrade,
/// Connection, Sec-WebSocket-Accept, then Sec-WebSocket-Protocol and
/// Sec-WebSocket-Extensions when not empty, and the empty line) into `out`.
/// Returns the bytes written (switching_protocols_size()), or 0 when `out` is
/// too small or a value is not a valid field value.
std::size_t write_switching_protocols(std::span<char> out, const accept_key& accept, std::string_view protocol = {},
                                      std::string_view extensions = {}) noexcept;

}  // namespace stet::detail::ws
