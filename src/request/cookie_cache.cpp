#include "request/cookie_cache.hpp"

#include "request/arena.hpp"
#include "request/cookie_parse.hpp"
#include "counters/memo_stats.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace stet::detail {
namespace {

// Where a cookie's name and value sit inside the header; uint16 suffices
// because only headers up to 8 KiB are cached.
struct cookie_offsets {
  std::uint16_t name_at, name_length, value_at, value_length;
};

// Keyed by the exact Cookie header bytes; an entry is only ever replaced when it
// is the least recently used and a new header needs its slot. An entry holds its
// own copy of the header and the parse as offsets, never views into a
// connection's buffer: a hit rebuilds the views against the *current* request's
// header (byte-identical, it is the key), so nothing a request holds points
// into the cache and an eviction can never invalidate a live request's views.
class cookie_lru {
 public:
  cookie_lru() {
    index_.reserve(cookie_cache_capacity * 2);
    slots_.resize(cookie_cache_capacity);
  }

  cookie_jar lookup(std::string_view header, std::pmr::memory_resource& arena) {
    memo_stats& stats = this_thread_memo_stats();
    if (!enabled_ || header.size() > cookie_cache_max_header_bytes) {
      ++stats.cookie_cache_bypasses;
      return parse_cookie_header(header, arena);
    }
    if (const auto found = index_.find(header); found != index_.end()) {
      ++stats.cookie_cache_hits;
      touch(found->second);
      return rebuild(slots_[found->second], header, arena);
    }
    ++stats.cookie_cache_misses;
    const cookie_jar jar = parse_cookie_header(header, arena);
    remember(header, jar);
    return jar;
  }

  std::size_t size() const noexcept { return index_.size(); }
  bool contains(std::string_view header) const noexcept { return index_.contains(header); }
  void enable(bool on) noexcept { enabled_ = on; }

  void clear() noexcept {
    index_.clear();
    head_ = tail_ = none;
    used_ = 0;
    this_thread_memo_stats().cookie_cache_entries.set(0);
  }

 private:
  static constexpr std::uint16_t none = 0xffff;

  struct slot {
    std::string header;
    std::vector<cookie_offsets> all;
    std::vector<cookie_offsets> sorted;
    std::uint16_t newer = none;
    std::uint16_t older = none;
  };

  static cookie_offsets offsets_of(const cookie& c, std::string_view header) noexcept {
    const auto at = [&](std::string_view part) { return static_cast<std::uint16_t>(part.data() - header.data()); };
    return {at(c.name), static_cast<std::uint16_t>(c.name.size()), at(c.value),
            static_cast<std::uint16_t>(c.value.size())};
  }

  static std::span<const cookie> views(const std::vector<cookie_offsets>& offsets, std::string_view header,
                                       std::pmr::memory_resource& arena) {
    cookie* out = arena_array<cookie>(arena, offsets.size());
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      const cookie_offsets& o = offsets[i];
      out[i] = cookie{header.substr(o.name_at, o.name_length), header.substr(o.value_at, o.value_length)};
    }
    return {out, offsets.size()};
  }

  static cookie_jar rebuild(const slot& s, std::string_view header, std::pmr::memory_resource& arena) {
    return cookie_access::make(views(s.all, header, arena), views(s.sorted, header, arena));
  }

  void unlink(std::uint16_t i) noexcept {
    slot& s = slots_[i];
    (s.newer == none ? head_ : slots_[s.newer].older) = s.older;
    (s.older == none ? tail_ : slots_[s.older].newer) = s.newer;
    s.newer = s.older = none;
  }

  void push_front(std::uint16_t i) noexcept {
    slot& s = slots_[i];
    s.newer = none;
    s.older = head_;
    if (head_ != none) slots_[head_].newer = i;
    head_ = i;
    if (tail_ == none) tail_ = i;
  }

  void touch(std::uint16_t i) noexcept {
    if (head_ == i) return;
    unlink(i);
    push_front(i);
  }

  void remember(std::string_view header, const cookie_jar& jar) {
    std::uint16_t i;
    if (used_ < cookie_cache_capacity) {
      i = static_cast<std::uint16_t>(used_++);
    } else {
      i = tail_;
      unlink(i);
      index_.erase(slots_[i].header);
      ++this_thread_memo_stats().cookie_cache_evictions;
    }
    slot& s = slots_[i];
    s.header.assign(header);
    s.all.clear();
    s.sorted.clear();
    for (const cookie& c : jar.all()) s.all.push_back(offsets_of(c, header));
    for (const cookie& c : jar.sorted()) s.sorted.push_back(offsets_of(c, header));
    index_.emplace(std::string_view(s.header), i);
    push_front(i);
    this_thread_memo_stats().cookie_cache_entries.set(index_.size());
  }

  struct view_hash {
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };

  std::vector<slot> slots_;
  std::unordered_map<std::string_view, std::uint16_t, view_hash> index_;
  std::size_t used_ = 0;
  std::uint16_t head_ = none;  // most recently used
  std::uint16_t tail_ = none;  // least recently used: the next eviction
  bool enabled_ = true;
};

cookie_lru& this_thread_lru() {
  thread_local cookie_lru lru;
  return lru;
}

}  // namespace

cookie_jar cached_cookie_jar(std::string_view header, std::pmr::memory_resource& arena) {
  return this_thread_lru().lookup(header, arena);
}

std::size_t cookie_cache_size() noexcept { return this_thread_lru().size(); }
bool cookie_cache_contains(std::string_view header) noexcept { return this_thread_lru().contains(header); }
void cookie_cache_clear() noexcept { this_thread_lru().clear(); }
void cookie_cache_enable(bool enabled) noexcept { this_thread_lru().enable(enabled); }

}  // namespace stet::detail
