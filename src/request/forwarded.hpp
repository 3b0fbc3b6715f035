#pragma once
// The client behind trusted proxies: its address, scheme and host, read from
// Forwarded (RFC 7239) or X-Forwarded-For/-Proto/-Host only when the peer is
// a trusted proxy. Pure functions over a request's header fields: nothing is
// copied to the heap, the results are views into the header values (or, for
// an address, a small buffer inside the result).

#include "request/proxy_trust.hpp"

#include <stet/detail/client_origin.hpp>
#include <stet/endpoint.hpp>
#include <stet/headers.hpp>

#include <span>
#include <string_view>

namespace stet::detail {

/// What resolve_client_origin() reads: the request as the connection sees it.
struct origin_input {
  std::span<const header_field> fields;  ///< the request's fields in arrival order
  stet::endpoint peer;                   ///< the socket's peer (or the PROXY protocol source)
  std::string_view scheme;               ///< the connection's scheme: "http" or "https"
  std::string_view host;                 ///< the Host field (or the absolute-form authority)
};

/// The client's address, scheme and host for one request (RFC 7239 section 5.2
/// and 8.1). Unless `trust` trusts the peer: the peer, the connection's scheme
/// and `host`. If it does: from Forwarded when the request has one, else from
/// X-Forwarded-For / -Proto / -Host. The chain (every field in arrival order,
/// then the peer) is walked from the right: the client is the right-most
/// address that is not itself trusted (all trusted: the left-most); a hidden
/// identifier counts as untrusted. The scheme and host come from the same
/// Forwarded element, or the X-Forwarded-Proto / -Host entry as far from the
/// right as that address (the left-most if the list is shorter); when absent
/// or invalid, the connection's. Never trusts garbage: a Forwarded field that
/// does not parse, or a chosen X-Forwarded-For entry that is no address, gives
/// the peer. Never allocates, never throws.
client_origin resolve_client_origin(const origin_input& in, const proxy_trust& trust) noexcept;

}  // namespace stet::detail
