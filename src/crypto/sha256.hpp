#pragma once
// SHA-256 over bytes that arrive in pieces (uploads, files read in chunks),
// with OpenSSL's algorithm object fetched once per process.

#include <openssl/types.h>

#include <array>
#include <optional>
#include <string_view>

namespace stet::detail {

/// 64 lowercase hex digits.
using sha256_hex = std::array<char, 64>;

/// A running SHA-256. Not copyable; movable.
class sha256 {
 public:
  /// A fresh digest; ok() is false only when OpenSSL cannot allocate.
  sha256() noexcept;
  sha256(sha256&& other) noexcept : ctx_(other.ctx_) { other.ctx_ = nullptr; }
  sha256& operator=(sha256&& other) noexcept;
  sha256(const sha256&) = delete;
  sha256& operator=(const sha256&) = delete;
  ~sha256();

  bool ok() const noexcept { return ctx_ != nullptr; }
  /// Absorbs `bytes`; false (and not ok() any more) if OpenSSL fails.
  bool update(std::string_view bytes) noexcept;
  /// The digest of everything absorbed; the object then starts over empty.
  /// nullopt if OpenSSL failed at any point.
  std::optional<sha256_hex> finish() noexcept;

 private:
  bool restart() noexcept;
  EVP_MD_CTX* ctx_;
};

}  // namespace stet::detail
