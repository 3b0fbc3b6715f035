#pragma once
// An executor for a thread that is not a worker: router::handle() runs a
// handler in-process and, if its answer is pending, turns this loop until it
// is there, so a coroutine handler can sleep or await a future there too
// (offload() has no pool here: the function runs inline).

#include "coro/executor.hpp"
#include "coro/timer_heap.hpp"

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace stet::detail {

class local_loop final : public executor {
 public:
  local_loop() = default;
  local_loop(const local_loop&) = delete;
  local_loop& operator=(const local_loop&) = delete;
  /// Cuts the link waiter() handed out: a wake that comes later does nothing.
  ~local_loop();

  void post(resumable& r) noexcept override;
  void hold() noexcept override {}
  void release() noexcept override {}
  void start_timer(timer_entry& t) noexcept override { timers_.push(t); }
  void cancel_timer(timer_entry& t) noexcept override { timers_.erase(t); }
  offload_pool* pool() const noexcept override { return nullptr; }

  /// On the loop's thread: runs posted callbacks and due timers until `done()`.
  void run_until(const std::function<bool()>& done);
  /// From any thread: makes run_until() look at its condition again.
  void wake() noexcept;

  /// What to give pending_response::on_ready() with wake_waiter(), so that
  /// the answer's sender wakes this loop. The sender wakes after the answer
  /// is visible, so run_until() may have returned and this loop be gone by
  /// then: the waiter is shared with the sender and only points here until
  /// the loop is destroyed. Made on first use (one allocation per loop).
  /// @throws std::bad_alloc
  std::shared_ptr<void> waiter();
  /// A pending_response::waker for waiter()'s result.
  static void wake_waiter(std::shared_ptr<void> w) noexcept;

 private:
  struct link {
    std::mutex mutex;
    local_loop* loop = nullptr;  // guarded by mutex; null once the loop is gone
  };

  std::mutex mutex_;
  std::condition_variable changed_;
  resumable* first_ = nullptr;  // posted, FIFO
  resumable* last_ = nullptr;
  bool woken_ = false;
  timer_heap timers_;           // the loop's thread only
  std::shared_ptr<link> link_;  // the loop's thread only (the pointer; the link is shared)
};

}  // namespace stet::detail
