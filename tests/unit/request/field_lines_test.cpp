#include "request/field_lines.hpp"  // Test that the header file is self-contained.

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <array>
#include <memory_resource>

namespace {

using stet::header_field;
using stet::detail::combined_field;
using stet::detail::join_field_lines;

TEST(FieldLines, AbsentOnceAndSeveral) {
  std::pmr::monotonic_buffer_resource arena;
  const std::array<header_field, 5> fields = {{{"Accept", "text/html"},
                                               {"Host", "a"},
                                               {"accept", "application/json;q=0.5"},
                                               {"X-Empty", ""},
                                               {"ACCEPT", "*/*;q=0.1"}}};
  EXPECT_FALSE(combined_field(fields, "te", arena));
  const auto host = combined_field(fields, "host", arena);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->data(), fields[1].value.data());  // one line: a view, not a copy
  EXPECT_EQ(combined_field(fields, "Accept", arena), "text/html, application/json;q=0.5, */*;q=0.1");
  EXPECT_EQ(combined_field(fields, "x-empty", arena), "");
  EXPECT_EQ(join_field_lines(fields, "x-none", arena), "");
}

TEST(FieldLines, EmptyLinesKeepTheirPlaceInTheList) {
  std::pmr::monotonic_buffer_resource arena;
  const std::array<header_field, 3> fields = {{{"TE", ""}, {"te", "trailers"}, {"Te", ""}}};
  EXPECT_EQ(combined_field(fields, "te", arena), ", trailers, ");
}

TEST(FieldLines, OfARequestJoinsIntoItsArena) {
  stet::test_request q(stet::method::get, "/");
  q.header("If-None-Match", "\"a\"").header("if-none-match", "\"b\"");
  EXPECT_EQ(combined_field(q.get(), "If-None-Match"), "\"a\", \"b\"");
  EXPECT_EQ(q.get().header("If-None-Match"), "\"a\"");  // header() stays the first line
}

}  // namespace
