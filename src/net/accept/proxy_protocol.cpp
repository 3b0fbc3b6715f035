#include "net/accept/proxy_protocol.hpp"

#include "http/host_syntax.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <span>

namespace stet::detail {
namespace {

constexpr std::string_view v1_prefix = "PROXY ";
constexpr std::string_view v2_signature{"\r\n\r\n\0\r\nQUIT\n", 12};
constexpr std::size_t v2_fixed_bytes = 16;

// v2 address block sizes by family (proxy-protocol.txt 2.2).
constexpr std::size_t v2_inet_bytes = 12;
constexpr std::size_t v2_inet6_bytes = 36;
constexpr std::size_t v2_unix_bytes = 216;

proxy_header invalid(std::uint8_t version, std::string_view why) noexcept {
  proxy_header h;
  h.what = proxy_header::status::invalid;
  h.version = version;
  h.reason = why;
  return h;
}

proxy_header need_more(std::uint8_t version) noexcept {
  proxy_header h;
  h.version = version;
  return h;
}

proxy_header done(std::uint8_t version, std::size_t consumed) noexcept {
  proxy_header h;
  h.what = proxy_header::status::done;
  h.version = version;
  h.consumed = consumed;
  h.local = true;
  return h;
}

proxy_header done(std::uint8_t version, std::size_t consumed, const endpoint& source,
                  const endpoint& destination) noexcept {
  proxy_header h = done(version, consumed);
  h.local = false;
  h.source = source;
  h.destination = destination;
  return h;
}

// Whether `s` is, as far as it goes, a prefix of `whole`.
bool starts_like(std::string_view s, std::string_view whole) noexcept {
  const std::size_t n = std::min(s.size(), whole.size());
  return s.substr(0, n) == whole.substr(0, n);
}

// "PROXY TCP4 src dst sport dport" (no CRLF): exactly single spaces between
// exactly six words, the addresses of the protocol's family.
proxy_header parse_v1_line(std::string_view line, std::size_t consumed) noexcept {
  if (line == "PROXY UNKNOWN" || line.starts_with("PROXY UNKNOWN ")) return done(1, consumed);
  std::array<std::string_view, 6> word;
  std::size_t words = 0;
  for (std::string_view rest = line; words < word.size();) {
    const std::size_t space = rest.find(' ');
    word[words++] = rest.substr(0, space);
    if (space == std::string_view::npos) break;
    rest = rest.substr(space + 1);
    if (words == word.size()) return invalid(1, "a v1 header with more than six words");
  }
  if (words != word.size()) return invalid(1, "a v1 header needs a protocol, two addresses and two ports");
  const bool tcp4 = word[1] == "TCP4";
  if (!tcp4 && word[1] != "TCP6") return invalid(1, "a v1 protocol other than TCP4, TCP6 or UNKNOWN");
  // TCP4 addresses hold no ':', TCP6 ones do (an IPv4-mapped one is still written as IPv6).
  const auto address = [tcp4](std::string_view text, std::uint16_t port) {
    const bool v6_text = text.find(':') != std::string_view::npos;
    return v6_text == tcp4 ? endpoint() : endpoint::parse(text, port);
  };
  const std::optional<std::uint16_t> source_port = parse_port(word[4]);
  const std::optional<std::uint16_t> destination_port = parse_port(word[5]);
  if (!source_port || !destination_port) return invalid(1, "a v1 port that is not 0 to 65535");
  const endpoint source = address(word[2], *source_port);
  const endpoint destination = address(word[3], *destination_port);
  if (!source.is_ip() || !destination.is_ip()) return invalid(1, "a v1 address that is not of its protocol");
  return done(1, consumed, source, destination);
}

proxy_header parse_v1(std::string_view s) noexcept {
  if (!starts_like(s, v1_prefix)) return invalid(1, "not a PROXY protocol header");
  const std::size_t window = std::min(s.size(), proxy_v1_max_bytes);
  for (std::size_t i = 0; i < window; ++i) {
    const char c = s[i];
    if (c == '\r') {
      if (i + 2 > proxy_v1_max_bytes) break;
      if (i + 1 == s.size()) return need_more(1);
      if (s[i + 1] != '\n') return invalid(1, "a CR without LF in a v1 header");
      return parse_v1_line(s.substr(0, i), i + 2);
    }
    if (c < 0x20 || c > 0x7e) return invalid(1, "a byte in a v1 header that is not printable ASCII");
  }
  if (s.size() >= proxy_v1_max_bytes) return invalid(1, "a v1 header longer than 107 bytes");
  return need_more(1);
}

std::uint16_t big_endian16(const unsigned char* p) noexcept { return static_cast<std::uint16_t>(p[0] << 8 | p[1]); }

// The TLVs after the address block: each a type, a 16-bit length and that
// many bytes, together filling the rest of the header exactly.
bool tlvs_fit(std::span<const unsigned char> tlvs) noexcept {
  while (!tlvs.empty()) {
    if (tlvs.size() < 3) return false;
    const std::size_t length = big_endian16(tlvs.data() + 1);
    if (tlvs.size() - 3 < length) return false;
    tlvs = tlvs.subspan(3 + length);
  }
  return true;
}

// The address block of a complete PROXY-command header (fam byte `family`).
proxy_header v2_addresses(std::uint8_t family, std::span<const unsigned char> block, std::size_t consumed) noexcept {
  const unsigned address_family = family >> 4;
  if (address_family == 0) return done(2, consumed);  // AF_UNSPEC: the balancer does not know
  if ((family & 0x0f) != 1) return invalid(2, "a v2 transport other than STREAM");
  const std::size_t needed = address_family == 1 ? v2_inet_bytes : address_family == 2 ? v2_inet6_bytes : v2_unix_bytes;
  if (block.size() < needed) return invalid(2, "a v2 address block shorter than its family's");
  if (!tlvs_fit(block.subspan(needed))) return invalid(2, "a v2 TLV that does not fit the header");
  if (address_family == 3) return done(2, consumed, endpoint::unix_socket(), endpoint::unix_socket());
  const std::size_t width = address_family == 1 ? 4 : 16;
  const unsigned char* ports = block.data() + 2 * width;
  const auto at = [&](std::size_t offset, std::uint16_t port) {
    return width == 4 ? endpoint::v4(std::span<const std::uint8_t, 4>(block.data() + offset, 4), port)
                      : endpoint::v6(std::span<const std::uint8_t, 16>(block.data() + offset, 16), port);
  };
  return done(2, consumed, at(0, big_endian16(ports)), at(width, big_endian16(ports + 2)));
}

proxy_header parse_v2(std::string_view s, std::size_t max_bytes) noexcept {
  if (!starts_like(s, v2_signature)) return invalid(2, "not a PROXY protocol header");
  const auto* bytes = reinterpret_cast<const unsigned char*>(s.data());
  if (s.size() > 12) {
    const unsigned version = bytes[12] >> 4;
    const unsigned command = bytes[12] & 0x0f;
    if (version != 2) return invalid(2, "a v2 signature with a version other than 2");
    if (command > 1) return invalid(2, "a v2 command other than LOCAL or PROXY");
  }
  if (s.size() > 13 && ((bytes[13] >> 4) > 3 || (bytes[13] & 0x0f) > 2)) {
    return invalid(2, "an unknown v2 address family or transport");
  }
  if (s.size() < v2_fixed_bytes) return need_more(2);
  const std::size_t total = v2_fixed_bytes + big_endian16(bytes + 14);
  if (total > max_bytes) return invalid(2, "a v2 header over the size limit");
  if (s.size() < total) return need_more(2);
  if ((bytes[12] & 0x0f) == 0) return done(2, total);  // LOCAL: the balancer's own connection (health check)
  return v2_addresses(bytes[13], {bytes + v2_fixed_bytes, total - v2_fixed_bytes}, total);
}

}  // namespace

proxy_header parse_proxy_header(std::string_view received, std::size_t max_bytes) noexcept {
  if (received.empty()) return need_more(0);
  if (received.front() == 'P') return parse_v1(received);
  if (received.front() == '\r') return parse_v2(received, max_bytes);
  return invalid(0, "not a PROXY protocol header");
}

}  // namespace stet::detail
