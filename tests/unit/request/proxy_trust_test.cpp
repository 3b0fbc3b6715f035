#include "request/proxy_trust.hpp"  // Test that the header file is self-contained.

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using stet::detail::proxy_trust;

stet::endpoint peer(std::string_view text, std::uint16_t port = 0) {
  if (text == "unix") return stet::endpoint::unix_socket();
  return stet::endpoint::parse(text, port);
}

proxy_trust compiled(const std::vector<std::string>& entries) {
  const stet::detail::proxy_trust_result r = proxy_trust::compile(entries);
  EXPECT_FALSE(r.error) << (r.error ? r.error->message() : "");
  return r.trust;
}

TEST(ProxyTrust, MatchesPeersAgainstTheCompiledList) {
  struct {
    std::vector<std::string> list;
    const char* peer;
    bool trusted;
  } const cases[] = {
      {{"10.0.0.0/8"}, "10.0.0.1", true},
      {{"10.0.0.0/8"}, "10.255.255.255", true},
      {{"10.0.0.0/8"}, "11.0.0.0", false},
      {{"10.0.0.0/8"}, "9.255.255.255", false},
      {{"10.0.0.0/8"}, "::ffff:10.1.2.3", true},  // a dual-stack listener's IPv4 peer
      {{"10.0.0.0/8"}, "::1", false},
      {{"10.0.0.0/8"}, "unix", false},
      {{"10.0.0.0/9"}, "10.127.255.255", true},
      {{"10.0.0.0/9"}, "10.128.0.0", false},
      {{"192.0.2.1"}, "192.0.2.1", true},
      {{"192.0.2.1"}, "192.0.2.2", false},
      {{"192.0.2.0/31"}, "192.0.2.1", true},
      {{"192.0.2.0/31"}, "192.0.2.2", false},
      {{"0.0.0.0/0"}, "203.0.113.9", true},
      {{"0.0.0.0/0"}, "::1", false},
      {{"2001:db8::/32"}, "2001:db8:ffff::1", true},
      {{"2001:db8::/32"}, "2001:db9::1", false},
      {{"2001:db8::/32"}, "10.0.0.1", false},
      {{"2001:db8::/33"}, "2001:db8:7fff::1", true},
      {{"2001:db8::/33"}, "2001:db8:8000::1", false},
      {{"::1"}, "::1", true},
      {{"::1/128"}, "::2", false},
      {{"fd00::/8"}, "fdff::1", true},
      {{"::/0"}, "2001:db8::1", true},
      {{"::/0"}, "10.0.0.1", true},  // ::/0 holds ::ffff:0:0/96
      {{"::ffff:10.0.0.0/104"}, "10.2.3.4", true},
      {{"::ffff:10.0.0.0/104"}, "11.0.0.1", false},
      {{"::ffff:10.0.0.0/104"}, "::1", false},
      {{"::ffff:0:0/96"}, "198.51.100.7", true},
      {{"::ffff:0:0/96"}, "2001:db8::1", false},
      {{"::ffff:192.0.2.1"}, "192.0.2.1", true},
      {{"unix"}, "unix", true},
      {{"UNIX"}, "unix", true},
      {{"unix"}, "127.0.0.1", false},
      {{"127.0.0.1", "unix", "::1"}, "::1", true},
      {{"127.0.0.1", "unix", "::1"}, "127.0.0.1", true},
      {{"127.0.0.1", "unix", "::1"}, "127.0.0.2", false},
      {{}, "127.0.0.1", false},
      {{}, "unix", false},
  };
  for (const auto& c : cases) {
    const proxy_trust trust = compiled(c.list);
    EXPECT_EQ(trust.trusts(peer(c.peer, 4711)), c.trusted) << c.peer << " against " << testing::PrintToString(c.list);
  }
}

