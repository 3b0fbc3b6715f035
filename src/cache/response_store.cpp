#include "cache/response_store.hpp"

#include <algorithm>

namespace stet::detail {
namespace {

std::uint64_t load(const std::atomic<std::uint64_t>& c) noexcept { return c.load(std::memory_order_relaxed); }

void add_route_counts(response_cache_stats& out, const route_counters& c) noexcept {
  out.hits += load(c.hits);
  out.misses += load(c.misses);
  out.bypasses += load(c.bypasses);
  out.stale_hits += load(c.stale_hits);
  out.refreshes += load(c.refreshes);
  out.waits += load(c.waits);
  out.not_stored += load(c.not_stored);
}

}  // namespace

response_store::response_store(response_cache_options o)
    : options(std::move(o)), table(options.budget_bytes), background(options.max_queued_refreshes) {}

std::uint32_t response_store::add_route(std::string name) {
  const std::lock_guard lock(routes_mutex_);
  routes_.emplace_back().name = std::move(name);
  return static_cast<std::uint32_t>(routes_.size() - 1);
}

route_counters& response_store::counters(std::uint32_t route) noexcept {
  const std::lock_guard lock(routes_mutex_);
  return routes_[route].counters;
}

std::optional<std::uint32_t> response_store::find_route(std::string_view name) const {
  const std::lock_guard lock(routes_mutex_);
  const auto it =
      std::find_if(routes_.begin(), routes_.end(), [name](const route_record& r) { return r.name == name; });
  if (it == routes_.end()) return std::nullopt;
  return static_cast<std::uint32_t>(it - routes_.begin());
}

response_cache_stats response_store::stats() const {
  response_cache_stats s;
  {
    const std::lock_guard lock(routes_mutex_);
    for (const route_record& r : routes_) add_route_counts(s, r.counters);
  }
  s.evictions = table.evictions();
  s.invalidations = load(invalidations);
  s.variants_made = load(variants.made);
  s.variant_hits = load(variants.hits);
  s.entries = table.entries();
  s.bytes = table.bytes();
  return s;
}

std::vector<response_cache_route_stats> response_store::route_stats() const {
  std::vector<response_cache_route_stats> out;
  const std::lock_guard lock(routes_mutex_);
  for (const route_record& r : routes_) {
    response_cache_route_stats& s = out.emplace_back();
    s.name = r.name;
    add_route_counts(s.counters, r.counters);
  }
  return out;
}

}  // namespace stet::detail
