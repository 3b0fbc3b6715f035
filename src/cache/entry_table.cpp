#include "cache/entry_table.hpp"

#include <utility>

namespace stet::detail {

std::shared_ptr<const cache_entry> entry_table::find(const key& k, cache_clock::time_point now) noexcept {
  shard& s = shard_of(k);
  std::shared_ptr<const cache_entry> gone;  // released after the lock
  const std::lock_guard lock(s.mutex);
  const auto it = s.entries.find(k.text);
  if (it == s.entries.end()) return nullptr;
  if (now >= it->second.entry->usable_until()) {
    gone = remove_locked(s, it);
    return nullptr;
  }
  s.lru.splice(s.lru.begin(), s.lru, it->second.position);
  return it->second.entry;
}

entry_table::claim_result entry_table::claim(const key& k) {
  shard& s = shard_of(k);
  const std::lock_guard lock(s.mutex);
  auto [it, created] = s.flights.try_emplace(std::string(k.text));
  if (!created) return {it->second, false};
  it->second = std::make_shared<flight>();
  it->second->epoch = log_.now();
  return {it->second, true};
}

bool entry_table::finish(const key& k, flight& run, std::shared_ptr<const cache_entry> e,
                         std::vector<std::shared_ptr<cache_waiter>>& waiters) {
  const bool stored = e != nullptr && insert_checked(k, std::move(e), run.epoch);
  {
    shard& s = shard_of(k);
    const std::lock_guard lock(s.mutex);
    const auto it = s.flights.find(k.text);
    if (it != s.flights.end() && it->second.get() == &run) s.flights.erase(it);
  }
  const std::lock_guard lock(run.mutex);
  run.done = true;
  waiters.swap(run.waiters);
  return stored;
}

bool entry_table::store(const key& k, std::shared_ptr<const cache_entry> e, std::uint64_t since) {
  return insert_checked(k, std::move(e), since);
}

// The check against the invalidation log and the insert happen under the
// shard's lock, and an invalidation records itself before it sweeps the
// shards: either this insert sees the record, or the sweep sees the entry.
// The bytes are counted (room made) before, outside the lock: eviction takes
// other shards' locks.
bool entry_table::insert_checked(const key& k, std::shared_ptr<const cache_entry> e, std::uint64_t since) {
  const std::uint64_t charge = e->charge;
  if (!reserve(charge, k.hash % shard_count)) return false;
  shard& s = shard_of(k);
  std::shared_ptr<const cache_entry> replaced;
  const std::lock_guard lock(s.mutex);
  if (log_.covers(since, e->route, e->tag_hashes)) {
    bytes_.fetch_sub(charge, std::memory_order_relaxed);
    return false;
  }
  auto it = s.entries.find(k.text);
  if (it != s.entries.end()) replaced = remove_locked(s, it);
  it = s.entries.try_emplace(std::string(k.text)).first;
  s.lru.push_front(&it->first);
  entries_.fetch_add(1, std::memory_order_relaxed);
  it->second = slot{std::move(e), s.lru.begin()};
  return true;
}

bool entry_table::charge_variant(const key& k, const cache_entry* e, std::uint64_t n) noexcept {
  if (!reserve(n, k.hash % shard_count)) return false;
  shard& s = shard_of(k);
  const std::lock_guard lock(s.mutex);
  const auto it = s.entries.find(k.text);
  if (it == s.entries.end() || it->second.entry.get() != e) {
    bytes_.fetch_sub(n, std::memory_order_relaxed);  // evicted or replaced meanwhile
    return false;
  }
  // The charge lives in the entry so that its removal gives back all of it.
  e->charge += n;
  return true;
}

std::shared_ptr<const cache_entry> entry_table::remove_locked(shard& s, map<slot>::iterator it) noexcept {
  std::shared_ptr<const cache_entry> e = std::move(it->second.entry);
  s.lru.erase(it->second.position);
  s.entries.erase(it);
  bytes_.fetch_sub(e->charge, std::memory_order_relaxed);
  entries_.fetch_sub(1, std::memory_order_relaxed);
  return e;
}

// The running count only grows by a reservation that keeps it within the
// budget, so the budget is a true bound at every moment, with any number of
// threads storing at once: least recently used entries are evicted, a shard at
// a time in turn, until `n` fits. False when it cannot (nothing left to evict:
// the rest of the budget is reserved by stores under way).
bool entry_table::reserve(std::uint64_t n, std::size_t start) noexcept {
  if (n > budget_) return false;
  std::uint64_t held = bytes_.load(std::memory_order_relaxed);
  for (;;) {
    if (held + n <= budget_) {
      if (bytes_.compare_exchange_weak(held, held + n, std::memory_order_relaxed)) return true;
      continue;
    }
    if (!evict_one(start)) return false;
    held = bytes_.load(std::memory_order_relaxed);
  }
}

bool entry_table::evict_one(std::size_t start) noexcept {
  for (std::size_t i = 0; i < shard_count; ++i) {
    const std::size_t n = evict_cursor_.fetch_add(1, std::memory_order_relaxed);
    shard& s = shards_[(start + n) % shard_count];
    std::shared_ptr<const cache_entry> gone;
    const std::lock_guard lock(s.mutex);
    if (s.lru.empty()) continue;
    gone = remove_locked(s, s.entries.find(*s.lru.back()));
    evictions_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

std::uint64_t entry_table::drop_if(const std::function<bool(const cache_entry&)>& match) {
  std::uint64_t dropped = 0;
  for (shard& s : shards_) {
    std::vector<std::shared_ptr<const cache_entry>> gone;
    const std::lock_guard lock(s.mutex);
    for (auto it = s.entries.begin(); it != s.entries.end();) {
      const auto next = std::next(it);
      if (match(*it->second.entry)) {
        gone.push_back(remove_locked(s, it));
        ++dropped;
      }
      it = next;
    }
  }
  return dropped;
}

}  // namespace stet::detail
