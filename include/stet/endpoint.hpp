#pragma once
/// @file stet::endpoint: the address of a connection's peer (IPv4, IPv6 or a
/// unix-domain socket), without Asio or socket headers.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace stet {

/// A peer's address and port. IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`)
/// are stored as IPv4, so a dual-stack listener reports what the client used.
class endpoint {
 public:
  enum class family : std::uint8_t {
    none,         ///< unknown (default-constructed)
    ipv4,         ///< 4 address bytes
    ipv6,         ///< 16 address bytes
    unix_socket,  ///< a unix-domain socket peer: no address, no port
  };
  /// Longest address_text(): a full IPv6 address with an IPv4 tail, plus room for a NUL.
  static constexpr std::size_t max_text = 46;

  constexpr endpoint() noexcept = default;
  static endpoint v4(std::span<const std::uint8_t, 4> bytes, std::uint16_t port) noexcept;
  /// An IPv4-mapped address becomes v4().
  static endpoint v6(std::span<const std::uint8_t, 16> bytes, std::uint16_t port) noexcept;
  static endpoint unix_socket() noexcept;
  /// Parses an IPv4 or IPv6 literal ("192.0.2.1", "2001:db8::1", no brackets);
  /// none() when `text` is neither.
  static endpoint parse(std::string_view text, std::uint16_t port = 0) noexcept;

  stet::endpoint::family kind() const noexcept { return family_; }
  bool is_ip() const noexcept { return family_ == family::ipv4 || family_ == family::ipv6; }
  /// The 4 (IPv4) or 16 (IPv6) address bytes in network order; empty otherwise.
  std::span<const std::uint8_t> address_bytes() const noexcept;
  std::uint16_t port() const noexcept { return port_; }

  /// The address as text ("192.0.2.1", "2001:db8::1", "unix", or "-" for none)
  /// written into `out`; the view points into `out`.
  std::string_view address_text(std::span<char, max_text> out) const noexcept;
  /// address_text() as a string.
  std::string address_string() const;

  friend bool operator==(const endpoint&, const endpoint&) noexcept = default;

 private:
  std::array<std::uint8_t, 16> bytes_{};
  std::uint16_t port_ = 0;
  family family_ = family::none;
};

}  // namespace stet
