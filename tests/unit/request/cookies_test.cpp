#include <stet/cookies.hpp>
#include <stet/error.hpp>
#include <stet/response.hpp>

#include "counters/memo_stats.hpp"
#include "request/cookie_cache.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using stet::cookie_jar;
using stet::cookie_options;
using stet::parse_cookie_header;
using stet::detail::this_thread_memo_stats;
using namespace std::string_view_literals;

std::vector<std::string> names_of(const cookie_jar& jar) {
  std::vector<std::string> out;
  for (const stet::cookie& c : jar.all()) out.emplace_back(c.name);
  return out;
}

bool points_into(std::string_view part, std::string_view whole) {
  return part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size();
}

TEST(CookieParse, Rfc6265Examples) {
  std::pmr::monotonic_buffer_resource arena;
  const cookie_jar one = parse_cookie_header("SID=31d4d96e407aad42", arena);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one.get("SID"), "31d4d96e407aad42");

  const cookie_jar two = parse_cookie_header("SID=31d4d96e407aad42; lang=en-US", arena);
  EXPECT_EQ(two.size(), 2u);
  EXPECT_EQ(two.get("SID"), "31d4d96e407aad42");
  EXPECT_EQ(two.get("lang"), "en-US");
  EXPECT_EQ(names_of(two), (std::vector<std::string>{"SID", "lang"}));
}

TEST(CookieParse, WhitespaceAroundNamesAndValuesIsIgnored) {
  std::pmr::monotonic_buffer_resource arena;
  const cookie_jar jar = parse_cookie_header("  a = 1 ;b=2;\tc=3\t;d=x y", arena);
  EXPECT_EQ(jar.get("a"), "1");
  EXPECT_EQ(jar.get("b"), "2");
  EXPECT_EQ(jar.get("c"), "3");
  EXPECT_EQ(jar.get("d"), "x y");  // inner space kept, as browsers send it
}

TEST(CookieParse, QuotedValuesLoseTheirQuotes) {
  std::pmr::monotonic_buffer_resource arena;
  const cookie_jar jar = parse_cookie_header(R"(a="hello"; b=""; c="x; d=x"y; e=")", arena);
  EXPECT_EQ(jar.get("a"), "hello");
  EXPECT_EQ(jar.get("b"), "");
  EXPECT_FALSE(jar.contains("c"));  // unbalanced quote
  EXPECT_FALSE(jar.contains("d"));  // quote inside the value
  EXPECT_FALSE(jar.contains("e"));
}

TEST(CookieParse, BadPairsAreSkippedNotFatal) {
  std::pmr::monotonic_buffer_resource arena;
  const std::string header = std::string("noequals; =v; bad name=1; ok=1; a\x01=2; b=x\x7fy; c=back\\slash; ") +
                             std::string("n=a\0b", 5) + "; tab=a\tb; last=2";
  const cookie_jar jar = parse_cookie_header(header, arena);
  EXPECT_EQ(names_of(jar), (std::vector<std::string>{"ok", "last"}));
}

TEST(CookieParse, EmptyAndDegenerateHeaders) {
  std::pmr::monotonic_buffer_resource arena;
  EXPECT_TRUE(parse_cookie_header("", arena).empty());
  EXPECT_TRUE(parse_cookie_header(";;; ;", arena).empty());
  EXPECT_TRUE(parse_cookie_header("=", arena).empty());
  const cookie_jar jar = parse_cookie_header("a=", arena);
  ASSERT_EQ(jar.size(), 1u);
  EXPECT_EQ(jar.get("a"), "");
  EXPECT_EQ(parse_cookie_header("a=b=c", arena).get("a"), "b=c");
  EXPECT_FALSE(parse_cookie_header("a=1", arena).get("b"));
}

TEST(CookieParse, DuplicatesKeepEveryValueInOrder) {
  std::pmr::monotonic_buffer_resource arena;
  const cookie_jar jar = parse_cookie_header("z=0; a=1; m=x; a=2; a=3", arena);
  EXPECT_EQ(jar.get("a"), "1");
  const auto all = jar.get_all("a");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].value, "1");
  EXPECT_EQ(all[1].value, "2");
  EXPECT_EQ(all[2].value, "3");
  EXPECT_EQ(names_of(jar), (std::vector<std::string>{"z", "a", "m", "a", "a"}));
  EXPECT_EQ(jar.sorted().front().name, "a");
}

