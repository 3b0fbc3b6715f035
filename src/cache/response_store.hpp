#pragma once
// What one stet::response_cache is: the entry table, the counters of each
// cached route, the variant counters, the refresh thread, and the way its
// invalidations reach the other instances (a server's bus, cache_bus.hpp).
// Shared by the public handle and every route it was given to.

#include <stet/response_cache.hpp>

#include "cache/entry_table.hpp"
#include "cache/entry_variants.hpp"
#include "cache/refresher.hpp"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

/// One cached route's counters (each also summed into the totals).
struct alignas(64) route_counters {
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
  std::atomic<std::uint64_t> bypasses{0};
  std::atomic<std::uint64_t> stale_hits{0};
  std::atomic<std::uint64_t> refreshes{0};
  std::atomic<std::uint64_t> waits{0};
  std::atomic<std::uint64_t> not_stored{0};
};

inline void bump(std::atomic<std::uint64_t>& c) noexcept { c.fetch_add(1, std::memory_order_relaxed); }

class response_store {
 public:
  explicit response_store(response_cache_options o);

  /// A new route's index (its counters are made here).
  std::uint32_t add_route(std::string name);
  route_counters& counters(std::uint32_t route) noexcept;
  /// The index of the route named `name`.
  std::optional<std::uint32_t> find_route(std::string_view name) const;

  response_cache_stats stats() const;
  std::vector<response_cache_route_stats> route_stats() const;

  /// response_cache::invalidate_*(): applied here at once, then sent to the
  /// other instances when a bus carries this cache. `value`: the tag or the
  /// route's name. @throws std::bad_alloc
  void invalidate(invalidation_log::scope what, std::string_view value);
  /// Drops what an invalidation covers here, recorded in the log first: a
  /// handler run that began before it is answered but not stored.
  void apply(invalidation_log::scope what, std::string_view value);

  /// Sends an encoded invalidation to the other instances; false: refused.
  using carrier = std::function<bool(std::string_view message)>;
  /// This cache's invalidations go out through `send` (one carrier at a time:
  /// false, and nothing changed, when `owner` is not the first to ask).
  bool attach(const void* owner, carrier send);
  /// They no longer do; once this returns no send through `owner`'s carrier runs.
  void detach(const void* owner) noexcept;
  /// An invalidation that arrived on `owner`'s bus: applied unless it is not
  /// for this cache (its name), this cache sent it, or `owner` is not its carrier.
  void receive(const void* owner, std::string_view message) noexcept;

  const response_cache_options options;
  entry_table table;
  variant_counters variants;
  std::atomic<std::uint64_t> invalidations{0};
  refresher background;  // last: destroyed first, while the table its jobs use is still there

 private:
  struct route_record {
    std::string name;
    route_counters counters;
  };
  mutable std::mutex routes_mutex_;
  std::deque<route_record> routes_;  // a deque: counters keep their address as routes are added

  const std::uint64_t origin_;  // random: tells this cache's messages from others'
  // Sends run under carrier_mutex_, so detach() waits for one under way; a
  // receive reads only the owner (the in-process bus delivers on the sending
  // thread, which holds the mutex).
  std::mutex carrier_mutex_;
  carrier carrier_;                                  // guarded by carrier_mutex_
  std::atomic<const void*> carrier_owner_{nullptr};  // written under carrier_mutex_
};

}  // namespace stet::detail
