#pragma once
/// @file
/// stet::offload: runs a blocking function on the server's offload pool and
/// resumes the awaiting task on its own worker thread with the result.

#include <stet/detail/coro_frame.hpp>

#include <chrono>
#include <concepts>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

namespace stet {

/// Thrown by `co_await stet::offload(...)` when the pool's queue is full
/// (server_options::offload_queue) or the pool has no threads: the function
/// did not run. A handler that lets it escape is answered 503 with
/// `Retry-After` at once; one that catches it may answer otherwise.
class offload_rejected : public std::runtime_error {
 public:
  /// A refusal whose 503 says `Retry-After: retry_after`.
  explicit offload_rejected(std::chrono::seconds retry_after);
  /// server_options::offload_retry_after: what the 503's Retry-After says.
  std::chrono::seconds retry_after() const noexcept { return retry_after_; }

 private:
  std::chrono::seconds retry_after_;
};

namespace detail {

class offload_pool;

/// One call of an offloaded function, queued on the pool by pointer: it lives
/// in the awaiting coroutine's frame, so an offload allocates nothing.
struct offload_job : resumable {
  /// Runs the function on a pool thread and keeps its result or exception in
  /// the awaitable; false when it threw.
  bool (*call)(offload_job& self) noexcept = nullptr;
  // The pool's bookkeeping, guarded by its lock.
  offload_job* prev = nullptr;
  offload_job* next_job = nullptr;
  std::chrono::steady_clock::time_point queued{};
  std::uint8_t state = 0;
  // Where the job goes back to when the function returned: the executor of
  // the thread that offloaded it (which holds itself open until then).
  executor* home = nullptr;
  offload_pool* pool = nullptr;
};

/// What offload's awaitable does whatever the function: queue, cancel, resume
/// (src/coro/offload.cpp).
class offload_base : public offload_job, public suspension {
 public:
  using stet_awaitable_tag = void;

  offload_base(const offload_base&) = delete;
  offload_base& operator=(const offload_base&) = delete;

  bool await_ready() const noexcept { return false; }
  template <task_promise_type P>
  bool await_suspend(std::coroutine_handle<P> waiter) noexcept {
    return start(waiter, *waiter.promise().root());
  }
  bool cancel() noexcept override;

 protected:
  offload_base() = default;
  // Movable only before it is awaited (GCC may move a co_await operand).
  offload_base(offload_base&&) noexcept = default;
  ~offload_base() = default;

  /// Queues the job. False (resume now) when it ran inline (no pool on this
  /// thread: outside a server) or was refused (rejected_ tells).
  bool start(std::coroutine_handle<> waiter, task_root& root) noexcept;
  /// Throws offload_rejected if the pool refused the job.
  void check_accepted() const;

 private:
  static void resumed(resumable& self) noexcept;

  std::coroutine_handle<> waiter_;
  task_root* root_ = nullptr;
  bool rejected_ = false;
  std::chrono::seconds retry_after_{0};
};

template <class F>
class offload_awaiter final : public offload_base {
 public:
  using result_type = std::invoke_result_t<F&>;
  static_assert(!std::is_reference_v<result_type>, "an offloaded function returns a value (or void), not a reference");

  explicit offload_awaiter(F&& fn) : fn_(std::move(fn)) { call = &run; }
  explicit offload_awaiter(const F& fn) : fn_(fn) { call = &run; }

  /// The function's result; rethrows its exception, or offload_rejected.
  result_type await_resume() {
    check_accepted();
    if (error_) std::rethrow_exception(error_);
    if constexpr (!std::is_void_v<result_type>) return std::move(*value_);
  }

 private:
  struct nothing {};
  using stored = std::conditional_t<std::is_void_v<result_type>, nothing, result_type>;

  static bool run(offload_job& self) noexcept {
    auto& me = static_cast<offload_awaiter&>(self);
    try {
      if constexpr (std::is_void_v<result_type>) {
        me.fn_();
      } else {
        me.value_.emplace(me.fn_());
      }
      return true;
    } catch (...) {
      me.error_ = std::current_exception();
      return false;
    }
  }

