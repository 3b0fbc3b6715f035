#include <stet/latency_histogram.hpp>

#include "counters/counter_add.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace stet {

using detail::single_writer_add;

namespace {

// Every request records a few durations, so the bucket is found without a
// search: the bounds are at least a factor 2 apart, so a power-of-two range
// [2^(b-1), 2^b) holds at most one of them above its start. The bucket of the
// range's start, taken from this table by bit width, is then off by at most one.
constexpr std::array<std::uint8_t, 65> first_bucket_by_width = [] {
  std::array<std::uint8_t, 65> t{};
  constexpr auto& bounds = latency_histogram::bounds_us;
  for (std::size_t b = 0; b < t.size(); ++b) {
    const std::uint64_t low = b == 0 ? 0 : std::uint64_t{1} << (b - 1);
    std::size_t i = 0;
    while (i < bounds.size() && bounds[i] <= low) ++i;
    t[b] = static_cast<std::uint8_t>(i);
  }
  return t;
}();

}  // namespace

std::size_t latency_histogram::bucket_of(std::chrono::nanoseconds d) noexcept {
  const auto us = static_cast<std::uint64_t>(std::max<std::int64_t>(d.count(), 0) / 1000);
  const std::size_t i = first_bucket_by_width[static_cast<std::size_t>(std::bit_width(us))];
  return i < bounds_us.size() && us >= bounds_us[i] ? i + 1 : i;
}

void latency_histogram::record(std::chrono::nanoseconds d) noexcept {
  single_writer_add(counts_[bucket_of(d)]);
  single_writer_add(sum_ns_, static_cast<std::uint64_t>(d.count()));
}

latency_histogram::snapshot latency_histogram::read() const noexcept {
  snapshot s;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    s.counts[i] = counts_[i].load(std::memory_order_relaxed);
    s.count += s.counts[i];
  }
  s.sum_seconds = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
  return s;
}

void latency_histogram::snapshot::add(const snapshot& other) noexcept {
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
  count += other.count;
  sum_seconds += other.sum_seconds;
}

}  // namespace stet
