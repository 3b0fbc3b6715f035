#pragma once
/// @file
/// stet::router: route patterns and typed handlers compiled once at add(),
/// dispatched through a frozen segment trie that never scans and never allocates.

#include <stet/detail/route_pattern.hpp>
#include <stet/detail/route_scope.hpp>
#include <stet/method.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/routing.hpp>
#include <stet/routing_api.hpp>
#include <stet/status.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace stet {

class router;
class route_group;

namespace detail {
struct router_access;
}  // namespace detail

/// A route pattern checked at compile time: `"/users/{id:int}"_route` (see
/// stet::literals). An invalid pattern does not compile, and add() checks the
/// handler's parameters against it with a static_assert instead of at run time.
template <detail::fixed_string S>
struct static_route {
  /// The pattern's parameters, as add() checks the handler against them.
  static constexpr detail::pattern_shape shape = detail::scan_pattern(S.view());
  static_assert(shape.error == nullptr, "invalid route pattern (router::add() would say why at run time)");
  /// The pattern text (static storage).
  static constexpr std::string_view view() noexcept { return S.view(); }
};

namespace literals {
/// `"/users/{id:int}"_route`: a pattern validated at compile time.
template <detail::fixed_string S>
consteval static_route<S> operator""_route() noexcept {
  return {};
}
}  // namespace literals

/// Thrown when a route or mount is refused: bad pattern syntax, duplicate or
/// catch-all-not-last parameters, an ambiguous duplicate of an existing route,
/// a handler whose parameters do not fit the pattern, a name already taken.
/// The message names the method, the pattern and the reason.
class route_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Router-wide settings, fixed at construction.
struct router_options {
  /// "/a/" that matches nothing but "/a" would match: redirect to "/a" (query kept).
  bool redirect_trailing_slash = true;
  /// "/a" that matches nothing but "/a/" would match: redirect to "/a/" (query kept).
  bool redirect_missing_slash = false;
};

/// An integer url_for() can take (any but bool).
template <class T>
concept url_integer = std::integral<T> && !std::same_as<T, bool>;

/// One named value for url_for(): `{"id", 42}` or `{"slug", "hello world"}`.
struct url_arg {
  /// What the value is.
  enum class type : std::uint8_t {
    text,              ///< `text`
    signed_integer,    ///< `bits` holds an int64 (two's complement)
    unsigned_integer,  ///< `bits` holds a uint64
  };

  /// The parameter `n` gets the integer `v`.
  template <url_integer T>
  url_arg(std::string_view n, T v) noexcept
      : name(n),
        kind(std::is_signed_v<T> ? type::signed_integer : type::unsigned_integer),
        bits(static_cast<std::uint64_t>(v)) {}
  /// The parameter `n` gets the text `v` (percent-encoded by url_for(); not copied).
  url_arg(std::string_view n, std::string_view v) noexcept : name(n), kind(type::text), text(v) {}
  /// As the string_view form, for a string literal.
  url_arg(std::string_view n, const char* v) noexcept : name(n), kind(type::text), text(v) {}

  std::string_view name;   ///< the parameter's name in the pattern
  type kind;               ///< which of `text` and `bits` holds the value
  std::string_view text;   ///< the value when kind == text
  std::uint64_t bits = 0;  ///< the value's bits when it is an integer
};

/// What url_for() built, or why it could not.
struct built_url {
  std::string url;         ///< the percent-encoded path; empty on error
  std::string_view error;  ///< empty on success; otherwise a static text saying what was wrong
  /// True when the URL was built.
  explicit operator bool() const noexcept { return error.empty(); }
};

/// Routes added under a prefix with their own middleware; see router::group().
/// A handle into its router: copies add to the same router.
class route_group : public routing_api<route_group> {
 public:
  /// Made by router::group() and route_group::group(); not meant to be called directly.
  explicit route_group(detail::route_scope scope) noexcept : scope_(std::move(scope)) {}

 private:
  friend class routing_api<route_group>;
  detail::route_scope scope_;
};

