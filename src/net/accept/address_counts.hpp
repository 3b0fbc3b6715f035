#pragma once
// Connections open per client address, for max_connections_per_address:
// shared by every worker and listener, so a mutex guards it. Only touched when
// that limit is set (at a connection's open and close, never per request).

#include <stet/endpoint.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace stet::detail {

class address_counts {
 public:
  /// Counts one more connection from `peer` (an IP endpoint) unless it has
  /// `limit` already; false when it has.
  bool try_add(const endpoint& peer, std::size_t limit) noexcept;
  /// One connection from `peer` closed.
  void remove(const endpoint& peer) noexcept;
  /// Addresses with a connection open now.
  std::size_t addresses() const noexcept;

 private:
  // The address bytes, IPv4 in the first four with a family byte after; the
  // port is not part of it.
  using key = std::array<std::uint8_t, 17>;
  struct key_hash {
    std::size_t operator()(const key& k) const noexcept;
  };
  static key key_of(const endpoint& peer) noexcept;

  mutable std::mutex mutex_;
  std::unordered_map<key, std::size_t, key_hash> open_;
};

}  // namespace stet::detail
