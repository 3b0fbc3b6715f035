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

// Each invalidation is recorded before the entries are swept, so a run that
// finishes during the sweep either sees the record or has its entry swept.
void response_cache::invalidate_tag(std::string_view tag) {
  const std::uint64_t hash = detail::invalidation_log::hash_tag(tag);
  store_->table.log().record(detail::invalidation_log::scope::tag, hash);
  const std::uint64_t n = store_->table.drop_if(
      [tag](const detail::cache_entry& e) { return std::find(e.tags.begin(), e.tags.end(), tag) != e.tags.end(); });
  store_->invalidations.fetch_add(n, std::memory_order_relaxed);
}

void response_cache::invalidate_route(std::string_view name) {
  const std::optional<std::uint32_t> route = store_->find_route(name);
  if (!route) return;
  store_->table.log().record(detail::invalidation_log::scope::route, *route);
  const std::uint64_t n = store_->table.drop_if([r = *route](const detail::cache_entry& e) { return e.route == r; });
  store_->invalidations.fetch_add(n, std::memory_order_relaxed);
}

void response_cache::invalidate_all() {
  store_->table.log().record(detail::invalidation_log::scope::all, 0);
  const std::uint64_t n = store_->table.drop_if([](const detail::cache_entry&) { return true; });
  store_->invalidations.fetch_add(n, std::memory_order_relaxed);
}

response_cache_stats response_cache::stats() const { return store_->stats(); }

std::vector<response_cache_route_stats> response_cache::route_stats() const { return store_->route_stats(); }

}  // namespace stet
