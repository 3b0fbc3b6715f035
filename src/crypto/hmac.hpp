#pragma once
// HMAC-SHA256 with the keyed state derived once: the key schedule (and a fixed
// message prefix) is absorbed into a base context at construction, and every
// MAC works on a duplicate of it, so no call ever re-keys.

#include <openssl/types.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stet::detail {

inline constexpr std::size_t hmac_sha256_bytes = 32;
using hmac_sha256_digest = std::array<unsigned char, hmac_sha256_bytes>;

class hmac_sha256_key {
 public:
  /// A key for `secret` whose MACs cover `prefix` + data. nullopt when OpenSSL
  /// cannot provide HMAC-SHA256 or `secret` is empty (OpenSSL reads an empty
  /// key as "keep the previous key").
  static std::optional<hmac_sha256_key> derive(std::string_view secret, std::string_view prefix);

  hmac_sha256_key(hmac_sha256_key&& other) noexcept : base_(other.base_) { other.base_ = nullptr; }
  hmac_sha256_key& operator=(hmac_sha256_key&& other) noexcept;
  hmac_sha256_key(const hmac_sha256_key&) = delete;
  hmac_sha256_key& operator=(const hmac_sha256_key&) = delete;
  ~hmac_sha256_key();

  /// HMAC-SHA256(secret, prefix + data). nullopt only when OpenSSL cannot
  /// duplicate the context (out of memory).
  /// @note Safe to call concurrently: the base context is only read (duplicated).
  std::optional<hmac_sha256_digest> mac(std::string_view data) const noexcept;

 private:
  explicit hmac_sha256_key(EVP_MAC_CTX* base) noexcept : base_(base) {}
  EVP_MAC_CTX* base_;
};

/// Keyed contexts derived so far and held now, over the whole process: a
/// derivation is the one-time cost a signer pays per secret (the cache miss),
/// every mac() after it reuses one (the hit, counted in memo_stats::macs).
struct hmac_key_counts {
  std::uint64_t derived = 0;
  std::uint64_t held = 0;
};
hmac_key_counts hmac_key_stats() noexcept;

}  // namespace stet::detail
