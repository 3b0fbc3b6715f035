#include "coro/timer_heap.hpp"

#include <utility>

namespace stet::detail {

void timer_heap::place(std::size_t slot, timer_entry* t) noexcept {
  entries_[slot] = t;
  t->slot = slot;
}

void timer_heap::push(timer_entry& t) {
  entries_.push_back(&t);
  t.slot = entries_.size() - 1;
  sift_up(t.slot);
}

void timer_heap::erase(timer_entry& t) noexcept {
  const std::size_t slot = t.slot;
  if (slot >= entries_.size() || entries_[slot] != &t) return;
  t.slot = none;
  timer_entry* last = entries_.back();
  entries_.pop_back();
  if (last == &t) return;
  place(slot, last);
  sift_up(slot);
  sift_down(last->slot);
}

timer_entry* timer_heap::pop_due(time_point now) noexcept {
  if (entries_.empty() || entries_.front()->due > now) return nullptr;
  timer_entry* first = entries_.front();
  erase(*first);
  return first;
}

void timer_heap::sift_up(std::size_t slot) noexcept {
  timer_entry* t = entries_[slot];
  while (slot > 0) {
    const std::size_t parent = (slot - 1) / 2;
    if (entries_[parent]->due <= t->due) break;
    place(slot, entries_[parent]);
    slot = parent;
  }
  place(slot, t);
}

void timer_heap::sift_down(std::size_t slot) noexcept {
  timer_entry* t = entries_[slot];
  const std::size_t size = entries_.size();
  for (;;) {
    std::size_t child = 2 * slot + 1;
    if (child >= size) break;
    if (child + 1 < size && entries_[child + 1]->due < entries_[child]->due) ++child;
    if (entries_[child]->due >= t->due) break;
    place(slot, entries_[child]);
    slot = child;
  }
  place(slot, t);
}

}  // namespace stet::detail
