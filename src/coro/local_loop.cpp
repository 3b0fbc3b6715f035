#include "coro/local_loop.hpp"

namespace stet::detail {

// Under the link's lock: a wake that holds it has finished with this loop
// before the loop goes, and one that takes it later finds no loop.
local_loop::~local_loop() {
  if (!link_) return;
  const std::lock_guard lock(link_->mutex);
  link_->loop = nullptr;
}

std::shared_ptr<void> local_loop::waiter() {
  if (!link_) {
    link_ = std::make_shared<link>();
    link_->loop = this;
  }
  return link_;
}

void local_loop::wake_waiter(std::shared_ptr<void> w) noexcept {
  auto& l = *static_cast<link*>(w.get());
  const std::lock_guard lock(l.mutex);
  if (l.loop != nullptr) l.loop->wake();
}

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
