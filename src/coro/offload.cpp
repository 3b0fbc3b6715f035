// stet::offload's awaitable: the job is queued on the executor's pool and
// comes back to the executor it left from; the executor is held open
// meanwhile, so a worker whose connection gave up still waits for the
// function to return before its thread may end.
#include <stet/offload.hpp>

#include "coro/executor.hpp"
#include "coro/offload_pool.hpp"

namespace stet {

offload_rejected::offload_rejected(std::chrono::seconds retry_after)
    : std::runtime_error("the offload pool's queue is full"), retry_after_(retry_after) {}

namespace detail {

bool offload_base::start(std::coroutine_handle<> waiter, task_root& root) noexcept {
  executor* at = this_thread_executor();
  offload_pool* to = at != nullptr ? at->pool() : nullptr;
  if (to == nullptr) {
    call(*this);  // outside a server: nowhere else to run it
    return false;
  }
  home = at;
  waiter_ = waiter;
  root_ = &root;
  run = &resumed;
  at->hold();
  if (!to->submit(*this)) {
    at->release();
    rejected_ = true;
    retry_after_ = to->settings().retry_after;
    return false;
  }
  root.at = this;
  return true;
}

bool offload_base::cancel() noexcept {
  if (!pool->withdraw(*this)) return false;  // running: resumed() finds the chain cancelled
  home->release();
  return true;
}

void offload_base::check_accepted() const {
  if (rejected_) throw offload_rejected(retry_after_);
}

void offload_base::resumed(resumable& self) noexcept {
  auto& job = static_cast<offload_base&>(static_cast<offload_job&>(self));
  executor* at = job.home;
  task_root& root = *job.root_;
  if (root.cancelled) job.pool->count_dropped();
  resume_or_destroy(root, job.waiter_);  // `job` may be gone after this
  at->release();
}

}  // namespace detail
}  // namespace stet
