#pragma once
/// @file
/// stet::routing_api: the members that add routes, middleware, WebSocket
/// routes, groups and mounts, shared by stet::router and stet::route_group.

#include <stet/detail/middleware_layer.hpp>
#include <stet/detail/route_handler.hpp>
#include <stet/detail/route_scope.hpp>
#include <stet/method.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/routing.hpp>

#include <concepts>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>

namespace stet {

class router;
class route_group;
struct websocket_options;
template <class T>
struct websocket_handlers;

namespace detail {

/// A pattern: text checked at add(), or a static_route checked at compile time.
template <class P>
concept pattern_source = std::convertible_to<const P&, std::string_view> || requires {
  P::shape;
};

template <class F>
inline constexpr bool always_false = false;

}  // namespace detail

/// The members that add routes and middleware, shared by router and
/// route_group (`Self`, which every member returns for chaining).
///
/// A pattern is a string (checked when the route is added) or a
/// `"..."_route` literal (checked at compile time, together with the
/// handler's parameters). A handler is any callable that stet::route_handler
/// accepts: `response(request&)`; `response(request&, A...)` with one
/// parameter per `{param}` in pattern order, where `{x:int}` takes any signed
/// integer type (`int`, `long`, `std::int64_t`, ...), `{x:uint}` any unsigned
/// one, and any parameter `std::string_view` (a value outside the type's
/// range is no match: 404); `void(request&, responder, A...)` (asynchronous);
/// `task<response>(request&, A...)` (a coroutine).
template <class Self>
class routing_api {
 public:
  /// Adds a route for `m` (any method but method::other) with per-route
  /// `options`. The pattern is compiled and the handler's parameters checked
  /// here, once. A callable that is not a route_handler fails to compile with
  /// one static_assert naming the accepted signatures and parameter types.
  /// @throws route_error when the route is refused (see route_error).
  template <detail::pattern_source P, class F>
  Self& add(stet::method m, const P& pattern, const route_options& options, F&& handler) {
    if constexpr (!route_handler<F>) {
      static_assert(detail::always_false<F>,
                    "not a route handler: it must be callable as response(request&, A...), "
                    "void(request&, responder, A...) or task<response>(request&, A...), where each route parameter A "
                    "(by value or const&) is std::string_view, a signed integer type for {x:int} (signed char, "
                    "short, int, long, long long, std::int8_t ... std::int64_t) or an unsigned one for {x:uint} "
                    "(unsigned char ... unsigned long long, std::uint8_t ... std::uint64_t); not bool, not a "
                    "character type");
    } else if constexpr (requires { P::shape; }) {
      static_assert(detail::handler_fits(detail::handler_arg_kinds<F>(), detail::takes_no_route_args<F>, P::shape),
                    "the handler's parameters after request& do not fit the pattern: one per {param}, in order; "
                    "{x:int} takes a signed integer type, {x:uint} an unsigned one, any parameter std::string_view");
      scope().add(m, P::view(), options, detail::make_handler_box(std::forward<F>(handler)));
    } else {
      scope().add(m, std::string_view(pattern), options, detail::make_handler_box(std::forward<F>(handler)));
    }
    return self();
  }
  /// add() with the default route_options.
  template <detail::pattern_source P, class F>
  Self& add(stet::method m, const P& pattern, F&& handler) {
    return add(m, pattern, route_options{}, std::forward<F>(handler));
  }

  /// A GET route (add(method::get, ...)); it also answers HEAD, without the body.
  template <detail::pattern_source P, class F>
  Self& get(const P& pattern, F&& handler) {
    return add(stet::method::get, pattern, route_options{}, std::forward<F>(handler));
  }
  /// A GET route with per-route `options`.
  template <detail::pattern_source P, class F>
  Self& get(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::get, pattern, options, std::forward<F>(handler));
  }
  /// A POST route (add(method::post, ...)).
  template <detail::pattern_source P, class F>
  Self& post(const P& pattern, F&& handler) {
    return add(stet::method::post, pattern, route_options{}, std::forward<F>(handler));
  }
  /// A POST route with per-route `options`.
  template <detail::pattern_source P, class F>
  Self& post(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::post, pattern, options, std::forward<F>(handler));
  }
  /// A PUT route (add(method::put, ...)).
  template <detail::pattern_source P, class F>
  Self& put(const P& pattern, F&& handler) {
    return add(stet::method::put, pattern, route_options{}, std::forward<F>(handler));
  }
  /// A PUT route with per-route `options`.
  template <detail::pattern_source P, class F>
  Self& put(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::put, pattern, options, std::forward<F>(handler));
  }
  /// A PATCH route (add(method::patch, ...)).
  template <detail::pattern_source P, class F>
  Self& patch(const P& pattern, F&& handler) {
    return add(stet::method::patch, pattern, route_options{}, std::forward<F>(handler));
  }
  /// A PATCH route with per-route `options`.
  template <detail::pattern_source P, class F>
  Self& patch(const P& pattern, const route_options& options, F&& handler) {
    return add(stet::method::patch, pattern, options, std::forward<F>(handler));
  }
  /// A DELETE route (add(method::delete_, ...)).
  template <detail::pattern_source P, class F>
  Self& del(const P& pattern, F&& handler) {
    return add(stet::method::delete_, pattern, route_options{}, std::forward<F>(handler));
  }
  /// A DELETE route with per-route `options`.
  template <detail::pattern_source P, class F>
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
    scope().add_layer(detail::middleware_layer{std::forward<F>(hook), {}});
    return self();
  }
  /// Appends a middleware layer with only an `after` hook, which sees (and
  /// may edit) every answer of this scope on its way out; hooks run innermost first.
  template <after_hook F>
  Self& after(F&& hook) {
    scope().add_layer(detail::middleware_layer{{}, std::forward<F>(hook)});
    return self();
  }
  /// Appends a middleware object's `before` and `after` members as one layer
  /// (see before()); the object is shared by every worker and called on a
  /// const reference, e.g. `use(stet::cors(options))`.
  template <middleware M>
  Self& use(M&& m) {
    auto shared = std::make_shared<const std::remove_cvref_t<M>>(std::forward<M>(m));
    detail::middleware_layer layer;
    if constexpr (requires(request & q) { shared->before(q); }) {
      layer.before = [shared](request& q) { return shared->before(q); };
    }
    if constexpr (requires(request & q, response & r) { shared->after(q, r); }) {
      layer.after = [shared](request& q, response& r) { shared->after(q, r); };
    }
    layer.preflight = detail::preflight_middleware<M>;
    scope().add_layer(std::move(layer));
    return self();
  }

  /// A WebSocket route (defined in <stet/websocket.hpp>, which must be
  /// included): a GET route at `pattern` whose handler checks the handshake,
  /// calls `upgrade(request&, A...)` (the pattern's parameters typed as for
  /// handlers) and, when it accepts, hands the connection to a session that
  /// runs `handlers`. @throws route_error as add() does.
  template <detail::pattern_source P, class T, class U>
  Self& websocket(const P& pattern, const websocket_options& options, websocket_handlers<T> handlers, U&& upgrade);
  /// A WebSocket route that accepts every valid upgrade, with T{} as user data.
  template <detail::pattern_source P, class T>
  Self& websocket(const P& pattern, const websocket_options& options, websocket_handlers<T> handlers);

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
  const detail::route_scope& scope() noexcept { return self().scope_; }
};

}  // namespace stet
