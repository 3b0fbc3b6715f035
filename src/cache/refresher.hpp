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
  /// Drops the queued jobs and waits for the running one (unless this is
  /// called by that job: its last reference to the cache went with it).
  ~refresher();
  refresher(const refresher&) = delete;
  refresher& operator=(const refresher&) = delete;

  /// Queues `job` (it must not throw); the thread starts on the first call.
  /// False when the queue is full: `job` was not queued.
  [[nodiscard]] bool post(std::function<void()> job);

 private:
  // Shared with the thread, which may outlive this object by the end of one job.
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
