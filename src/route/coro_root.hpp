#pragma once
// A handler's task as the router runs it (start_root(), declared in
// <stet/detail/route_handler.hpp>): started inside dispatch, answered at
// once when it completes without suspending, otherwise through an answer slot
// (coro_pending) that the connection waits on like a responder's, and that
// cancels the task when the connection stops waiting.

#include <stet/response.hpp>
#include <stet/task.hpp>

#include "route/pending_response.hpp"

#include <coroutine>

namespace stet::detail {

/// The answer slot of a handler task that suspended.
class coro_pending final : public pending_response {
 public:
  explicit coro_pending(task_root& root) noexcept : root_(&root) {}

  /// The waiter is gone: the task is destroyed now if its suspension allows,
  /// otherwise when its completion comes back (on the executor's thread).
  void on_abandoned() noexcept override;
  /// The task's frame is gone (finished or destroyed).
  void detach() noexcept { root_ = nullptr; }
  bool holds_request() const noexcept override { return root_ != nullptr; }

 private:
  task_root* root_;
};

/// Destroys a cancelled chain and settles its answer slot (nobody takes it).
void destroy_root(task_root& root) noexcept;

}  // namespace stet::detail
