#pragma once
// Process-wide counts of server-sent event streams, for /-/metrics and the
// status page (`stet_sse_*`). A stream is not tied to a worker's counters (its
// channel is used from any thread), so these are shared atomics, touched once
// per stream, per queued event and per written piece.

#include <atomic>
#include <cstdint>

namespace stet::detail {

struct event_stats {
  std::atomic<std::uint64_t> open{0};             // streams open now
  std::atomic<std::uint64_t> opened{0};           // streams opened since start
  std::atomic<std::uint64_t> events{0};           // events queued (sent, published, replayed)
  std::atomic<std::uint64_t> replayed{0};         // of which from a topic's history (Last-Event-ID)
  std::atomic<std::uint64_t> gaps{0};             // `gap` events: the history did not reach back far enough
  std::atomic<std::uint64_t> overflow_closed{0};  // streams ended because their queue was full
  std::atomic<std::uint64_t> heartbeats{0};       // comment lines sent for want of events
};

/// The one instance.
event_stats& sse_stats() noexcept;

}  // namespace stet::detail
