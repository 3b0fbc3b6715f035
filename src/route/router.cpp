#include <stet/router.hpp>

#include "route/epoch.hpp"
#include "route/state.hpp"

#include <unordered_map>

namespace stet {
namespace detail {

route_scope::route_scope(std::shared_ptr<router_state> state, std::string prefix, std::shared_ptr<layer_node> layer)
    : state_(std::move(state)), prefix_(std::move(prefix)), layer_(std::move(layer)) {}

void route_scope::add(stet::method m, std::string_view pattern, const route_options& options,
                      std::shared_ptr<const handler_box> handler) const {
  auto def = std::make_unique<route_def>();
  def->method = m;
  def->pattern = join_pattern(prefix_, pattern);
  def->compiled = compile_pattern(m, def->pattern);
  // The handler's typed arguments are the route's own parameters; a prefix's
  // come first in the captures and are skipped.
  def->arg_offset = def->compiled.params.size() - scan_pattern(pattern).params;
  check_handler(m, def->pattern, def->compiled, def->arg_offset, *handler);
  def->handler = std::move(handler);
  def->layer = layer_;
  def->name = options.name;
  def->compress = options.compress;
  def->max_body_bytes = options.max_body_bytes;
  def->stream_body = options.stream_body;
  def->cache = options.cache;
  std::vector<std::unique_ptr<route_def>> batch;
  batch.push_back(std::move(def));
  const std::lock_guard lock(state_->mutex);
  state_->commit_locked(std::move(batch));
}

void route_scope::add_layer(middleware_layer layer) const {
  auto shared = std::make_shared<const middleware_layer>(std::move(layer));
  const std::lock_guard lock(state_->mutex);
  layer_->layers.push_back(std::move(shared));
  state_->changed_locked();
}

route_scope route_scope::child(std::string_view prefix) const {
  if (!prefix.empty() && prefix.front() != '/') {
    throw route_error("stet::router: group prefix \"" + std::string(prefix) + "\" must start with '/'");
  }
  auto layer = std::make_shared<layer_node>();
  layer->parent = layer_;
  return route_scope(state_, join_pattern(prefix_, prefix), std::move(layer));
}

// The mounted router's scopes are re-created under this scope, keeping their
// nesting, with the layers they have now (a snapshot, like the routes).
void route_scope::mount(std::string_view prefix, const route_scope& other) const {
  if (!prefix.empty() && prefix.front() != '/') {
    throw route_error("stet::router: mount prefix \"" + std::string(prefix) + "\" must start with '/'");
  }
  if (other.state_ == state_) throw route_error("stet::router: a router cannot be mounted into itself");
  const std::string full_prefix = join_pattern(prefix_, prefix);
  std::vector<std::unique_ptr<route_def>> batch;
  {
    const std::lock_guard lock(other.state_->mutex);
    std::unordered_map<const layer_node*, std::shared_ptr<layer_node>> copies;
    const auto copy_of = [&](const auto& self, const layer_node* n) -> std::shared_ptr<layer_node> {
      if (n == nullptr) return layer_;
      auto& slot = copies[n];
      if (!slot) {
        slot = std::make_shared<layer_node>();
        slot->parent = self(self, n->parent.get());
        slot->layers = n->layers;
      }
      return slot;
    };
    for (const auto& source : other.state_->defs) {
      auto def = std::make_unique<route_def>(*source);
      def->pattern = join_pattern(full_prefix, source->pattern);
      def->compiled = compile_pattern(def->method, def->pattern);
      def->arg_offset = def->compiled.params.size() - (source->compiled.params.size() - source->arg_offset);
      def->layer = copy_of(copy_of, source->layer.get());
      batch.push_back(std::move(def));
    }
  }
  const std::lock_guard lock(state_->mutex);
  state_->commit_locked(std::move(batch));
}

namespace {

// The router's own layer is the state's root layer, shared by every copy.
route_scope root_scope(router_options options) {
  auto state = std::make_shared<router_state>(options);
  std::shared_ptr<layer_node> root = state->root;
  return route_scope(std::move(state), std::string(), std::move(root));
}

}  // namespace
}  // namespace detail

router::router() : router(router_options{}) {}

router::router(router_options options) : scope_(detail::root_scope(options)) {}

router::~router() = default;

router& router::freeze() {
  const detail::epoch::read_section pin;
  scope_.state().acquire();
  return *this;
}

router& router::on_error(std::function<void(std::string_view)> report) {
  detail::router_state& state = scope_.state();
  auto shared = std::make_shared<const detail::error_reporter>(std::move(report));
  const std::lock_guard lock(state.mutex);
  state.report = std::move(shared);
  state.changed_locked();
  return *this;
}

}  // namespace stet
