#pragma once
// Coroutine frames (and a suspended handler's answer slot) without a malloc
// per request: a worker keeps the blocks its handlers' frames used, by size
// class, and hands them out again. A block freed on a thread without a pool
// (or with another worker's) simply goes to that thread's pool or back to
// operator delete: every block of a class has the class's size, whoever
// allocated it, so any pool may take it.

#include <stet/detail/coro_frame.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace stet::detail {

class frame_pool {
 public:
  static constexpr std::size_t granule = 64;
  /// Frames up to this size are recycled; larger ones go to operator new.
  static constexpr std::size_t max_block_bytes = 4096;
  /// What one pool keeps idle at most: a burst of suspended handlers does
  /// not stay allocated after it passes.
  static constexpr std::size_t max_idle_bytes = 512 * 1024;
  static constexpr std::size_t max_idle_per_class = 128;

  frame_pool() = default;
  frame_pool(const frame_pool&) = delete;
  frame_pool& operator=(const frame_pool&) = delete;
  ~frame_pool();

  void* allocate(std::size_t bytes);
  void free(void* block, std::size_t bytes) noexcept;
  std::size_t idle_bytes() const noexcept { return idle_bytes_; }

  /// The size a request of `bytes` really gets (a pooled class, or as asked).
  static constexpr std::size_t block_size(std::size_t bytes) noexcept {
    return bytes > max_block_bytes ? bytes : (bytes + granule - 1) / granule * granule;
  }

 private:
  struct idle_block {
    idle_block* next;
  };
  static constexpr std::size_t classes = max_block_bytes / granule;

  std::array<idle_block*, classes> idle_{};
  std::array<std::uint32_t, classes> counts_{};
  std::size_t idle_bytes_ = 0;
};

/// Makes `pool` the calling thread's (null: none), as a worker does for its thread.
void install_thread_frame_pool(frame_pool* pool) noexcept;

/// An allocator over allocate_frame(), for std::allocate_shared.
template <class T>
struct frame_allocator {
  using value_type = T;
  frame_allocator() noexcept = default;
  template <class U>
  frame_allocator(const frame_allocator<U>&) noexcept {}  // NOLINT: allocators convert implicitly
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_frame(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { free_frame(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const frame_allocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace stet::detail
