#include "static/file_cache.hpp"

#include <utility>

namespace stet::detail {

std::array<char, 18> make_etag(const file_identity& id) noexcept {
  // splitmix64 finaliser over each member in turn: cheap, and every bit of
  // every member reaches every bit of the result.
  auto mix = [](std::uint64_t h, std::uint64_t v) noexcept {
    std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  std::uint64_t h = 0;
  h = mix(h, id.dev);
  h = mix(h, id.ino);
  h = mix(h, id.size);
  h = mix(h, static_cast<std::uint64_t>(id.mtime_ns));
  h = mix(h, static_cast<std::uint64_t>(id.ctime_ns));
  constexpr std::string_view hex = "0123456789abcdef";
  std::array<char, 18> out{};
  out.front() = '"';
  out.back() = '"';
  for (std::size_t i = 0; i < 16; ++i) out[1 + i] = hex[(h >> (60 - 4 * i)) & 0xf];
  return out;
}

file_cache::file_cache(std::uint64_t byte_budget, std::size_t max_entries)
    : budget_(byte_budget), max_entries_(max_entries) {
  for (shard& s : shards_) s.lru.next = s.lru.prev = &s.lru;
}

file_cache::~file_cache() = default;

void file_cache::unlink_locked(node& n) noexcept {
  n.prev->next = n.next;
  n.next->prev = n.prev;
  n.prev = n.next = nullptr;
}

void file_cache::push_front_locked(shard& s, node& n) noexcept {
  n.prev = &s.lru;
  n.next = s.lru.next;
  s.lru.next->prev = &n;
  s.lru.next = &n;
}

std::shared_ptr<const file_entry> file_cache::remove_locked(shard& s, map_type::iterator it) noexcept {
  unlink_locked(it->second);
  std::shared_ptr<const file_entry> removed = std::move(it->second.entry);
  s.map.erase(it);
  give_back_locked(*removed);
  return removed;
}

void file_cache::give_back_locked(const file_entry& e) noexcept {
  bytes_.fetch_sub(e.total_charge(), std::memory_order_relaxed);
  variant_bytes_.fetch_sub(e.variant_charge.load(std::memory_order_relaxed), std::memory_order_relaxed);
  entries_.fetch_sub(1, std::memory_order_relaxed);
}

bool file_cache::holds(const key& k, const file_entry* e) noexcept {
  shard& s = shard_of(k);
  const std::lock_guard lock(s.mutex);
  const auto it = s.map.find(k.path);
  return it != s.map.end() && it->second.entry.get() == e;
}

// Room first (evictions take other shards' locks one at a time), then the
// entry is charged under its shard's lock, if it is still there.
bool file_cache::add_variant_charge(const key& k, const file_entry* e, std::uint64_t n) noexcept {
  if (!reserve_bytes(n, k.hash % shard_count, e)) return false;
  shard& s = shard_of(k);
  {
    const std::lock_guard lock(s.mutex);
    const auto it = s.map.find(k.path);
    if (it != s.map.end() && it->second.entry.get() == e) {
      e->variant_charge.fetch_add(n, std::memory_order_relaxed);
      variant_bytes_.fetch_add(n, std::memory_order_relaxed);
      return true;
    }
  }
  bytes_.fetch_sub(n, std::memory_order_relaxed);
  return false;
}

std::shared_ptr<const file_entry> file_cache::find(const key& k) noexcept {
  shard& s = shard_of(k);
  const std::lock_guard lock(s.mutex);
  const auto it = s.map.find(k.path);
  if (it == s.map.end()) return nullptr;
  node& n = it->second;
  if (s.lru.next != &n) {
    unlink_locked(n);
    push_front_locked(s, n);
  }
  return n.entry;
}

void file_cache::erase(const key& k, const file_entry* stale) noexcept {
  shard& s = shard_of(k);
  std::shared_ptr<const file_entry> dropped;  // released after the lock
  {
    const std::lock_guard lock(s.mutex);
    const auto it = s.map.find(k.path);
    if (it == s.map.end() || it->second.entry.get() != stale) return;
    dropped = remove_locked(s, it);
  }
}

file_cache::claim file_cache::claim_load(const key& k, const file_identity& want) {
  shard& s = shard_of(k);
  std::unique_lock lock(s.mutex);
  for (;;) {
    const auto it = s.map.find(k.path);
    if (it != s.map.end() && it->second.entry->id == want) return {it->second.entry, false};
    const auto pending = s.loading.find(k.path);
    if (pending == s.loading.end()) {
      s.loading.emplace(std::string(k.path), std::make_shared<pending_load>());
      return {nullptr, true};
    }
    const std::shared_ptr<pending_load> load = pending->second;
    s.loaded.wait(lock, [&] { return load->done; });
    if (load->result && load->result->id == want) return {load->result, false};
    // The loader failed or read another version than the one our stat saw:
    // try again (and perhaps become the loader).
  }
}

bool file_cache::evict_one(std::size_t start, const file_entry* keep) noexcept {
  for (std::size_t i = 0; i < shard_count; ++i) {
    shard& s = shards_[(start + i) % shard_count];
    std::shared_ptr<const file_entry> victim;  // released after the lock
    {
      const std::lock_guard lock(s.mutex);
      node* tail = s.lru.prev;
      if (tail != &s.lru && tail->entry.get() == keep) tail = tail->prev;  // the entry growing a variant
      if (tail == &s.lru) continue;
      victim = remove_locked(s, s.map.find(*tail->path));
      s.counters.evictions.fetch_add(1, std::memory_order_relaxed);
    }
    return true;
  }
  return false;
}

// Reserves room before inserting, so the counters never exceed the limits,
// not even for a moment: the budget is a promise about memory, not an average.
// Victims come from the inserting shard's LRU tail first, then the next
// shards' in turn (an approximation of a global LRU that needs one lock at a time).
bool file_cache::reserve(std::uint64_t charge, std::size_t start) noexcept {
  if (charge > budget_ || max_entries_ == 0) return false;
  std::size_t n = entries_.load(std::memory_order_relaxed);
  for (;;) {
    if (n < max_entries_) {
      if (entries_.compare_exchange_weak(n, n + 1, std::memory_order_relaxed)) break;
      continue;
    }
    if (!evict_one(start)) return false;
    n = entries_.load(std::memory_order_relaxed);
  }
  if (reserve_bytes(charge, start)) return true;
  entries_.fetch_sub(1, std::memory_order_relaxed);
  return false;
}

bool file_cache::reserve_bytes(std::uint64_t charge, std::size_t start, const file_entry* keep) noexcept {
  if (charge > budget_) return false;
  std::uint64_t b = bytes_.load(std::memory_order_relaxed);
  for (;;) {
    if (b + charge <= budget_) {
      if (bytes_.compare_exchange_weak(b, b + charge, std::memory_order_relaxed)) return true;
      continue;
    }
    if (!evict_one(start, keep)) return false;
    b = bytes_.load(std::memory_order_relaxed);
  }
}

void file_cache::insert_locked(shard& s, const key& k, std::shared_ptr<const file_entry> entry) {
  auto [it, fresh] = s.map.try_emplace(std::string(k.path));
  node& n = it->second;
  if (!fresh) {
    // The reservation covered the new entry; the one it replaces gives its share back.
    unlink_locked(n);
    give_back_locked(*n.entry);
  }
  n.entry = std::move(entry);
  n.path = &it->first;
  push_front_locked(s, n);
}

void file_cache::finish_load(const key& k, std::shared_ptr<const file_entry> loaded, bool keep) {
  shard& s = shard_of(k);
  const bool kept = loaded && keep && reserve(loaded->charge, k.hash % shard_count);
  std::shared_ptr<const file_entry> dropped;  // released after the lock
  {
    const std::lock_guard lock(s.mutex);
    if (kept) {
      insert_locked(s, k, loaded);
    } else if (loaded) {
      // Not cached (settling, or no room): an older version still held for
      // this path is now known stale and gives its share back.
      const auto it = s.map.find(k.path);
      if (it != s.map.end() && it->second.entry->id != loaded->id) dropped = remove_locked(s, it);
    }
    const auto pending = s.loading.find(k.path);
    if (pending != s.loading.end()) {
      pending->second->done = true;
      pending->second->result = std::move(loaded);
      s.loading.erase(pending);
    }
  }
  s.loaded.notify_all();
}

std::uint64_t file_cache::sum_of_charges() const {
  std::uint64_t sum = 0;
  for (const shard& s : shards_) {
    const std::lock_guard lock(s.mutex);
    for (const auto& [path, n] : s.map) sum += n.entry->total_charge();
  }
  return sum;
}

}  // namespace stet::detail
