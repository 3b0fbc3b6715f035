#pragma once
// Why a handler run that began before an invalidation is never stored: every
// invalidation takes the next epoch and is remembered here; a run records the
// epoch it began in, and its answer is stored only if no invalidation since
// then covers it (same tag, same route, or all). Epochs, not timing: a refresh
// that finishes a microsecond after invalidate_tag() returns is still refused.
//
// Only the last `capacity` invalidations are kept; a run older than all of
// them is refused outright (it may only lose a store, never keep stale data).

#include <array>
#include <cstdint>
#include <mutex>
#include <span>
#include <string_view>

namespace stet::detail {

class invalidation_log {
 public:
  enum class scope : std::uint8_t { all, route, tag };
  static constexpr std::size_t capacity = 64;

  /// The epoch a run beginning now records.
  std::uint64_t now() const noexcept {
    const std::lock_guard lock(mutex_);
    return epoch_;
  }
  /// Records an invalidation (`value`: a route index or a tag's hash).
  void record(scope s, std::uint64_t value) noexcept;
  /// Whether an invalidation after `since` covers an answer of `route` with
  /// tags hashed to `tags`.
  bool covers(std::uint64_t since, std::uint32_t route, std::span<const std::uint64_t> tags) const noexcept;

  static std::uint64_t hash_tag(std::string_view tag) noexcept;

 private:
  struct record_t {
    scope what = scope::all;
    std::uint64_t value = 0;
  };
  mutable std::mutex mutex_;
  std::uint64_t epoch_ = 0;  // invalidations so far; record n lies at ring_[n % capacity]
  std::array<record_t, capacity> ring_{};
};

}  // namespace stet::detail
