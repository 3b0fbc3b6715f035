#pragma once
// A gate that offloaded functions wait at until the test opens it: holds a
// pool thread (an offload "running") for as long as a test needs.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace stet::test {

class gate {
 public:
  void open() {
    {
      const std::lock_guard lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }
  /// Waits until opened (at most 10 s, so a broken test does not hang).
  void pass() {
    entered_.fetch_add(1);
    std::unique_lock lock(mutex_);
    opened_.wait_for(lock, std::chrono::seconds(10), [this] { return open_; });
  }
  /// How many pass() calls came, opened or not.
  int entered() const { return entered_.load(); }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
  std::atomic<int> entered_{0};
};

}  // namespace stet::test
