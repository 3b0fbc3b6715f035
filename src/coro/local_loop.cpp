#include "coro/local_loop.hpp"

namespace stet::detail {

// Both notify while holding the lock: once it is released, run_until() may
// see its condition met and return, and the caller of router::handle() may
// destroy this loop, so a notify after the unlock could touch a dead object.
void local_loop::post(resumable& r) noexcept {
  const std::lock_guard lock(mutex_);
  r.next = nullptr;
  (last_ != nullptr ? last_->next : first_) = &r;
  last_ = &r;
  changed_.notify_one();
}

void local_loop::wake() noexcept {
  const std::lock_guard lock(mutex_);
  woken_ = true;
  changed_.notify_one();
}

void local_loop::run_until(const std::function<bool()>& done) {
  std::unique_lock lock(mutex_);
  while (!done()) {
    if (resumable* r = first_) {
      first_ = r->next;
      if (first_ == nullptr) last_ = nullptr;
      lock.unlock();
      r->run(*r);
      lock.lock();
      continue;
    }
    if (timer_entry* t = timers_.pop_due(std::chrono::steady_clock::now())) {
      lock.unlock();
      t->run(*t);
      lock.lock();
      continue;
    }
    const auto woken = [this] { return first_ != nullptr || woken_; };
    if (timers_.empty()) {
      changed_.wait(lock, woken);
    } else {
      changed_.wait_until(lock, timers_.next_due(), woken);
    }
    woken_ = false;
  }
}

}  // namespace stet::detail
