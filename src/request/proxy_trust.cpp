#include "request/proxy_trust.hpp"

#include "http/token.hpp"

#include <algorithm>

namespace stet::detail {
namespace {

// ::ffff:0:0/96, the IPv4-mapped range.
constexpr std::array<std::uint8_t, 16> v4_mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0};

// Whether the first `bits` bits of `a` and `b` agree.
bool same_prefix(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b, unsigned bits) noexcept {
  const std::size_t whole = bits / 8;
  if (!std::equal(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(whole), b.begin())) return false;
  const unsigned rest = bits % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (a[whole] & mask) == (b[whole] & mask);
}

// Whether any bit of `bytes` past the first `bits` is set.
bool has_host_bits(std::span<const std::uint8_t> bytes, unsigned bits) noexcept {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const unsigned from = static_cast<unsigned>(i) * 8;
    const auto keep = bits >= from + 8 ? 0xff : bits <= from ? 0 : 0xff << (8 - (bits - from));
    if ((bytes[i] & ~keep & 0xff) != 0) return true;
  }
  return false;
}

// A prefix length: decimal digits without a sign or a leading zero (saturating:
// any long number is simply too long a prefix).
std::optional<unsigned> parse_prefix(std::string_view text) noexcept {
  if (text.empty() || (text.size() > 1 && text.front() == '0')) return std::nullopt;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = std::min(value * 10 + static_cast<unsigned>(c - '0'), 1000u);
  }
  return value;
}

}  // namespace

std::string proxy_trust_error::message() const {
  std::string out = "trusted_proxies[" + std::to_string(index) + "] \"";
  out.append(entry).append("\": ").append(reason);
  return out;
}

proxy_trust_result proxy_trust::compile(std::span<const std::string> entries) {
  proxy_trust_result out;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (const std::optional<std::string_view> reason = out.trust.add(entries[i])) {
      return {proxy_trust{}, proxy_trust_error{i, entries[i], *reason}};
    }
  }
  return out;
}

// nullopt when `entry` was added; else why it was refused.
std::optional<std::string_view> proxy_trust::add(std::string_view entry) {
  if (iequals(entry, "unix")) {
    unix_ = true;
    return std::nullopt;
  }
  if (entry.empty()) return "empty entry";
  const std::size_t slash = entry.find('/');
  const std::string_view address_text = entry.substr(0, slash);
  // endpoint::parse() reads text up to a NUL; an address holds none of the other bytes.
  const bool address_bytes = address_text.find_first_not_of("0123456789abcdefABCDEF:.") == std::string_view::npos;
  const stet::endpoint address = address_bytes ? stet::endpoint::parse(address_text) : stet::endpoint();
  if (!address.is_ip()) return "not an IPv4 or IPv6 address, a CIDR or \"unix\"";
  // endpoint::parse() turns ::ffff:a.b.c.d into IPv4; the entry's width is how it was written.
  const bool v6 = address_text.find(':') != std::string_view::npos;
  const unsigned width = v6 ? 128 : 32;
  unsigned prefix = width;
  if (slash != std::string_view::npos) {
    const std::optional<unsigned> length = parse_prefix(entry.substr(slash + 1));
    if (!length) return "the prefix length is not a decimal number";
    if (*length > width) return v6 ? "prefix length over 128" : "prefix length over 32";
    prefix = *length;
  }
  network n;
  n.prefix = prefix;
  const std::span<const std::uint8_t> bytes = address.address_bytes();
  if (v6 && bytes.size() == 4) std::copy(v4_mapped.begin(), v4_mapped.end(), n.bytes.begin());
  std::copy(bytes.begin(), bytes.end(), n.bytes.begin() + (v6 ? 16 - bytes.size() : 0));
  if (has_host_bits(std::span(n.bytes).first(width / 8), prefix)) {
    return "the address has bits set past the prefix length";
  }
  if (v6) {
    add_v6(n);
  } else {
    v4_.push_back(n);
  }
  return std::nullopt;
}

// stet::endpoint never holds an IPv4-mapped IPv6 address (it stores IPv4), so
// the part of a network inside ::ffff:0:0/96 is matched as IPv4.
void proxy_trust::add_v6(const network& n) {
  if (same_prefix(n.bytes, v4_mapped, std::min(n.prefix, 96u))) {
    network v4;
    v4.prefix = n.prefix > 96 ? n.prefix - 96 : 0;
    std::copy(n.bytes.begin() + 12, n.bytes.end(), v4.bytes.begin());
    v4_.push_back(v4);
    if (n.prefix >= 96) return;
  }
  v6_.push_back(n);
}

bool proxy_trust::contains(const network& n, std::span<const std::uint8_t> address) noexcept {
  return same_prefix(n.bytes, address, n.prefix);
}

bool proxy_trust::trusts(const stet::endpoint& peer) const noexcept {
  const std::span<const std::uint8_t> address = peer.address_bytes();
  switch (peer.kind()) {
    case stet::endpoint::family::ipv4:
      return std::any_of(v4_.begin(), v4_.end(), [&](const network& n) { return contains(n, address); });
    case stet::endpoint::family::ipv6:
      return std::any_of(v6_.begin(), v6_.end(), [&](const network& n) { return contains(n, address); });
    case stet::endpoint::family::unix_socket: return unix_;
    case stet::endpoint::family::none: break;
  }
  return false;
}

}  // namespace stet::detail
