#pragma once
// The PROXY protocol (HAProxy's proxy-protocol.txt, versions 1 and 2): the
// header a layer-4 balancer puts before a connection's first byte to say whom
// it accepted the connection from. A pure parser over the bytes received so
// far: no socket, no state, no allocation.

#include <stet/endpoint.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stet::detail {

/// The longest version 1 header, CRLF included (the specification's limit).
inline constexpr std::size_t proxy_v1_max_bytes = 107;
/// The default limit on a version 2 header, TLVs included: room for every
/// TLV HAProxy sends (ALPN, authority, SSL details, unique id) many times over.
inline constexpr std::size_t proxy_default_max_bytes = 4096;

/// What parse_proxy_header() found at the start of a connection.
struct proxy_header {
  enum class status : std::uint8_t {
    need_more,  ///< a valid header so far, not complete: read more and call again
    done,       ///< a complete header of `consumed` bytes; the request starts after it
    invalid,    ///< not a PROXY protocol header (see `reason`): close the connection
  };
  status what = status::need_more;
  std::uint8_t version = 0;  ///< 1 or 2 once the first byte has told
  std::size_t consumed = 0;  ///< done: the header's length, exactly
  /// done: the balancer gave no addresses (v2 LOCAL, a v2 UNSPEC family, v1
  /// UNKNOWN); keep the socket's own peer.
  bool local = false;
  stet::endpoint source;       ///< done and !local: the client (a unix_socket() for AF_UNIX)
  stet::endpoint destination;  ///< done and !local: where the client connected to
  std::string_view reason;     ///< invalid: why, as static text
};

/// Parses the PROXY protocol header at the start of `received`, which holds
/// every byte of the connection so far (however they were cut into reads).
/// Call again with the grown buffer after need_more; the answer does not
/// depend on where the bytes were cut. Bytes that cannot start a header (the
/// "PROXY " prefix, the v2 signature, version, command and family bytes) are
/// refused at the first wrong byte, a v1 line at its CRLF or at
/// proxy_v1_max_bytes, a v2 header longer than `max_bytes` (16 + its length
/// field) once its length is known. TLVs are checked for framing, then
/// skipped. Never allocates, never reads past `received`.
proxy_header parse_proxy_header(std::string_view received, std::size_t max_bytes = proxy_default_max_bytes) noexcept;

}  // namespace stet::detail
