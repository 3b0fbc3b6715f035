#include "http/percent.hpp"

#include <gtest/gtest.h>

namespace {

using stet::detail::percent_decode_path;

TEST(PercentDecode, PathWithoutEscapesIsReturnedAsIs) {
  std::pmr::monotonic_buffer_resource arena;
  const std::string_view raw = "/a/b/c";
  const auto decoded = percent_decode_path(raw, arena);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->data(), raw.data());  // no copy
}

TEST(PercentDecode, DecodesEscapesIntoTheArena) {
  std::pmr::monotonic_buffer_resource arena;
  EXPECT_EQ(percent_decode_path("/a%20b/%E2%9C%93", arena), "/a b/\xE2\x9C\x93");
  EXPECT_EQ(percent_decode_path("/%2e%2E/x", arena), "/../x");
  EXPECT_EQ(percent_decode_path("/%2F", arena), "//");
}

TEST(PercentDecode, RejectsNulAndMalformedEscapes) {
  std::pmr::monotonic_buffer_resource arena;
  EXPECT_FALSE(percent_decode_path("/a%00b", arena));
  EXPECT_FALSE(percent_decode_path("/a%0", arena));
  EXPECT_FALSE(percent_decode_path("/a%", arena));
  EXPECT_FALSE(percent_decode_path("/a%zz", arena));
  EXPECT_FALSE(percent_decode_path("/a%g1", arena));
}

}  // namespace
