#pragma once
// The thread that runs background refreshes (stale-while-revalidate), so a
// slow handler delays no worker and no client: the stale answer goes out at
// once and the refresh runs here. The queue is bounded (a job holds a copy of
// its request): when it is full the refresh is not queued, and a later stale
// hit asks again.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace stet::detail {

class refresher {
 public:
  explicit refresher(std::size_t max_queued);
  /// Drops the queued jobs and joins the thread (after the running job). Never
  /// called on that thread: a job holds no reference to the cache
  /// (refresh_gate.hpp), so the cache's last reference goes elsewhere.
  ~refresher();
  refresher(const refresher&) = delete;
  refresher& operator=(const refresher&) = delete;

  /// Queues `job` (it must not throw); the thread starts on the first call.
  /// False when the queue is full: `job` was not queued.
  [[nodiscard]] bool post(std::function<void()> job);

 private:
  // Shared with the thread, which owns nothing else.
  struct state {
    std::size_t max_queued = 0;
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void()>> queue;
    bool stopping = false;  // guarded by mutex
  };
  static void run(state& s) noexcept;

  std::shared_ptr<state> state_;
  std::thread thread_;  // guarded by state_->mutex until started
};

}  // namespace stet::detail
