#include "pubsub/stream_id.hpp"

#include <gtest/gtest.h>

namespace {

using stet::detail::parse_stream_id;
using stet::detail::stream_id;

TEST(StreamId, ReadsBothForms) {
  EXPECT_EQ(parse_stream_id("1700000000000-3"), (stream_id{1700000000000, 3}));
  EXPECT_EQ(parse_stream_id("42"), (stream_id{42, 0}));
}

TEST(StreamId, ComparesAsNumbersNotText) {
  EXPECT_LT(*parse_stream_id("9-0"), *parse_stream_id("10-0"));
  EXPECT_LT(*parse_stream_id("10-9"), *parse_stream_id("10-10"));
}

TEST(StreamId, RefusesAnythingElse) {
  for (const char* bad : {"", "-", "1-", "-1", "a-1", "1-a", "1-2-3", " 1-2", "1-2 ", "+", "99999999999999999999-0"})
    EXPECT_FALSE(parse_stream_id(bad).has_value()) << bad;
}

}  // namespace
