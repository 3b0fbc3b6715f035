#pragma once
/// @file
/// stet::promise and stet::future: an awaitable completed from any thread, for
/// callbacks from other libraries.

#include <stet/detail/coro_frame.hpp>

#include <coroutine>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace stet {

/// What awaiting a future throws when its promise was destroyed without a value.
class broken_promise : public std::logic_error {
 public:
  broken_promise();
};

namespace detail {

class future_waiter;

/// What a promise and its future share. The lock makes the promise's side
/// safe from any thread (src/coro/future.cpp).
class future_state_base {
 public:
  future_state_base() = default;
  future_state_base(const future_state_base&) = delete;
  future_state_base& operator=(const future_state_base&) = delete;

  bool ready() noexcept;
  /// The future still exists and nothing was set yet.
  bool wanted() noexcept;
  /// Registers `w` unless the value is already there (then false: resume now).
  bool wait(future_waiter& w) noexcept;
  /// Unregisters `w`; false when its resumption is already on its way.
  bool unwait(future_waiter& w) noexcept;
  void future_gone() noexcept;
  /// Sets broken_promise unless something was set.
  void break_promise() noexcept;

 protected:
  ~future_state_base() = default;
  /// With `lock` held and the result stored: marks it ready and sends the waiter on its way.
  void publish(std::unique_lock<std::mutex>& lock) noexcept;

  std::mutex mutex_;
  bool ready_ = false;
  bool future_gone_ = false;
  future_waiter* waiter_ = nullptr;
  std::exception_ptr error_;
};

template <class T>
class future_state final : public future_state_base {
 public:
  template <class... A>
  bool set(A&&... a) {
    std::unique_lock lock(mutex_);
    if (ready_) return false;
    value_.emplace(std::forward<A>(a)...);
    const bool wanted = !future_gone_;
    publish(lock);
    return wanted;
  }
  bool fail(const std::exception_ptr& e) noexcept {
    std::unique_lock lock(mutex_);
    if (ready_) return false;
    error_ = e;
    const bool wanted = !future_gone_;
    publish(lock);
    return wanted;
  }
  /// Once ready (the promise's side is done with it then).
  T take() {
    const std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
    if constexpr (!std::is_void_v<T>) return std::move(*value_);
  }

 private:
  struct nothing {};
  std::optional<std::conditional_t<std::is_void_v<T>, nothing, T>> value_;
};

/// The awaiting side of a future: registered with the state while suspended,
/// posted back to its executor when the value arrives.
class future_waiter : public resumable, public suspension {
 public:
  future_waiter& operator=(future_waiter&&) = delete;
  bool cancel() noexcept override;
  /// From the promise's thread, once the value is there: back to the
  /// waiter's executor, which resumes (or destroys) its task.
  void send_home() noexcept;

 protected:
  explicit future_waiter(std::shared_ptr<future_state_base> state) noexcept : state_(std::move(state)) {}
  future_waiter(future_waiter&& other) noexcept : state_(std::move(other.state_)) {}
  ~future_waiter() {
    if (state_) state_->future_gone();
  }

  bool start(std::coroutine_handle<> waiter, task_root& root) noexcept;

  std::shared_ptr<future_state_base> state_;

 private:
  static void resumed(resumable& self) noexcept;

  std::coroutine_handle<> waiter_;
  task_root* root_ = nullptr;
  executor* home_ = nullptr;
};

}  // namespace detail

template <class T = void>
class future;

/// The completing side: set_value() or set_exception() once, from any thread.
/// The future's task resumes on its own worker thread. Destroyed without
/// either, the future throws broken_promise.
template <class T = void>
class promise {
 public:
  /// Takes over `other`'s future; `other` completes nothing any more.
  promise(promise&&) noexcept = default;
  /// Breaks this promise's future (if unset) and takes over `other`'s.
  promise& operator=(promise&& other) noexcept {
    if (this != &other) {
      if (state_) state_->break_promise();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  promise(const promise&) = delete;
  promise& operator=(const promise&) = delete;
  ~promise() {
    if (state_) state_->break_promise();
  }

  /// Completes the future with a value. False when it was already completed
  /// or nobody waits any more (the future, or the task awaiting it, is gone).
  template <class... A>
  requires(std::is_void_v<T> ? sizeof...(A) == 0 : std::is_constructible_v<T, A&&...>) bool set_value(A&&... a) {
    return state_ && state_->set(std::forward<A>(a)...);
  }
  /// Completes the future with an exception, rethrown where it is awaited.
  bool set_exception(std::exception_ptr e) noexcept { return state_ && state_->fail(std::move(e)); }
  /// True once the future (or the task awaiting it) is gone, or a value was set.
  bool abandoned() const noexcept { return !state_ || !state_->wanted(); }

 private:
  template <class U>
  friend std::pair<promise<U>, future<U>> make_promise();
  explicit promise(std::shared_ptr<detail::future_state<T>> state) noexcept : state_(std::move(state)) {}

  std::shared_ptr<detail::future_state<T>> state_;
};

/// The awaiting side: `T v = co_await f;` inside a stet::task, once. Move it
/// only before awaiting it.
template <class T>
class future final : public detail::future_waiter {
 public:
  using stet_awaitable_tag = void;  ///< co_await accepts a future inside a stet::task

  /// Takes over `other`'s promise (before either is awaited).
  future(future&&) noexcept = default;

  /// True when the value (or exception) is already there: no suspension.
  bool await_ready() const noexcept { return state_->ready(); }
  /// Waits for the promise; the task resumes on the worker it is suspended on.
  template <detail::task_promise_type P>
  bool await_suspend(std::coroutine_handle<P> waiter) noexcept {
    return start(waiter, *waiter.promise().root());
  }
  /// The value, or the exception set (broken_promise for a promise destroyed unset).
  T await_resume() { return static_cast<detail::future_state<T>&>(*state_).take(); }

 private:
  template <class U>
  friend std::pair<promise<U>, future<U>> make_promise();
  explicit future(std::shared_ptr<detail::future_state<T>> state) noexcept : future_waiter(std::move(state)) {}
};

/// A connected pair: hand the promise to whoever calls back (another library's
/// completion callback, a thread), await the future in the task. One
/// allocation for the shared state.
template <class T = void>
std::pair<promise<T>, future<T>> make_promise() {
  auto state = std::make_shared<detail::future_state<T>>();
  return {promise<T>(state), future<T>(state)};
}

}  // namespace stet
