#include <stet/form.hpp>

#include "counters/memo_stats.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using stet::form_data;
using stet::parse_urlencoded;

std::vector<std::pair<std::string, std::string>> pairs_of(const form_data& f) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const stet::form_field& x : f.all()) out.emplace_back(x.name, x.value);
  return out;
}

using pairs = std::vector<std::pair<std::string, std::string>>;

TEST(Urlencoded, SplitsAndDecodes) {
  std::pmr::monotonic_buffer_resource arena;
  const form_data f = parse_urlencoded("q=hello+world&lang=en&page=2&sort=-date&x=%E2%9C%93", arena);
  EXPECT_EQ(f.size(), 5u);
  EXPECT_EQ(f.get("q"), "hello world");
  EXPECT_EQ(f.get("lang"), "en");
  EXPECT_EQ(f.get("sort"), "-date");
  EXPECT_EQ(f.get("x"), "\xE2\x9C\x93");
  EXPECT_FALSE(f.get("missing"));
}

TEST(Urlencoded, NamesAreDecodedToo) {
  std::pmr::monotonic_buffer_resource arena;
  const form_data f = parse_urlencoded("a+b=1&c%5B%5D=2&%3D=3", arena);
  EXPECT_EQ(pairs_of(f), (pairs{{"a b", "1"}, {"c[]", "2"}, {"=", "3"}}));
}

TEST(Urlencoded, RepeatedKeysKeepEveryValueInOrder) {
  std::pmr::monotonic_buffer_resource arena;
  const form_data f = parse_urlencoded("tag=b&x=1&tag=a&tag=c", arena);
  EXPECT_EQ(f.get("tag"), "b");
  const auto tags = f.get_all("tag");
  ASSERT_EQ(tags.size(), 3u);
  EXPECT_EQ(tags[0].value, "b");
  EXPECT_EQ(tags[1].value, "a");
  EXPECT_EQ(tags[2].value, "c");
  EXPECT_EQ(pairs_of(f), (pairs{{"tag", "b"}, {"x", "1"}, {"tag", "a"}, {"tag", "c"}}));
  ASSERT_EQ(f.sorted().size(), 4u);
  EXPECT_EQ(f.sorted()[0].name, "tag");
  EXPECT_EQ(f.sorted()[3].name, "x");
}

TEST(Urlencoded, MalformedEscapesAreKeptLiterally) {
  std::pmr::monotonic_buffer_resource arena;
  EXPECT_EQ(parse_urlencoded("a=100%", arena).get("a"), "100%");
  EXPECT_EQ(parse_urlencoded("a=%zz", arena).get("a"), "%zz");
  EXPECT_EQ(parse_urlencoded("a=%4", arena).get("a"), "%4");
  EXPECT_EQ(parse_urlencoded("a=%4g%41", arena).get("a"), "%4gA");
  EXPECT_EQ(parse_urlencoded("a=%%41", arena).get("a"), "%A");
  EXPECT_EQ(parse_urlencoded("a=%", arena).get("a"), "%");
  EXPECT_EQ(parse_urlencoded("%=%", arena).get("%"), "%");
}

TEST(Urlencoded, NulAndNonUtf8BytesAreDecodedAsBytes) {
  std::pmr::monotonic_buffer_resource arena;
  const form_data f = parse_urlencoded("a=x%00y&b=%ff%FE&c=\xc3\xa9", arena);
  EXPECT_EQ(f.get("a"), std::string_view("x\0y", 3));
  EXPECT_EQ(f.get("b"), "\xff\xfe");
  EXPECT_EQ(f.get("c"), "\xc3\xa9");
}

TEST(Urlencoded, EmptyPartsAndMissingEquals) {
  std::pmr::monotonic_buffer_resource arena;
  EXPECT_TRUE(parse_urlencoded("", arena).empty());
  EXPECT_TRUE(parse_urlencoded("&&&", arena).empty());
  EXPECT_EQ(pairs_of(parse_urlencoded("&a=1&&b&=v&c=&", arena)), (pairs{{"a", "1"}, {"b", ""}, {"", "v"}, {"c", ""}}));
  EXPECT_EQ(parse_urlencoded("a=b=c", arena).get("a"), "b=c");
  EXPECT_EQ(parse_urlencoded("flag", arena).get("flag"), "");
}

TEST(Urlencoded, PlainTextIsNotCopied) {
  std::pmr::monotonic_buffer_resource arena;
  const std::string text = "name=value&x=a+b";
  const form_data f = parse_urlencoded(text, arena);
  EXPECT_EQ(f.all()[0].name.data(), text.data());
  EXPECT_EQ(f.all()[0].value.data(), text.data() + 5);
  EXPECT_NE(f.all()[1].value.data(), text.data() + 13);  // decoded: a copy in the arena
}

TEST(Urlencoded, ManyFields) {
  std::pmr::monotonic_buffer_resource arena;
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "k" + std::to_string(i % 100) + "=" + std::to_string(i) + "&";
  EXPECT_EQ(stet::count_urlencoded_fields(text), 5000u);
  const form_data f = parse_urlencoded(text, arena);
  ASSERT_EQ(f.size(), 5000u);
  const auto k7 = f.get_all("k7");
  ASSERT_EQ(k7.size(), 50u);
  for (std::size_t i = 0; i < k7.size(); ++i) EXPECT_EQ(k7[i].value, std::to_string(7 + 100 * i));
}

TEST(Urlencoded, CountsWithoutDecoding) {
  EXPECT_EQ(stet::count_urlencoded_fields(""), 0u);
  EXPECT_EQ(stet::count_urlencoded_fields("a"), 1u);
  EXPECT_EQ(stet::count_urlencoded_fields("a&&b&"), 2u);
}

TEST(Urlencoded, CountsParses) {
  std::pmr::monotonic_buffer_resource arena;
  const std::uint64_t before = stet::detail::this_thread_memo_stats().urlencoded_parses;
  parse_urlencoded("a=1", arena);
  EXPECT_EQ(stet::detail::this_thread_memo_stats().urlencoded_parses, before + 1);
}

}  // namespace
