#pragma once
// Content hashes for `?_hash=` URLs: the first 16 hex digits (64 bits) of SHA-256.

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

namespace stet::detail {

/// 16 lowercase hex digits.
using content_digest = std::array<char, 16>;

/// The digest of `bytes`; nullopt only if OpenSSL fails (out of memory).
std::optional<content_digest> hash_bytes(std::string_view bytes) noexcept;

/// The digest of the first `size` bytes of `fd`, read with pread in 64 KiB
/// chunks (the descriptor's offset is untouched, so it may be shared); nullopt
/// on a read error, when the file is shorter than `size`, or when `stop` (if
/// given) becomes true between chunks.
std::optional<content_digest> hash_file(int fd, std::uint64_t size, const std::atomic<bool>* stop = nullptr) noexcept;

inline std::string_view to_view(const content_digest& d) noexcept { return {d.data(), d.size()}; }

}  // namespace stet::detail
