#include "net/accept/proxy_protocol.hpp"  // Test that the header file is self-contained.

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::detail::parse_proxy_header;
using stet::detail::proxy_header;
using status = proxy_header::status;

const std::string request = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
const std::string signature("\r\n\r\n\0\r\nQUIT\n", 12);

std::string be16(std::size_t v) { return {static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)}; }

// A v2 header: signature, version 2 with `command`, `family`, then `body` (addresses and TLVs).
std::string v2(unsigned command, unsigned family, std::string_view body) {
  std::string h = signature;
  h += static_cast<char>(0x20 | command);
  h += static_cast<char>(family);
  h += be16(body.size());
  h += body;
  return h;
}

std::string bytes(std::initializer_list<int> list) {
  std::string s;
  for (int b : list) s += static_cast<char>(b);
  return s;
}

std::string tlv(int type, std::string_view value) {
  return static_cast<char>(type) + be16(value.size()) + std::string(value);
}

const std::string inet_block = bytes({192, 0, 2, 1, 198, 51, 100, 2}) + be16(56324) + be16(443);
const std::string inet6_block = bytes({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}) +
                                bytes({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2}) + be16(1) +
                                be16(65535);
const std::string unix_block =
    std::string("/run/client.sock") + std::string(92, '\0') + "/run/stet.sock" + std::string(94, '\0');

struct good_case {
  const char* name;
  std::string header;
  bool local;
  const char* source = "";
  std::uint16_t source_port = 0;
  const char* destination = "";
  std::uint16_t destination_port = 0;
};

const std::vector<good_case>& good_cases() {
  static const std::vector<good_case> cases = {
      {"v1 TCP4", "PROXY TCP4 192.0.2.1 198.51.100.2 56324 443\r\n", false, "192.0.2.1", 56324, "198.51.100.2", 443},
      {"v1 TCP6", "PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n", false, "2001:db8::1", 1, "2001:db8::2", 65535},
      {"v1 TCP6 mapped", "PROXY TCP6 ::ffff:192.0.2.1 ::1 0 80\r\n", false, "192.0.2.1", 0, "::1", 80},
      {"v1 TCP6 longest",
       "PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff 65535 65535\r\n",
       false, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 65535},
      {"v1 UNKNOWN", "PROXY UNKNOWN\r\n", true},
      {"v1 UNKNOWN with addresses", "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n", true},
      {"v1 UNKNOWN, 107 bytes", "PROXY UNKNOWN " + std::string(91, 'x') + "\r\n", true},
      {"v2 INET", v2(1, 0x11, inet_block), false, "192.0.2.1", 56324, "198.51.100.2", 443},
      {"v2 INET6", v2(1, 0x21, inet6_block), false, "2001:db8::1", 1, "2001:db8::2", 65535},
      {"v2 UNIX", v2(1, 0x31, unix_block), false, "unix", 0, "unix", 0},
      {"v2 UNSPEC", v2(1, 0x00, ""), true},
      {"v2 UNSPEC with bytes", v2(1, 0x00, "whatever"), true},
      {"v2 LOCAL", v2(0, 0x00, ""), true},
      {"v2 LOCAL with an address block", v2(0, 0x11, inet_block), true},
      {"v2 TLVs skipped",
       v2(1, 0x11, inet_block + tlv(0x01, "h2") + tlv(0x02, "example.com") + tlv(0x04, "") + tlv(0x20, "\x01xyz")),
       false, "192.0.2.1", 56324, "198.51.100.2", 443},
      {"v2 a large TLV", v2(1, 0x21, inet6_block + tlv(0xE0, std::string(1000, 'v'))), false, "2001:db8::1", 1,
       "2001:db8::2", 65535},
  };
  return cases;
}

void expect_done(const proxy_header& h, const good_case& c, std::size_t consumed) {
  ASSERT_EQ(h.what, status::done) << c.name << ": " << h.reason;
  EXPECT_EQ(h.consumed, consumed) << c.name;
  EXPECT_EQ(h.local, c.local) << c.name;
  EXPECT_EQ(h.version, c.header.front() == 'P' ? 1 : 2) << c.name;
  if (c.local) return;
  EXPECT_EQ(h.source.address_string(), c.source) << c.name;
  EXPECT_EQ(h.source.port(), c.source_port) << c.name;
  EXPECT_EQ(h.destination.address_string(), c.destination) << c.name;
  EXPECT_EQ(h.destination.port(), c.destination_port) << c.name;
}

