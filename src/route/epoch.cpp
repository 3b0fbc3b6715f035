#include "route/epoch.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>

namespace stet::detail::epoch {

// One per registered thread, alone on its cache line so that pinning never
// contends with another thread's pin.
struct alignas(64) slot {
  std::atomic<std::uint64_t> pinned{0};  // 0: outside any section
  unsigned depth = 0;                    // owner thread only
  bool in_use = false;                   // guarded by registry::mutex
};

namespace {

// Slots come from a fixed pool first so that registering a thread costs no
// heap allocation; threads beyond it get slots from a deque (stable addresses).
// A slot is handed back when its thread exits and reused by the next thread.
struct registry {
  std::atomic<std::uint64_t> global{1};
  std::mutex mutex;
  std::array<slot, 64> pool;
  std::deque<slot> overflow;

  slot* acquire() {
    const std::lock_guard lock(mutex);
    for (slot& s : pool) {
      if (!s.in_use) return claim(s);
    }
    for (slot& s : overflow) {
      if (!s.in_use) return claim(s);
    }
    return claim(overflow.emplace_back());
  }
  static slot* claim(slot& s) noexcept {
    s.in_use = true;
    s.depth = 0;
    return &s;
  }
  void release(slot& s) {
    const std::lock_guard lock(mutex);
    s.in_use = false;
  }
};

registry& the_registry() {
  static registry r;
  return r;
}

struct thread_slot {
  slot* s = nullptr;
  ~thread_slot() {
    if (s != nullptr) the_registry().release(*s);
  }
};

slot& this_thread_slot() {
  thread_local thread_slot mine;
  if (mine.s == nullptr) mine.s = the_registry().acquire();
  return *mine.s;
}

}  // namespace

// The pin is a seq_cst store before the table pointer is loaded, and the
// writer's slot scan comes after its seq_cst swap; so either the writer sees
// the pin, or the reader sees the new table.
read_section::read_section() noexcept : slot_(&this_thread_slot()) {
  if (slot_->depth++ == 0) slot_->pinned.store(the_registry().global.load(), std::memory_order_seq_cst);
}

read_section::~read_section() {
  if (--slot_->depth == 0) slot_->pinned.store(0, std::memory_order_release);
}

std::uint64_t advance() noexcept { return the_registry().global.fetch_add(1); }

bool quiescent(std::uint64_t tag) noexcept {
  registry& r = the_registry();
  const std::lock_guard lock(r.mutex);
  const auto pins_old = [tag](const slot& s) {
    const std::uint64_t e = s.pinned.load(std::memory_order_seq_cst);
    return e != 0 && e <= tag;
  };
  for (const slot& s : r.pool) {
    if (pins_old(s)) return false;
  }
  for (const slot& s : r.overflow) {
    if (pins_old(s)) return false;
  }
  return true;
}

}  // namespace stet::detail::epoch
