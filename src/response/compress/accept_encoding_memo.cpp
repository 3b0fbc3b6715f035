#include "response/compress/accept_encoding_memo.hpp"

#include "counters/memo_stats.hpp"

#include <array>
#include <cstdint>
#include <cstring>

namespace stet::detail {
namespace {

// Sixteen fixed slots with their key bytes inline: a lookup is a scan that
// compares lengths first (values differ in length far more often than in
// content), and nothing is allocated, ever. Recency is a use stamp; the
// smallest stamp is the eviction victim. A 32-bit stamp wrapping after four
// billion lookups only makes one eviction choice arbitrary.
class accept_encoding_memo {
 public:
  accept_weights lookup(std::string_view value) noexcept {
    memo_stats& stats = this_thread_memo_stats();
    if (!enabled_ || value.size() > accept_encoding_memo_max_bytes) {
      ++stats.accept_encoding_bypasses;
      return parse_accept_encoding(value);
    }
    ++clock_;
    for (std::size_t i = 0; i < used_; ++i) {
      slot& s = slots_[i];
      if (s.length == value.size() && std::memcmp(s.key.data(), value.data(), value.size()) == 0) {
        ++stats.accept_encoding_hits;
        s.stamp = clock_;
        return s.weights;
      }
    }
    ++stats.accept_encoding_misses;
    const accept_weights w = parse_accept_encoding(value);
    remember(value, w, stats);
    return w;
  }

  std::size_t size() const noexcept { return used_; }
  void enable(bool on) noexcept { enabled_ = on; }
  void clear() noexcept {
    used_ = 0;
    this_thread_memo_stats().accept_encoding_entries.set(0);
  }

 private:
  struct slot {
    std::array<char, accept_encoding_memo_max_bytes> key;
    std::uint8_t length = 0;
    std::uint32_t stamp = 0;
    accept_weights weights;
  };

  void remember(std::string_view value, const accept_weights& w, memo_stats& stats) noexcept {
    std::size_t victim = used_;
    if (used_ < slots_.size()) {
      ++used_;
      stats.accept_encoding_entries.set(used_);
    } else {
      victim = 0;
      for (std::size_t i = 1; i < slots_.size(); ++i) {
        if (slots_[i].stamp < slots_[victim].stamp) victim = i;
      }
      ++stats.accept_encoding_evictions;
    }
    slot& s = slots_[victim];
    std::memcpy(s.key.data(), value.data(), value.size());
    s.length = static_cast<std::uint8_t>(value.size());
    s.stamp = clock_;
    s.weights = w;
  }

  std::array<slot, accept_encoding_memo_capacity> slots_{};
  std::size_t used_ = 0;
  std::uint32_t clock_ = 0;
  bool enabled_ = true;
};

accept_encoding_memo& this_thread_memo() noexcept {
  thread_local accept_encoding_memo memo;
  return memo;
}

}  // namespace

accept_weights cached_accept_encoding(std::string_view value) noexcept { return this_thread_memo().lookup(value); }

std::size_t accept_encoding_memo_size() noexcept { return this_thread_memo().size(); }
void accept_encoding_memo_clear() noexcept { this_thread_memo().clear(); }
void accept_encoding_memo_enable(bool enabled) noexcept { this_thread_memo().enable(enabled); }

}  // namespace stet::detail
