#pragma once
/// @file
/// stet::sleep_for: suspends a stet::task for a while without blocking its worker.

#include <stet/detail/coro_frame.hpp>

#include <chrono>
#include <coroutine>

namespace stet {

namespace detail {

/// The awaitable of sleep_for(): an entry in the worker's timers (src/coro/sleep.cpp).
class sleep_awaiter final : public timer_entry, public suspension {
 public:
  using stet_awaitable_tag = void;

  explicit sleep_awaiter(std::chrono::steady_clock::duration d) noexcept : duration_(d) {}
  /// Movable only before it is awaited (GCC may move a co_await operand).
  sleep_awaiter(sleep_awaiter&&) noexcept = default;
  sleep_awaiter(const sleep_awaiter&) = delete;
  sleep_awaiter& operator=(const sleep_awaiter&) = delete;
  ~sleep_awaiter() = default;

  bool await_ready() const noexcept { return false; }
  template <task_promise_type P>
  bool await_suspend(std::coroutine_handle<P> waiter) noexcept {
    return start(waiter, *waiter.promise().root());
  }
  void await_resume() const noexcept {}
  bool cancel() noexcept override;

 private:
  bool start(std::coroutine_handle<> waiter, task_root& root) noexcept;
  static void fired(resumable& self) noexcept;

  std::chrono::steady_clock::duration duration_;
  std::coroutine_handle<> waiter_;
  task_root* root_ = nullptr;
  executor* home_ = nullptr;
};

}  // namespace detail

/// `co_await stet::sleep_for(d)` inside a stet::task: resumes the task on its
/// worker thread once `d` has passed (at the earliest; zero or negative: at the
/// worker's next turn), serving other connections meanwhile. Never block a
/// worker with std::this_thread::sleep_for. Cancelled like any suspension: a
/// task whose answer is no longer wanted is destroyed, not resumed.
template <class Rep, class Period>
detail::sleep_awaiter sleep_for(std::chrono::duration<Rep, Period> d) noexcept {
  return detail::sleep_awaiter(std::chrono::ceil<std::chrono::steady_clock::duration>(d));
}

}  // namespace stet
