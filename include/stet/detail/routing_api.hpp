#pragma once
// Internal: not part of stet's API (see STYLE.md, "detail").
// The route-adding members router and route_group share, as a CRTP base: Self
// gives it access to its `scope_` (a route_scope). group() and mount() need
// the complete router and route_group and are defined after them, in
// <stet/router.hpp>.

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

  /// A WebSocket route (defined in <stet/websocket.hpp>, which must be
  /// included): a GET route at `pattern` whose handler checks the handshake,
  /// calls `upgrade(request&, A...)` (the pattern's parameters typed as for
  /// handlers) and, when it accepts, hands the connection to a session that
  /// runs `handlers`. @throws route_error as add() does.
  template <pattern_source P, class T, class U>
  Self& websocket(const P& pattern, const websocket_options& options, websocket_handlers<T> handlers, U&& upgrade);
  /// A WebSocket route that accepts every valid upgrade, with T{} as user data.
  template <pattern_source P, class T>
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
  const route_scope& scope() noexcept { return self().scope_; }
};

}  // namespace detail
}  // namespace stet