TEST(ProxyProtocol, EveryFamilyOfBothVersions) {
  for (const good_case& c : good_cases()) expect_done(parse_proxy_header(c.header), c, c.header.size());
}

// The request after the header is not the header's: consumed is exact.
TEST(ProxyProtocol, ConsumesExactlyTheHeaderBeforeTheRequest) {
  for (const good_case& c : good_cases()) {
    const std::string stream = c.header + request;
    const proxy_header h = parse_proxy_header(stream);
    expect_done(h, c, c.header.size());
    EXPECT_EQ(stream.substr(h.consumed), request) << c.name;
  }
}

TEST(ProxyProtocol, EverySplitPositionNeedsMoreUntilTheHeaderIsComplete) {
  for (const good_case& c : good_cases()) {
    const std::string stream = c.header + request;
    for (std::size_t n = 0; n <= stream.size(); ++n) {
      const proxy_header h = parse_proxy_header(std::string_view(stream).substr(0, n));
      if (n < c.header.size()) {
        ASSERT_EQ(h.what, status::need_more) << c.name << " after " << n << " bytes: " << h.reason;
      } else {
        expect_done(h, c, c.header.size());
      }
    }
  }
}

struct bad_case {
  const char* name;
  std::string bytes;
};

const std::vector<bad_case>& bad_cases() {
  static const std::vector<bad_case> cases = {
      {"an HTTP request", request},
      {"a TLS hello", bytes({0x16, 0x03, 0x01, 0x02, 0x00})},
      {"lowercase", "proxy TCP4 192.0.2.1 198.51.100.2 1 2\r\n"},
      {"no space after PROXY", "PROXYTCP4 192.0.2.1 198.51.100.2 1 2\r\n"},
      {"TCP5", "PROXY TCP5 192.0.2.1 198.51.100.2 1 2\r\n"},
      {"bare LF", "PROXY TCP4 192.0.2.1 198.51.100.2 1 2\n"},
      {"CR without LF", "PROXY TCP4 192.0.2.1 198.51.100.2 1 2\rX"},
      {"double space", "PROXY TCP4 192.0.2.1  198.51.100.2 1 2\r\n"},
      {"trailing space", "PROXY TCP4 192.0.2.1 198.51.100.2 1 2 \r\n"},
      {"five words", "PROXY TCP4 192.0.2.1 198.51.100.2 1\r\n"},
      {"seven words", "PROXY TCP4 192.0.2.1 198.51.100.2 1 2 3\r\n"},
      {"nothing after PROXY", "PROXY \r\n"},
      {"only the protocol", "PROXY TCP4\r\n"},
      {"IPv6 in TCP4", "PROXY TCP4 2001:db8::1 198.51.100.2 1 2\r\n"},
      {"IPv4 in TCP6", "PROXY TCP6 192.0.2.1 2001:db8::2 1 2\r\n"},
      {"bad address", "PROXY TCP4 192.0.2 198.51.100.2 1 2\r\n"},
      {"hostname", "PROXY TCP4 localhost 198.51.100.2 1 2\r\n"},
      {"port over 65535", "PROXY TCP4 192.0.2.1 198.51.100.2 65536 2\r\n"},
      {"negative port", "PROXY TCP4 192.0.2.1 198.51.100.2 -1 2\r\n"},
      {"port with a letter", "PROXY TCP4 192.0.2.1 198.51.100.2 1a 2\r\n"},
      {"six digit port", "PROXY TCP4 192.0.2.1 198.51.100.2 000001 2\r\n"},
      {"NUL in v1", std::string("PROXY TCP4 192.0.2.1\0 198.51.100.2 1 2\r\n", 41)},
      {"UNKNOWN run together", "PROXY UNKNOWNX\r\n"},
      {"v1 of 108 bytes", "PROXY UNKNOWN " + std::string(92, 'x') + "\r\n"},
      {"v1 without an end", "PROXY UNKNOWN " + std::string(200, 'x')},
      {"v2 signature broken", std::string("\r\n\r\n\0\r\nQUIT\r", 12) + bytes({0x21, 0x11, 0, 12}) + inet_block},
      {"v2 version 1", signature + bytes({0x11, 0x11, 0, 12}) + inet_block},
      {"v2 version 3", signature + bytes({0x31, 0x11, 0, 12}) + inet_block},
      {"v2 command 2", signature + bytes({0x22, 0x11, 0, 12}) + inet_block},
      {"v2 family 4", signature + bytes({0x21, 0x41, 0, 12}) + inet_block},
      {"v2 transport 3", signature + bytes({0x21, 0x13, 0, 12}) + inet_block},
      {"v2 DGRAM", v2(1, 0x12, inet_block)},
      {"v2 INET, unspecified transport", v2(1, 0x10, inet_block)},
      {"v2 INET block short", v2(1, 0x11, inet_block.substr(0, 11))},
      {"v2 INET6 block short", v2(1, 0x21, inet6_block.substr(0, 35))},
      {"v2 UNIX block short", v2(1, 0x31, unix_block.substr(0, 215))},
      {"v2 TLV longer than the header", v2(1, 0x11, inet_block + static_cast<char>(1) + be16(5) + "abc")},
      {"v2 TLV header cut", v2(1, 0x11, inet_block + tlv(1, "ab") + bytes({2, 0}))},
      {"v2 over the limit", signature + bytes({0x21, 0x11}) + be16(65535)},
  };
  return cases;
}

