#include "request/forwarded.hpp"  // Test that the header file is self-contained.

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

using stet::detail::client_origin;
using stet::detail::origin_source;
using stet::detail::proxy_trust;

using fields = std::vector<std::pair<std::string, std::string>>;

constexpr const char* proxy = "10.0.0.1";  // the peer in most cases: inside the default trust list

struct origin_case {
  const char* name;
  fields headers;
  const char* client;  // address_text()
  const char* scheme = "http";
  const char* host = "origin.example";
  origin_source source = origin_source::x_forwarded;
  std::uint16_t port = 0;
  const char* peer = proxy;
  std::vector<std::string> trusted = {"10.0.0.0/8", "2001:db8:aaaa::/48"};
};

stet::endpoint endpoint_of(std::string_view text) {
  return text == "unix" ? stet::endpoint::unix_socket() : stet::endpoint::parse(text, 40000);
}

client_origin resolve(const origin_case& c) {
  std::vector<stet::header_field> list;
  for (const auto& [name, value] : c.headers) list.push_back({name, value});
  const auto trust = proxy_trust::compile(c.trusted);
  EXPECT_FALSE(trust.error) << c.name;
  return stet::detail::resolve_client_origin({list, endpoint_of(c.peer), "http", "origin.example"}, trust.trust);
}

void check(const origin_case& c) {
  const client_origin o = resolve(c);
  EXPECT_EQ(o.address_text(), c.client) << c.name;
  EXPECT_EQ(o.scheme(), c.scheme) << c.name;
  EXPECT_EQ(o.host(), c.host) << c.name;
  EXPECT_EQ(o.source(), c.source) << c.name;
  if (o.address().is_ip() && std::string_view(c.client) != c.peer) {
    EXPECT_EQ(o.address().port(), c.port) << c.name;
  }
}

constexpr auto peer_source = origin_source::peer;
constexpr auto forwarded = origin_source::forwarded;