TEST(CookieParse, NamesAreCaseSensitive) {
  std::pmr::monotonic_buffer_resource arena;
  const cookie_jar jar = parse_cookie_header("Session=1; session=2", arena);
  EXPECT_EQ(jar.get("Session"), "1");
  EXPECT_EQ(jar.get("session"), "2");
  EXPECT_FALSE(jar.get("SESSION"));
}

TEST(CookieParse, NonUtf8BytesAreKeptAsSent) {
  std::pmr::monotonic_buffer_resource arena;
  const cookie_jar jar = parse_cookie_header("a=\xff\xfe\x80; b=caf\xc3\xa9", arena);
  EXPECT_EQ(jar.get("a"), "\xff\xfe\x80");
  EXPECT_EQ(jar.get("b"), "caf\xc3\xa9");
}

TEST(CookieParse, ViewsPointIntoTheHeader) {
  std::pmr::monotonic_buffer_resource arena;
  const std::string header = "a=1; bb=\"22\"";
  const cookie_jar jar = parse_cookie_header(header, arena);
  for (const stet::cookie& c : jar.all()) {
    EXPECT_TRUE(points_into(c.name, header));
    EXPECT_TRUE(points_into(c.value, header));
  }
}

TEST(CookieParse, HugeHeader) {
  std::pmr::monotonic_buffer_resource arena;
  std::string header;
  for (int i = 0; i < 5000; ++i) header += "c" + std::to_string(i) + "=" + std::to_string(i * 7) + "; ";
  const cookie_jar jar = parse_cookie_header(header, arena);
  EXPECT_EQ(jar.size(), 5000u);
  EXPECT_EQ(jar.get("c4999"), std::to_string(4999 * 7));
  EXPECT_EQ(jar.get("c0"), "0");
  EXPECT_EQ(jar.all()[1234].name, "c1234");
}

// --- the per-thread cache ---

class CookieCache : public ::testing::Test {
 protected:
  void SetUp() override { stet::detail::cookie_cache_clear(); }
  void TearDown() override { stet::detail::cookie_cache_clear(); }
  static std::string header(int i) { return "session=" + std::to_string(i) + "; theme=dark; lang=en"; }
};

TEST_F(CookieCache, HitRebuildsViewsIntoTheCurrentHeaderWithoutParsing) {
  std::pmr::monotonic_buffer_resource arena;
  const std::string first = "b=2; a=1; a=\"0\"";
  const cookie_jar j1 = stet::detail::cached_cookie_jar(first, arena);
  const std::uint64_t parses = this_thread_memo_stats().cookie_parses;
  const std::uint64_t hits = this_thread_memo_stats().cookie_cache_hits;

  const std::string second = first;  // same bytes, another buffer (the next request)
  const cookie_jar j2 = stet::detail::cached_cookie_jar(second, arena);
  EXPECT_EQ(this_thread_memo_stats().cookie_parses, parses);
  EXPECT_EQ(this_thread_memo_stats().cookie_cache_hits, hits + 1);
  EXPECT_EQ(names_of(j2), names_of(j1));
  EXPECT_EQ(j2.get("a"), "1");
  ASSERT_EQ(j2.get_all("a").size(), 2u);
  EXPECT_EQ(j2.get_all("a")[1].value, "0");
  for (const stet::cookie& c : j2.all()) {
    EXPECT_TRUE(points_into(c.name, second));
    EXPECT_TRUE(points_into(c.value, second));
  }
  for (const stet::cookie& c : j2.sorted()) EXPECT_TRUE(points_into(c.value, second));
}

TEST_F(CookieCache, NeverHoldsMoreThan128AndEvictsTheOldest) {
  std::pmr::monotonic_buffer_resource arena;
  const std::uint64_t evictions = this_thread_memo_stats().cookie_cache_evictions;
  for (int i = 0; i < 128; ++i) stet::detail::cached_cookie_jar(header(i), arena);
  EXPECT_EQ(stet::detail::cookie_cache_size(), 128u);
  stet::detail::cached_cookie_jar(header(0), arena);  // header 0 is now the most recent

  stet::detail::cached_cookie_jar(header(128), arena);
  EXPECT_EQ(stet::detail::cookie_cache_size(), 128u);
  EXPECT_TRUE(stet::detail::cookie_cache_contains(header(0)));
  EXPECT_FALSE(stet::detail::cookie_cache_contains(header(1)));  // the least recently used went
  EXPECT_TRUE(stet::detail::cookie_cache_contains(header(2)));
  EXPECT_TRUE(stet::detail::cookie_cache_contains(header(128)));

  for (int i = 129; i < 1000; ++i) {
    stet::detail::cached_cookie_jar(header(i), arena);
    ASSERT_LE(stet::detail::cookie_cache_size(), 128u);
  }
  EXPECT_EQ(this_thread_memo_stats().cookie_cache_evictions - evictions, 1000u - 128u);
  for (int i = 1000 - 128; i < 1000; ++i) EXPECT_TRUE(stet::detail::cookie_cache_contains(header(i)));
  EXPECT_FALSE(stet::detail::cookie_cache_contains(header(1000 - 129)));
}

