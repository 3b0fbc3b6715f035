#include <stet/json.hpp>

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace shop {

struct point {
  double x = 0;
  double y = 0;
};

void to_json(stet::json::writer& w, const point& p) { w.begin_object().member("x", p.x).member("y", p.y).end_object(); }

struct order {
  std::int64_t id = 0;
  std::string customer;
  std::vector<point> route;
  std::optional<std::string> note;
};

void to_json(stet::json::writer& w, const order& o) {
  w.object([&](stet::json::writer& out) {
    out.member("id", o.id).member("customer", o.customer).member("route", o.route).member("note", o.note);
  });
}

// A recursive type, to check that the depth guard also stops user recursion.
struct chain {
  std::unique_ptr<chain> next;
};

void to_json(stet::json::writer& w, const chain& c) {
  w.begin_array();
  if (c.next) w.value(*c.next);
  w.end_array();
}

struct not_opted_in {};

}  // namespace shop

namespace {

using namespace std::string_literals;
using stet::json::errc;
using stet::json::writer;

static_assert(stet::json::serializable<shop::point>);
static_assert(stet::json::serializable<std::vector<std::optional<shop::order>>>);
static_assert(stet::json::serializable<std::map<std::string, std::vector<int>>>);
static_assert(stet::json::serializable<const char*>);
static_assert(stet::json::serializable<std::span<const double>>);
static_assert(!stet::json::serializable<shop::not_opted_in>);
static_assert(!stet::json::serializable<std::vector<shop::not_opted_in>>);
static_assert(!stet::json::serializable<std::map<int, int>>);
static_assert(!stet::json::serializable<char>);
static_assert(!stet::json::serializable<std::vector<char>>);

template <typename T>
std::string to_json(const T& v) {
  return stet::json::to_string(v);
}

std::string escaped(std::string_view text) {
  std::string out;
  stet::json::escape(out, text);
  return out;
}

// simdjson is a strict validating parser (UTF-8 included): anything it accepts is JSON.
class JsonWriter : public ::testing::Test {
 protected:
  simdjson::dom::element parse(const std::string& json) {
    simdjson::dom::element root;
    const simdjson::error_code error = parser_.parse(json).get(root);
    EXPECT_EQ(error, simdjson::SUCCESS) << simdjson::error_message(error) << " in: " << json;
    return root;
  }
  std::string_view parse_string(const std::string& json) {
    std::string_view text;
    EXPECT_EQ(parse(json).get_string().get(text), simdjson::SUCCESS) << json;
    return text;
  }
  double parse_double(const std::string& json) {
    double x = 0;
    EXPECT_EQ(parse(json).get_double().get(x), simdjson::SUCCESS) << json;
    return x;
  }

