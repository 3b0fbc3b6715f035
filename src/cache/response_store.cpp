#include "cache/response_store.hpp"

#include "cache/invalidation_message.hpp"

#include <algorithm>
#include <random>

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

std::uint64_t random_origin() {
  std::random_device seed;
  return (std::uint64_t{seed()} << 32) ^ seed();
}

}  // namespace

response_store::response_store(response_cache_options o)
    : options(std::move(o)),
      table(options.budget_bytes),
      background(options.max_queued_refreshes),
      origin_(random_origin()) {}

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

// Each invalidation is recorded before the entries are swept, so a run that
// finishes during the sweep either sees the record or has its entry swept.
void response_store::apply(invalidation_log::scope what, std::string_view value) {
  std::uint64_t dropped = 0;
  switch (what) {
    case invalidation_log::scope::tag:
      table.log().record(what, invalidation_log::hash_tag(value));
      dropped = table.drop_if(
          [value](const cache_entry& e) { return std::find(e.tags.begin(), e.tags.end(), value) != e.tags.end(); });
      break;
    case invalidation_log::scope::route: {
      const std::optional<std::uint32_t> route = find_route(value);
      if (!route) return;
      table.log().record(what, *route);
      dropped = table.drop_if([r = *route](const cache_entry& e) { return e.route == r; });
      break;
    }
    case invalidation_log::scope::all:
      table.log().record(what, 0);
      dropped = table.drop_if([](const cache_entry&) { return true; });
      break;
  }
  invalidations.fetch_add(dropped, std::memory_order_relaxed);
}

// Applied here first, so the caller's next request never finds what it just
// invalidated, whatever the bus's delay; the copy that comes back is skipped.
void response_store::invalidate(invalidation_log::scope what, std::string_view value) {
  apply(what, value);
  const std::lock_guard lock(carrier_mutex_);
  if (!carrier_) return;
  // Refused (Redis away): the other instances keep their entries until their
  // ttl; the bus counts the refusal (stet_pubsub_refused_total).
  (void)carrier_(encode({origin_, options.name, what, value}));
}

bool response_store::attach(const void* owner, carrier send) {
  const std::lock_guard lock(carrier_mutex_);
  if (carrier_owner_.load(std::memory_order_relaxed) != nullptr) return false;
  carrier_ = std::move(send);
  carrier_owner_.store(owner, std::memory_order_release);
  return true;
}

void response_store::detach(const void* owner) noexcept {
  const std::lock_guard lock(carrier_mutex_);
  if (carrier_owner_.load(std::memory_order_relaxed) != owner) return;
  carrier_owner_.store(nullptr, std::memory_order_release);
  carrier_ = nullptr;
}

void response_store::receive(const void* owner, std::string_view message) noexcept {
  const std::optional<invalidation_message> m = decode(message);
  if (!m || m->origin == origin_ || m->cache != options.name) return;
  if (carrier_owner_.load(std::memory_order_acquire) != owner) return;
  try {
    apply(m->what, m->value);
  } catch (...) {
    // Out of memory sweeping: the entries stay until their ttl, as on an instance the message missed.
  }
}

}  // namespace stet::detail