// Invalid once, invalid for good: every longer prefix is invalid too, every
// shorter one a valid start (need_more).
TEST(ProxyProtocol, MalformedHeadersAreInvalidAsSoonAsTheBytesShowIt) {
  for (const bad_case& c : bad_cases()) {
    const std::string stream = c.bytes + request;
    bool seen_invalid = false;
    for (std::size_t n = 1; n <= stream.size(); ++n) {
      const proxy_header h = parse_proxy_header(std::string_view(stream).substr(0, n));
      ASSERT_NE(h.what, status::done) << c.name << " after " << n << " bytes";
      if (seen_invalid) {
        ASSERT_EQ(h.what, status::invalid) << c.name << " after " << n << " bytes";
      }
      if (h.what == status::invalid) {
        EXPECT_FALSE(h.reason.empty()) << c.name;
      }
      seen_invalid = h.what == status::invalid;
    }
    EXPECT_TRUE(seen_invalid) << c.name;
  }
}

TEST(ProxyProtocol, AnythingElseIsRefusedAtItsFirstByte) {
  for (const char* start : {"G", "\x16", "p", "\n", "X"}) {
    EXPECT_EQ(parse_proxy_header(start).what, status::invalid) << start;
  }
  EXPECT_EQ(parse_proxy_header("").what, status::need_more);
  EXPECT_EQ(parse_proxy_header("PROXY").what, status::need_more);
  EXPECT_EQ(parse_proxy_header("PROXX").what, status::invalid);
  EXPECT_EQ(parse_proxy_header(std::string_view(signature).substr(0, 5)).what, status::need_more);
  EXPECT_EQ(parse_proxy_header(signature + bytes({0x11})).what, status::invalid);  // the version byte tells
}

TEST(ProxyProtocol, TheSizeLimitCountsTheWholeV2Header) {
  const std::string body = inet_block + tlv(0xE0, std::string(100, 'x'));
  const std::string header = v2(1, 0x11, body);
  EXPECT_EQ(parse_proxy_header(header, header.size()).what, status::done);
  const proxy_header over = parse_proxy_header(std::string_view(header).substr(0, 16), header.size() - 1);
  EXPECT_EQ(over.what, status::invalid) << "known from the length field alone";
  const std::string largest = v2(1, 0x11, inet_block + tlv(0xE0, std::string(4096 - 16 - 12 - 3, 'x')));
  EXPECT_EQ(largest.size(), stet::detail::proxy_default_max_bytes);
  EXPECT_EQ(parse_proxy_header(largest).what, status::done);
  EXPECT_EQ(parse_proxy_header(v2(1, 0x11, inet_block + tlv(0xE0, std::string(4096 - 16 - 12 - 2, 'x')))).what,
            status::invalid);
}

TEST(ProxyProtocol, ParsingDoesNotAllocate) {
  const std::vector<good_case>& good = good_cases();
  const std::vector<bad_case>& bad = bad_cases();
  std::size_t consumed = 0;
  const stet::test::allocation_scope scope;
  for (int i = 0; i < 100; ++i) {
    for (const good_case& c : good) consumed += parse_proxy_header(c.header).consumed;
    for (const bad_case& c : bad) consumed += parse_proxy_header(c.bytes).consumed;
  }
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_GT(consumed, 0u);
}

}  // namespace
