#include "metrics/exposition.hpp"

#include "support/prometheus_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

namespace {

using stet::latency_histogram;
using stet::detail::append_family;
using stet::detail::append_histogram;
using stet::detail::append_label_value;

latency_histogram::snapshot three_samples() {
  latency_histogram h;
  h.record(std::chrono::microseconds(1));   // bucket le=2e-06
  h.record(std::chrono::microseconds(30));  // bucket le=5e-05
  h.record(std::chrono::seconds(100));      // past every bound: +Inf only
  return h.read();
}

TEST(MetricsExposition, FamilyHeader) {
  std::string out;
  append_family(out, "stet_x_total", "Things.", "counter");
  EXPECT_EQ(out, "# HELP stet_x_total Things.\n# TYPE stet_x_total counter\n");
}

TEST(MetricsExposition, HistogramWithLabelsIsCumulativeAndEndsWithInfSumCount) {
  std::string out;
  append_family(out, "stet_t_seconds", "Time.", "histogram");
  append_histogram(out, "stet_t_seconds", R"(phase="parse")", three_samples());
  EXPECT_NE(out.find("stet_t_seconds_bucket{phase=\"parse\",le=\"1e-06\"} 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("stet_t_seconds_bucket{phase=\"parse\",le=\"2e-06\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("stet_t_seconds_bucket{phase=\"parse\",le=\"5e-05\"} 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("stet_t_seconds_bucket{phase=\"parse\",le=\"10\"} 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("stet_t_seconds_bucket{phase=\"parse\",le=\"+Inf\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("stet_t_seconds_sum{phase=\"parse\"} 100.000031\n"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("stet_t_seconds_count{phase=\"parse\"} 3\n")) << out;
  const auto parsed = stet::test::check_prometheus_text(out);
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  // One line per bound, then +Inf, sum and count.
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2 + latency_histogram::bounds_us.size() + 3);
}

// Bounds are only ever added: every `le` of the 16-bound histogram before
// #26 is still a series (dashboards and recording rules keep working), and
// I/O-bound times have 1-2-5 steps between 10 ms and 10 s.
TEST(MetricsExposition, EarlierBucketBoundsRemainAndIoBoundsAreFine) {
  std::string out;
  append_histogram(out, "stet_t_seconds", "", three_samples());
  for (const char* le :
       {"1e-06", "2e-06", "5e-06", "1e-05", "2e-05", "5e-05", "0.0001", "0.0002", "0.0005", "0.001", "0.002",
        "0.005", "0.01",  "0.1",   "1",     "10",    "0.02",  "0.05",   "0.2",    "0.5",    "2",     "5"}) {
    EXPECT_NE(out.find(std::string("stet_t_seconds_bucket{le=\"") + le + "\"}"), std::string::npos) << le << "\n"
                                                                                                    << out;
  }
  latency_histogram h;
  h.record(std::chrono::milliseconds(103));
  out.clear();
  append_histogram(out, "stet_t_seconds", "", h.read());
  EXPECT_NE(out.find("stet_t_seconds_bucket{le=\"0.1\"} 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("stet_t_seconds_bucket{le=\"0.2\"} 1\n"), std::string::npos) << out;
}

TEST(MetricsExposition, HistogramWithoutLabels) {
  std::string out;
  append_family(out, "stet_t_seconds", "Time.", "histogram");
  append_histogram(out, "stet_t_seconds", "", three_samples());
  EXPECT_NE(out.find("stet_t_seconds_bucket{le=\"2e-06\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("stet_t_seconds_bucket{le=\"+Inf\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nstet_t_seconds_sum 100.000031\n"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("\nstet_t_seconds_count 3\n")) << out;
  const auto parsed = stet::test::check_prometheus_text(out);
  EXPECT_TRUE(parsed.errors.empty()) << parsed.errors.front();
}

TEST(MetricsExposition, EmptyHistogramIsAllZeros) {
  std::string out;
  append_histogram(out, "h", "a=\"b\"", latency_histogram::snapshot{});
  EXPECT_NE(out.find("h_bucket{a=\"b\",le=\"+Inf\"} 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("h_sum{a=\"b\"} 0\n"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("h_count{a=\"b\"} 0\n")) << out;
}

TEST(MetricsExposition, LabelValueEscapesBackslashQuoteAndNewline) {
  std::string out;
  append_label_value(out, "GET /a\\b\"c\nd/{id}");
  EXPECT_EQ(out, "GET /a\\\\b\\\"c\\nd/{id}");
}

}  // namespace
