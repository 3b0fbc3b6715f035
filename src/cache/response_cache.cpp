#include <stet/response_cache.hpp>

#include "cache/cached_route.hpp"
#include "cache/response_store.hpp"

#include <algorithm>

namespace stet {

response_cache::response_cache(response_cache_options options)
    : store_(std::make_shared<detail::response_store>(std::move(options))) {}

response_cache::~response_cache() = default;

route_options response_cache::route(std::string_view name, cache_policy policy, route_options base) {
  if (policy.name.empty()) policy.name = name;
  base.cache = std::make_shared<const detail::cached_route>(store_, std::move(policy));
  return base;
}

void response_cache::invalidate_tag(std::string_view tag) {
  store_->invalidate(detail::invalidation_log::scope::tag, tag);
}

void response_cache::invalidate_route(std::string_view name) {
  store_->invalidate(detail::invalidation_log::scope::route, name);
}

void response_cache::invalidate_all() { store_->invalidate(detail::invalidation_log::scope::all, {}); }

response_cache_stats response_cache::stats() const { return store_->stats(); }

std::vector<response_cache_route_stats> response_cache::route_stats() const { return store_->route_stats(); }

}  // namespace stet