  simdjson::dom::parser parser_;
};

TEST_F(JsonWriter, WritesScalarsAndStructure) {
  std::string out;
  writer w(out);
  w.begin_object()
      .key("s")
      .string("x")
      .key("i")
      .number(-7)
      .key("u")
      .number(7u)
      .key("d")
      .number(0.5)
      .key("t")
      .boolean(true)
      .key("f")
      .boolean(false)
      .key("n")
      .null()
      .key("a")
      .begin_array()
      .begin_array()
      .end_array()
      .begin_object()
      .end_object()
      .number(1)
      .end_array()
      .end_object();
  EXPECT_EQ(out, R"({"s":"x","i":-7,"u":7,"d":0.5,"t":true,"f":false,"n":null,"a":[[],{},1]})");
  EXPECT_TRUE(w.ok());
  EXPECT_TRUE(w.complete());
  EXPECT_EQ(w.depth(), 0u);
}

TEST_F(JsonWriter, AppendsAfterExistingContent) {
  std::string out = "data: ";
  writer w(out);
  w.value(std::vector<int>{1, 2});
  EXPECT_EQ(out, "data: [1,2]");
  EXPECT_EQ(&w.buffer(), &out);
}

TEST_F(JsonWriter, CallbacksAndRawFragments) {
  const std::string cached = R"({"stet":"0.1.0"})";
  std::string out;
  writer w(out);
  w.object([&](writer& o) {
    o.key("versions").raw(cached);
    o.key("list").array([](writer& a) {
      for (int i = 0; i < 3; ++i) a.value(i);
    });
  });
  EXPECT_EQ(out, R"({"versions":{"stet":"0.1.0"},"list":[0,1,2]})");
  EXPECT_TRUE(w.complete());
}

TEST_F(JsonWriter, EscapesEveryControlCharacter) {
  const std::array<std::string_view, 32> expected = {
      R"(\u0000)", R"(\u0001)", R"(\u0002)", R"(\u0003)", R"(\u0004)", R"(\u0005)", R"(\u0006)", R"(\u0007)",
      R"(\b)",     R"(\t)",     R"(\n)",     R"(\u000b)", R"(\f)",     R"(\r)",     R"(\u000e)", R"(\u000f)",
      R"(\u0010)", R"(\u0011)", R"(\u0012)", R"(\u0013)", R"(\u0014)", R"(\u0015)", R"(\u0016)", R"(\u0017)",
      R"(\u0018)", R"(\u0019)", R"(\u001a)", R"(\u001b)", R"(\u001c)", R"(\u001d)", R"(\u001e)", R"(\u001f)"};
  std::string all;
  for (int c = 0; c < 0x20; ++c) {
    const std::string one(1, static_cast<char>(c));
    EXPECT_EQ(escaped(one), expected[static_cast<std::size_t>(c)]) << c;
    EXPECT_EQ(parse_string(to_json(one)), one) << c;
    all += one;
  }
  EXPECT_EQ(parse_string(to_json(all)), all);
}

TEST_F(JsonWriter, EscapesQuoteAndBackslashAndNothingElseAscii) {
  EXPECT_EQ(escaped(R"(say "hi" \o/)"), R"(say \"hi\" \\o/)");
  std::string printable;
  for (int c = 0x20; c < 0x80; ++c) {
    if (c != '"' && c != '\\') printable += static_cast<char>(c);
  }
  EXPECT_EQ(escaped(printable), printable);  // '/' and DEL included
  EXPECT_EQ(to_json(R"(a"b\c)"s), R"("a\"b\\c")");
  EXPECT_EQ(parse_string(to_json("\"\\\"\\"s)), "\"\\\"\\");
}

// The fast paths check eight bytes at a time, and short strings take another
// route than long ones: put every kind of special byte at every offset of strings
// around those widths, through both json::escape() and the writer.
TEST_F(JsonWriter, EscapesAtEveryOffset) {
  struct special {
    std::string_view in;
    std::string_view out;
  };
  const special specials[] = {{"\"", "\\\""},
                              {"\\", "\\\\"},
                              {"\n", "\\n"},
                              {"\x01", "\\u0001"},
                              {"\x1f", "\\u001f"},
                              {"\x7f", "\x7f"},
                              {"\xc3\xa9", "\xc3\xa9"},
                              {"\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},
                              {"\xff", "\xef\xbf\xbd"},
                              {"\xe2\x82", "\xef\xbf\xbd"}};
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 24; ++n) lengths.push_back(n);
  for (std::size_t n = 56; n <= 72; ++n) lengths.push_back(n);
  lengths.push_back(200);
  for (std::size_t length : lengths) {
    for (std::size_t pos = 0; pos <= length; ++pos) {
      for (const special& s : specials) {
        const std::string in = std::string(pos, 'a') + std::string(s.in) + std::string(length - pos, 'b');
        const std::string out = std::string(pos, 'a') + std::string(s.out) + std::string(length - pos, 'b');
        ASSERT_EQ(escaped(in), out) << "length " << length << " pos " << pos;
        ASSERT_EQ(to_json(in), '"' + out + '"') << "length " << length << " pos " << pos;
        ASSERT_EQ(to_json(std::map<std::string, int>{{in, 1}}), "{\"" + out + "\":1}") << length << " " << pos;
      }
    }
  }
}

// Short strings end with a word-sized copy of their last bytes (or, under
// eight bytes, two overlapping four-byte ones) when those are plain: two
// specials at every pair of offsets, so that tail copy meets escaped,
// multi-byte and replaced bytes before it, at each place in the word.
TEST_F(JsonWriter, EscapesPairsAtEveryOffsetOfShortStrings) {
  struct special {
    std::string_view in;
    std::string_view out;
  };
  const special specials[] = {{"\"", "\\\""}, {"\x01", "\\u0001"}, {"\xc3\xa9", "\xc3\xa9"}, {"\xff", "\xef\xbf\xbd"}};
  for (std::size_t length = 0; length <= 20; ++length) {
    for (std::size_t first = 0; first <= length; ++first) {
      for (std::size_t second = first; second <= length; ++second) {
        for (const special& a : specials) {
          for (const special& b : specials) {
            const std::string in = std::string(first, 'a') + std::string(a.in) + std::string(second - first, 'b') +
                                   std::string(b.in) + std::string(length - second, 'c');
            const std::string out = std::string(first, 'a') + std::string(a.out) + std::string(second - first, 'b') +
                                    std::string(b.out) + std::string(length - second, 'c');
            ASSERT_EQ(to_json(in), '"' + out + '"') << length << " " << first << " " << second;
            ASSERT_EQ(escaped(in), out) << length << " " << first << " " << second;
          }
        }
      }
    }
  }
}

TEST_F(JsonWriter, ValidUtf8IsCopiedUnchanged) {
  const std::string_view samples[] = {
      "\xc2\x80",          // U+0080, smallest two-byte
      "\xdf\xbf",          // U+07FF
      "\xe0\xa0\x80",      // U+0800, smallest three-byte
      "\xed\x9f\xbf",      // U+D7FF, just below the surrogates
      "\xee\x80\x80",      // U+E000, just above
      "\xef\xbf\xbf",      // U+FFFF
      "\xf0\x90\x80\x80",  // U+10000, smallest four-byte
      "\xf4\x8f\xbf\xbf",  // U+10FFFF, the largest
      "\xe2\x80\xa8",      // U+2028, copied (valid JSON)
      "Gr\xc3\xbc\xc3\x9f"
      "e, \xe4\xb8\x96\xe7\x95\x8c, \xf0\x9f\x8d\xa3 and \xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82"};
  for (std::string_view s : samples) {
    EXPECT_EQ(escaped(s), s);
    EXPECT_EQ(parse_string(to_json(s)), s);
  }
}

TEST_F(JsonWriter, InvalidUtf8BecomesOneReplacementPerMaximalSubpart) {
  constexpr std::string_view r = "\xef\xbf\xbd";
  const auto rep = [&](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += r;
    return s;
  };
  struct example {
    std::string_view in;
    std::string expected;
  };
  const example examples[] = {
      // Unicode 15, table 3-8: truncated sequences each count once.
      {"\x61\xf1\x80\x80\xe1\x80\xc2\x62\x80\x63\x80\xbf\x64", "a" + rep(3) + "b" + rep(1) + "c" + rep(2) + "d"},
      {"\x80", rep(1)},                       // lone continuation byte
      {"\xbf\xbf", rep(2)},                   // two of them
      {"\xc0\xaf", rep(2)},                   // overlong '/'
      {"\xc1\xbf", rep(2)},                   // overlong
      {"\xe0\x80\xaf", rep(3)},               // overlong three-byte
      {"\xf0\x80\x80\xaf", rep(4)},           // overlong four-byte
      {"\xed\xa0\x80", rep(3)},               // surrogate U+D800
      {"\xed\xbf\xbf", rep(3)},               // surrogate U+DFFF
      {"\xf4\x90\x80\x80", rep(4)},           // U+110000
      {"\xf5\x80\x80\x80", rep(4)},           // lead byte never valid
      {"\xfe\xff", rep(2)},                   //
      {"x\xe2\x82", "x" + rep(1)},            // truncated at the end
      {"\xe2\x82x", rep(1) + "x"},            // truncated in the middle
      {"\xf0\x9f\x98", rep(1)},               // truncated four-byte
      {"\xc3\n", rep(1) + "\\n"},             // cut short by a byte to escape
      {"\xc3\xa9\xa9", "\xc3\xa9" + rep(1)},  // valid then a stray continuation
  };
  for (const example& e : examples) {
    EXPECT_EQ(escaped(e.in), e.expected) << testing::PrintToString(std::string(e.in));
    const std::string json = to_json(e.in);
    EXPECT_TRUE(simdjson::validate_utf8(json.data(), json.size()));
    parse(json);
  }
}

TEST_F(JsonWriter, RandomBytesAlwaysGiveValidJson) {
  std::mt19937 rng(12345);
  const std::string_view alphabet[] = {"a",
                                       "Z",
                                       " ",
                                       "\"",
                                       "\\",
                                       "\n",
                                       "\x01",
                                       "\x7f",
                                       "\x80",
                                       "\xbf",
                                       "\xc2",
                                       "\xc3\xa9",
                                       "\xe0",
                                       "\xe2\x82\xac",
                                       "\xed",
                                       "\xf0",
                                       "\xf0\x9f\x8d\xa3",
                                       "\xf4",
                                       "\xf5",
                                       "\xff"};
  std::uniform_int_distribution<std::size_t> pick(0, std::size(alphabet) - 1);
  std::uniform_int_distribution<int> length(0, 120);
  for (int i = 0; i < 3000; ++i) {
    std::string in;
    for (int n = length(rng); n > 0; --n) in += alphabet[pick(rng)];
    const std::string json = to_json(in);
    ASSERT_EQ(json, '"' + escaped(in) + '"');  // both encoders agree
    const std::string_view back = parse_string(json);
    if (simdjson::validate_utf8(in.data(), in.size())) {
      ASSERT_EQ(back, in);
    } else {
      ASSERT_NE(back.find("\xef\xbf\xbd"), std::string_view::npos);
    }
  }
}

TEST_F(JsonWriter, IntegersAreExact) {
  EXPECT_EQ(to_json(std::numeric_limits<std::int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(to_json(std::numeric_limits<std::int64_t>::max()), "9223372036854775807");
  EXPECT_EQ(to_json(std::numeric_limits<std::uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(to_json(std::int8_t{-128}), "-128");
  EXPECT_EQ(to_json(std::uint8_t{255}), "255");
  EXPECT_EQ(to_json(short{-32768}), "-32768");
  EXPECT_EQ(to_json(0u), "0");
  EXPECT_EQ(to_json(-1L), "-1");

  std::int64_t i = 0;
  ASSERT_EQ(parse(to_json(std::numeric_limits<std::int64_t>::min())).get_int64().get(i), simdjson::SUCCESS);
  EXPECT_EQ(i, std::numeric_limits<std::int64_t>::min());
  std::uint64_t u = 0;
  ASSERT_EQ(parse(to_json(std::numeric_limits<std::uint64_t>::max())).get_uint64().get(u), simdjson::SUCCESS);
  EXPECT_EQ(u, std::numeric_limits<std::uint64_t>::max());
}

TEST_F(JsonWriter, DoublesAreShortestAndReadBackExactly) {
  EXPECT_EQ(to_json(0.1), "0.1");
  EXPECT_EQ(to_json(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(to_json(1.0), "1.0");
  EXPECT_EQ(to_json(100.0), "100.0");
  EXPECT_EQ(to_json(-0.0), "-0.0");
  EXPECT_EQ(to_json(1e300), "1e+300");
  EXPECT_EQ(to_json(1e21), "1e+21");
  EXPECT_EQ(to_json(1e-7), "1e-07");
  EXPECT_EQ(to_json(9007199254740992.0), "9007199254740992.0");
  EXPECT_EQ(to_json(123456789012345680000.0), "1.2345678901234568e+20");  // not 21 integer digits

  const double corpus[] = {0.0,
                           -0.0,
                           0.1,
                           1.0 / 3.0,
                           -2.5,
                           3.141592653589793,
                           6.02214076e23,
                           1e21,
                           1e22,
                           123456789012345680000.0,
                           18446744073709551616.0,
                           9007199254740993.0,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::epsilon(),
                           2.2250738585072009e-308,
                           5e-324,
                           1e-7,
                           4.35,
                           0.000001,
                           1e15,
                           1e16,
                           1234567.125};
  for (double x : corpus) {
    const std::string json = to_json(x);
    const double back = parse_double(json);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back), std::bit_cast<std::uint64_t>(x)) << json;
    EXPECT_NE(json.find_first_of(".e"), std::string::npos) << json;
  }
}

TEST_F(JsonWriter, RandomDoublesReadBackExactly) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 20000; ++i) {
    const double x = std::bit_cast<double>(rng());
    const std::string json = to_json(x);
    if (!std::isfinite(x)) {
      ASSERT_EQ(json, "null");
      continue;
    }
    ASSERT_EQ(std::bit_cast<std::uint64_t>(parse_double(json)), std::bit_cast<std::uint64_t>(x)) << json;
  }
}

TEST_F(JsonWriter, FloatsUseFloatPrecision) {
  EXPECT_EQ(to_json(0.1f), "0.1");
  EXPECT_EQ(to_json(16777216.0f), "16777216.0");
  EXPECT_EQ(to_json(std::numeric_limits<float>::max()), "3.4028235e+38");
  EXPECT_EQ(static_cast<float>(parse_double(to_json(1.17549435e-38f))), 1.17549435e-38f);
  EXPECT_EQ(to_json(2.5L), "2.5");
}

TEST_F(JsonWriter, NonFiniteNumbersAreWrittenAsNull) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 1.5,
                                      -std::numeric_limits<double>::signaling_NaN()};
  EXPECT_EQ(to_json(values), "[null,null,null,1.5,null]");
  EXPECT_EQ(to_json(std::numeric_limits<float>::quiet_NaN()), "null");
  EXPECT_EQ(to_json(-std::numeric_limits<float>::infinity()), "null");
  std::string out;
  writer w(out);
  w.begin_object().member("ratio", 0.0 / std::numeric_limits<double>::quiet_NaN()).member("n", 1).end_object();
  EXPECT_EQ(out, R"({"ratio":null,"n":1})");
  EXPECT_TRUE(w.ok());
  parse(out);
}

std::string nested_arrays(writer& w, std::size_t depth) {
  for (std::size_t i = 0; i < depth; ++i) w.begin_array();
  for (std::size_t i = 0; i < depth; ++i) w.end_array();
  return w.buffer();
}

TEST_F(JsonWriter, NestingUpToTheLimitIsWritten) {
  std::string out;
  writer w(out);
  nested_arrays(w, 128);
  EXPECT_TRUE(w.ok());
  EXPECT_TRUE(w.complete());
  EXPECT_EQ(out, std::string(128, '[') + std::string(128, ']'));

  std::string deep;
  writer at_cap(deep, {.max_depth = 5000});
  nested_arrays(at_cap, writer::max_depth_cap);
  EXPECT_TRUE(at_cap.ok());
  parse(deep);  // simdjson reads up to 1024 levels by default
}

TEST_F(JsonWriter, NestingPastTheLimitBecomesNull) {
  std::string out;
  writer w(out, {.max_depth = 3});
  w.begin_array().begin_object().key("a").begin_array();
  w.begin_array().number(1).begin_object().end_object().end_array();  // level 4: dropped
  w.number(2).end_array().member("b", true).end_object().end_array();
  EXPECT_EQ(out, R"([{"a":[null,2],"b":true}])");
  EXPECT_EQ(w.error(), errc::depth_exceeded);
  EXPECT_TRUE(w.complete());
  parse(out);

  std::string zero;
  writer flat(zero, {.max_depth = 0});
  flat.value(std::vector<int>{1, 2});
  EXPECT_EQ(zero, "null");
  EXPECT_TRUE(flat.complete());
  EXPECT_EQ(flat.error(), errc::depth_exceeded);
}

TEST_F(JsonWriter, RecursiveUserTypesStopAtTheLimit) {
  shop::chain head;
  shop::chain* tail = &head;
  for (int i = 0; i < 100000; ++i) {
    tail->next = std::make_unique<shop::chain>();
    tail = tail->next.get();
  }
  std::string out;
  writer w(out);
  w.value(head);
  EXPECT_EQ(w.error(), errc::depth_exceeded);
  EXPECT_TRUE(w.complete());
  EXPECT_EQ(out, std::string(128, '[') + "null" + std::string(128, ']'));
  parse(out);
  // Unlink iteratively: the default destructor would recurse 100000 deep.
  for (auto next = std::move(head.next); next;) next = std::move(next->next);
}

TEST_F(JsonWriter, MisuseIsDroppedReportedAndStaysWellFormed) {
  struct call_case {
    const char* name;
    void (*calls)(writer&);
    std::string_view expected;
    errc error;
    bool complete;
  };
  const call_case cases[] = {
      {"value without key", [](writer& w) { w.begin_object().number(1).member("a", 2).end_object(); }, R"({"a":2})",
       errc::key_expected, true},
      {"array without key",
       [](writer& w) { w.begin_object().begin_array().number(1).end_array().member("a", 2).end_object(); },
       R"({"a":2})", errc::key_expected, true},
      {"key in array", [](writer& w) { w.begin_array().key("k").number(1).end_array(); }, "[1]", errc::unexpected_key,
       true},
      {"key at root", [](writer& w) { w.key("k").number(1); }, "1", errc::unexpected_key, true},
      {"two keys", [](writer& w) { w.begin_object().key("a").key("b").number(1).end_object(); }, R"({"a":1})",
       errc::unexpected_key, true},
      {"dangling key", [](writer& w) { w.begin_object().key("a").end_object(); }, R"({"a":null})", errc::value_expected,
       true},
      {"wrong end", [](writer& w) { w.begin_array().end_object().end_array(); }, "[]", errc::unbalanced_end, true},
      {"end at root", [](writer& w) { w.end_array(); }, "", errc::unbalanced_end, false},
      {"two roots", [](writer& w) { w.number(1).number(2).begin_array().number(3).end_array(); }, "1",
       errc::multiple_roots, true},
      {"first error kept", [](writer& w) { w.begin_array().key("k").end_object().end_array(); }, "[]",
       errc::unexpected_key, true},
      {"unclosed", [](writer& w) { w.begin_array().number(1); }, "[1", errc::none, false},
      {"nothing", [](writer&) {}, "", errc::none, false},
  };
  for (const call_case& c : cases) {
    std::string out;
    writer w(out);
    c.calls(w);
    EXPECT_EQ(w.buffer(), c.expected) << c.name;
    EXPECT_EQ(w.error(), c.error) << c.name;
    EXPECT_EQ(w.complete(), c.complete) << c.name;
    EXPECT_FALSE(stet::json::describe(c.error).empty() && c.error != errc::none) << c.name;
  }
}

TEST_F(JsonWriter, SerialisesCommonTypes) {
  const char* null_text = nullptr;
  const char c_text[] = "arr";
  const int c_array[] = {1, 2, 3};
  const std::vector<double> doubles = {1.5, -2.0};
  const std::string text = "str";

  EXPECT_EQ(to_json(text), R"("str")");
  EXPECT_EQ(to_json(std::string_view("view")), R"("view")");
  EXPECT_EQ(to_json("literal"), R"("literal")");
  EXPECT_EQ(to_json(c_text), R"("arr")");
  EXPECT_EQ(to_json(null_text), "null");
  EXPECT_EQ(to_json(std::string("a\0b", 3)), R"("a\u0000b")");
  EXPECT_EQ(to_json(true), "true");
  EXPECT_EQ(to_json(nullptr), "null");
  EXPECT_EQ(to_json(std::nullopt), "null");
  EXPECT_EQ(to_json(std::optional<int>()), "null");
  EXPECT_EQ(to_json(std::optional<int>(4)), "4");
  EXPECT_EQ(to_json(c_array), "[1,2,3]");
  EXPECT_EQ(to_json(std::array<bool, 2>{true, false}), "[true,false]");
  EXPECT_EQ(to_json(std::vector<bool>{false, true}), "[false,true]");
  EXPECT_EQ(to_json(std::span<const double>(doubles)), "[1.5,-2.0]");
  EXPECT_EQ(to_json(std::list<std::string>{"x", "y"}), R"(["x","y"])");
  EXPECT_EQ(to_json(std::vector<int>{}), "[]");
  EXPECT_EQ(to_json(std::map<std::string, int>{}), "{}");
  EXPECT_EQ(to_json(std::map<std::string, int>{{"b", 2}, {"a\n", 1}}), R"({"a\n":1,"b":2})");
  EXPECT_EQ(to_json(std::unordered_map<std::string_view, std::nullptr_t>{{"k", nullptr}}), R"({"k":null})");
  EXPECT_EQ(to_json(std::map<std::string, std::vector<std::optional<int>>>{{"v", {1, std::nullopt}}, {"w", {}}}),
            R"({"v":[1,null],"w":[]})");
  EXPECT_EQ(to_json(std::vector<std::map<std::string, bool>>{{{"t", true}}, {}}), R"([{"t":true},{}])");
}

TEST_F(JsonWriter, UserTypesOptInThroughAdl) {
  const shop::order o{42, "Zoë \"Z\"", {{1.5, -2}, {0, 0.25}}, std::nullopt};
  const std::string json = to_json(o);
  EXPECT_EQ(json, R"({"id":42,"customer":"Zoë \"Z\"","route":[{"x":1.5,"y":-2.0},{"x":0.0,"y":0.25}],"note":null})");
  EXPECT_EQ(to_json(std::map<std::string, std::optional<shop::point>>{{"p", shop::point{3, 4}}, {"q", {}}}),
            R"({"p":{"x":3.0,"y":4.0},"q":null})");
  const simdjson::dom::element root = parse(json);
  std::string_view customer;
  ASSERT_EQ(root["customer"].get_string().get(customer), simdjson::SUCCESS);
  EXPECT_EQ(customer, o.customer);
}

TEST_F(JsonWriter, CorpusOfTrickyValuesRoundTrips) {
  const std::vector<std::string> strings = {"",
                                            "plain",
                                            "tab\there",
                                            "\r\n",
                                            "quote \" and backslash \\ and slash /",
                                            std::string("nul\0inside", 10),
                                            "\x7f del",
                                            "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\x89",
                                            "</script>",
                                            std::string(1000, 'x') + "\"" + std::string(1000, 'y')};
  const std::vector<double> doubles = {0.0, -0.0, 1e-300, 1.7976931348623157e308, 0.1, 2.0 / 3.0, 1e21, 12345.0};
  const std::vector<std::int64_t> ints = {0, -1, std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max()};

  std::string json;
  writer w(json);
  w.begin_object();
  w.member("strings", strings).member("doubles", doubles).member("ints", ints);
  w.member("big", std::numeric_limits<std::uint64_t>::max());
  w.key("keys need \"escapes\"\n").value(true);
  w.end_object();
  ASSERT_TRUE(w.ok() && w.complete());

  const simdjson::dom::element root = parse(json);
  simdjson::dom::array array;
  ASSERT_EQ(root["strings"].get_array().get(array), simdjson::SUCCESS);
  std::size_t i = 0;
  for (simdjson::dom::element e : array) EXPECT_EQ(std::string_view(e.get_string()), strings[i++]);
  EXPECT_EQ(i, strings.size());
  ASSERT_EQ(root["doubles"].get_array().get(array), simdjson::SUCCESS);
  i = 0;
  for (simdjson::dom::element e : array) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(double(e.get_double())), std::bit_cast<std::uint64_t>(doubles[i++]));
  }
  ASSERT_EQ(root["ints"].get_array().get(array), simdjson::SUCCESS);
  i = 0;
  for (simdjson::dom::element e : array) EXPECT_EQ(std::int64_t(e.get_int64()), ints[i++]);
  EXPECT_EQ(std::uint64_t(root["big"].get_uint64()), std::numeric_limits<std::uint64_t>::max());
  EXPECT_TRUE(bool(root["keys need \"escapes\"\n"].get_bool()));
}

