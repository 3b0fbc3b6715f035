#pragma once
/// @file
/// stet::task: the coroutine type of handlers and of the coroutines they await.

#include <stet/detail/coro_frame.hpp>
#include <stet/response.hpp>

#include <concepts>
#include <coroutine>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

namespace stet {

template <class T = void>
class task;

namespace detail {

struct task_access;

/// Where a task keeps what it co_returns.
template <class T>
class task_value {
 public:
  template <class U = T>
  requires std::constructible_from<T, U&&>
  void return_value(U&& value) { value_.emplace(std::forward<U>(value)); }
  std::optional<T> value_;
};
template <>
class task_value<void> {
 public:
  void return_void() const noexcept {}
};

struct no_root {};

/// For a handler's own task (no continuation): hands its answer over. Defined
/// in src/route/coro_root.cpp.
template <class T>
class task_promise;
std::coroutine_handle<> finish_root(std::coroutine_handle<task_promise<response>> frame) noexcept;

template <class T>
class task_promise : public promise_base, public task_value<T> {
 public:
  task<T> get_return_object() noexcept;

  struct final_awaiter {
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<task_promise> self) noexcept {
      if (self.promise().continuation_) return self.promise().continuation_;
      if constexpr (std::is_same_v<T, response>) {
        return finish_root(self);
      } else {
        return std::noop_coroutine();
      }
    }
    void await_resume() const noexcept {}
  };
  final_awaiter final_suspend() const noexcept { return {}; }

  /// The result, or the exception the task ended with.
  T take() {
    if (error_) std::rethrow_exception(error_);
    if constexpr (!std::is_void_v<T>) return std::move(*this->value_);
  }

  /// A handler's own task is the root of its chain (see task_root).
  [[no_unique_address]] std::conditional_t<std::is_same_v<T, response>, task_root, no_root> handler_root_;
};

}  // namespace detail

/// A lazily started coroutine: nothing runs until it is awaited, or until the
/// router runs a handler that returned it. A handler may return
/// `task<response>` instead of a response:
///
///     routes.get("/users/{id:int}", [](stet::request& req, std::int64_t id) -> stet::task<stet::response> {
///       auto row = co_await stet::offload([id] { return db.find(id); });
///       co_return stet::response::json(row);
///     });
///
/// Inside a task, co_await accepts stet's awaitables only (stet::offload,
/// stet::sleep_for, stet::future, another stet::task): each resumes the task on
/// the thread it was suspended on (a handler's worker thread), and each can be
/// cancelled. When the answer is no longer wanted (the client left,
/// server_options::handler_timeout, the server stopped) a suspended task is
/// not resumed: its frames are destroyed (locals' destructors run), and the
/// request is released only after that.
///
/// A task's result is taken by the one co_await that awaits it; an exception
/// the task ends with is rethrown there. A handler's task that ends with an
/// exception is answered 500 (503 with Retry-After for stet::offload_rejected).
/// Frames come from a per-worker recycling pool: a handler task that completes
/// without suspending allocates nothing.
///
/// @note Move-only. Destroying a task that has not run destroys its frame
/// without running it. Parameters a coroutine takes by reference (the request)
/// must outlive it: a handler's request does; a lambda's captures live in the
/// lambda, which the router keeps.
template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::task_promise<T>;  ///< what the compiler makes the coroutine's promise
  using stet_awaitable_tag = void;               ///< co_await accepts a task inside a task

  /// Takes over `other`'s frame; `other` is left empty.
  task(task&& other) noexcept : frame_(std::exchange(other.frame_, {})) {}
  /// Destroys this task's frame (if any) and takes over `other`'s.
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      if (frame_) frame_.destroy();
      frame_ = std::exchange(other.frame_, {});
    }
    return *this;
  }
  task(const task&) = delete;
  task& operator=(const task&) = delete;
  ~task() {
    if (frame_) frame_.destroy();
  }

  /// Awaiting starts the task; the awaiting coroutine continues when it ends.
  bool await_ready() const noexcept { return false; }
  /// Starts the task in `parent`'s chain (it is cancelled with it); only a
  /// stet::task may await a task.
  template <detail::task_promise_type P>
  std::coroutine_handle<> await_suspend(std::coroutine_handle<P> parent) noexcept {
    promise_type& child = frame_.promise();
    child.continuation_ = parent;
    child.root_ = parent.promise().root();
    return frame_;
  }
  /// The task's result; rethrows the exception it ended with.
  T await_resume() { return frame_.promise().take(); }

 private:
  friend promise_type;
  friend struct detail::task_access;
  explicit task(std::coroutine_handle<promise_type> frame) noexcept : frame_(frame) {}

  std::coroutine_handle<promise_type> frame_;
};

namespace detail {

template <class T>
task<T> task_promise<T>::get_return_object() noexcept {
  return task<T>(std::coroutine_handle<task_promise>::from_promise(*this));
}

/// The router's way to a handler task's frame.
struct task_access {
  template <class T>
  static std::coroutine_handle<task_promise<T>> release(task<T>& t) noexcept {
    return std::exchange(t.frame_, {});
  }
};

/// Whether `R` is `stet::task<stet::response>`: what a coroutine handler returns.
template <class R>
inline constexpr bool is_handler_task = std::is_same_v<R, task<response>>;

}  // namespace detail

}  // namespace stet
