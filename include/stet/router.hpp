#pragma once
/// @file stet::router: route patterns and typed handlers compiled once at add(),
/// dispatched through a frozen segment trie that never scans and never allocates.

#include <stet/detail/middleware_layer.hpp>
#include <stet/detail/route_handler.hpp>
#include <stet/detail/route_pattern.hpp>
#include <stet/method.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/status.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace stet {

class router;
class route_group;

namespace detail {
struct router_state;
struct layer_node;
struct router_access;
}  // namespace detail

/// A route pattern checked at compile time: `"/users/{id:int}"_route` (see
/// stet::literals). An invalid pattern does not compile, and add() checks the
/// handler's parameters against it with a static_assert instead of at run time.
template <detail::fixed_string S>
struct static_route {
  static constexpr detail::pattern_shape shape = detail::scan_pattern(S.view());
  static_assert(shape.error == nullptr, "invalid route pattern (router::add() would say why at run time)");
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

/// Per-route settings.
struct route_options {
  std::string_view name;  ///< name for url_for(); empty for none; unique per router (copied)
  /// False: this route's answers are never compressed (as response::no_compression()),
  /// whatever server_options::compression says - for routes that reflect secrets (BREACH).
  bool compress = true;
};

/// Router-wide settings, fixed at construction.
struct router_options {
  /// "/a/" that matches nothing but "/a" would match: redirect to "/a" (query kept).
  bool redirect_trailing_slash = true;
  /// "/a" that matches nothing but "/a/" would match: redirect to "/a/" (query kept).
  bool redirect_missing_slash = false;
};

/// A handler: `response(request&)`, or `response(request&, A...)` where each
/// `A` (std::int64_t, std::uint64_t or std::string_view, by value) receives one
/// route parameter in pattern order. Asynchronous handlers take a responder
/// after the request and return void: `void(request&, responder, A...)`; they
/// answer with responder::send(), later and from any thread (see responder).
/// Called concurrently from worker threads through a const reference, so it
/// must be safe to call that way.
template <class F>
concept route_handler = detail::plain_handler<F> || detail::async_plain_handler<F> || detail::typed_handler<F>;

/// How hooks are called: on a const object, from any worker thread.
template <class F>
using const_callable = const std::remove_cvref_t<F>&;

/// A middleware `before` hook: returning a response short-circuits the chain.
template <class F>
concept before_hook = requires(const_callable<F> f, request& q) {
  { f(q) } -> std::same_as<std::optional<response>>;
};

/// A middleware `after` hook: sees (and may edit) the response on its way out.
template <class F>
concept after_hook = std::invocable<const_callable<F>, request&, response&>;

/// A middleware object's `before(request&) -> std::optional<response>` member.
template <class M>
concept has_before = requires(const std::remove_cvref_t<M>& m, request& q) {
  { m.before(q) } -> std::same_as<std::optional<response>>;
};
/// A middleware object's `after(request&, response&)` member.
template <class M>
concept has_after = requires(const std::remove_cvref_t<M>& m, request& q, response& r) {
  m.after(q, r);
};
/// A middleware object: `before`, `after` or both, callable on a const object.
template <class M>
concept middleware = has_before<M> || has_after<M>;

/// An integer url_for() can take (any but bool).
template <class T>
concept url_integer = std::integral<T> && !std::same_as<T, bool>;

/// One named value for url_for(): `{"id", 42}` or `{"slug", "hello world"}`.
struct url_arg {
  enum class type : std::uint8_t { text, signed_integer, unsigned_integer };

  template <url_integer T>
  url_arg(std::string_view n, T v) noexcept
      : name(n),
        kind(std::is_signed_v<T> ? type::signed_integer : type::unsigned_integer),
        bits(static_cast<std::uint64_t>(v)) {}
  url_arg(std::string_view n, std::string_view v) noexcept : name(n), kind(type::text), text(v) {}
  url_arg(std::string_view n, const char* v) noexcept : name(n), kind(type::text), text(v) {}

  std::string_view name;
  type kind;
  std::string_view text;   ///< the value when kind == text
  std::uint64_t bits = 0;  ///< the value's bits when it is an integer
};

/// What url_for() built, or why it could not.
struct built_url {
  std::string url;         ///< the percent-encoded path; empty on error
  std::string_view error;  ///< empty on success; otherwise a static text saying what was wrong
  explicit operator bool() const noexcept { return error.empty(); }
};

namespace detail {

/// The part of a router that routes are added to: the shared state, a path
/// prefix and a middleware layer (the router's own, or a group's).
class route_scope {
 public:
  route_scope(std::shared_ptr<router_state> state, std::string prefix, std::shared_ptr<layer_node> layer);

  void add(stet::method m, std::string_view pattern, const route_options& options,
           std::shared_ptr<const handler_box> handler) const;
  void add_layer(middleware_layer layer) const;
  route_scope child(std::string_view prefix) const;
  void mount(std::string_view prefix, const route_scope& other) const;
  router_state& state() const noexcept { return *state_; }

