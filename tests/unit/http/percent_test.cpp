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

namespace {

using stet::detail::append_percent_encoded;
using stet::detail::path_slashes;

std::string encoded(std::string_view text, path_slashes slashes) {
  std::string out = "<";  // appends, never replaces
  append_percent_encoded(out, text, slashes);
  return out;
}

TEST(PercentEncode, CopiesPcharAsItIs) {
  const std::string_view pchar = "azAZ09-._~!$&'()*+,;=:@";
  EXPECT_EQ(encoded(pchar, path_slashes::escape), "<" + std::string(pchar));
  EXPECT_EQ(encoded("", path_slashes::escape), "<");
}

TEST(PercentEncode, EscapesEverythingElseInUppercaseHex) {
  EXPECT_EQ(encoded("a b", path_slashes::escape), "<a%20b");
  EXPECT_EQ(encoded("%", path_slashes::escape), "<%25");
  EXPECT_EQ(encoded("?#[]\"<>\\^`{|}", path_slashes::keep), "<%3F%23%5B%5D%22%3C%3E%5C%5E%60%7B%7C%7D");
  EXPECT_EQ(encoded(std::string_view("\0\x1f\x7f", 3), path_slashes::escape), "<%00%1F%7F");
  EXPECT_EQ(encoded("\xE2\x9C\x93", path_slashes::escape), "<%E2%9C%93");
}

TEST(PercentEncode, SlashIsKeptOnlyWhenAsked) {
  EXPECT_EQ(encoded("css/a b/site.css", path_slashes::keep), "<css/a%20b/site.css");
  EXPECT_EQ(encoded("css/a b/site.css", path_slashes::escape), "<css%2Fa%20b%2Fsite.css");
  EXPECT_EQ(encoded("/", path_slashes::escape), "<%2F");
}

TEST(PercentEncode, RoundTripsThroughTheDecoder) {
  std::pmr::monotonic_buffer_resource arena;
  std::string all;
  for (int c = 1; c < 256; ++c) all += static_cast<char>(c);  // %00 is refused by the path decoder
  std::string out;
  append_percent_encoded(out, all, path_slashes::escape);
  EXPECT_EQ(percent_decode_path(out, arena), all);
}

}  // namespace
