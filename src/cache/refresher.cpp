#include "cache/refresher.hpp"

namespace stet::detail {

refresher::refresher(std::size_t max_queued) : state_(std::make_shared<state>()) { state_->max_queued = max_queued; }

refresher::~refresher() {
  std::deque<std::function<void()>> dropped;  // destroyed outside the lock
  {
    const std::lock_guard lock(state_->mutex);
    state_->stopping = true;
    dropped.swap(state_->queue);
  }
  state_->wake.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool refresher::post(std::function<void()> job) {
  {
    const std::lock_guard lock(state_->mutex);
    if (state_->stopping || state_->queue.size() >= state_->max_queued) return false;
    state_->queue.push_back(std::move(job));
    if (!thread_.joinable()) thread_ = std::thread([s = state_] { run(*s); });
  }
  state_->wake.notify_one();
  return true;
}

void refresher::run(state& s) noexcept {
  std::unique_lock lock(s.mutex);
  for (;;) {
    s.wake.wait(lock, [&s] { return s.stopping || !s.queue.empty(); });
    if (s.stopping) return;
    std::function<void()> next = std::move(s.queue.front());
    s.queue.pop_front();
    lock.unlock();
    next();
    next = nullptr;  // what the job held goes before the lock is taken again
    lock.lock();
  }
}

}  // namespace stet::detail
