#include <stet/endpoint.hpp>

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

namespace stet {
namespace {

constexpr std::array<std::uint8_t, 12> v4_mapped_prefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

}  // namespace

endpoint endpoint::v4(std::span<const std::uint8_t, 4> bytes, std::uint16_t port) noexcept {
  endpoint e;
  std::copy(bytes.begin(), bytes.end(), e.bytes_.begin());
  e.port_ = port;
  e.family_ = family::ipv4;
  return e;
}

endpoint endpoint::v6(std::span<const std::uint8_t, 16> bytes, std::uint16_t port) noexcept {
  if (std::equal(v4_mapped_prefix.begin(), v4_mapped_prefix.end(), bytes.begin())) {
    return v4(bytes.subspan<12, 4>(), port);
  }
  endpoint e;
  std::copy(bytes.begin(), bytes.end(), e.bytes_.begin());
  e.port_ = port;
  e.family_ = family::ipv6;
  return e;
}

endpoint endpoint::unix_socket() noexcept {
  endpoint e;
  e.family_ = family::unix_socket;
  return e;
}

endpoint endpoint::parse(std::string_view text, std::uint16_t port) noexcept {
  std::array<char, max_text> z{};
  // inet_pton stops at a NUL: "10.0.0.5\0x" must not read as 10.0.0.5.
  if (text.empty() || text.size() >= z.size() || text.find('\0') != std::string_view::npos) return {};
  std::memcpy(z.data(), text.data(), text.size());
  std::array<std::uint8_t, 16> bytes{};
  if (::inet_pton(AF_INET, z.data(), bytes.data()) == 1) {
    return v4(std::span<const std::uint8_t, 4>(bytes.data(), 4), port);
  }
  if (::inet_pton(AF_INET6, z.data(), bytes.data()) == 1) return v6(bytes, port);
  return {};
}

std::span<const std::uint8_t> endpoint::address_bytes() const noexcept {
  switch (family_) {
    case family::ipv4: return {bytes_.data(), 4};
    case family::ipv6: return {bytes_.data(), 16};
    default: return {};
  }
}

std::string_view endpoint::address_text(std::span<char, max_text> out) const noexcept {
  const int af = family_ == family::ipv4 ? AF_INET : AF_INET6;
  switch (family_) {
    case family::ipv4:
    case family::ipv6:
      if (::inet_ntop(af, bytes_.data(), out.data(), static_cast<socklen_t>(out.size())) != nullptr) {
        return {out.data(), std::strlen(out.data())};
      }
      return "-";
    case family::unix_socket: return "unix";
    case family::none: break;
  }
  return "-";
}

std::string endpoint::address_string() const {
  std::array<char, max_text> text{};
  return std::string(address_text(text));
}

}  // namespace stet
