#pragma once
/// @file
/// stet::cors: Cross-Origin Resource Sharing for the routes of a scope,
/// preflights included.

#include <stet/method.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet {

namespace detail {
struct cors_policy;
}

/// What a CORS policy lets pages on other origins do (the Fetch standard's
/// CORS protocol). Checked once, when a stet::cors is built.
struct cors_options {
  /// Origins whose pages may read the answers. Each entry is an exact origin
  /// (`"https://app.example.com"`, `"http://127.0.0.1:8080"`: scheme, host and
  /// the port when it is not the default; no path, no trailing '/'), a
  /// subdomain pattern (`"https://*.example.com"`: one or more labels before
  /// `.example.com`, same scheme and port; it does not match
  /// `https://example.com` itself), `"null"` (sandboxed and file pages), or
  /// `"*"`: any origin. With `credentials`, `"*"` echoes the request's
  /// origin instead, which lets every site read credentialed answers: list
  /// the origins instead unless that is really meant. Compared ASCII
  /// case-insensitively. Empty: no origin is allowed.
  std::vector<std::string> origins{};
  /// Methods a preflight may ask for (`Access-Control-Allow-Methods`).
  /// GET, HEAD and POST need no preflight; a browser never asks for them.
  std::vector<stet::method> methods{stet::method::get, stet::method::head, stet::method::post};
  /// Request headers a page may send beyond the CORS-safelisted ones
  /// (`Access-Control-Allow-Headers`), e.g. `"Content-Type"` for a JSON body.
  /// `{"*"}` allows any (echoed from the preflight when `credentials`).
  std::vector<std::string> allow_headers{};
  /// Response headers a page may read beyond the safelisted ones
  /// (`Access-Control-Expose-Headers`). `"*"` (any) is refused with `credentials`.
  std::vector<std::string> expose_headers{};
  /// Whether pages may send cookies and HTTP authentication and read the
  /// answer (`Access-Control-Allow-Credentials: true`). The allowed origin is
  /// then always echoed, never `*`.
  bool credentials = false;
  /// How long a browser may reuse a preflight's answer (`Access-Control-Max-Age`);
  /// nullopt sends none (browsers then keep it 5 s).
  std::optional<std::chrono::seconds> max_age{};
};

/// Why `origin` is not a valid entry of cors_options::origins; empty when it is.
/// The returned text is static.
std::string_view cors_origin_error(std::string_view origin) noexcept;

/// CORS middleware for the routes of the scope it is added to
/// (`routes.group("/api").use(stet::cors(options))`, or `routes.use(...)` for
/// every route). On those routes:
///
/// - every answer gets `Vary: Origin` (its CORS headers depend on the Origin,
///   so a cache must not hand one origin's answer to another);
/// - an answer to a request whose Origin is allowed gets
///   `Access-Control-Allow-Origin` (the origin, or `*` when any origin is
///   allowed without credentials), `Access-Control-Allow-Credentials: true`
///   when `credentials`, and `Access-Control-Expose-Headers`; a refused origin
///   gets none of them (the browser then hides the answer from the page; the
///   request itself is still handled);
/// - a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
///   is answered here, before any inner layer or handler, with 204: with the
///   `Access-Control-Allow-*` headers and `Access-Control-Max-Age` when the
///   origin, the method and every requested header are allowed, without them
///   otherwise. It takes over from the router's automatic OPTIONS on these
///   paths; other OPTIONS requests still get the automatic 204 with `Allow`.
///
/// Everything that can be derived from the options (the origin table, the
/// header values) is derived once, here; a request costs a lookup of its
/// Origin and a few appended fields. Copies share the policy.
class cors {
 public:
  /// Tells the router to run this layer on the automatic OPTIONS answers of
  /// its scope's paths (see routing_api::use()).
  static constexpr bool answers_preflight = true;

  /// @throws std::invalid_argument naming the entry when an origin is not
  /// valid (see cors_origin_error()), a header name is not a token, a method
  /// is method::other, or `"*"` is exposed together with credentials.
  explicit cors(const cors_options& options);

  /// Answers a preflight; nullopt for every other request.
  std::optional<response> before(request& req) const;
  /// Adds `Vary: Origin` and, for an allowed origin, the CORS headers.
  void after(request& req, response& res) const;

  /// Whether `origin` (an Origin header's value) may read answers.
  bool allows_origin(std::string_view origin) const noexcept;

 private:
  std::shared_ptr<const detail::cors_policy> policy_;
};

}  // namespace stet
