#include "http/host_syntax.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using stet::detail::parse_port;
using stet::detail::valid_host;

TEST(HostSyntax, RegNamesAndIpv4WithOrWithoutAPort) {
  for (const char* ok : {"", "example.com", "127.0.0.1", "127.0.0.1:8080", "a-b_c~d.e", "x:", "x:65535", "x:99999",
                         "%41b", "sub!$&'()*+,;=delims", "EXAMPLE.com:80"}) {
    EXPECT_TRUE(valid_host(ok)) << ok;
  }
  for (const char* bad : {"a b", "a/b", "a@b", "a:b", "a:123456", "a:1:2", "a:-1", ":80x", "a\x7f", "a\"b", "a]"}) {
    EXPECT_FALSE(valid_host(bad)) << bad;
  }
}

TEST(HostSyntax, IpLiterals) {
  for (const char* ok : {"[::1]", "[::1]:8080", "[2001:db8::1]", "[::ffff:127.0.0.1]:1", "[::1]:"}) {
    EXPECT_TRUE(valid_host(ok)) << ok;
  }
  for (const char* bad : {"[::1", "[::1]x", "[::1]:123456", "[::g]", "[::1]:8a", "[ ::1]"}) {
    EXPECT_FALSE(valid_host(bad)) << bad;
  }
}

TEST(HostSyntax, EveryByteOutsideTheRegNameSetIsRefusedAtEveryPosition) {
  const std::string base = "host.example:80";
  for (int c = 0; c < 256; ++c) {
    const bool reg = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     std::string_view("-._~%!$&'()*+,;=").find(static_cast<char>(c)) != std::string_view::npos;
    for (std::size_t at : {std::size_t{0}, std::size_t{4}, std::size_t{12}}) {
      std::string host = base.substr(0, at) + static_cast<char>(c) + base.substr(at);
      if (at == 12) host = "host.example" + std::string(1, static_cast<char>(c));  // last before the port
      const bool expected = reg || (c == ':' && at == 12);
      EXPECT_EQ(valid_host(host), expected) << "byte " << c << " at " << at;
    }
  }
}

TEST(HostSyntax, Ports) {
  EXPECT_EQ(parse_port("80"), 80);
  EXPECT_EQ(parse_port("65535"), 65535);
  EXPECT_EQ(parse_port("65536"), std::nullopt);
  EXPECT_EQ(parse_port(""), std::nullopt);
  EXPECT_EQ(parse_port("8a"), std::nullopt);
  EXPECT_EQ(parse_port("000080"), std::nullopt);
}

}  // namespace
