#pragma once
// The metric families every cache reports into, named once so that the
// library's caches, the Date cache and static files' collector agree on names,
// help texts and types (Prometheus requires one HELP/TYPE per family).

#include <stet/metrics.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace stet::detail {

struct metric_family {
  std::string_view name, help, type;
};

inline constexpr metric_family cache_hits{"stet_cache_hits_total", "Cache hits.", "counter"};
inline constexpr metric_family cache_misses{"stet_cache_misses_total", "Cache misses.", "counter"};
inline constexpr metric_family cache_evictions{"stet_cache_evictions_total", "Cache entries evicted.", "counter"};
inline constexpr metric_family cache_entries{"stet_cache_entries", "Cache entries held now.", "gauge"};

/// Appends one sample of `family` with `labels` (e.g. `cache="cookies"`).
inline void add_sample(std::vector<metric_sample>& out, const metric_family& family, std::string_view labels,
                       std::uint64_t value) {
  out.push_back({family.name, family.help, family.type, labels, static_cast<double>(value)});
}

}  // namespace stet::detail
