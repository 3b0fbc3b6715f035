#pragma once
// The static file cache: path -> file_entry, sharded, LRU per shard, with a
// global byte budget and entry limit kept as running counters.
//
// Keyed on the decoded path relative to the static root. The cache itself never
// looks at the file system: callers validate an entry's identity with a stat and
// erase() what changed or vanished.

#include "counters/counter_add.hpp"
#include "static/file_entry.hpp"

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace stet::detail {

/// Counters kept per shard (a worker bumps the shard it already touched, so
/// workers serving different files do not share a cache line).
struct cache_counters {
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
  std::atomic<std::uint64_t> revalidations{0};
  std::atomic<std::uint64_t> invalidations{0};
  std::atomic<std::uint64_t> evictions{0};
  std::atomic<std::uint64_t> reads{0};
  std::atomic<std::uint64_t> hashes{0};
  std::atomic<std::uint64_t> hash_hits{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> not_modified{0};
  std::atomic<std::uint64_t> partial{0};
  std::atomic<std::uint64_t> variant_hits{0};    ///< answers sent from a compressed variant already made
  std::atomic<std::uint64_t> variant_misses{0};  ///< compressed variants made (kept or not)
};

class file_cache {
 public:
  static constexpr std::size_t shard_count = 16;

  /// A path and its hash, computed once per request.
  struct key {
    std::string_view path;
    std::size_t hash = 0;
  };
  static key make_key(std::string_view path) noexcept { return {path, std::hash<std::string_view>{}(path)}; }

  file_cache(std::uint64_t byte_budget, std::size_t max_entries);
  ~file_cache();
  file_cache(const file_cache&) = delete;
  file_cache& operator=(const file_cache&) = delete;

  /// The entry for `k`, made most recently used; null when absent.
  std::shared_ptr<const file_entry> find(const key& k) noexcept;
  /// Drops `k` when it still holds `stale` (its file changed or vanished).
  void erase(const key& k, const file_entry* stale) noexcept;

  /// Single flight: the first caller for a path becomes its loader (`owner`);
  /// callers arriving while it loads wait for it and get its result when that is
  /// the identity they want. Every owner must call finish_load().
  struct claim {
    std::shared_ptr<const file_entry> ready;
    bool owner = false;
  };
  claim claim_load(const key& k, const file_identity& want);
  /// Ends a load: publishes `loaded` (null: the load failed) to the waiters and,
  /// when `keep`, caches it if its charge fits (evicting LRU entries as needed).
  /// A loaded version that is not cached still drops another version held for the path.
  void finish_load(const key& k, std::shared_ptr<const file_entry> loaded, bool keep);

  /// Whether `k` holds `e` now (a variant is made only for an entry the cache keeps).
  bool holds(const key& k, const file_entry* e) noexcept;
  /// Counts `n` more bytes (a compressed variant made for `e`) against the
  /// budget, evicting least recently used entries as needed. False, with nothing
  /// counted, when `k` no longer holds `e` or the budget cannot make room:
  /// the variant must then not be published.
  bool add_variant_charge(const key& k, const file_entry* e, std::uint64_t n) noexcept;

  cache_counters& counters(const key& k) noexcept { return shard_of(k).counters; }
  /// Sums the per-shard counters into `out` (the current sizes included).
  template <typename Stats>
  void add_counters(Stats& out) const noexcept;

  std::uint64_t bytes() const noexcept { return bytes_.load(std::memory_order_relaxed); }
  /// Of bytes(), those held by compressed variants.
  std::uint64_t variant_bytes() const noexcept { return variant_bytes_.load(std::memory_order_relaxed); }
  std::size_t entries() const noexcept { return entries_.load(std::memory_order_relaxed); }
  std::uint64_t byte_budget() const noexcept { return budget_; }
  /// The charges of the entries held, summed under each shard's lock: for tests
  /// that check the running counter against the truth.
  std::uint64_t sum_of_charges() const;

 private:
  struct node {
    std::shared_ptr<const file_entry> entry;
    node* prev = nullptr;
    node* next = nullptr;
    const std::string* path = nullptr;
  };
  struct pending_load {
    bool done = false;
    std::shared_ptr<const file_entry> result;
  };
  struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  using map_type = std::unordered_map<std::string, node, string_hash, std::equal_to<>>;
  struct alignas(64) shard {
    mutable std::mutex mutex;
    std::condition_variable loaded;
    map_type map;
    std::unordered_map<std::string, std::shared_ptr<pending_load>, string_hash, std::equal_to<>> loading;
    node lru;  // sentinel: lru.next is the most recently used
    cache_counters counters;
  };

  shard& shard_of(const key& k) noexcept { return shards_[k.hash % shard_count]; }
  bool reserve(std::uint64_t charge, std::size_t start) noexcept;
  /// `keep`: an entry not to evict for this reservation (the one it is for).
  bool reserve_bytes(std::uint64_t charge, std::size_t start, const file_entry* keep = nullptr) noexcept;
  void give_back_locked(const file_entry& e) noexcept;
  bool evict_one(std::size_t start, const file_entry* keep = nullptr) noexcept;
  void insert_locked(shard& s, const key& k, std::shared_ptr<const file_entry> entry);
  void unlink_locked(node& n) noexcept;
  /// Unlinks and erases `it`, gives back its charge; returns the entry so the
  /// caller can release it after unlocking.
  std::shared_ptr<const file_entry> remove_locked(shard& s, map_type::iterator it) noexcept;
  static void push_front_locked(shard& s, node& n) noexcept;

  const std::uint64_t budget_;
  const std::size_t max_entries_;
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> variant_bytes_{0};
  std::atomic<std::size_t> entries_{0};
  std::array<shard, shard_count> shards_;
};

template <typename Stats>
void file_cache::add_counters(Stats& out) const noexcept {
  for (const shard& s : shards_) {
    const cache_counters& c = s.counters;
    out.hits += c.hits.load(std::memory_order_relaxed);
    out.misses += c.misses.load(std::memory_order_relaxed);
    out.revalidations += c.revalidations.load(std::memory_order_relaxed);
    out.invalidations += c.invalidations.load(std::memory_order_relaxed);
    out.evictions += c.evictions.load(std::memory_order_relaxed);
    out.reads += c.reads.load(std::memory_order_relaxed);
    out.hashes += c.hashes.load(std::memory_order_relaxed);
    out.hash_hits += c.hash_hits.load(std::memory_order_relaxed);
    out.refused += c.refused.load(std::memory_order_relaxed);
    out.not_modified += c.not_modified.load(std::memory_order_relaxed);
    out.partial += c.partial.load(std::memory_order_relaxed);
    out.variant_hits += c.variant_hits.load(std::memory_order_relaxed);
    out.variant_misses += c.variant_misses.load(std::memory_order_relaxed);
  }
  out.bytes_cached = bytes();
  out.variant_bytes = variant_bytes();
  out.entries = entries();
}

}  // namespace stet::detail