TEST(Forwarded, OnlyATrustedPeerIsBelieved) {
  const origin_case cases[] = {
      {"untrusted peer",
       {{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-Proto", "https"}},
       "203.0.113.9",
       "http",
       "origin.example",
       peer_source,
       0,
       "203.0.113.9"},
      {"untrusted peer, Forwarded",
       {{"Forwarded", "for=198.51.100.7;proto=https;host=a"}},
       "203.0.113.9",
       "http",
       "origin.example",
       peer_source,
       0,
       "203.0.113.9"},
      {"empty trust list",
       {{"X-Forwarded-For", "198.51.100.7"}},
       proxy,
       "http",
       "origin.example",
       peer_source,
       0,
       proxy,
       {}},
      {"trusted peer, no fields", {{"Host", "x"}}, proxy, "http", "origin.example", peer_source},
      {"unix peer not listed",
       {{"X-Forwarded-For", "198.51.100.7"}},
       "unix",
       "http",
       "origin.example",
       peer_source,
       0,
       "unix"},
      {"unix peer listed",
       {{"X-Forwarded-For", "198.51.100.7"}},
       "198.51.100.7",
       "http",
       "origin.example",
       origin_source::x_forwarded,
       0,
       "unix",
       {"unix"}},
      {"unix peer, only IPs listed",
       {{"Forwarded", "for=198.51.100.7"}},
       "unix",
       "http",
       "origin.example",
       peer_source,
       0,
       "unix",
       {"0.0.0.0/0", "::/0"}},
      {"IPv6 peer",
       {{"X-Forwarded-For", "198.51.100.7"}},
       "198.51.100.7",
       "http",
       "origin.example",
       origin_source::x_forwarded,
       0,
       "2001:db8:aaaa::1"},
      {"IPv6 peer outside",
       {{"X-Forwarded-For", "198.51.100.7"}},
       "2001:db8:bbbb::1",
       "http",
       "origin.example",
       peer_source,
       0,
       "2001:db8:bbbb::1"},
  };
  for (const origin_case& c : cases) check(c);
}

TEST(Forwarded, XForwardedForIsWalkedFromTheRight) {
  const origin_case cases[] = {
      {"one address", {{"X-Forwarded-For", "198.51.100.7"}}, "198.51.100.7"},
      {"spoofed left entries", {{"X-Forwarded-For", "6.6.6.6, 7.7.7.7, 198.51.100.7"}}, "198.51.100.7"},
      {"trusted hops skipped", {{"X-Forwarded-For", "6.6.6.6, 198.51.100.7, 10.0.0.5,10.9.9.9"}}, "198.51.100.7"},
      {"all trusted: the left-most", {{"X-Forwarded-For", "10.0.0.3, 10.0.0.4"}}, "10.0.0.3"},
      {"several fields in order",
       {{"X-Forwarded-For", "6.6.6.6"}, {"Host", "h"}, {"x-forwarded-for", "198.51.100.7, 10.0.0.2"}},
       "198.51.100.7"},
      {"empty elements", {{"X-Forwarded-For", " , 198.51.100.7 ,,\t"}}, "198.51.100.7"},
      {"IPv6", {{"X-Forwarded-For", "2001:DB8:0::7"}}, "2001:db8::7"},
      {"IPv6 in brackets with a port",
       {{"X-Forwarded-For", "[2001:db8::7]:4711"}},
       "2001:db8::7",
       "http",
       "origin.example",
       origin_source::x_forwarded,
       4711},
      {"IPv4 with a port",
       {{"X-Forwarded-For", "198.51.100.7:5555"}},
       "198.51.100.7",
       "http",
       "origin.example",
       origin_source::x_forwarded,
       5555},
      {"IPv4-mapped", {{"X-Forwarded-For", "::ffff:198.51.100.7"}}, "198.51.100.7"},
      {"trusted IPv6 hop", {{"X-Forwarded-For", "198.51.100.7, [2001:db8:aaaa::9]:1"}}, "198.51.100.7"},
      {"garbage left of the client", {{"X-Forwarded-For", "garbage, <script>, 198.51.100.7"}}, "198.51.100.7"},
  };
  for (const origin_case& c : cases) check(c);
}

TEST(Forwarded, GarbageWhereTheClientShouldBeGivesThePeer) {
  for (const char* value : {"garbage", "198.51.100.7, garbage", "198.51.100.7:99999", "[198.51.100.7]", "unknown",
                            "_hidden", "198.51.100", "1.2.3.4 5.6.7.8", "[2001:db8::1", "[2001:db8::1]x",
                            "2001:db8::1:", "1.2.3.4:", "1.2.3.4:80:80", "198.51.100.7, 10.0.0.2, bad:addr"}) {
    check({value,
           {{"X-Forwarded-For", value}, {"X-Forwarded-Proto", "https"}},
           proxy,
           "http",
           "origin.example",
           peer_source});
  }
}

// Found by fuzzing (forwarded_fuzz): endpoint::parse() reads its text up to a
// NUL, so "10.0.0.5\0x" was a trusted address to one reading and garbage to another.
TEST(Forwarded, ANulMakesAnEntryGarbage) {
  check({"NUL after a trusted hop",
         {{"X-Forwarded-For", std::string("198.51.100.7, 10.0.0.5\0x", 24)}},
         proxy,
         "http",
         "origin.example",
         peer_source});
  check({"NUL after the client",
         {{"X-Forwarded-For", std::string("198.51.100.7\0, 10.0.0.5", 23)}},
         proxy,
         "http",
         "origin.example",
         peer_source});
}

TEST(Forwarded, XForwardedProtoAndHostMatchTheChosenHop) {
  const origin_case cases[] = {
      {"proto and host",
       {{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-Proto", "https"}, {"X-Forwarded-Host", "shop.example"}},
       "198.51.100.7",
       "https",
       "shop.example"},
      {"proto in capitals",
       {{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-Proto", "HTTPS"}},
       "198.51.100.7",
       "https"},
      {"host with a port",
       {{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-Host", "shop.example:8443"}},
       "198.51.100.7",
       "http",
       "shop.example:8443"},
      {"lists aligned from the right",
       {{"X-Forwarded-For", "198.51.100.7, 10.0.0.5"},
        {"X-Forwarded-Proto", "https, http"},
        {"X-Forwarded-Host", "a.example, b.internal"}},
       "198.51.100.7",
       "https",
       "a.example"},
      {"a spoofed proto left of the proxy's",
       {{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-Proto", "https, http"}},
       "198.51.100.7",
       "http"},
      {"shorter list: its left-most",
       {{"X-Forwarded-For", "198.51.100.7, 10.0.0.5"}, {"X-Forwarded-Proto", "https"}},
       "198.51.100.7",
       "https"},
      {"invalid proto and host: the connection's",
       {{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-Proto", "1http"}, {"X-Forwarded-Host", "a b"}},
       "198.51.100.7"},
      {"other scheme kept as sent",
       {{"X-Forwarded-For", "198.51.100.7"}, {"X-Forwarded-Proto", "wss"}},
       "198.51.100.7",
       "wss"},
      {"proto without X-Forwarded-For", {{"X-Forwarded-Proto", "https"}}, proxy, "https"},
      {"host without X-Forwarded-For", {{"X-Forwarded-Host", "shop.example"}}, proxy, "http", "shop.example"},
      {"nothing valid at all",
       {{"X-Forwarded-Proto", "h t"}, {"X-Forwarded-Host", ""}},
       proxy,
       "http",
       "origin.example",
       peer_source},
  };
  for (const origin_case& c : cases) check(c);
}

TEST(Forwarded, Rfc7239ElementsAreRead) {
  const origin_case cases[] = {
      {"for, proto, host",
       {{"Forwarded", "for=198.51.100.7;proto=https;host=shop.example"}},
       "198.51.100.7",
       "https",
       "shop.example",
       forwarded},
      {"case-insensitive names",
       {{"Forwarded", "For=198.51.100.7;PROTO=HTTPS;Host=a"}},
       "198.51.100.7",
       "https",
       "a",
       forwarded},
      {"quoted IPv6 with a port",
       {{"Forwarded", "for=\"[2001:db8:cafe::17]:4711\""}},
       "2001:db8:cafe::17",
       "http",
       "origin.example",
       forwarded,
       4711},
      {"quoted IPv6",
       {{"Forwarded", "for=\"[2001:db8:cafe::17]\""}},
       "2001:db8:cafe::17",
       "http",
       "origin.example",
       forwarded},
      {"quoted IPv4 with a port",
       {{"Forwarded", "for=\"198.51.100.7:47011\""}},
       "198.51.100.7",
       "http",
       "origin.example",
       forwarded,
       47011},
      {"quoted plain IPv4",
       {{"Forwarded", "for=\"198.51.100.7\""}},
       "198.51.100.7",
       "http",
       "origin.example",
       forwarded},
      {"obfuscated port",
       {{"Forwarded", "for=\"198.51.100.7:_p1\""}},
       "198.51.100.7",
       "http",
       "origin.example",
       forwarded,
       0},
      {"hidden client", {{"Forwarded", "for=_hidden;proto=https"}}, "_hidden", "https", "origin.example", forwarded},
      {"hidden client with port",
       {{"Forwarded", "for=\"_hidden:_port\""}},
       "_hidden",
       "http",
       "origin.example",
       forwarded},
      {"unknown client", {{"Forwarded", "for=unknown"}}, "unknown", "http", "origin.example", forwarded},
      {"unknown in capitals", {{"Forwarded", "for=\"UNKNOWN:8080\""}}, "UNKNOWN", "http", "origin.example", forwarded},
      {"no for: unknown", {{"Forwarded", "proto=https;host=a.example"}}, "unknown", "https", "a.example", forwarded},
      {"hidden client behind a trusted hop",
       {{"Forwarded", "for=_gazonk, for=10.0.0.9"}},
       "_gazonk",
       "http",
       "origin.example",
       forwarded},
      {"spoofed left elements",
       {{"Forwarded", "for=6.6.6.6;proto=https;host=evil, for=198.51.100.7;proto=http;host=good"}},
       "198.51.100.7",
       "http",
       "good",
       forwarded},
      {"the chosen element's proto only",
       {{"Forwarded", "for=198.51.100.7, for=10.0.0.4;proto=https;host=inner"}},
       "198.51.100.7",
       "http",
       "origin.example",
       forwarded},
      {"several fields in order",
       {{"Forwarded", "for=6.6.6.6"}, {"Forwarded", "for=198.51.100.7;host=a.example, for=10.0.0.4;proto=http"}},
       "198.51.100.7",
       "http",
       "a.example",
       forwarded},
      {"all trusted: the left-most",
       {{"Forwarded", "for=10.0.0.3;proto=https, for=10.0.0.4"}},
       "10.0.0.3",
       "https",
       "origin.example",
       forwarded},
      {"OWS around ';' and ','",
       {{"Forwarded", " for=198.51.100.7 ;\tproto=https ,for=10.0.0.2 "}},
       "198.51.100.7",
       "https",
       "origin.example",
       forwarded},
      {"empty pairs and elements",
       {{"Forwarded", ",;for=198.51.100.7;;proto=https;, ,"}},
       "198.51.100.7",
       "https",
       "origin.example",
       forwarded},
      {"by and extensions ignored",
       {{"Forwarded", "for=198.51.100.7;by=\"[2001:db8::1]:80\";ext=\"a\\\"b,c\";x=y"}},
       "198.51.100.7",
       "http",
       "origin.example",
       forwarded},
      {"quoted host with a port",
       {{"Forwarded", "for=198.51.100.7;host=\"shop.example:8443\""}},
       "198.51.100.7",
       "http",
       "shop.example:8443",
       forwarded},
      {"IPv6 host",
       {{"Forwarded", "for=198.51.100.7;host=\"[2001:db8::1]:8443\""}},
       "198.51.100.7",
       "http",
       "[2001:db8::1]:8443",
       forwarded},
      {"comma inside quotes",
       {{"Forwarded", "for=198.51.100.7;ext=\"a, for=6.6.6.6\""}},
       "198.51.100.7",
       "http",
       "origin.example",
       forwarded},
      {"trusted IPv6 hop",
       {{"Forwarded", "for=198.51.100.7, for=\"[2001:db8:aaaa::3]\""}},
       "198.51.100.7",
       "http",
       "origin.example",
       forwarded},
  };
  for (const origin_case& c : cases) check(c);
}

TEST(Forwarded, ForwardedWinsOverXForwarded) {
  check({"Forwarded first",
         {{"X-Forwarded-For", "203.0.113.1"}, {"X-Forwarded-Proto", "https"}, {"Forwarded", "for=198.51.100.7"}},
         "198.51.100.7",
         "http",
         "origin.example",
         forwarded});
  check({"a Forwarded without elements does not count",
         {{"Forwarded", " , "}, {"X-Forwarded-For", "203.0.113.1"}, {"X-Forwarded-Proto", "https"}},
         "203.0.113.1",
         "https"});
  check({"garbage in Forwarded does not fall back to X-Forwarded-For",
         {{"Forwarded", "for=[2001:db8::1]"}, {"X-Forwarded-For", "203.0.113.1"}},
         proxy,
         "http",
         "origin.example",
         peer_source});
}

TEST(Forwarded, MalformedForwardedGivesThePeer) {
  const char* const values[] = {
      "for=\"198.51.100.7",            // unterminated quote
      "for=198.51.100.7;for=1.2.3.4",  // a parameter twice in one element
      "for=1.2.3.4;proto=http;proto=https",
      "for=",
      "for",
      "=198.51.100.7",
      "for 198.51.100.7",
      "for=1.2.3.4 proto=http",
      "for=\"2001:db8::1\"",     // IPv6 needs brackets
      "for=[2001:db8::1]",       // brackets need quotes
      "for=\"[198.51.100.7]\"",  // brackets hold IPv6 only
      "for=198.51.100.7:80",     // a port needs quotes
      "for=\"198.51.100.7:99999\"",
      "for=\"198.51.100.7:\"",
      "for=\"[2001:db8::1]:\"",
      "for=\"[2001:db8::1]80\"",
      "for=\"198.51.100.7:p\"",  // obfuscated ports start with '_'
      "for=hidden",              // obfuscated nodes start with '_'
      "for=_",
      "for=\"_a b\"",
      "for=1.2.3.4.5",
      "for=\"\\1.2.3.4\"",  // a quoted-pair where no valid node needs one
      "proto=1https",
      "proto=\"ht tp\"",
      "proto=\"\"",
      "host=\"a b\"",
      "host=\"\"",
      "host=\"a\\\"b\"",
      "for=198.51.100.7;ext=\"a\x01\"",
      "for=198.51.100.7;ext=\"a\\",
      "for=198.51.100.7;ext=a\x7f",
      "for=198.51.100.7,\"x\"",
      "for=198.51.100.7;=x",
      "for=198.51.100.7;ext=",
  };
  for (const char* value : values) {
    check({value,
           {{"Forwarded", value}, {"X-Forwarded-For", "203.0.113.1"}},
           proxy,
           "http",
           "origin.example",
           peer_source});
    check({value,
           {{"Forwarded", "for=198.51.100.7"}, {"Forwarded", value}},
           proxy,
           "http",
           "origin.example",
           peer_source});
  }
}

TEST(Forwarded, ResultCopiesKeepTheirAddressText) {
  const origin_case c{"copy", {{"X-Forwarded-For", "2001:db8::7"}}, "2001:db8::7"};
  const client_origin original = resolve(c);
  const client_origin copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.address_text(), "2001:db8::7");
  EXPECT_NE(copy.address_text().data(), original.address_text().data());
  EXPECT_EQ(copy.address(), stet::endpoint::parse("2001:db8::7"));
}

TEST(Forwarded, ViewsPointIntoTheFields) {
  const std::string value = "for=_hidden;host=shop.example";
  const std::vector<stet::header_field> list = {{"Forwarded", value}};
  const auto trust = proxy_trust::compile(std::vector<std::string>{"10.0.0.0/8"});
  const client_origin o =
      stet::detail::resolve_client_origin({list, endpoint_of(proxy), "http", "origin.example"}, trust.trust);
  EXPECT_EQ(o.address_text().data(), value.data() + 4);
  EXPECT_EQ(o.host().data(), value.data() + value.find("shop"));
  EXPECT_EQ(o.address().kind(), stet::endpoint::family::none);
}

TEST(Forwarded, ResolvingDoesNotAllocate) {
  const fields headers = {{"Forwarded", "for=6.6.6.6, for=\"[2001:db8::7]:80\";proto=https;host=\"a.example:1\""},
                          {"X-Forwarded-For", "1.2.3.4, 198.51.100.7, 10.0.0.2"},
                          {"X-Forwarded-Proto", "https"}};
  std::vector<stet::header_field> with_forwarded;
  for (const auto& [name, value] : headers) with_forwarded.push_back({name, value});
  const std::vector<stet::header_field> without_forwarded(with_forwarded.begin() + 1, with_forwarded.end());
  const auto trust = proxy_trust::compile(std::vector<std::string>{"10.0.0.0/8", "::1"});
  const std::vector<stet::header_field>* const lists[] = {&with_forwarded, &without_forwarded};
  std::size_t length = 0;
  const stet::test::allocation_scope scope;
  for (int i = 0; i < 200; ++i) {
    for (const auto* list : lists) {
      const client_origin o =
          stet::detail::resolve_client_origin({*list, endpoint_of(proxy), "http", "h"}, trust.trust);
      length += o.address_text().size() + o.scheme().size();
    }
  }
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(length, 200u * ((11 + 5) + (12 + 5)));
}

}  // namespace
