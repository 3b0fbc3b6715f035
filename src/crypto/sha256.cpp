#include "crypto/sha256.hpp"

#include <openssl/evp.h>

#include <utility>

namespace stet::detail {
namespace {

// Fetched once: OpenSSL 3 otherwise looks the algorithm up in the provider
// store (under a lock) on every EVP_DigestInit_ex with EVP_sha256().
const EVP_MD* sha256_md() noexcept {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

}  // namespace

sha256::sha256() noexcept : ctx_(EVP_MD_CTX_new()) {
  if (!restart()) {
    EVP_MD_CTX_free(ctx_);
    ctx_ = nullptr;
  }
}

sha256& sha256::operator=(sha256&& other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}

sha256::~sha256() { EVP_MD_CTX_free(ctx_); }

bool sha256::restart() noexcept {
  return ctx_ != nullptr && sha256_md() != nullptr && EVP_DigestInit_ex(ctx_, sha256_md(), nullptr) == 1;
}

bool sha256::update(std::string_view bytes) noexcept {
  if (ctx_ == nullptr) return false;
  if (EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()) == 1) return true;
  EVP_MD_CTX_free(ctx_);
  ctx_ = nullptr;
  return false;
}

std::optional<sha256_hex> sha256::finish() noexcept {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (ctx_ == nullptr || EVP_DigestFinal_ex(ctx_, digest, &length) != 1 || length != 32 || !restart()) {
    return std::nullopt;
  }
  constexpr std::string_view hex = "0123456789abcdef";
  sha256_hex out{};
  for (std::size_t i = 0; i < 32; ++i) {
    out[2 * i] = hex[digest[i] >> 4];
    out[2 * i + 1] = hex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace stet::detail
