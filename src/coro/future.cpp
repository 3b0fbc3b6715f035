// stet::future: the promise's side may run on any thread, so the state is
// locked; the waiter is posted back to the executor it was suspended on.
#include <stet/promise.hpp>

#include "coro/executor.hpp"

namespace stet {

broken_promise::broken_promise() : std::logic_error("the promise was destroyed without a value") {}

namespace detail {

bool future_state_base::ready() noexcept {
  const std::lock_guard lock(mutex_);
  return ready_;
}

bool future_state_base::wanted() noexcept {
  const std::lock_guard lock(mutex_);
  return !ready_ && !future_gone_;
}

bool future_state_base::wait(future_waiter& w) noexcept {
  const std::lock_guard lock(mutex_);
  if (ready_) return false;
  waiter_ = &w;
  return true;
}

bool future_state_base::unwait(future_waiter& w) noexcept {
  const std::lock_guard lock(mutex_);
  if (waiter_ != &w) return false;
  waiter_ = nullptr;
  return true;
}

void future_state_base::future_gone() noexcept {
  const std::lock_guard lock(mutex_);
  future_gone_ = true;
}

void future_state_base::break_promise() noexcept {
  std::unique_lock lock(mutex_);
  if (ready_) return;
  error_ = std::make_exception_ptr(broken_promise());
  publish(lock);
}

// Once the waiter is taken here it can no longer be cancelled (unwait() fails),
// so its frame stays until the post arrives.
void future_state_base::publish(std::unique_lock<std::mutex>& lock) noexcept {
  ready_ = true;
  future_waiter* w = std::exchange(waiter_, nullptr);
  lock.unlock();
  if (w != nullptr) w->send_home();
}

bool future_waiter::start(std::coroutine_handle<> waiter, task_root& root) noexcept {
  home_ = this_thread_executor();
  waiter_ = waiter;
  root_ = &root;
  run = &resumed;
  home_->hold();
  if (!state_->wait(*this)) {
    home_->release();
    return false;
  }
  root.at = this;
  return true;
}

void future_waiter::send_home() noexcept { home_->post(*this); }

bool future_waiter::cancel() noexcept {
  if (!state_->unwait(*this)) return false;
  home_->release();
  return true;
}

void future_waiter::resumed(resumable& self) noexcept {
  auto& me = static_cast<future_waiter&>(self);
  executor* at = me.home_;
  resume_or_destroy(*me.root_, me.waiter_);  // `me` may be gone after this
  at->release();
}

}  // namespace detail
}  // namespace stet
