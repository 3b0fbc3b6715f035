#pragma once
// A worker's executor for suspended tasks (src/coro/executor.hpp) over its
// io_context. Posts from other threads (an offload pool thread, a promise's
// thread) go onto a lock-free intrusive stack, and only the post that finds
// it empty wakes the loop, with memory of the executor's own for Asio's
// operation: finishing an offload allocates nothing, and a burst of
// completions costs one wake-up. Sleeping tasks wait in a timer heap behind
// one Asio timer.

#include "coro/executor.hpp"
#include "coro/timer_heap.hpp"
#include "net/asio.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>

namespace stet::detail {

/// Memory for the one post a worker_executor has in flight (Asio frees an
/// operation before running it, so a single slot is enough; a second
/// allocation while it is taken falls back to operator new).
class handler_slot {
 public:
  void* allocate(std::size_t bytes);
  void deallocate(void* p) noexcept;

 private:
  alignas(std::max_align_t) unsigned char bytes_[256];
  std::atomic<bool> taken_{false};
};

class worker_executor final : public executor {
 public:
  worker_executor(asio::io_context& io, offload_pool* pool);
  worker_executor(const worker_executor&) = delete;
  worker_executor& operator=(const worker_executor&) = delete;
  ~worker_executor() = default;

  void post(resumable& r) noexcept override;
  void hold() noexcept override { io_.get_executor().on_work_started(); }
  void release() noexcept override { io_.get_executor().on_work_finished(); }
  void start_timer(timer_entry& t) noexcept override;
  void cancel_timer(timer_entry& t) noexcept override;
  offload_pool* pool() const noexcept override { return pool_; }

 private:
  void run_posted() noexcept;
  void arm(std::chrono::steady_clock::time_point due) noexcept;
  void on_timer() noexcept;

  asio::io_context& io_;
  offload_pool* pool_;
  std::atomic<resumable*> inbox_{nullptr};  // LIFO; run_posted() reverses it
  handler_slot slot_;
  timer_heap timers_;
  asio::steady_timer timer_;
  std::chrono::steady_clock::time_point armed_ = std::chrono::steady_clock::time_point::max();
};

}  // namespace stet::detail
