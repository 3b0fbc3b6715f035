#pragma once
/// @file
/// Helpers for a server that speaks both schemes: an HSTS header on HTTPS
/// answers, a redirect from plain HTTP to HTTPS, and absolute URLs in the
/// scheme a request came with.

#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/router.hpp>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace stet {

/// What stet::hsts announces (RFC 6797).
struct hsts_options {
  /// How long browsers must use HTTPS only for this host (`max-age`).
  std::chrono::seconds max_age{std::chrono::hours(24 * 365)};
  /// Subdomains too (`includeSubDomains`).
  bool include_subdomains = false;
  /// Ask to be on browsers' preload lists (`preload`; needs a max_age of a
  /// year or more and include_subdomains to be accepted there).
  bool preload = false;
};

/// Middleware: adds `Strict-Transport-Security` to every answer sent over TLS
/// (request::is_secure()); never to plain HTTP answers, which browsers must
/// ignore it on (RFC 6797 8.1). The header value is built once, here.
/// `routes.use(stet::hsts())`.
class hsts {
 public:
  /// @throws std::bad_alloc only.
  explicit hsts(hsts_options options = {});
  /// Adds the header when `req` came over TLS.
  void after(request& req, response& res) const;
  /// The header's value, e.g. "max-age=31536000; includeSubDomains".
  const std::string& value() const noexcept { return value_; }

 private:
  std::string value_;
};

/// Middleware for the plain listener of a server that also serves HTTPS:
/// every request that did not come over TLS is answered with a redirect to
/// the same path and query on `https://HOST[:https_port]` (301 for GET and
/// HEAD, 308, which keeps the method and body, for the others); a request
/// without a Host gets 400. Requests over TLS pass through, so the same
/// router serves both listeners: `routes.use(stet::redirect_to_https(8443))`.
class redirect_to_https {
 public:
  /// `https_port` is left out of the Location when it is 443.
  explicit redirect_to_https(std::uint16_t https_port = 443) noexcept : port_(https_port) {}
  /// The redirect for a plain-HTTP request; nullopt over TLS.
  std::optional<response> before(request& req) const;

 private:
  std::uint16_t port_;
};

/// `path` (a path with an optional query, starting with '/') as an absolute
/// URL on the host `req` was sent to, in the scheme it came with:
/// "https://example.com/a" over TLS, "http://example.com/a" otherwise. The
/// scheme is the connection's own (request::is_secure()); the path alone
/// when the request has no Host.
std::string absolute_url(const request& req, std::string_view path);

/// router::url_for(), made absolute with absolute_url(); the error is url_for()'s.
built_url absolute_url_for(const router& routes, const request& req, std::string_view name,
                           std::initializer_list<url_arg> args = {});

}  // namespace stet
