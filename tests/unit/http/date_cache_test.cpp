#include "http/date_cache.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace {

using stet::detail::date_cache;
using stet::detail::format_http_date;

TEST(DateCache, FormatsImfFixdate) {
  std::array<char, 29> out{};
  EXPECT_EQ(format_http_date(784111777, out), "Sun, 06 Nov 1994 08:49:37 GMT");  // RFC 9110's example
  EXPECT_EQ(format_http_date(0, out), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(format_http_date(951782400, out), "Tue, 29 Feb 2000 00:00:00 GMT");
}

TEST(DateCache, ReformatsOnlyWhenTheSecondChanges) {
  date_cache cache;
  const std::string first(cache.now());
  for (int i = 0; i < 1000; ++i) cache.now();
  // 1001 reads within (at most) two seconds: at most two formats.
  EXPECT_LE(cache.refreshes(), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const std::uint64_t before = cache.refreshes();
  const std::string later(cache.now());
  EXPECT_EQ(cache.refreshes(), before + 1);
  EXPECT_NE(first, later);
}

}  // namespace
