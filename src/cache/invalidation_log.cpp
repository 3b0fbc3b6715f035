#include "cache/invalidation_log.hpp"

#include <algorithm>
#include <functional>

namespace stet::detail {

void invalidation_log::record(scope s, std::uint64_t value) noexcept {
  const std::lock_guard lock(mutex_);
  ring_[epoch_ % capacity] = {s, value};
  ++epoch_;
}

bool invalidation_log::covers(std::uint64_t since, std::uint32_t route,
                              std::span<const std::uint64_t> tags) const noexcept {
  const std::lock_guard lock(mutex_);
  if (epoch_ == since) return false;
  if (epoch_ - since > capacity) return true;
  for (std::uint64_t n = since; n < epoch_; ++n) {
    const record_t& r = ring_[n % capacity];
    switch (r.what) {
      case scope::all: return true;
      case scope::route:
        if (r.value == route) return true;
        break;
      case scope::tag:
        if (std::find(tags.begin(), tags.end(), r.value) != tags.end()) return true;
        break;
    }
  }
  return false;
}

std::uint64_t invalidation_log::hash_tag(std::string_view tag) noexcept { return std::hash<std::string_view>{}(tag); }

}  // namespace stet::detail