TEST_F(JsonWriter, StringIsUpToDateWhenTheValueIsComplete) {
  std::string out;
  {
    writer w(out);
    w.begin_array().number(1);
    EXPECT_EQ(out, "");  // staged
    EXPECT_EQ(w.buffer(), "[1");
    w.string(std::string(300, 'x'));  // long strings go straight to the string
    EXPECT_EQ(out, "[1,\"" + std::string(300, 'x') + "\"");
    w.end_array();
    EXPECT_EQ(out, "[1,\"" + std::string(300, 'x') + "\"]");
  }
  std::string big;
  writer w(big);
  w.begin_array();
  for (int i = 0; i < 1000; ++i) w.value("item").value(i).value(i * 0.5);
  w.raw('"' + std::string(5000, 'r') + '"');
  w.end_array();
  EXPECT_TRUE(w.complete());
  const simdjson::dom::element root = parse(big);
  EXPECT_EQ(simdjson::dom::array(root.get_array()).size(), 3001u);

  std::string incomplete;
  {
    writer unfinished(incomplete);
    unfinished.begin_object().member("a", 1);
  }
  EXPECT_EQ(incomplete, R"({"a":1)");  // flushed by the destructor
}

TEST_F(JsonWriter, AllocatesNothingIntoAReservedBuffer) {
  const shop::order o{7, "customer \"seven\"\n", {{1, 2}, {3, 4}}, "fragile"};
  std::string out;
  out.reserve(4096);
  stet::test::allocation_scope scope;
  for (int i = 0; i < 100; ++i) {
    out.clear();
    writer w(out);
    w.value(o);
  }
  EXPECT_EQ(scope.count(), 0u);
}

}  // namespace
