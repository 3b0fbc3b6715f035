// RFC 9110 conditional and range decisions as table tests over the pure layer.
#include "http/conditional.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string_view>

namespace {

using namespace stet::detail;

constexpr std::string_view etag = "\"abc\"";
constexpr std::time_t modified = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT

representation_facts facts(std::uint64_t size = 1000) { return {etag, modified, size}; }

TEST(Conditional, EtagListsWeakAndStrong) {
  struct row {
    std::string_view list;
    bool weak_match;
    bool strong_match;
  };
  const row rows[] = {
      {"\"abc\"", true, true},
      {"W/\"abc\"", true, false},
      {"\"x\", \"abc\"", true, true},
      {"\"x\",W/\"abc\"", true, false},
      {"  \"x\" ,  \"abc\"  ", true, true},
      {"*", true, true},
      {" * ", true, true},
      {"\"ab\"", false, false},
      {"\"abcd\"", false, false},
      {"abc", false, false},             // unquoted: malformed
      {"\"x\", abc", false, false},      // malformed member stops the scan
      {"\"a,b\", \"abc\"", true, true},  // a comma inside an entity-tag
      {"", false, false},
      {"W/", false, false},
  };
  for (const row& r : rows) {
    EXPECT_EQ(etag_list_matches(r.list, etag, true), r.weak_match) << r.list;
    EXPECT_EQ(etag_list_matches(r.list, etag, false), r.strong_match) << r.list;
  }
}

TEST(Conditional, HttpDatesInAllThreeForms) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), modified);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), modified);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), modified);
  EXPECT_EQ(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
  EXPECT_EQ(parse_http_date("Tue, 29 Feb 2028 23:59:59 GMT"), 1835481599);
  EXPECT_FALSE(parse_http_date(""));
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 08:49:37 UTC"));
  EXPECT_FALSE(parse_http_date("Sun, 06 Foo 1994 08:49:37 GMT"));
  EXPECT_FALSE(parse_http_date("Sun, 6 Nov 1994 08:49:37 GMT"));
  EXPECT_FALSE(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT"));
  EXPECT_FALSE(parse_http_date("yesterday"));
}

TEST(Conditional, SingleRanges) {
  struct row {
    std::string_view value;
    std::uint64_t size;
    range_kind kind;
    std::uint64_t offset;
    std::uint64_t length;
  };
  const row rows[] = {
      {"bytes=0-9", 100, range_kind::satisfiable, 0, 10},
      {"bytes=10-", 100, range_kind::satisfiable, 10, 90},
      {"bytes=-10", 100, range_kind::satisfiable, 90, 10},
      {"bytes=-1000", 100, range_kind::satisfiable, 0, 100},
      {"bytes=90-1000", 100, range_kind::satisfiable, 90, 10},
      {"bytes=99-99", 100, range_kind::satisfiable, 99, 1},
      {"BYTES = 0-0", 100, range_kind::ignored, 0, 0},  // no space allowed before '='
      {"Bytes=0-0", 100, range_kind::satisfiable, 0, 1},
      {"bytes= 5-6 ", 100, range_kind::satisfiable, 5, 2},
      {"bytes=0-1,", 100, range_kind::satisfiable, 0, 2},
      {"bytes=100-", 100, range_kind::unsatisfiable, 0, 0},
      {"bytes=200-300", 100, range_kind::unsatisfiable, 0, 0},
      {"bytes=-0", 100, range_kind::unsatisfiable, 0, 0},
      {"bytes=0-", 0, range_kind::unsatisfiable, 0, 0},
      {"bytes=-5", 0, range_kind::unsatisfiable, 0, 0},
      {"bytes=9-5", 100, range_kind::ignored, 0, 0},
      {"bytes=0-1,5-6", 100, range_kind::ignored, 0, 0},  // multi-range: whole file
      {"bytes=a-b", 100, range_kind::ignored, 0, 0},
      {"bytes=-", 100, range_kind::ignored, 0, 0},
      {"bytes=5", 100, range_kind::ignored, 0, 0},
      {"items=0-5", 100, range_kind::ignored, 0, 0},
      {"bytes=0-99999999999999999999999", 100, range_kind::satisfiable, 0, 100},
      {"bytes=99999999999999999999999-", 100, range_kind::unsatisfiable, 0, 0},
  };
  for (const row& r : rows) {
    const byte_range got = parse_range(r.value, r.size);
    EXPECT_EQ(got.kind, r.kind) << r.value;
    EXPECT_EQ(got.offset, r.offset) << r.value;
    EXPECT_EQ(got.length, r.length) << r.value;
  }
}

TEST(Conditional, IfRangeNeedsAStrongMatchOrTheExactDate) {
  EXPECT_TRUE(if_range_holds("\"abc\"", facts()));
  EXPECT_FALSE(if_range_holds("W/\"abc\"", facts()));
  EXPECT_FALSE(if_range_holds("\"old\"", facts()));
  EXPECT_TRUE(if_range_holds("Sun, 06 Nov 1994 08:49:37 GMT", facts()));
  EXPECT_FALSE(if_range_holds("Sun, 06 Nov 1994 08:49:38 GMT", facts()));
  EXPECT_FALSE(if_range_holds("garbage", facts()));
}

// Conditions as the header fields that carry them; ":head" makes it a HEAD request.
request_conditions when(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  request_conditions c;
  for (const auto& [name, value] : fields) {
    if (name == ":head") c.head = true;
    if (name == "If-Match") c.if_match = value;
    if (name == "If-None-Match") c.if_none_match = value;
    if (name == "If-Modified-Since") c.if_modified_since = value;
    if (name == "If-Unmodified-Since") c.if_unmodified_since = value;
    if (name == "Range") c.range = value;
    if (name == "If-Range") c.if_range = value;
  }
  return c;
}

struct evaluate_row {
  const char* name;
  request_conditions conditions;
  outcome expected;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

TEST(Conditional, EvaluatePrecedence) {
  using o = outcome;
  const std::string_view later = "Mon, 07 Nov 1994 00:00:00 GMT";
  const std::string_view earlier = "Sat, 05 Nov 1994 00:00:00 GMT";
  const evaluate_row rows[] = {
      {"nothing", when({}), o::full, 0, 1000},
      {"inm match", when({{"If-None-Match", "\"abc\""}}), o::not_modified},
      {"inm weak match", when({{"If-None-Match", "W/\"abc\""}}), o::not_modified},
      {"inm star", when({{"If-None-Match", "*"}}), o::not_modified},
      {"inm list", when({{"If-None-Match", "\"x\", \"abc\""}}), o::not_modified},
      {"inm miss", when({{"If-None-Match", "\"x\""}}), o::full, 0, 1000},
      {"ims later", when({{"If-Modified-Since", later}}), o::not_modified},
      {"ims equal", when({{"If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"}}), o::not_modified},
      {"ims earlier", when({{"If-Modified-Since", earlier}}), o::full, 0, 1000},
      {"ims bad date", when({{"If-Modified-Since", "nope"}}), o::full, 0, 1000},
      {"inm miss beats ims", when({{"If-None-Match", "\"x\""}, {"If-Modified-Since", later}}), o::full, 0, 1000},
      {"if-match miss", when({{"If-Match", "\"x\""}}), o::precondition_failed},
      {"if-match weak", when({{"If-Match", "W/\"abc\""}}), o::precondition_failed},
      {"if-match ok", when({{"If-Match", "\"abc\""}}), o::full, 0, 1000},
      {"ius earlier", when({{"If-Unmodified-Since", earlier}}), o::precondition_failed},
      {"ius later", when({{"If-Unmodified-Since", later}}), o::full, 0, 1000},
      {"range", when({{"Range", "bytes=10-19"}}), o::partial, 10, 10},
      {"range head", when({{":head", ""}, {"Range", "bytes=10-19"}}), o::full, 0, 1000},
      {"range 416", when({{"Range", "bytes=1000-"}}), o::range_not_satisfiable},
      {"multi range", when({{"Range", "bytes=0-1,3-4"}}), o::full, 0, 1000},
      {"if-range ok", when({{"Range", "bytes=0-0"}, {"If-Range", "\"abc\""}}), o::partial, 0, 1},
      {"if-range stale", when({{"Range", "bytes=0-0"}, {"If-Range", "\"old\""}}), o::full, 0, 1000},
      {"if-range stale 416", when({{"Range", "bytes=5000-"}, {"If-Range", "\"old\""}}), o::full, 0, 1000},
      {"304 beats range", when({{"If-None-Match", "\"abc\""}, {"Range", "bytes=0-0"}}), o::not_modified},
  };
  for (const evaluate_row& r : rows) {
    const decision d = evaluate(r.conditions, facts());
    EXPECT_EQ(d.kind, r.expected) << r.name;
    EXPECT_EQ(d.offset, r.offset) << r.name;
    EXPECT_EQ(d.length, r.length) << r.name;
  }
}

TEST(Conditional, DatesIgnoredWithoutLastModified) {
  representation_facts f = facts();
  f.last_modified.reset();
  request_conditions c;
  c.if_modified_since = "Mon, 07 Nov 1994 00:00:00 GMT";
  EXPECT_EQ(evaluate(c, f).kind, outcome::full);
}

}  // namespace
