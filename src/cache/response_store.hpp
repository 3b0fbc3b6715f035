#pragma once
// What one stet::response_cache is: the entry table, the counters of each
// cached route, the variant counters and the refresh thread. Shared by the
// public handle and every route it was given to.

#include <stet/response_cache.hpp>

#include "cache/entry_table.hpp"
#include "cache/entry_variants.hpp"
#include "cache/refresher.hpp"

#include <atomic>
#include <cstdint>
#include <deque>
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
};

}  // namespace stet::detail
