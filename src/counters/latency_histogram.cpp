#include <stet/latency_histogram.hpp>

#include "counters/counter_add.hpp"

#include <algorithm>

namespace stet {

using detail::single_writer_add;

std::size_t latency_histogram::bucket_of(std::chrono::nanoseconds d) noexcept {
  const auto us = static_cast<std::uint64_t>(std::max<std::int64_t>(d.count(), 0) / 1000);
  return static_cast<std::size_t>(std::upper_bound(bounds_us.begin(), bounds_us.end(), us) - bounds_us.begin());
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
