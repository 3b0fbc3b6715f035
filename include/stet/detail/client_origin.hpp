#pragma once
// The client behind trusted proxies as stet::request keeps it: a small value
// type held in the request itself (no allocation), resolved on first use by
// resolve_client_origin() (src/request/forwarded.hpp).

#include <stet/endpoint.hpp>

#include <array>
#include <cstdint>
#include <string_view>

namespace stet::detail {

struct origin_input;
class proxy_trust;

/// Which fields the client's address, scheme and host were taken from.
enum class origin_source : std::uint8_t {
  peer,         ///< the connection itself: the peer is not trusted, sent no forwarded fields, or sent garbage
  forwarded,    ///< Forwarded (RFC 7239)
  x_forwarded,  ///< X-Forwarded-For / -Proto / -Host
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

}  // namespace stet::detail
