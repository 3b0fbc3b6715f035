#include "response/accept.hpp"

#include <gtest/gtest.h>

namespace {

using stet::detail::error_format;
using stet::detail::parse_qvalue;
using stet::detail::preferred_error_format;

static_assert(preferred_error_format("") == error_format::text);
static_assert(preferred_error_format("application/json") == error_format::json);

TEST(Accept, QValues) {
  EXPECT_EQ(parse_qvalue("1"), 1000);
  EXPECT_EQ(parse_qvalue("1.0"), 1000);
  EXPECT_EQ(parse_qvalue("0"), 0);
  EXPECT_EQ(parse_qvalue("0.5"), 500);
  EXPECT_EQ(parse_qvalue("0.123"), 123);
  EXPECT_EQ(parse_qvalue("0.001"), 1);
  EXPECT_EQ(parse_qvalue("0.0000"), 1000);  // malformed: more than three decimals
  EXPECT_EQ(parse_qvalue("2"), 1000);
  EXPECT_EQ(parse_qvalue("x"), 1000);
}

TEST(Accept, AbsentOrWildcardIsText) {
  EXPECT_EQ(preferred_error_format(""), error_format::text);
  EXPECT_EQ(preferred_error_format("*/*"), error_format::text);
  EXPECT_EQ(preferred_error_format("text/*"), error_format::text);
  EXPECT_EQ(preferred_error_format(" , ,"), error_format::text);
}

TEST(Accept, ExactTypesWin) {
  EXPECT_EQ(preferred_error_format("text/html"), error_format::html);
  EXPECT_EQ(preferred_error_format("application/json"), error_format::json);
  EXPECT_EQ(preferred_error_format("Application/JSON"), error_format::json);
  EXPECT_EQ(preferred_error_format("application/*"), error_format::json);
  EXPECT_EQ(preferred_error_format("text/plain"), error_format::text);
}

TEST(Accept, HighestWeightWinsAndTiesGoTextHtmlJson) {
  EXPECT_EQ(preferred_error_format("text/html;q=0.5, application/json"), error_format::json);
  EXPECT_EQ(preferred_error_format("text/html, application/json"), error_format::html);
  EXPECT_EQ(preferred_error_format("application/json, text/plain"), error_format::text);
  EXPECT_EQ(preferred_error_format("*/*;q=0.1, application/json;q=0.9"), error_format::json);
  EXPECT_EQ(preferred_error_format("application/json ; q=0.9, text/html;q=0.8"), error_format::json);
}

TEST(Accept, TheMostSpecificRangeSetsTheWeight) {
  // */* would accept HTML at 1, but text/html says 0: refused.
  EXPECT_EQ(preferred_error_format("*/*, text/html;q=0"), error_format::text);
  EXPECT_EQ(preferred_error_format("text/html;q=0, */*"), error_format::text);
  EXPECT_EQ(preferred_error_format("text/plain;q=0, */*;q=0.5, application/json;q=0.6"), error_format::json);
  // A browser's default header prefers HTML.
  EXPECT_EQ(preferred_error_format("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
            error_format::html);
}

TEST(Accept, NothingAcceptableFallsBackToText) {
  EXPECT_EQ(preferred_error_format("image/png"), error_format::text);
  EXPECT_EQ(preferred_error_format("*/*;q=0"), error_format::text);
  EXPECT_EQ(preferred_error_format("application/jsonx, text/htmlx"), error_format::text);
}

}  // namespace
