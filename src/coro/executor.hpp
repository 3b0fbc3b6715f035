#pragma once
// Where a suspended task resumes: the thread it was suspended on. A worker
// implements this over its io_context (src/net/server/worker_executor.*),
// router::handle() with a small loop of its own (local_loop.hpp); each installs
// itself as its thread's executor, which stet's awaitables find when they
// suspend. Nothing here knows Asio, so the router may use it.

#include <stet/detail/coro_frame.hpp>

namespace stet::detail {

class offload_pool;

class executor {
 public:
  /// From any thread: calls `r.run(r)` on the executor's thread soon, in
  /// the order posted. `r` must stay alive until then.
  virtual void post(resumable& r) noexcept = 0;
  /// From any thread: keeps the executor's thread serving until release(),
  /// however idle it is otherwise (something will post to it).
  virtual void hold() noexcept = 0;
  virtual void release() noexcept = 0;
  /// On the executor's thread: calls `t.run(t)` there once `t.due` has
  /// passed, unless cancelled first. `t` must stay alive until either.
  virtual void start_timer(timer_entry& t) noexcept = 0;
  virtual void cancel_timer(timer_entry& t) noexcept = 0;
  /// Where offload() sends work from this thread; null: run it inline.
  virtual offload_pool* pool() const noexcept = 0;

 protected:
  executor() = default;
  executor(const executor&) = default;
  executor& operator=(const executor&) = default;
  ~executor() = default;
};

/// The calling thread's executor; null where none is installed.
executor* this_thread_executor() noexcept;

/// Makes `e` the calling thread's executor until destroyed, then restores
/// whichever was installed before.
class executor_scope {
 public:
  explicit executor_scope(executor* e) noexcept;
  executor_scope(const executor_scope&) = delete;
  executor_scope& operator=(const executor_scope&) = delete;
  ~executor_scope();

 private:
  executor* previous_;
};

/// Makes `e` the calling thread's executor (null: none), for a worker's thread.
void install_thread_executor(executor* e) noexcept;

}  // namespace stet::detail
