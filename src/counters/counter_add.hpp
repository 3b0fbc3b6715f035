#pragma once
// The two ways stet adds to a counter, named once. Both are relaxed atomics:
// a reader on another thread (the metrics route, the status page) sees a value
// without a data race, and without ordering anything else.

#include <atomic>
#include <cstdint>

namespace stet::detail {

/// A counter only one thread writes (a worker's own): a relaxed load and
/// store, no locked instruction, so it costs what a plain integer does.
inline void single_writer_add(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  c.store(c.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

/// A counter several threads write (a cache every worker shares): a locked add.
inline void shared_add(std::atomic<std::uint64_t>& c, std::uint64_t by = 1) noexcept {
  c.fetch_add(by, std::memory_order_relaxed);
}

}  // namespace stet::detail
