#pragma once
// One stored answer of a cached route: everything a hit needs, derived once
// when the handler's answer was stored (the strong ETag, the Vary line, the
// header block) and shared read-only by every hit on every worker. Only the
// compressed variants are added later, once per coding, under the entry's lock.

#include <stet/compression.hpp>
#include <stet/status.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace stet::detail {

using cache_clock = std::chrono::steady_clock;

/// A compressed variant of an entry's body, with its own entity-tag.
struct coded_variant {
  std::shared_ptr<const std::string> bytes;
  std::string etag;
};

struct cache_entry {
  stet::status status = stet::status::ok;
  std::string fields;                       ///< the handler's fields and Vary, serialised; no ETag (added per coding)
  std::shared_ptr<const std::string> body;  ///< shared by every answer in flight
  std::string etag;                         ///< strong, quotes included: the handler's or the body's hash
  bool compressible = false;                ///< a listed media type, big enough, not coded by the handler
  cache_clock::time_point stored{};         ///< for Age
  cache_clock::time_point fresh_until{};    ///< ttl
  cache_clock::time_point revalidate_until{};  ///< ttl + stale_while_revalidate
  cache_clock::time_point error_until{};       ///< ttl + stale_if_error
  std::vector<std::string> tags;
  std::vector<std::uint64_t> tag_hashes;  ///< invalidation_log::hash_tag() of each tag
  std::uint32_t route = 0;                ///< index of its cached_route in the store
  mutable std::uint64_t charge = 0;       ///< bytes counted against the budget (variants added; under the shard lock)

  // A background refresh is queued or running for this entry (one per key).
  mutable std::atomic<bool> refreshing{false};

  // Variants: a slot is written once, by the one caller that set its tried
  // bit, and read only after its ready bit is seen.
  mutable std::mutex variant_mutex;
  mutable std::atomic<std::uint8_t> variants_ready{0};
  mutable std::uint8_t variants_tried = 0;  // guarded by variant_mutex
  mutable std::array<std::shared_ptr<const coded_variant>, compressed_coding_count> variants;

  /// The latest moment the entry may still be served (stale or not).
  cache_clock::time_point usable_until() const noexcept { return std::max(revalidate_until, error_until); }
};

}  // namespace stet::detail
