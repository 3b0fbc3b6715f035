#include "static/content_hash.hpp"

#include "crypto/sha256.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace stet::detail {
namespace {

std::optional<content_digest> truncated(std::optional<sha256_hex> full) noexcept {
  if (!full) return std::nullopt;
  content_digest out{};
  std::copy_n(full->begin(), out.size(), out.begin());
  return out;
}

}  // namespace

std::optional<content_digest> hash_bytes(std::string_view bytes) noexcept {
  sha256 digest;
  if (!digest.update(bytes)) return std::nullopt;
  return truncated(digest.finish());
}

std::optional<content_digest> hash_file(int fd, std::uint64_t size, const std::atomic<bool>* stop) noexcept {
  sha256 digest;
  if (!digest.ok()) return std::nullopt;
  constexpr std::size_t chunk = 64 * 1024;
  char buffer[chunk];
  std::uint64_t done = 0;
  while (done < size) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return std::nullopt;
    const std::size_t want = size - done < chunk ? static_cast<std::size_t>(size - done) : chunk;
    const ssize_t n = ::pread(fd, buffer, want, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    if (!digest.update(std::string_view(buffer, static_cast<std::size_t>(n)))) return std::nullopt;
    done += static_cast<std::uint64_t>(n);
  }
  return truncated(digest.finish());
}

}  // namespace stet::detail
