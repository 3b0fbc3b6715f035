#include <stet/sleep.hpp>

#include "coro/executor.hpp"

#include <thread>

namespace stet::detail {

bool sleep_awaiter::start(std::coroutine_handle<> waiter, task_root& root) noexcept {
  home_ = this_thread_executor();
  if (home_ == nullptr) {
    std::this_thread::sleep_for(duration_);  // no loop on this thread to come back to
    return false;
  }
  waiter_ = waiter;
  root_ = &root;
  run = &fired;
  due = std::chrono::steady_clock::now() + duration_;
  home_->start_timer(*this);
  root.at = this;
  return true;
}

bool sleep_awaiter::cancel() noexcept {
  home_->cancel_timer(*this);
  return true;
}

void sleep_awaiter::fired(resumable& self) noexcept {
  auto& me = static_cast<sleep_awaiter&>(static_cast<timer_entry&>(self));
  resume_or_destroy(*me.root_, me.waiter_);
}

}  // namespace stet::detail
