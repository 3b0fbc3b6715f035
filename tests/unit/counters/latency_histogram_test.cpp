// Test that header file is self-contained.
#include <stet/latency_histogram.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace {

using stet::latency_histogram;

// The definition: the first bucket whose bound is above the duration in whole
// microseconds (negative durations in the first), +Inf past the last bound.
std::size_t searched(std::int64_t ns) {
  const auto us = static_cast<std::uint64_t>(std::max<std::int64_t>(ns, 0) / 1000);
  const auto& b = latency_histogram::bounds_us;
  return static_cast<std::size_t>(std::upper_bound(b.begin(), b.end(), us) - b.begin());
}

TEST(LatencyHistogram, BucketOfAgreesWithASearchAtEveryBoundAndBetween) {
  for (const std::uint32_t bound : latency_histogram::bounds_us) {
    for (const std::int64_t us :
         {std::int64_t{bound} - 1, std::int64_t{bound}, std::int64_t{bound} + 1, std::int64_t{bound} * 3 / 2}) {
      for (const std::int64_t extra_ns : {0, 1, 999}) {
        const std::int64_t ns = us * 1000 + extra_ns;
        EXPECT_EQ(latency_histogram::bucket_of(std::chrono::nanoseconds(ns)), searched(ns)) << ns;
      }
    }
  }
  for (std::uint32_t shift = 0; shift < 63; ++shift) {
    const auto ns = static_cast<std::int64_t>(std::uint64_t{1} << shift);
    EXPECT_EQ(latency_histogram::bucket_of(std::chrono::nanoseconds(ns)), searched(ns)) << ns;
    EXPECT_EQ(latency_histogram::bucket_of(std::chrono::nanoseconds(ns - 1)), searched(ns - 1)) << ns - 1;
  }
  EXPECT_EQ(latency_histogram::bucket_of(std::chrono::nanoseconds(-5)), 0u);
  EXPECT_EQ(latency_histogram::bucket_of(std::chrono::nanoseconds(INT64_MAX)), latency_histogram::bounds_us.size());
}

TEST(LatencyHistogram, RecordCountsInTheBucketAndSums) {
  latency_histogram h;
  h.record(std::chrono::microseconds(3));
  h.record(std::chrono::seconds(20));
  const latency_histogram::snapshot s = h.read();
  EXPECT_EQ(s.counts[2], 1u);  // 3 us: under the 5 us bound
  EXPECT_EQ(s.counts.back(), 1u);
  EXPECT_EQ(s.count, 2u);
  EXPECT_NEAR(s.sum_seconds, 20.000003, 1e-9);
}

}  // namespace