/// Maps (method, path) to handlers.
///
/// Patterns: literal segments, `{name}` (one segment), `{id:int}` (int64,
/// overflow is no match), `{n:uint}`, `{s:alpha}`, `{s:alnum}`, and a last
/// `{rest*}` catch-all. Matching walks the request's raw path segment by segment
/// (each percent-decoded on its own, so "%2F" never splits a segment); at each
/// segment a literal beats a typed parameter (int, uint, alpha, alnum, in that
/// order), which beats `{name}`, which beats a catch-all; when a branch fails
/// further down the next candidate is tried.
///
/// Answers the router gives itself: 404; 405 with `Allow` when the path matches
/// under other methods; HEAD answered by the GET route (the connection drops
/// the body, keeping Content-Length); OPTIONS answered 204 with `Allow`; trailing
/// slash redirects (router_options) with 301 for GET/HEAD and 308 otherwise.
///
/// The table is frozen on first use (or freeze()). Adding routes or middleware
/// afterwards builds a new table and swaps it in atomically: dispatching threads
/// never lock, and a request finishes on the table it started with.
///
/// @note A router is a handle: copies (including the one given to stet::server)
/// share the same routes, so adding to any copy changes what all of them serve.
/// Do not destroy the last copy while a dispatch is running.
class router : public routing_api<router> {
 public:
  /// A router with no routes and the default router_options.
  router();
  /// A router with no routes and `options`.
  explicit router(router_options options);
  /// Another handle to the same routes (see the note above).
  router(const router&) = default;
  /// Makes this a handle to `other`'s routes.
  router& operator=(const router&) = default;
  /// Drops this handle; the routes live while another copy does.
  ~router();

  /// Builds the frozen table now instead of at the first dispatch. Idempotent.
  router& freeze();

  /// What a request would be answered with, without running anything (used to
  /// decide on `Expect: 100-continue` before reading a body).
  struct match {
    stet::status status = stet::status::not_found;  ///< ok when a handler would run
    /// True when a handler would run.
    bool routed() const noexcept { return status == stet::status::ok; }
  };
  /// The match for `req`'s method and path (404, 405 or ok); runs nothing.
  match find(const request& req) const noexcept;

  /// Routes `req` and runs the middleware chain and the handler, in-process.
  /// Binds req.params(). A handler or hook that throws yields a 500 (the
  /// exception text goes to on_error()). For HEAD the body is returned as the
  /// GET handler made it; the connection drops it. An asynchronous handler is
  /// waited for on the calling thread, so its send() must come from another.
  response handle(request& req) const;

  /// The path of the route named `name` with `args` substituted and
  /// percent-encoded (segments that need no encoding are copied as they are).
  /// Fails when the name is unknown, an argument is missing, unknown or does not
  /// fit its parameter's class.
  built_url url_for(std::string_view name, std::initializer_list<url_arg> args = {}) const;
  /// url_for() as an absolute URL for the client of `req`: `req.scheme()`
  /// "://" `req.host()` then the path, so behind a trusted proxy it names the
  /// origin the client used (for a Location, a link in a mail). Fails like
  /// url_for(), or when the request has no host. stet's own redirects
  /// (trailing slash, static directories) send a path-only Location, which
  /// the client resolves against the URL it used, so they need no proxy trust.
  built_url url_for(const request& req, std::string_view name, std::initializer_list<url_arg> args = {}) const;

  /// Called with the exception text when a handler or hook throws. Without
  /// one, a server reports it to its server_options::error_reporter (as a
  /// server_error whose `where` is "handler"); with neither, nothing is said.
  /// Must be safe to call from any worker thread.
  router& on_error(std::function<void(std::string_view)> report);

 private:
  template <class>
  friend class routing_api;
  friend struct detail::router_access;
  detail::route_scope scope_;
};

/// @cond
// Defined here, not in routing_api.hpp: they need the complete router and
// route_group.
template <class Self>
route_group routing_api<Self>::group(std::string_view prefix) {
  return route_group(scope().child(prefix));
}

template <class Self>
Self& routing_api<Self>::mount(std::string_view prefix, const router& other) {
  scope().mount(prefix, other.scope_);
  return self();
}
/// @endcond

}  // namespace stet
