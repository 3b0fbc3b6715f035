#pragma once
// The client behind trusted proxies: its address, scheme and host, read from
// Forwarded (RFC 7239) or X-Forwarded-For/-Proto/-Host only when the peer is
// a trusted proxy. Pure functions over a request's header fields: nothing is
// copied to the heap, the results are views into the header values (or, for
// an address, a small buffer inside the result).

#include "request/proxy_trust.hpp"

#include <stet/endpoint.hpp>
#include <stet/headers.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace stet::detail {

/// Which fields the client's address, scheme and host were taken from.
enum class origin_source : std::uint8_t {
  peer,         ///< the connection itself: the peer is not trusted, sent no forwarded fields, or sent garbage
  forwarded,    ///< Forwarded (RFC 7239)
  x_forwarded,  ///< X-Forwarded-For / -Proto / -Host
};

/// What resolve_client_origin() reads: the request as the connection sees it.
struct origin_input {
  std::span<const header_field> fields;  ///< the request's fields in arrival order
  stet::endpoint peer;                   ///< the socket's peer (or the PROXY protocol source)
  std::string_view scheme;               ///< the connection's scheme: "http" or "https"
  std::string_view host;                 ///< the Host field (or the absolute-form authority)
};

/// The client as the trusted proxies describe it, or the peer itself.
/// Copyable; views point into the input's header values (or its `host`), or
/// into this object for the address text.
class client_origin {
 public:
  /// The client's address with the port a proxy gave (0 if none); family none
  /// when a trusted proxy hid it (`for=unknown`, `for=_hidden`, no `for`).
  const stet::endpoint& address() const noexcept { return address_; }
  /// The address as text: canonical for an IP ("2001:db8::1", no brackets or
  /// port), the identifier as sent for a hidden client ("_hidden", "unknown").
  std::string_view address_text() const noexcept {
    return hidden_.empty() ? std::string_view(text_.data(), text_length_) : hidden_;
  }
  /// "http" or "https" (whatever the case sent), or another URI scheme as sent.
  std::string_view scheme() const noexcept { return scheme_; }
  /// The host the client asked for (uri-host [":" port]).
  std::string_view host() const noexcept { return host_; }
  origin_source source() const noexcept { return source_; }

 private:
  friend client_origin resolve_client_origin(const origin_input&, const proxy_trust&) noexcept;
  void set_address(const stet::endpoint& address) noexcept;

  stet::endpoint address_;
  std::array<char, stet::endpoint::max_text> text_{};
  std::uint8_t text_length_ = 0;
  std::string_view hidden_;
  std::string_view scheme_;
  std::string_view host_;
  origin_source source_ = origin_source::peer;
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
