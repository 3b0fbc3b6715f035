#pragma once
// The status page's data (GET /-/status.json, docs/status.md), written from a
// metrics_snapshot: the same read as the Prometheus text, another format.

#include <stet/json.hpp>
#include <stet/metrics.hpp>

#include "metrics/snapshot.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace stet::detail {

/// A cache's label value (`cache="..."`) and the title the page shows for it.
struct cache_title {
  std::string_view name;
  std::string_view title;
};

/// The caches in the order the page lists them. A cache a collector reports
/// that is not listed here still appears, after these, titled by its label.
std::span<const cache_title> known_caches() noexcept;

/// A cache's hit rate is null below this many lookups (hits + misses): one
/// miss of a cold cache is no 0 % rate.
inline constexpr std::uint64_t hit_rate_min_lookups = 10;

/// Writes the status document of `s` (one JSON object) into `w`.
/// `uptime_seconds` is how long the reader has been up (for rates).
void write_status_json(stet::json::writer& w, const metrics_snapshot& s, double uptime_seconds);

/// The `q`-quantile (0 <= q <= 1) of `h` in seconds, interpolated linearly
/// inside its bucket as Prometheus' histogram_quantile() does; in the +Inf
/// bucket, the largest finite bound. nullopt when `h` holds no duration.
std::optional<double> quantile_seconds(const latency_histogram::snapshot& h, double q) noexcept;

}  // namespace stet::detail
