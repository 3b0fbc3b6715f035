#include "request/header_names.hpp"

#include "http/token.hpp"
#include "request/arena.hpp"
#include "counters/memo_stats.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>

namespace stet::detail {
namespace {

constexpr std::size_t bucket_count = header_name_cache_capacity * 2;  // load factor <= 1/2
constexpr std::uint16_t empty_bucket = 0xffff;

// Keyed on the lowercase bytes, so "Content-Type" and "CONTENT-TYPE" share one
// entry. Insert-only: an entry is never evicted or overwritten, because header
// maps of requests on this thread hold views into it; once full, further names
// are folded into the request arena instead. An attacker sending many distinct
// names can therefore only fill it, never make a handed-out view dangle.
struct name_cache {
  struct entry {
    std::uint8_t length = 0;
    std::array<char, header_name_cache_max_length> text{};
  };

  name_cache() { buckets.fill(empty_bucket); }

  std::array<std::uint16_t, bucket_count> buckets{};
  std::unique_ptr<entry[]> entries = std::make_unique<entry[]>(header_name_cache_capacity);
  std::size_t used = 0;
};

name_cache& this_thread_cache() {
  thread_local name_cache cache;
  return cache;
}

bool has_upper(std::string_view s) noexcept {
  for (char c : s) {
    if (c >= 'A' && c <= 'Z') return true;
  }
  return false;
}

std::string_view fold_into_arena(std::string_view name, std::pmr::memory_resource& arena) {
  char* out = static_cast<char*>(arena.allocate(name.size(), 1));
  for (std::size_t i = 0; i < name.size(); ++i) out[i] = ascii_lower(name[i]);
  return {out, name.size()};
}

}  // namespace

std::string_view lowercase_header_name(std::string_view name, std::pmr::memory_resource& arena) {
  if (!has_upper(name)) return name;
  memo_stats& stats = this_thread_memo_stats();
  if (name.size() > header_name_cache_max_length) {
    ++stats.header_name_overflows;
    return fold_into_arena(name, arena);
  }
  std::array<char, header_name_cache_max_length> folded;
  std::uint32_t hash = 2166136261u;
  for (std::size_t i = 0; i < name.size(); ++i) {
    folded[i] = ascii_lower(name[i]);
    hash = (hash ^ static_cast<unsigned char>(folded[i])) * 16777619u;
  }
  const std::string_view key(folded.data(), name.size());

  name_cache& cache = this_thread_cache();
  for (std::size_t b = hash % bucket_count;; b = (b + 1) % bucket_count) {
    const std::uint16_t slot = cache.buckets[b];
    if (slot == empty_bucket) {
      if (cache.used == header_name_cache_capacity) break;
      name_cache::entry& e = cache.entries[cache.used];
      e.length = static_cast<std::uint8_t>(key.size());
      std::memcpy(e.text.data(), key.data(), key.size());
      cache.buckets[b] = static_cast<std::uint16_t>(cache.used++);
      ++stats.header_name_inserts;
      stats.header_name_entries.set(cache.used);
      return {e.text.data(), e.length};
    }
    const name_cache::entry& e = cache.entries[slot];
    if (e.length == key.size() && std::memcmp(e.text.data(), key.data(), key.size()) == 0) {
      ++stats.header_name_hits;
      return {e.text.data(), e.length};
    }
  }
  ++stats.header_name_overflows;
  return fold_into_arena(name, arena);
}

std::size_t header_name_cache_size() noexcept { return this_thread_cache().used; }

}  // namespace stet::detail