 private:
  std::shared_ptr<router_state> state_;
  std::string prefix_;
  std::shared_ptr<layer_node> layer_;
};

template <class P>
concept pattern_source = std::convertible_to<const P&, std::string_view> || requires {
  P::shape;
};

/// The route-adding API shared by router and route_group.
template <class Self>
class routing_api {
 public:
  /// Adds a route for `m` (any method but method::other). The pattern is
  /// compiled and the handler's parameters checked here, once.
  /// @throws route_error when the route is refused (see route_error).
  template <pattern_source P, route_handler F>
  Self& add(stet::method m, const P& pattern, const route_options& options, F&& handler) {
    if constexpr (requires { P::shape; }) {
      static_assert(handler_fits(handler_arg_kinds<F>(), takes_no_route_args<F>, P::shape),
                    "the handler's parameters after request& do not fit the pattern: one per {param}, in order; "
                    "{x:int} takes std::int64_t, {x:uint} std::uint64_t, any parameter std::string_view");
      scope().add(m, P::view(), options, make_handler_box(std::forward<F>(handler)));
    } else {
      scope().add(m, std::string_view(pattern), options, make_handler_box(std::forward<F>(handler)));
    }
    return self();
  }
  template <pattern_source P, route_handler F>
  Self& add(stet::method m, const P& pattern, F&& handler) {
    return add(m, pattern, route_options{}, std::forward<F>(handler));
  }

  /// Shortcuts for add(method::get, ...) and friends; GET routes also answer HEAD.
  template <pattern_source P, route_handler F>
  Self& get(const P& pattern, F&& handler) {
    return add(stet::method::get, pattern, route_options{}, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& get(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::get, pattern, options, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& post(const P& pattern, F&& handler) {
    return add(stet::method::post, pattern, route_options{}, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& post(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::post, pattern, options, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& put(const P& pattern, F&& handler) {
    return add(stet::method::put, pattern, route_options{}, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& put(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::put, pattern, options, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& patch(const P& pattern, F&& handler) {
    return add(stet::method::patch, pattern, route_options{}, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& patch(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::patch, pattern, options, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& del(const P& pattern, F&& handler) {
    return add(stet::method::delete_, pattern, route_options{}, std::forward<F>(handler));
  }
  template <pattern_source P, route_handler F>
  Self& del(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::delete_, pattern, options, std::forward<F>(handler));
  }

  /// Appends a middleware layer whose `before` runs ahead of every handler in
  /// this scope (after the layers added earlier); a response from it
  /// short-circuits the rest. `after` hooks run innermost first. Layers of a
  /// router also wrap its automatic answers (404, 405, OPTIONS, redirects).
  /// An object that declares `static constexpr bool answers_preflight = true`
  /// (stet::cors) also wraps the automatic OPTIONS answer on the paths of this
  /// scope's routes, with the router's own layers and no others.
  template <before_hook F>
  Self& before(F&& hook) {
    scope().add_layer(middleware_layer{std::forward<F>(hook), {}});
    return self();
  }
  template <after_hook F>
  Self& after(F&& hook) {
    scope().add_layer(middleware_layer{{}, std::forward<F>(hook)});
    return self();
  }
  template <middleware M>
  Self& use(M&& m) {
    auto shared = std::make_shared<const std::remove_cvref_t<M>>(std::forward<M>(m));
    middleware_layer layer;
    if constexpr (requires(request & q) { shared->before(q); }) {
      layer.before = [shared](request& q) { return shared->before(q); };
    }
    if constexpr (requires(request & q, response & r) { shared->after(q, r); }) {
      layer.after = [shared](request& q, response& r) { shared->after(q, r); };
    }
    layer.preflight = preflight_middleware<M>;
    scope().add_layer(std::move(layer));
    return self();
  }

  /// A group of routes under `prefix` ("/api": its "/users" is "/api/users", its
  /// "/" is "/api") with its own middleware layers inside this scope's.
  route_group group(std::string_view prefix);

  /// Copies every route of `other` (handlers shared, names kept, `other`'s
  /// middleware as a layer inside this scope's) under `prefix`. A snapshot:
  /// routes added to `other` later are not mounted.
  /// @throws route_error when a mounted route conflicts; nothing is added then.
  Self& mount(std::string_view prefix, const router& other);

 private:
  Self& self() noexcept { return static_cast<Self&>(*this); }
  const route_scope& scope() noexcept { return self().scope_; }
};

}  // namespace detail

/// Routes added under a prefix with their own middleware; see router::group().
/// A handle into its router: copies add to the same router.
class route_group : public detail::routing_api<route_group> {
 public:
  explicit route_group(detail::route_scope scope) noexcept : scope_(std::move(scope)) {}

 private:
  friend class detail::routing_api<route_group>;
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
class router : public detail::routing_api<router> {
 public:
  router();
  explicit router(router_options options);
  router(const router&) = default;
  router& operator=(const router&) = default;
  ~router();

  /// Builds the frozen table now instead of at the first dispatch. Idempotent.
  router& freeze();

  /// What a request would be answered with, without running anything (used to
  /// decide on `Expect: 100-continue` before reading a body).
  struct match {
    stet::status status = stet::status::not_found;  ///< ok when a handler would run
    bool routed() const noexcept { return status == stet::status::ok; }
  };
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
  friend class detail::routing_api;
  friend struct detail::router_access;
  detail::route_scope scope_;
};

namespace detail {

template <class Self>
route_group routing_api<Self>::group(std::string_view prefix) {
  return route_group(scope().child(prefix));
}

template <class Self>
Self& routing_api<Self>::mount(std::string_view prefix, const router& other) {
  scope().mount(prefix, other.scope_);
  return self();
}

}  // namespace detail

}  // namespace stet
