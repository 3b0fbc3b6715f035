#pragma once
// The response cache's entries: key -> entry, 16 shards each with its own LRU
// list, one byte budget kept as a running counter that never passes it (room
// is made before bytes are counted), and the single flights of
// keys being computed. Keys are built per request (cache_key.hpp); a lookup
// takes one shard's lock and allocates nothing.

#include "cache/cache_entry.hpp"
#include "cache/invalidation_log.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stet::detail {

struct cache_waiter;

/// One key's handler run in progress, and who waits for its answer.
struct flight {
  std::mutex mutex;
  bool done = false;                                   // guarded by mutex: no more waiters are taken
  std::vector<std::shared_ptr<cache_waiter>> waiters;  // guarded by mutex
  std::uint64_t epoch = 0;                             // invalidation_log::now() when the run began
};

class entry_table {
 public:
  static constexpr std::size_t shard_count = 16;

  struct key {
    std::string_view text;
    std::size_t hash = 0;
  };
  static key make_key(std::string_view text) noexcept { return {text, std::hash<std::string_view>{}(text)}; }

  explicit entry_table(std::uint64_t budget) noexcept : budget_(budget) {}
  entry_table(const entry_table&) = delete;
  entry_table& operator=(const entry_table&) = delete;

  /// The entry for `k`, made most recently used; null when absent or past
  /// every window at `now` (then dropped).
  std::shared_ptr<const cache_entry> find(const key& k, cache_clock::time_point now) noexcept;

  /// What a request that found no fresh entry does: lead a run of the
  /// handler, or wait for the run already going.
  struct claim_result {
    std::shared_ptr<flight> run;
    bool leader = false;
  };
  /// @throws std::bad_alloc
  claim_result claim(const key& k);
  /// Ends the leader's run: stores `e` (null: nothing) when it fits and no
  /// invalidation since the run began covers it; the flight takes no more
  /// waiters. Returns whether `e` was stored; `waiters` receives the flight's.
  bool finish(const key& k, flight& run, std::shared_ptr<const cache_entry> e,
              std::vector<std::shared_ptr<cache_waiter>>& waiters);
  /// Stores a background refresh begun at epoch `since`; as finish().
  bool store(const key& k, std::shared_ptr<const cache_entry> e, std::uint64_t since);

  /// Counts `n` more bytes (a variant of `e`) against the budget, evicting as
  /// needed; false, with nothing counted, when `k` no longer holds `e` or the
  /// budget cannot make room.
  bool charge_variant(const key& k, const cache_entry* e, std::uint64_t n) noexcept;

  invalidation_log& log() noexcept { return log_; }
  /// Drops the entries `match` selects; returns how many.
  std::uint64_t drop_if(const std::function<bool(const cache_entry&)>& match);

  std::uint64_t bytes() const noexcept { return bytes_.load(std::memory_order_relaxed); }
  std::uint64_t entries() const noexcept { return entries_.load(std::memory_order_relaxed); }
  std::uint64_t evictions() const noexcept { return evictions_.load(std::memory_order_relaxed); }
  std::uint64_t budget() const noexcept { return budget_; }

 private:
  using lru_list = std::list<const std::string*>;  // most recent first; points at the map's keys (stable)
  struct slot {
    std::shared_ptr<const cache_entry> entry;
    lru_list::iterator position;
  };
  struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using map = std::unordered_map<std::string, V, string_hash, std::equal_to<>>;
  struct alignas(64) shard {
    std::mutex mutex;
    map<slot> entries;
    lru_list lru;
    map<std::shared_ptr<flight>> flights;
  };

  shard& shard_of(const key& k) noexcept { return shards_[k.hash % shard_count]; }
  bool insert_checked(const key& k, std::shared_ptr<const cache_entry> e, std::uint64_t since);
  std::shared_ptr<const cache_entry> remove_locked(shard& s, map<slot>::iterator it) noexcept;
  bool reserve(std::uint64_t n, std::size_t start) noexcept;
  bool evict_one(std::size_t start) noexcept;

  const std::uint64_t budget_;
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<std::uint64_t> entries_{0};
  std::atomic<std::uint64_t> evictions_{0};
  std::atomic<std::size_t> evict_cursor_{0};
  invalidation_log log_;
  std::array<shard, shard_count> shards_;
};

}  // namespace stet::detail