TEST_F(CookieCache, EvictedEntryIsParsedAgainCorrectly) {
  std::pmr::monotonic_buffer_resource arena;
  for (int i = 0; i < 200; ++i) stet::detail::cached_cookie_jar(header(i), arena);
  const std::uint64_t parses = this_thread_memo_stats().cookie_parses;
  const std::string third = header(3);
  const cookie_jar jar = stet::detail::cached_cookie_jar(third, arena);
  EXPECT_EQ(this_thread_memo_stats().cookie_parses, parses + 1);
  EXPECT_EQ(jar.get("session"), "3");
}

TEST_F(CookieCache, HeadersOver8KiBBypassTheCache) {
  std::pmr::monotonic_buffer_resource arena;
  std::string big = "a=";
  big.append(8 * 1024 - big.size(), 'x');
  ASSERT_EQ(big.size(), stet::detail::cookie_cache_max_header_bytes);
  stet::detail::cached_cookie_jar(big, arena);
  EXPECT_TRUE(stet::detail::cookie_cache_contains(big));  // exactly 8 KiB is cached

  const std::uint64_t bypasses = this_thread_memo_stats().cookie_cache_bypasses;
  const std::string bigger = big + "y";
  const cookie_jar jar = stet::detail::cached_cookie_jar(bigger, arena);
  EXPECT_EQ(jar.get("a")->size(), 8 * 1024 - 1u);
  EXPECT_FALSE(stet::detail::cookie_cache_contains(bigger));
  EXPECT_EQ(stet::detail::cookie_cache_size(), 1u);
  EXPECT_EQ(this_thread_memo_stats().cookie_cache_bypasses, bypasses + 1);
}

TEST_F(CookieCache, DisabledCacheParsesEveryTime) {
  std::pmr::monotonic_buffer_resource arena;
  stet::detail::cookie_cache_enable(false);
  const std::uint64_t parses = this_thread_memo_stats().cookie_parses;
  stet::detail::cached_cookie_jar("a=1", arena);
  stet::detail::cached_cookie_jar("a=1", arena);
  stet::detail::cookie_cache_enable(true);
  EXPECT_EQ(this_thread_memo_stats().cookie_parses, parses + 2);
  EXPECT_EQ(stet::detail::cookie_cache_size(), 0u);
}

// --- Set-Cookie ---

TEST(SetCookie, DefaultsArePathRootHttpOnlyLax) {
  std::string out;
  EXPECT_FALSE(stet::append_set_cookie(out, "sid", "abc"));
  EXPECT_EQ(out, "sid=abc; Path=/; HttpOnly; SameSite=Lax");
}

TEST(SetCookie, EveryAttribute) {
  cookie_options o;
  o.path = "/app";
  o.domain = "example.com";
  o.max_age = std::chrono::hours(1);
  o.expires = std::chrono::system_clock::from_time_t(784111777);
  o.secure = true;
  o.http_only = true;
  o.same_site = stet::same_site::strict;
  std::string out;
  EXPECT_FALSE(stet::append_set_cookie(out, "id", "\"quoted\"", o));
  EXPECT_EQ(out,
            "id=\"quoted\"; Path=/app; Domain=example.com; Max-Age=3600; Expires=Sun, 06 Nov 1994 08:49:37 GMT; "
            "Secure; HttpOnly; SameSite=Strict");
}

TEST(SetCookie, MinimalAndNegativeMaxAge) {
  cookie_options o;
  o.path = "";
  o.http_only = false;
  o.same_site = stet::same_site::unset;
  o.max_age = std::chrono::seconds(-5);
  std::string out;
  EXPECT_FALSE(stet::append_set_cookie(out, "a", "", o));
  EXPECT_EQ(out, "a=; Max-Age=0");
  out.clear();
  o.max_age.reset();
  o.same_site = stet::same_site::none;
  o.secure = true;
  EXPECT_FALSE(stet::append_set_cookie(out, "a", "1", o));
  EXPECT_EQ(out, "a=1; Secure; SameSite=None");
}

