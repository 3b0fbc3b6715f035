#include "pubsub/redis_url.hpp"

#include <gtest/gtest.h>

namespace {

using stet::detail::parse_redis_url;

TEST(RedisUrl, ReadsHostAndPort) {
  const auto u = parse_redis_url("redis://127.0.0.1:6380");
  EXPECT_EQ(u.why, "");
  EXPECT_EQ(u.address.host, "127.0.0.1");
  EXPECT_EQ(u.address.port, 6380);
}

TEST(RedisUrl, PortDefaultsTo6379AndATrailingSlashIsAllowed) {
  for (const char* url : {"redis://cache.internal", "redis://cache.internal/"}) {
    const auto u = parse_redis_url(url);
    EXPECT_EQ(u.why, "") << url;
    EXPECT_EQ(u.address.host, "cache.internal") << url;
    EXPECT_EQ(u.address.port, 6379) << url;
  }
}

TEST(RedisUrl, ReadsABracketedIpv6Literal) {
  const auto u = parse_redis_url("redis://[::1]:7000");
  EXPECT_EQ(u.why, "");
  EXPECT_EQ(u.address.host, "::1");
  EXPECT_EQ(u.address.port, 7000);
  EXPECT_EQ(parse_redis_url("redis://[::1]").address.port, 6379);
}

TEST(RedisUrl, ReadsTheReplyTimeout) {
  EXPECT_FALSE(parse_redis_url("redis://h:6379").reply_timeout);
  const auto u = parse_redis_url("redis://h:6380/?timeout_ms=500");
  EXPECT_EQ(u.why, "");
  EXPECT_EQ(u.address.port, 6380);
  EXPECT_EQ(u.reply_timeout, std::chrono::milliseconds(500));
  EXPECT_EQ(parse_redis_url("redis://[::1]?timeout_ms=0").reply_timeout, std::chrono::milliseconds(0));
  EXPECT_EQ(parse_redis_url("redis://h?timeout_ms=600000").reply_timeout, std::chrono::milliseconds(600000));
}

TEST(RedisUrl, RefusesWhatItCannotHonourWithTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://127.0.0.1:6379", "not a redis:// URL"},
      {"rediss://127.0.0.1:6379", "not a redis:// URL"},
      {"redis://", "no host"},
      {"redis://:6379", "no host"},
      {"redis://h:0", "the port is not a number from 1 to 65535"},
      {"redis://h:65536", "the port is not a number from 1 to 65535"},
      {"redis://h:", "the port is not a number from 1 to 65535"},
      {"redis://h:12x", "the port is not a number from 1 to 65535"},
      {"redis://user:pw@h:6379", "credentials in the URL are not supported"},
      {"redis://h:6379/2", "a database number is not supported (topics use database 0)"},
      {"redis://h:6379?timeout=1", "query parameter 'timeout' is not supported (only timeout_ms)"},
      {"redis://h:6379?db=2&timeout_ms=1", "query parameter 'db' is not supported (only timeout_ms)"},
      {"redis://h:6379?timeout_ms=1&db=2", "query parameter 'db' is not supported (only timeout_ms)"},
      {"redis://h:6379?timeout_ms=", "timeout_ms is not a number of milliseconds from 0 to 600000"},
      {"redis://h:6379?timeout_ms=-1", "timeout_ms is not a number of milliseconds from 0 to 600000"},
      {"redis://h:6379?timeout_ms=600001", "timeout_ms is not a number of milliseconds from 0 to 600000"},
      {"redis://h:6379#x", "a fragment is not supported"},
      {"redis://[::1", "unclosed '[' in the host"},
      {"redis://[zz]:1", "not an IPv6 literal between '[' and ']'"},
      {"redis://[]:1", "no host"},
      {"redis://[::1]x", "unexpected text after ']'"},
      {"redis://h st:1", "the host has a character outside a-z, 0-9, '.', '-', '_'"},
  };
  for (const auto& [url, why] : cases) EXPECT_EQ(parse_redis_url(url).why, why) << url;
}

}  // namespace