TEST(ProxyTrust, NobodyIsTrustedByDefault) {
  const proxy_trust nobody;
  EXPECT_TRUE(nobody.empty());
  EXPECT_FALSE(nobody.trusts(peer("127.0.0.1")));
  EXPECT_FALSE(nobody.trusts(stet::endpoint::unix_socket()));
  EXPECT_FALSE(compiled({"unix"}).empty());
  EXPECT_FALSE(compiled({"0.0.0.0/0", "::/0", "unix"}).trusts(stet::endpoint()));  // an unknown peer
}

TEST(ProxyTrust, RefusesBadEntriesSayingWhy) {
  struct {
    const char* entry;
    const char* reason;
  } const cases[] = {
      {"10.0.0.0/33", "prefix length over 32"},
      {"::/129", "prefix length over 128"},
      {"::ffff:10.0.0.0/129", "prefix length over 128"},
      {"10.0.0.0/", "the prefix length is not a decimal number"},
      {"10.0.0.0/08", "the prefix length is not a decimal number"},
      {"10.0.0.0/-1", "the prefix length is not a decimal number"},
      {"10.0.0.0/+8", "the prefix length is not a decimal number"},
      {"10.0.0.0/8/8", "the prefix length is not a decimal number"},
      {"10.0.0.0/99999999999", "prefix length over 32"},
      {"10.1.0.0/8", "the address has bits set past the prefix length"},
      {"2001:db8::1/32", "the address has bits set past the prefix length"},
      {"::ffff:10.1.0.0/104", "the address has bits set past the prefix length"},
      {"", "empty entry"},
      {"localhost", "not an IPv4 or IPv6 address, a CIDR or \"unix\""},
      {" 10.0.0.0/8", "not an IPv4 or IPv6 address, a CIDR or \"unix\""},
      {"[::1]", "not an IPv4 or IPv6 address, a CIDR or \"unix\""},
      {"10.0.0", "not an IPv4 or IPv6 address, a CIDR or \"unix\""},
      {"fe80::1%eth0", "not an IPv4 or IPv6 address, a CIDR or \"unix\""},
      {"unix:/run/x.sock", "not an IPv4 or IPv6 address, a CIDR or \"unix\""},
      {"/8", "not an IPv4 or IPv6 address, a CIDR or \"unix\""},
  };
  for (const auto& c : cases) {
    const stet::detail::proxy_trust_result r = proxy_trust::compile(std::vector<std::string>{"127.0.0.1", c.entry});
    ASSERT_TRUE(r.error) << c.entry;
    EXPECT_EQ(r.error->index, 1u) << c.entry;
    EXPECT_EQ(r.error->entry, c.entry);
    EXPECT_EQ(r.error->reason, c.reason) << c.entry;
    EXPECT_TRUE(r.trust.empty()) << "a refused list trusts nobody: " << c.entry;
  }
}

TEST(ProxyTrust, ANulIsNoPartOfAnAddress) {
  const auto r = proxy_trust::compile(std::vector<std::string>{std::string("10.0.0.1\0/8", 11)});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->reason, "not an IPv4 or IPv6 address, a CIDR or \"unix\"");
}

TEST(ProxyTrust, ErrorMessageNamesTheEntry) {
  const auto r = proxy_trust::compile(std::vector<std::string>{"10.0.0.0/8", "::1", "10.0.0.0/33"});
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message(), "trusted_proxies[2] \"10.0.0.0/33\": prefix length over 32");
}

TEST(ProxyTrust, MatchingDoesNotAllocate) {
  const proxy_trust trust =
      compiled({"10.0.0.0/8", "192.168.0.0/16", "2001:db8::/32", "::ffff:172.16.0.0/108", "unix"});
  const stet::endpoint peers[] = {peer("10.1.2.3"), peer("172.16.9.9"), peer("2001:db8::5"), peer("8.8.8.8"),
                                  stet::endpoint::unix_socket()};
  std::size_t trusted = 0;
  const stet::test::allocation_scope scope;
  for (int i = 0; i < 1000; ++i) {
    for (const stet::endpoint& p : peers) trusted += trust.trusts(p) ? 1 : 0;
  }
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(trusted, 4000u);
}

}  // namespace
