#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").
// What stet::task and stet's awaitables share: where coroutine frames come
// from, the state of a handler's whole chain of tasks (its root), and the
// contract every awaitable keeps so that a suspended handler can be cancelled.
// The logic lives in src/route/coro_root.cpp and src/coro/; templates here only
// forward to it.

#include <chrono>
#include <concepts>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>

namespace stet::detail {

// stet's own (src/net/server/worker_executor.hpp), named by offload, promise and sleep;
// not Asio's, which no public header sees.
class executor;  // NOLINT(bugprone-forward-declaration-namespace)
class pending_response;

/// Memory for a coroutine frame: from the calling thread's recycling pool (a
/// worker's), else from operator new. Either may free what the other gave.
void* allocate_frame(std::size_t bytes);
void free_frame(void* frame, std::size_t bytes) noexcept;

/// A callback queued on an executor: intrusive, so queueing allocates nothing.
/// The node must stay alive until `run` has been called on it.
struct resumable {
  resumable* next = nullptr;
  void (*run)(resumable& self) noexcept = nullptr;
};

/// An entry of an executor's timers: `run` is called on the executor's thread at `due`.
struct timer_entry : resumable {
  std::chrono::steady_clock::time_point due{};
  std::size_t slot = static_cast<std::size_t>(-1);  ///< the executor's bookkeeping
};

/// The awaitable a task is suspended in. Every stet awaitable is one, so a
/// suspended handler can always be unhooked from whatever would resume it.
class suspension {
 public:
  /// On the executor's thread, when the answer is no longer wanted. True: the
  /// awaitable unhooked itself (its timer, queued job or callback is gone) and
  /// the frame may be destroyed now. False: a completion is already on its way
  /// (an offloaded function is running); it destroys the frame instead of
  /// resuming it when it arrives.
  virtual bool cancel() noexcept = 0;

 protected:
  suspension() = default;
  suspension(const suspension&) = default;
  suspension& operator=(const suspension&) = default;
  ~suspension() = default;
};

/// One handler's chain of tasks: the frame of the task the handler returned,
/// and where the chain is suspended now. Lives in that frame's promise.
struct task_root {
  std::coroutine_handle<> frame;
  suspension* at = nullptr;                   ///< set while suspended in a stet awaitable
  std::shared_ptr<pending_response> pending;  ///< the answer slot, once the chain suspended
  bool cancelled = false;                     ///< the answer is no longer wanted
};

/// Back on the executor's thread after a suspension ended: resumes `waiter`,
/// or destroys the whole chain if it was cancelled meanwhile.
void resume_or_destroy(task_root& root, std::coroutine_handle<> waiter) noexcept;

/// Marks the types co_await accepts inside a stet::task (stet's awaitables and
/// tasks): a suspension in anything else could not be cancelled.
template <class A>
concept stet_awaitable = requires {
  typename std::remove_cvref_t<A>::stet_awaitable_tag;
};

/// An awaitable named by an lvalue (`co_await fut;`), awaited through a
/// pointer: GCC 12 copies an lvalue co_await operand otherwise, and stet's
/// awaitables cannot be copied.
template <class A>
struct awaitable_ref {
  A* target;
  bool await_ready() { return target->await_ready(); }
  template <class P>
  decltype(auto) await_suspend(std::coroutine_handle<P> waiter) {
    return target->await_suspend(waiter);
  }
  decltype(auto) await_resume() { return target->await_resume(); }
};

class promise_base;

/// A promise type whose coroutine may await stet's awaitables.
template <class P>
concept task_promise_type = std::derived_from<P, promise_base>;

/// What every stet::task promise has: frames from the recycling pool, lazy
/// start, the continuation that awaits it, its chain's root.
class promise_base {
 public:
  static void* operator new(std::size_t bytes) { return allocate_frame(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept { free_frame(frame, bytes); }

  std::suspend_always initial_suspend() const noexcept { return {}; }
  void unhandled_exception() noexcept { error_ = std::current_exception(); }

  template <class A>
  decltype(auto) await_transform(A&& awaitable) const noexcept {
    static_assert(stet_awaitable<A>,
                  "inside a stet::task, co_await only stet's awaitables (stet::offload, stet::sleep_for, "
                  "stet::future, another stet::task): only those can be cancelled when the client goes away");
    if constexpr (std::is_lvalue_reference_v<A>) {
      return awaitable_ref<std::remove_reference_t<A>>{&awaitable};
    } else {
      return std::forward<A>(awaitable);
    }
  }

  task_root* root() const noexcept { return root_; }

  std::coroutine_handle<> continuation_;  ///< the task awaiting this one; null for a handler's own task
  task_root* root_ = nullptr;
  std::exception_ptr error_;
};

}  // namespace stet::detail
