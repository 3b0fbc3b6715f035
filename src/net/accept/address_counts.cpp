#include "net/accept/address_counts.hpp"

#include <algorithm>
#include <string_view>

namespace stet::detail {

std::size_t address_counts::key_hash::operator()(const key& k) const noexcept {
  return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(k.data()), k.size()));
}

address_counts::key address_counts::key_of(const endpoint& peer) noexcept {
  key k{};
  const std::span<const std::uint8_t> bytes = peer.address_bytes();
  std::copy(bytes.begin(), bytes.end(), k.begin());
  k.back() = static_cast<std::uint8_t>(peer.kind());
  return k;
}

// A node per address with connections open: the map allocates only when a
// new address arrives, and gives the node back when its last connection closes.
bool address_counts::try_add(const endpoint& peer, std::size_t limit) noexcept {
  const key k = key_of(peer);
  std::lock_guard lock(mutex_);
  try {
    std::size_t& n = open_[k];
    if (n >= limit) return false;
    ++n;
    return true;
  } catch (const std::bad_alloc&) {
    return false;  // refusing one connection beats failing the server
  }
}

void address_counts::remove(const endpoint& peer) noexcept {
  const key k = key_of(peer);
  std::lock_guard lock(mutex_);
  const auto it = open_.find(k);
  if (it == open_.end()) return;
  if (--it->second == 0) open_.erase(it);
}

std::size_t address_counts::addresses() const noexcept {
  std::lock_guard lock(mutex_);
  return open_.size();
}

}  // namespace stet::detail
