#include <stet/error.hpp>
#include <stet/json.hpp>
#include <stet/json_body.hpp>
#include <stet/response.hpp>

#include "counters/memo_stats.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using stet::json_type;
using stet::parse_json;

std::string dump(const stet::json_value& v) {
  std::string out;
  EXPECT_EQ(stet::json::append(out, v), stet::json::errc::none);
  return out;
}

TEST(JsonBody, ParsesEveryType) {
  std::pmr::monotonic_buffer_resource arena;
  const stet::json_result r = parse_json(
      R"({"n":null,"t":true,"f":false,"i":-42,"u":18446744073709551615,"d":1.5,"s":"h\u00e9\n","a":[1,"x",[]],"o":{}})",
      arena);
  ASSERT_TRUE(r) << r.detail();
  EXPECT_EQ(r.status(), stet::status::ok);
  const stet::json_value& root = *r;
  ASSERT_TRUE(root.is_object());
  EXPECT_EQ(root.size(), 9u);
  EXPECT_TRUE(root.find("n")->is_null());
  EXPECT_EQ(root.find("t")->as_bool(), true);
  EXPECT_EQ(root.find("f")->as_bool(), false);
  EXPECT_EQ(root.find("i")->as_int64(), -42);
  EXPECT_FALSE(root.find("i")->as_uint64());
  EXPECT_EQ(root.find("u")->type(), json_type::unsigned_integer);
  EXPECT_EQ(root.find("u")->as_uint64(), 18446744073709551615ull);
  EXPECT_FALSE(root.find("u")->as_int64());
  EXPECT_EQ(root.find("d")->as_double(), 1.5);
  EXPECT_FALSE(root.find("d")->as_int64());
  EXPECT_EQ(root.find("s")->as_string(), "h\xc3\xa9\n");
  EXPECT_FALSE(root.find("s")->as_bool());
  ASSERT_EQ(root.find("a")->items().size(), 3u);
  EXPECT_EQ(root.find("a")->items()[1].as_string(), "x");
  EXPECT_TRUE(root.find("a")->items()[2].is_array());
  EXPECT_TRUE(root.find("o")->is_object());
  EXPECT_EQ(root.find("missing"), nullptr);
  EXPECT_EQ(root.find("a")->find("x"), nullptr);  // not an object
}

TEST(JsonBody, StringsMayHoldNulAndDuplicateKeysAreKept) {
  std::pmr::monotonic_buffer_resource arena;
  const stet::json_result r = parse_json(R"({"k":"a\u0000b","k":2})", arena);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->find("k")->as_string(), std::string_view("a\0b", 3));
  ASSERT_EQ(r->members().size(), 2u);
  EXPECT_EQ(r->members()[1].value.as_int64(), 2);
}

TEST(JsonBody, ScalarsAtTheRoot) {
  std::pmr::monotonic_buffer_resource arena;
  EXPECT_EQ(parse_json("  7 ", arena)->as_int64(), 7);
  EXPECT_EQ(parse_json(R"("x")", arena)->as_string(), "x");
  EXPECT_TRUE(parse_json("null", arena)->is_null());
}

TEST(JsonBody, InvalidInputIsAnErrorValue) {
  std::pmr::monotonic_buffer_resource arena;
  for (std::string_view bad : {"", "   ", "{", "{\"a\":}", "[1,]", "{'a':1}", "nul", "1 2", "\"\xff\"", "\"\xc3\"",
                               "{\"a\":\"\x01\"}", "[1]x"}) {
    const stet::json_result r = parse_json(bad, arena);
    EXPECT_FALSE(r) << bad;
    EXPECT_EQ(r.error(), stet::error::invalid_json) << bad;
    EXPECT_EQ(r.status(), stet::status::bad_request);
    EXPECT_FALSE(r.detail().empty());
    EXPECT_TRUE(r->is_null());  // a safe value even on error
  }
  EXPECT_FALSE(parse_json(std::string_view("{\"a\":1}\0", 8), arena));  // NUL after the document
}

TEST(JsonBody, DepthIsBoundedAndWhateverIsAcceptedCanBeWrittenBack) {
  std::pmr::monotonic_buffer_resource arena;
  const auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  std::size_t deepest = 0;
  for (std::size_t depth = stet::json_max_depth - 2; depth <= stet::json_max_depth + 2; ++depth) {
    const stet::json_result r = parse_json(nested(depth), arena);
    if (!r) {
      EXPECT_EQ(r.error(), stet::error::invalid_json);
      continue;
    }
    deepest = depth;
    EXPECT_EQ(dump(*r), nested(depth));  // the default writer takes it all
  }
  EXPECT_GE(deepest, stet::json_max_depth - 1);
  EXPECT_LE(deepest, stet::json_max_depth);
  EXPECT_EQ(parse_json(nested(10000), arena).error(), stet::error::invalid_json);
}

TEST(JsonBody, SizeLimit) {
  std::pmr::monotonic_buffer_resource arena;
  const stet::json_result r = parse_json("[1,2,3]", arena, 6);
  EXPECT_EQ(r.error(), stet::error::body_too_large);
  EXPECT_EQ(r.status(), stet::status::payload_too_large);
  EXPECT_TRUE(parse_json("[1,2,3]", arena, 7));
}

TEST(JsonBody, LargeDocumentThenSmallOnes) {
  std::pmr::monotonic_buffer_resource arena;
  std::string big = "[";
  for (int i = 0; i < 100000; ++i) big += (i ? ",\"" : "\"") + std::to_string(i) + "\"";
  big += "]";
  const stet::json_result r = parse_json(big, arena);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 100000u);
  EXPECT_EQ(r->items()[99999].as_string(), "99999");
  const stet::json_result small = parse_json(R"({"id":"alice"})", arena);  // parser dropped and recreated
  ASSERT_TRUE(small);
  EXPECT_EQ(r->items()[5].as_string(), "5");  // the first tree does not depend on the parser
}

TEST(JsonBody, WritesBackThroughTheJsonWriter) {
  std::pmr::monotonic_buffer_resource arena;
  const std::string_view text =
      R"({"a":[1,-2,3.25,1.0,1e+100,true,false,null],"s":"q\"b\\s\n\t\u0001\u00e9","o":{"x":{}},"e":[]})";
  const stet::json_result r = parse_json(text, arena);
  ASSERT_TRUE(r);
  EXPECT_EQ(dump(*r),
            "{\"a\":[1,-2,3.25,1.0,1e+100,true,false,null],\"s\":\"q\\\"b\\\\s\\n\\t\\u0001\xc3\xa9\",\"o\":{\"x\":{}},"
            "\"e\":[]}");
  const stet::json_result again = parse_json(dump(*r), arena);
  ASSERT_TRUE(again);
  EXPECT_EQ(dump(*again), dump(*r));
}

TEST(JsonBody, ErrorResponses) {
  const stet::response bad = stet::response::json_error(stet::error::invalid_json, "TAPE_ERROR");
  EXPECT_EQ(bad.status(), stet::status::bad_request);
  EXPECT_EQ(bad.header("content-type"), "application/json");
  EXPECT_EQ(bad.body(), R"({"error":"request body is not valid JSON","detail":"TAPE_ERROR"})");
  EXPECT_EQ(stet::response::json_error(stet::error::unsupported_media_type).status(),
            stet::status::unsupported_media_type);
  EXPECT_EQ(stet::response::json_error(stet::error::body_too_large).status(), stet::status::payload_too_large);
  EXPECT_EQ(stet::response::json_error(std::make_error_code(std::errc::invalid_argument)).status(),
            stet::status::bad_request);
}

}  // namespace
