#pragma once
// permessage-deflate without a zlib state per connection: with
// no_context_takeover (stet's default) a message needs a compressor only while
// it is compressed, and a read needs a decompressor only while it lasts, so
// each worker thread keeps a few idle ones per parameter set and lends them.
// (The HTTP compressors of src/response/compress/ are pooled the same way;
// these differ in their parameters: raw deflate, negotiated window bits.)

#include "websocket/deflate_stream.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace stet::detail::ws {

/// Idle states kept per parameter set per thread.
inline constexpr std::size_t idle_streams_per_kind = 4;

struct deflate_key {
  std::uint8_t window_bits = 15;
  std::int8_t level = 6;
  std::int8_t mem_level = 8;
  friend bool operator==(const deflate_key&, const deflate_key&) = default;
};

/// Counters of the calling thread's pools (for metrics and tests).
struct deflate_pool_stats {
  std::uint64_t created = 0;
  std::uint64_t reused = 0;
  std::size_t idle = 0;
};

/// A reset compressor for `key` from the calling thread's pool, or a new one
/// (no_context_takeover: it is reset after every message); null when zlib
/// cannot allocate.
std::unique_ptr<deflater> lease_deflater(const deflate_key& key);
/// Gives `d` back to the calling thread's pool (or frees it): between
/// messages only, as a no_context_takeover stream leaves itself after one.
void return_deflater(std::unique_ptr<deflater> d, const deflate_key& key) noexcept;

/// A reset decompressor for a 2^window_bits window that starts afresh with
/// every message; null when zlib cannot allocate.
std::unique_ptr<inflater> lease_inflater(std::uint8_t window_bits);
/// Gives `i` back; between messages only (reset() one abandoned mid-message first).
void return_inflater(std::unique_ptr<inflater> i, std::uint8_t window_bits) noexcept;

deflate_pool_stats this_thread_deflate_pool_stats() noexcept;

}  // namespace stet::detail::ws
