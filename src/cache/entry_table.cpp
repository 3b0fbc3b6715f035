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
bool entry_table::insert_checked(const key& k, std::shared_ptr<const cache_entry> e, std::uint64_t since) {
  if (e->charge > budget_) return false;
  const std::size_t start = k.hash % shard_count;
  shard& s = shard_of(k);
  std::shared_ptr<const cache_entry> replaced;
  {
    const std::lock_guard lock(s.mutex);
    if (log_.covers(since, e->route, e->tag_hashes)) return false;
    auto it = s.entries.find(k.text);
    if (it != s.entries.end()) replaced = remove_locked(s, it);
    it = s.entries.try_emplace(std::string(k.text)).first;
    s.lru.push_front(&it->first);
    bytes_.fetch_add(e->charge, std::memory_order_relaxed);
    entries_.fetch_add(1, std::memory_order_relaxed);
    it->second = slot{std::move(e), s.lru.begin()};
  }
  make_room(start);
  return true;
}

bool entry_table::charge_variant(const key& k, const cache_entry* e, std::uint64_t n) noexcept {
  if (n > budget_) return false;
  {
    shard& s = shard_of(k);
    const std::lock_guard lock(s.mutex);
    const auto it = s.entries.find(k.text);
    if (it == s.entries.end() || it->second.entry.get() != e) return false;
    // The charge lives in the entry so that its removal gives back all of it.
    e->charge += n;
    bytes_.fetch_add(n, std::memory_order_relaxed);
  }
  make_room(k.hash % shard_count);
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

// Evicts least recently used entries, a shard at a time in turn, until the
// running count is within the budget.
void entry_table::make_room(std::size_t start) noexcept {
  while (bytes_.load(std::memory_order_relaxed) > budget_) {
    if (!evict_one(start)) return;
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
