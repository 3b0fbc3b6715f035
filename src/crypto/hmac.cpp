#include "crypto/hmac.hpp"

#include "counters/memo_stats.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <atomic>
#include <memory>

namespace stet::detail {
namespace {

struct mac_deleter {
  void operator()(EVP_MAC* m) const noexcept { EVP_MAC_free(m); }
  void operator()(EVP_MAC_CTX* c) const noexcept { EVP_MAC_CTX_free(c); }
};

const unsigned char* bytes(std::string_view s) noexcept { return reinterpret_cast<const unsigned char*>(s.data()); }

// Touched only when a signer is built or destroyed, never per MAC.
std::atomic<std::uint64_t> keys_derived{0};
std::atomic<std::uint64_t> keys_held{0};

}  // namespace

std::optional<hmac_sha256_key> hmac_sha256_key::derive(std::string_view secret, std::string_view prefix) {
  if (secret.empty()) return std::nullopt;
  const std::unique_ptr<EVP_MAC, mac_deleter> hmac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
  if (!hmac) return std::nullopt;
  std::unique_ptr<EVP_MAC_CTX, mac_deleter> ctx(EVP_MAC_CTX_new(hmac.get()));
  if (!ctx) return std::nullopt;
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  if (EVP_MAC_init(ctx.get(), bytes(secret), secret.size(), params) != 1) return std::nullopt;
  if (!prefix.empty() && EVP_MAC_update(ctx.get(), bytes(prefix), prefix.size()) != 1) return std::nullopt;
  keys_derived.fetch_add(1, std::memory_order_relaxed);
  keys_held.fetch_add(1, std::memory_order_relaxed);
  return hmac_sha256_key(ctx.release());
}

hmac_key_counts hmac_key_stats() noexcept {
  return {keys_derived.load(std::memory_order_relaxed), keys_held.load(std::memory_order_relaxed)};
}

hmac_sha256_key& hmac_sha256_key::operator=(hmac_sha256_key&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) keys_held.fetch_sub(1, std::memory_order_relaxed);
    EVP_MAC_CTX_free(base_);
    base_ = other.base_;
    other.base_ = nullptr;
  }
  return *this;
}

hmac_sha256_key::~hmac_sha256_key() {
  if (base_ != nullptr) keys_held.fetch_sub(1, std::memory_order_relaxed);
  EVP_MAC_CTX_free(base_);
}

std::optional<hmac_sha256_digest> hmac_sha256_key::mac(std::string_view data) const noexcept {
  ++this_thread_memo_stats().macs;
  const std::unique_ptr<EVP_MAC_CTX, mac_deleter> ctx(EVP_MAC_CTX_dup(base_));
  if (!ctx) return std::nullopt;
  hmac_sha256_digest out{};
  std::size_t written = 0;
  if (EVP_MAC_update(ctx.get(), bytes(data), data.size()) != 1 ||
      EVP_MAC_final(ctx.get(), out.data(), &written, out.size()) != 1 || written != out.size()) {
    return std::nullopt;
  }
  return out;
}

}  // namespace stet::detail
