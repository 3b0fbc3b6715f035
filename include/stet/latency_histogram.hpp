#pragma once
/// @file
/// The histogram behind every duration stet reports (request phases, handler
/// time per route, offload waits, TLS handshakes): fixed 1-2-5 buckets from
/// 1 us to 10 s, fine enough that a quantile interpolated inside a bucket is
/// off by less than the bucket's width for I/O-bound routes too.

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace stet {

/// A histogram with fixed 1-2-5 buckets, written by one thread and read
/// by any (relaxed atomics: no lock, no read-modify-write on the hot path).
class latency_histogram {
 public:
  /// Upper bounds in microseconds; the last bucket is +Inf.
  static constexpr std::array<std::uint32_t, 22> bounds_us = {
      1,     2,      5,      10,     20,      50,      100,     200,       500,       1'000,     2'000,
      5'000, 10'000, 20'000, 50'000, 100'000, 200'000, 500'000, 1'000'000, 2'000'000, 5'000'000, 10'000'000};

  /// The bucket `d` falls in: the first whose bound is above it (negative
  /// durations in the first), bounds_us.size() for +Inf.
  static std::size_t bucket_of(std::chrono::nanoseconds d) noexcept;

  /// Counts one duration (negative ones as 0) in its bucket and the sum; the
  /// owning thread only.
  void record(std::chrono::nanoseconds d) noexcept;
  /// The histogram's values at one moment, summable over histograms.
  struct snapshot {
    std::array<std::uint64_t, bounds_us.size() + 1> counts{};  ///< per bucket (not cumulative), +Inf last
    std::uint64_t count = 0;                                   ///< every duration recorded
    double sum_seconds = 0;                                    ///< their sum
    /// Adds `other`'s counts and sum to these.
    void add(const snapshot& other) noexcept;
  };
  /// The current values (any thread; relaxed loads, so buckets read a moment
  /// apart may disagree by the durations recorded meanwhile).
  snapshot read() const noexcept;

 private:
  std::array<std::atomic<std::uint64_t>, bounds_us.size() + 1> counts_{};
  std::atomic<std::uint64_t> sum_ns_{0};
};

}  // namespace stet
