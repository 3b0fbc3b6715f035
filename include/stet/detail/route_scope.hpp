#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").
// What router and route_group hold: the place routes are added to. Its
// members are compiled into the library (src/route/router.cpp).

#include <stet/detail/middleware_layer.hpp>
#include <stet/detail/route_handler.hpp>
#include <stet/method.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace stet {

struct route_options;

namespace detail {

struct router_state;
struct layer_node;

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

}  // namespace detail
}  // namespace stet
