#include "static/content_hash.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <memory>

namespace stet::detail {
namespace {

// Fetched once: OpenSSL 3 otherwise looks the algorithm up in the provider
// store (under a lock) on every EVP_DigestInit_ex with EVP_sha256().
const EVP_MD* sha256() noexcept {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return md;
}

struct ctx_deleter {
  void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};
using ctx_ptr = std::unique_ptr<EVP_MD_CTX, ctx_deleter>;

content_digest to_hex(const unsigned char* digest) noexcept {
  constexpr std::string_view hex = "0123456789abcdef";
  content_digest out{};
  for (std::size_t i = 0; i < out.size() / 2; ++i) {
    out[2 * i] = hex[digest[i] >> 4];
    out[2 * i + 1] = hex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace

std::optional<content_digest> hash_bytes(std::string_view bytes) noexcept {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (sha256() == nullptr || EVP_Digest(bytes.data(), bytes.size(), digest, &length, sha256(), nullptr) != 1) {
    return std::nullopt;
  }
  return to_hex(digest);
}

std::optional<content_digest> hash_file(int fd, std::uint64_t size, const std::atomic<bool>* stop) noexcept {
  const ctx_ptr ctx(EVP_MD_CTX_new());
  if (!ctx || sha256() == nullptr || EVP_DigestInit_ex(ctx.get(), sha256(), nullptr) != 1) return std::nullopt;
  constexpr std::size_t chunk = 64 * 1024;
  unsigned char buffer[chunk];
  std::uint64_t done = 0;
  while (done < size) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return std::nullopt;
    const std::size_t want = size - done < chunk ? static_cast<std::size_t>(size - done) : chunk;
    const ssize_t n = ::pread(fd, buffer, want, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    if (EVP_DigestUpdate(ctx.get(), buffer, static_cast<std::size_t>(n)) != 1) return std::nullopt;
    done += static_cast<std::uint64_t>(n);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1) return std::nullopt;
  return to_hex(digest);
}

}  // namespace stet::detail
