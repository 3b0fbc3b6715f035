#include "http/target.hpp"

#include <stet/test_request.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using stet::method;
using stet::detail::split_target;

TEST(Target, OriginFormSplitsPathAndQueryAndDropsTheFragment) {
  const auto t = split_target(method::get, "/a/b?x=1&y#frag");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->raw_path, "/a/b");
  EXPECT_EQ(t->query, "x=1&y");
  EXPECT_TRUE(t->authority.empty());
}

TEST(Target, AbsoluteFormTakesItsAuthorityAndDefaultsThePath) {
  const auto t = split_target(method::get, "HTTP://example.com:8080?q");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->authority, "example.com:8080");
  EXPECT_EQ(t->raw_path, "/");
  EXPECT_EQ(t->query, "q");
  const auto s = split_target(method::get, "https://h/x/y");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->authority, "h");
  EXPECT_EQ(s->raw_path, "/x/y");
}

TEST(Target, RefusesUserinfoAnEmptyAuthorityAndRelativeTargets) {
  for (const char* bad : {"http://user:pw@h/", "http://@h/", "http:///x", "x/y", "", "*"}) {
    EXPECT_FALSE(split_target(method::get, bad)) << bad;
  }
}

TEST(Target, AsteriskOnlyForOptionsAuthorityOnlyForConnect) {
  const auto star = split_target(method::options, "*");
  ASSERT_TRUE(star);
  EXPECT_EQ(star->raw_path, "*");
  const auto connect = split_target(method::connect, "example.com:443");
  ASSERT_TRUE(connect);
  EXPECT_EQ(connect->authority, "example.com:443");
  EXPECT_EQ(connect->raw_path, "/");
}

// test_request splits targets with the same function as the connection.
TEST(Target, TestRequestReadsATargetAsTheWireDoes) {
  stet::test_request absolute(method::get, "http://example.com/a%20b?x");
  EXPECT_EQ(absolute.get().host(), "example.com");
  EXPECT_EQ(absolute.get().path(), "/a b");
  EXPECT_EQ(absolute.get().query_string(), "x");
  EXPECT_THROW(stet::test_request(method::get, "http://u@h/"), std::invalid_argument);
  EXPECT_THROW(stet::test_request(method::get, "/%zz"), std::invalid_argument);
}

}  // namespace
