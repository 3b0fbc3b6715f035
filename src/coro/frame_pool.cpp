#include "coro/frame_pool.hpp"

#include "counters/memo_stats.hpp"

#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define STET_FRAME_POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define STET_FRAME_POOL_ASAN 1
#endif
#endif

namespace stet::detail {
namespace {

thread_local frame_pool* installed = nullptr;

// Idle blocks are poisoned under ASan, so a frame used after it was freed is
// still caught although the memory is recycled, not returned.
void poison(void* block, std::size_t bytes) noexcept {
#ifdef STET_FRAME_POOL_ASAN
  ASAN_POISON_MEMORY_REGION(static_cast<char*>(block) + sizeof(void*), bytes - sizeof(void*));
#else
  (void)block;
  (void)bytes;
#endif
}

void unpoison(void* block, std::size_t bytes) noexcept {
#ifdef STET_FRAME_POOL_ASAN
  ASAN_UNPOISON_MEMORY_REGION(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}

}  // namespace

frame_pool::~frame_pool() {
  for (std::size_t c = 0; c < classes; ++c) {
    while (idle_block* b = idle_[c]) {
      idle_[c] = b->next;
      unpoison(b, (c + 1) * granule);
      ::operator delete(b);
    }
  }
}

void* frame_pool::allocate(std::size_t bytes) {
  const std::size_t size = block_size(bytes);
  memo_stats& stats = this_thread_memo_stats();
  if (size <= max_block_bytes) {
    const std::size_t c = size / granule - 1;
    if (idle_block* b = idle_[c]) {
      idle_[c] = b->next;
      --counts_[c];
      idle_bytes_ -= size;
      unpoison(b, size);
      ++stats.frame_reuses;
      stats.frames_idle.set(stats.frames_idle.get() - 1);
      return b;
    }
  }
  ++stats.frame_allocations;
  return ::operator new(size);
}

void frame_pool::free(void* block, std::size_t bytes) noexcept {
  const std::size_t size = block_size(bytes);
  if (size > max_block_bytes) {
    ::operator delete(block);
    return;
  }
  const std::size_t c = size / granule - 1;
  if (counts_[c] >= max_idle_per_class || idle_bytes_ + size > max_idle_bytes) {
    ::operator delete(block);
    return;
  }
  auto* b = static_cast<idle_block*>(block);
  b->next = idle_[c];
  idle_[c] = b;
  ++counts_[c];
  idle_bytes_ += size;
  poison(b, size);
  memo_stats& stats = this_thread_memo_stats();
  stats.frames_idle.set(stats.frames_idle.get() + 1);
}

void install_thread_frame_pool(frame_pool* pool) noexcept { installed = pool; }

void* allocate_frame(std::size_t bytes) {
  if (installed != nullptr) return installed->allocate(bytes);
  return ::operator new(frame_pool::block_size(bytes));
}

void free_frame(void* frame, std::size_t bytes) noexcept {
  if (installed != nullptr) {
    installed->free(frame, bytes);
    return;
  }
  ::operator delete(frame);
}

}  // namespace stet::detail