  F fn_;
  std::optional<stored> value_;
  std::exception_ptr error_;
};

/// A function and the arguments offload(fn, args...) copied beside it: the
/// call made on the pool thread, with the copies as lvalues.
template <class F, class... A>
struct bound_call {
  F fn;
  std::tuple<A...> args;
  std::invoke_result_t<F&, A&...> operator()() { return std::apply(fn, args); }
};

/// What offload(fn, args...) takes: at least one argument, and a function
/// callable with lvalues of the arguments' copies.
template <class F, class... A>
concept offloadable_with =
    sizeof...(A) > 0 &&
    std::invocable<std::decay_t<F>&, std::decay_t<A>&...>&& std::move_constructible<std::decay_t<F>> &&
    (std::move_constructible<std::decay_t<A>> && ...);

// GCC 12 destroys a closure (or aggregate) temporary with non-trivially
// destructible members twice when it appears in a co_await expression (a
// bitwise copy of it is destroyed too): `co_await offload([ptr] {...})` frees
// `ptr` twice. Clang is not affected.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
inline constexpr bool co_await_temporaries_destroyed_twice = true;
#else
inline constexpr bool co_await_temporaries_destroyed_twice = false;
#endif

/// Whether offload(fn) may take `fn` of type F&& on this compiler: anywhere
/// but GCC 12, always; there, an lvalue (copied) or a temporary that is
/// trivially destructible.
template <class F>
inline constexpr bool offload_operand_safe = !co_await_temporaries_destroyed_twice || std::is_lvalue_reference_v<F> ||
                                             std::is_trivially_destructible_v<std::decay_t<F>>;

}  // namespace detail

/// `co_await stet::offload(fn)` inside a stet::task: runs `fn()` on the
/// server's offload pool (server_options::offload_threads, shared by all
/// workers) and resumes the task on the worker thread it was suspended on, with
/// fn's result or rethrowing fn's exception. The worker serves other
/// connections meanwhile: this is where blocking calls (a database client, a
/// file system walk, a CPU-heavy step) belong.
///
/// `fn` is moved into the awaiting frame and called there, on a pool thread.
/// The request stays valid until the task ends, even when it is cancelled
/// while `fn` runs (it is released only after `fn` returned), so `fn` may read
/// views into it; it must not call request methods that build memos
/// (headers(), cookies(), query(), json()) the worker may build too: take what
/// `fn` needs before the co_await. When the pool's queue is full, `fn` never
/// runs and the await throws offload_rejected (503 + Retry-After if the
/// handler lets it escape).
///
/// If the answer stops being wanted while `fn` runs (client gone, handler
/// timeout, server stop), `fn` still runs to its end on the pool, its result is
/// dropped and the task is destroyed instead of resumed; if `fn` had not started
/// it never does. Outside a server (router::handle() in a test) `fn` runs inline.
///
/// @note With GCC 12, a lambda that captures something with a destructor (a
/// std::string, a shared_ptr) must not be written inside the co_await
/// expression: that compiler destroys such a temporary twice. Pass the captures
/// as arguments instead, `co_await stet::offload([](db& d, std::int64_t id) {
/// return d.find(id); }, db, id)`, or name the lambda first and pass it as an
/// lvalue. Such a temporary is refused at compile time there.
template <class F>
requires std::invocable < std::decay_t<F>
& > &&std::move_constructible<std::decay_t<F>> detail::offload_awaiter<std::decay_t<F>> offload(F&& fn) {
  static_assert(detail::offload_operand_safe<F&&>,
                "GCC 12 destroys a lambda temporary with non-trivial captures in a co_await expression twice: "
                "write co_await stet::offload(fn, args...) with the captures as arguments, or name the lambda "
                "first and pass it as an lvalue");
  return detail::offload_awaiter<std::decay_t<F>>(std::forward<F>(fn));
}

/// `co_await stet::offload(fn, args...)`: as offload(fn), calling
/// `fn(args...)` on the pool thread with copies of `args` (decayed, made
/// here, on the awaiting thread) passed as lvalues. The way to give an
/// offloaded function what it needs without a capturing lambda: `fn` is
/// typically a lambda without captures.
template <class F, class... A>
requires detail::offloadable_with<F, A...>
    detail::offload_awaiter<detail::bound_call<std::decay_t<F>, std::decay_t<A>...>> offload(F&& fn, A&&... args) {
  using call = detail::bound_call<std::decay_t<F>, std::decay_t<A>...>;
  return detail::offload_awaiter<call>(call{std::forward<F>(fn), {std::forward<A>(args)...}});
}

}  // namespace stet
