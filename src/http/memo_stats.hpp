#pragma once
// Per-thread counters of the request memos and their caches: how often each
// parse really ran, and how the per-thread caches fared. Tests read them to
// prove a memo did not re-parse; metrics can export them. Plain integers: the
// thread that owns them is the only writer.

#include <cstdint>

namespace stet::detail {

struct memo_stats {
  std::uint64_t header_builds = 0;      // header_map indexes built
  std::uint64_t cookie_parses = 0;      // Cookie headers actually scanned
  std::uint64_t urlencoded_parses = 0;  // query strings and form bodies decoded
  std::uint64_t json_parses = 0;        // bodies handed to simdjson
  std::uint64_t cookie_cache_hits = 0;
  std::uint64_t cookie_cache_misses = 0;
  std::uint64_t cookie_cache_evictions = 0;
  std::uint64_t cookie_cache_bypasses = 0;  // over the size bound, or several Cookie fields
  std::uint64_t header_name_hits = 0;       // mixed-case names found in the lowercase cache
  std::uint64_t header_name_inserts = 0;
  std::uint64_t header_name_overflows = 0;  // lowercased into the arena: cache full or name too long
  std::uint64_t macs = 0;                   // HMAC computations by signers
  std::uint64_t constant_time_compares = 0;
};

/// The calling thread's counters.
memo_stats& this_thread_memo_stats() noexcept;

}  // namespace stet::detail
