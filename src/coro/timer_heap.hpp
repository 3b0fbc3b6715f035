#pragma once
// The timers of one executor: a binary min-heap of intrusive entries, each
// knowing its own slot, so that cancelling one is O(log n) and neither adding
// nor cancelling allocates once the heap's array has grown to the busiest
// moment's size.

#include <stet/detail/coro_frame.hpp>

#include <chrono>
#include <cstddef>
#include <vector>

namespace stet::detail {

class timer_heap {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  void push(timer_entry& t);
  /// Removes `t` if it is in the heap (no-op otherwise).
  void erase(timer_entry& t) noexcept;
  /// The entry due first, if it is due at `now`; removed from the heap.
  timer_entry* pop_due(time_point now) noexcept;
  bool empty() const noexcept { return entries_.empty(); }
  /// Due time of the first entry; only when not empty().
  time_point next_due() const noexcept { return entries_.front()->due; }

 private:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  void place(std::size_t slot, timer_entry* t) noexcept;
  void sift_up(std::size_t slot) noexcept;
  void sift_down(std::size_t slot) noexcept;

  std::vector<timer_entry*> entries_;
};

}  // namespace stet::detail
