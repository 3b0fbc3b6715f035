#pragma once
// The per-thread memo of parsed Accept-Encoding values: a browser sends the
// same value on every request, so each distinct value is parsed once per thread.

#include "response/compress/accept_encoding.hpp"

#include <cstddef>
#include <string_view>

namespace stet::detail {

/// Distinct values remembered per thread; the least recently used is replaced.
inline constexpr std::size_t accept_encoding_memo_capacity = 16;
/// Longer values are parsed every time and not remembered (real browsers send
/// 20 to 40 bytes; a long value is a client probing, not one worth a slot).
inline constexpr std::size_t accept_encoding_memo_max_bytes = 128;

/// parse_accept_encoding(value), from the calling thread's memo when it has
/// seen these exact bytes. Counts hits, misses, evictions and bypasses in the
/// thread's memo_stats.
accept_weights cached_accept_encoding(std::string_view value) noexcept;

/// Test and benchmark hooks on the calling thread's memo.
std::size_t accept_encoding_memo_size() noexcept;
void accept_encoding_memo_clear() noexcept;
/// Off: cached_accept_encoding() parses every time (the baseline).
void accept_encoding_memo_enable(bool enabled) noexcept;

}  // namespace stet::detail
