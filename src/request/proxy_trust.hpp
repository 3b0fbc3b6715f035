#pragma once
// Which peers are trusted proxies: server_options::trusted_proxies compiled
// once at start into address/prefix pairs that a peer is matched against
// without allocating.

#include <stet/endpoint.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stet::detail {

/// Why an entry of server_options::trusted_proxies was refused.
struct proxy_trust_error {
  std::size_t index = 0;    ///< the entry's position in the list
  std::string entry;        ///< the entry as given
  std::string_view reason;  ///< static text, e.g. "prefix length over 32"

  /// `trusted_proxies[1] "10.0.0.0/33": prefix length over 32`: for a start-up error.
  std::string message() const;
};

struct proxy_trust_result;

/// A compiled trust list. Default-constructed it trusts nobody (the default).
/// Immutable once built; share it read-only between workers.
class proxy_trust {
 public:
  proxy_trust() = default;

  /// Compiles `entries`: IPv4/IPv6 CIDRs ("10.0.0.0/8", "fd00::/8"), bare
  /// addresses (/32 or /128) and the word `unix` (unix-socket peers, any case). The first
  /// bad entry is an error; the server refuses to start with it. A network
  /// with bits set past its prefix ("10.1.0.0/8") is refused as a likely typo.
  /// IPv4-mapped IPv6 networks (`::ffff:10.0.0.0/104`) match IPv4 peers, as
  /// stet::endpoint stores such peers as IPv4.
  static proxy_trust_result compile(std::span<const std::string> entries);

  /// Whether `peer` is a trusted proxy: an IP address inside one of the
  /// networks, or a unix-socket peer when the list names `unix`. Never allocates.
  bool trusts(const stet::endpoint& peer) const noexcept;
  /// Whether nobody is trusted (forwarded headers are never read).
  bool empty() const noexcept { return v4_.empty() && v6_.empty() && !unix_; }

 private:
  struct network {
    std::array<std::uint8_t, 16> bytes{};  // masked to `prefix` bits
    unsigned prefix = 0;
  };
  static bool contains(const network& n, std::span<const std::uint8_t> address) noexcept;
  std::optional<std::string_view> add(std::string_view entry);
  void add_v6(const network& n);

  std::vector<network> v4_;
  std::vector<network> v6_;
  bool unix_ = false;
};

/// proxy_trust::compile()'s answer.
struct proxy_trust_result {
  proxy_trust trust;                       ///< trusts nobody when `error` is set
  std::optional<proxy_trust_error> error;  ///< the first refused entry
};

}  // namespace stet::detail