TEST(SetCookie, BadNamesAreRefusedAndNothingWritten) {
  for (std::string_view name : {""sv, "a b"sv, "a;b"sv, "a=b"sv, "a,b"sv, "caf\xc3\xa9"sv, "a\r\nb"sv, "\"a\""sv}) {
    std::string out = "kept";
    EXPECT_EQ(stet::append_set_cookie(out, name, "v"), stet::error::invalid_cookie_name) << name;
    EXPECT_EQ(out, "kept");
  }
}

TEST(SetCookie, BadValuesAreRefusedAndNothingWritten) {
  const std::string nul("a\0b", 3);
  for (std::string_view value : {"a b"sv, "a;b"sv, "a,b"sv, "a\"b"sv, "a\\b"sv, "a\r\nSet-Cookie: x=y"sv,
                                 std::string_view(nul), "\xc3\xa9"sv, "\"a"sv, "\"a b\""sv, "\x7f"sv}) {
    std::string out;
    EXPECT_EQ(stet::append_set_cookie(out, "n", value), stet::error::invalid_cookie_value);
    EXPECT_EQ(out, "");
  }
}

TEST(SetCookie, BadAttributesAreRefused) {
  std::string out;
  cookie_options o;
  o.path = "/a;Domain=evil.com";
  EXPECT_EQ(stet::append_set_cookie(out, "n", "v", o), stet::error::invalid_cookie_attribute);
  o.path = "/a\nb";
  EXPECT_EQ(stet::append_set_cookie(out, "n", "v", o), stet::error::invalid_cookie_attribute);
  o.path = "/";
  o.domain = "exa mple.com";
  EXPECT_EQ(stet::append_set_cookie(out, "n", "v", o), stet::error::invalid_cookie_attribute);
  o.domain = "example.com; Secure";
  EXPECT_EQ(stet::append_set_cookie(out, "n", "v", o), stet::error::invalid_cookie_attribute);
  o.domain = ".example.com";
  EXPECT_FALSE(stet::append_set_cookie(out, "n", "v", o));
  EXPECT_EQ(out, "n=v; Path=/; Domain=.example.com; HttpOnly; SameSite=Lax");
}

TEST(SetCookie, CookiesBrowsersWouldDropWithoutSecureAreRefused) {
  std::string out;
  cookie_options o;
  o.same_site = stet::same_site::none;
  EXPECT_EQ(stet::append_set_cookie(out, "n", "v", o), stet::error::cookie_needs_secure);
  o.same_site = stet::same_site::lax;
  EXPECT_EQ(stet::append_set_cookie(out, "__Secure-n", "v", o), stet::error::cookie_needs_secure);
  EXPECT_EQ(stet::append_set_cookie(out, "__Host-n", "v", o), stet::error::cookie_needs_secure);
  o.secure = true;
  EXPECT_FALSE(stet::append_set_cookie(out, "__Secure-n", "v", o));
  o.domain = "example.com";
  EXPECT_EQ(stet::append_set_cookie(out, "__Host-n", "v", o), stet::error::cookie_needs_secure);
  o.domain = "";
  o.path = "/app";
  EXPECT_EQ(stet::append_set_cookie(out, "__Host-n", "v", o), stet::error::cookie_needs_secure);
  o.path = "/";
  out.clear();
  EXPECT_FALSE(stet::append_set_cookie(out, "__Host-n", "v", o));
  EXPECT_EQ(out, "__Host-n=v; Path=/; Secure; HttpOnly; SameSite=Lax");
}

TEST(SetCookie, ResponseWritesOneFieldPerCookie) {
  stet::response r;
  EXPECT_FALSE(r.set_cookie("a", "1"));
  EXPECT_EQ(r.set_cookie("b", "bad value"), stet::error::invalid_cookie_value);
  cookie_options bare;
  bare.path = "";
  bare.http_only = false;
  bare.same_site = stet::same_site::unset;
  EXPECT_FALSE(r.set_cookie("c", "3", bare));
  EXPECT_EQ(r.header_block(), "Set-Cookie: a=1; Path=/; HttpOnly; SameSite=Lax\r\nSet-Cookie: c=3\r\n");
}

TEST(SetCookie, ClearCookieExpiresIt) {
  stet::response r;
  EXPECT_FALSE(r.clear_cookie("sid"));
  EXPECT_EQ(r.header_block(),
            "Set-Cookie: sid=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax\r\n");
}

TEST(SetCookie, ErrorsHaveMessages) {
  for (stet::error e : {stet::error::invalid_cookie_name, stet::error::invalid_cookie_value,
                        stet::error::invalid_cookie_attribute, stet::error::cookie_needs_secure}) {
    EXPECT_NE(make_error_code(e).message(), "unknown stet error");
  }
}

}  // namespace
