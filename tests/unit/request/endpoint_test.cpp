#include <stet/endpoint.hpp>

#include <gtest/gtest.h>

#include <array>

namespace {

TEST(Endpoint, ParsesAndPrintsIpv4) {
  const stet::endpoint e = stet::endpoint::parse("192.0.2.1", 8080);
  EXPECT_EQ(e.kind(), stet::endpoint::family::ipv4);
  EXPECT_EQ(e.port(), 8080);
  EXPECT_EQ(e.address_string(), "192.0.2.1");
  EXPECT_EQ(e.address_bytes().size(), 4u);
}

TEST(Endpoint, ParsesAndPrintsIpv6Compressed) {
  const stet::endpoint e = stet::endpoint::parse("2001:db8:0:0::1");
  EXPECT_EQ(e.kind(), stet::endpoint::family::ipv6);
  EXPECT_EQ(e.address_string(), "2001:db8::1");
  EXPECT_EQ(e.address_bytes().size(), 16u);
}

TEST(Endpoint, Ipv4MappedIpv6BecomesIpv4) {
  const stet::endpoint e = stet::endpoint::parse("::ffff:10.1.2.3", 1);
  EXPECT_EQ(e.kind(), stet::endpoint::family::ipv4);
  EXPECT_EQ(e.address_string(), "10.1.2.3");
  EXPECT_EQ(e, stet::endpoint::parse("10.1.2.3", 1));
}

TEST(Endpoint, RefusesWhatIsNoAddress) {
  for (const char* text : {"", "localhost", "1.2.3", "1.2.3.4.5", "[::1]", "::1%eth0", "1.2.3.4:80"}) {
    EXPECT_EQ(stet::endpoint::parse(text).kind(), stet::endpoint::family::none) << text;
  }
  EXPECT_EQ(stet::endpoint::parse(std::string_view("10.0.0.5\0x", 10)).kind(), stet::endpoint::family::none);
  EXPECT_EQ(stet::endpoint().address_string(), "-");
}

TEST(Endpoint, UnixSocketPeerHasNoAddress) {
  const stet::endpoint e = stet::endpoint::unix_socket();
  EXPECT_FALSE(e.is_ip());
  EXPECT_TRUE(e.address_bytes().empty());
  EXPECT_EQ(e.address_string(), "unix");
}

}  // namespace
