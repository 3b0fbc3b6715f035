#include "pubsub/make_bus.hpp"

#include <gtest/gtest.h>

namespace {

TEST(MakeBus, EmptyMeansInProcess) {
  const auto choice = stet::detail::make_bus(stet::server_options{});
  EXPECT_EQ(choice.chosen, nullptr);
  EXPECT_FALSE(choice.error);
}

TEST(MakeBus, ARedisUrlMakesARedisBusThatIsNotConnectedBeforeStart) {
  stet::server_options o;
  o.pubsub = "redis://127.0.0.1:1";
  const auto choice = stet::detail::make_bus(o);
  EXPECT_FALSE(choice.error);
  ASSERT_NE(choice.chosen, nullptr);
  EXPECT_FALSE(choice.chosen->stats().connected);
  EXPECT_FALSE(choice.chosen->publish("t", "x"));  // not started: refused, counted
  EXPECT_EQ(choice.chosen->stats().refused, 1u);
}

TEST(MakeBus, TakesTheReplyTimeoutFromTheUrl) {
  stet::server_options o;
  o.pubsub = "redis://127.0.0.1:1?timeout_ms=250";
  EXPECT_NE(stet::detail::make_bus(o).chosen, nullptr);
  o.pubsub = "redis://127.0.0.1:1?timeout_ms=soon";
  EXPECT_EQ(
      stet::detail::make_bus(o).error.message(),
      "pubsub 'redis://127.0.0.1:1?timeout_ms=soon': timeout_ms is not a number of milliseconds from 0 to 600000");
}

TEST(MakeBus, ABadValueIsAStartErrorNamingIt) {
  stet::server_options o;
  o.pubsub = "redis://127.0.0.1:99999";
  const auto choice = stet::detail::make_bus(o);
  EXPECT_EQ(choice.chosen, nullptr);
  EXPECT_EQ(choice.error.code(), std::errc::invalid_argument);
  EXPECT_EQ(choice.error.message(), "pubsub 'redis://127.0.0.1:99999': the port is not a number from 1 to 65535");
}

}  // namespace
