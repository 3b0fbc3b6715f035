#pragma once
// Per-thread counters of the request memos and their caches: how often each
// parse really ran, and how the per-thread caches fared (the signers count
// their MACs here too). Tests read them to prove a memo did not re-parse; the
// metrics exposition sums them over the workers. One writer (the thread the
// counters belong to), any readers. Every step of the request path writes
// them (request memos, the signer, the compressors), so they sit in a folder
// of their own beneath all of them; metrics/, which reads every module, stays
// above.

#include <array>
#include <atomic>
#include <cstdint>

namespace stet::detail {

/// A counter written by one thread and read by any: the increment is a relaxed
/// load and store (no locked instruction), so it costs what a plain integer
/// does, and a reader on another thread sees a value without a data race.
class thread_counter {
 public:
  thread_counter() noexcept = default;
  thread_counter(const thread_counter& other) noexcept : value_(other.get()) {}
  thread_counter& operator=(const thread_counter&) = delete;

  thread_counter& operator++() noexcept {
    set(get() + 1);
    return *this;
  }
  void set(std::uint64_t v) noexcept { value_.store(v, std::memory_order_relaxed); }
  std::uint64_t get() const noexcept { return value_.load(std::memory_order_relaxed); }
  operator std::uint64_t() const noexcept { return get(); }  // NOLINT: reads like the plain integer it replaced

 private:
  std::atomic<std::uint64_t> value_{0};
};

struct memo_stats {
  thread_counter header_builds;      // header_map indexes built
  thread_counter cookie_parses;      // Cookie headers actually scanned
  thread_counter urlencoded_parses;  // query strings and form bodies decoded
  thread_counter json_parses;        // bodies handed to simdjson
  thread_counter cookie_cache_hits;
  thread_counter cookie_cache_misses;
  thread_counter cookie_cache_evictions;
  thread_counter cookie_cache_bypasses;  // over the size bound, or several Cookie fields
  thread_counter cookie_cache_entries;   // headers held now (a gauge)
  thread_counter header_name_hits;       // mixed-case names found in the lowercase cache
  thread_counter header_name_inserts;
  thread_counter header_name_overflows;  // lowercased into the arena: cache full or name too long
  thread_counter header_name_entries;    // names held now (a gauge; the cache never evicts)
  thread_counter macs;                   // HMAC computations by signers: each reuses a derived key
  thread_counter constant_time_compares;
  thread_counter accept_encoding_hits;       // Accept-Encoding values found parsed in the memo
  thread_counter accept_encoding_misses;     // parsed and remembered
  thread_counter accept_encoding_evictions;  // least recently used value dropped for a new one
  thread_counter accept_encoding_bypasses;   // over the memo's size bound: parsed, not remembered
  thread_counter accept_encoding_entries;    // values held now (a gauge)
  thread_counter compressor_reuses;          // a body compressed with a pooled, reset compressor state
  thread_counter compressor_creations;       // a compressor state created (pool empty)
  thread_counter compressors_idle;           // states pooled now (a gauge)
  thread_counter frame_reuses;               // coroutine frames (and answer slots) from the worker's pool
  thread_counter frame_allocations;          // ... that needed operator new (pool empty for the size)
  thread_counter frames_idle;                // blocks pooled now (a gauge)
  // Per coding, indexed by content_coding - 1 (gzip, br, zstd).
  std::array<thread_counter, 3> compressed_bytes_in;
  std::array<thread_counter, 3> compressed_bytes_out;
  std::array<thread_counter, 3> compress_nanoseconds;
};

/// The calling thread's counters: those a worker installed for its thread, or
/// else the thread's own.
memo_stats& this_thread_memo_stats() noexcept;

/// Makes `stats` the calling thread's counters until replaced (null: back to
/// the thread's own). A worker installs counters it owns, so they outlive its
/// thread for as long as the metrics may read them.
void install_thread_memo_stats(memo_stats* stats) noexcept;

}  // namespace stet::detail
